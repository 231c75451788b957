// The DSP convolution kernels' shape classes of issue 26 against the host:
// padded first layers of 1 and 6 input channels (5x4 and 3x3 kernels,
// stride 2, input zero points 83 and -128), whose border windows are filled
// and copied and read without bounds checks, and filters widened to halfword
// pairs by arm-dsp-widen-filters (a 1x1 conv with weight zero point 5, a
// padded 3x3 conv of 12 input channels with an output channel tail; a fully
// connected layer, read as blocks of filter rows, stays int8), compiled by
// mem-opt-compile for Cortex-M4 and Cortex-M7 and run on QEMU in an arena of
// exactly <FN>_ARENA_SIZE bytes surrounded by a canary; the outputs must
// match mem-opt-run's host run of the same TOSA function (upstream MLIR's
// lowering, no DSP) bit for bit (run_model.py). The same at
// --optimize=memory, which keeps the int8 filters.
// REQUIRES: cortex-m-qemu
// RUN: %run_firmware %S/Inputs/int8_conv.mlir --work %t --seed 26 \
// RUN:   --cpu cortex-m4 --cpu cortex-m7 | FileCheck %s
// RUN: %run_firmware %S/Inputs/int8_conv.mlir --work %t.mem --seed 27 \
// RUN:   --cpu cortex-m4 --compile-arg=--optimize=memory \
// RUN:   | FileCheck %s --check-prefix=MEM
// The widened filters are read two words at a time (LDRD) and only the
// input is widened; --optimize=memory widens both operands.
// RUN: llvm-objdump -d %t/cortex-m4/model.o | FileCheck %s --check-prefix=ASM
// RUN: llvm-readelf -s %t/cortex-m4/model.o | FileCheck %s --check-prefix=SYM
// RUN: llvm-readelf -s %t/cortex-m4/model.o | FileCheck %s --check-prefix=FC
// RUN: llvm-readelf -s %t.mem/cortex-m4/model.o \
// RUN:   | FileCheck %s --check-prefix=MEMSYM
// CHECK-NOT: FAIL
// CHECK: OK cortex-m4 on mps2-an386: int8_conv: predicted_peak=
// CHECK-NOT: FAIL
// CHECK: OK cortex-m7 on mps2-an500: int8_conv: predicted_peak=
// CHECK-NOT: FAIL
// MEM-NOT: FAIL
// MEM: OK cortex-m4 on mps2-an386: int8_conv: predicted_peak=
// ASM-DAG: ldrd
// ASM-DAG: smlad
// ASM-DAG: sxtb16
// SYM-DAG: __constant_5x3x3x12xi8_w16
// SYM-DAG: __constant_12x1x1x8xi8_w16
// FC-NOT: __constant_12x1x1x16xi8_w16
// MEMSYM-NOT: _w16
