// The DSP kernels of arm-dsp-int8-kernels (SXTB16, SADD16, SMLAD, SMLABB,
// SMLATT) against the host: convolutions and depthwise convolutions with
// channel counts that are not multiples of 4 or of the output channel block
// (scalar tails), padding, stride 2, dilation 2, input zero points -7, -128
// and 127, a weight zero point of 5 and an in-place depthwise (strided filter
// slices), compiled by mem-opt-compile for Cortex-M4 and Cortex-M7, run on
// QEMU's mps2-an386 and mps2-an500 in an arena of exactly <FN>_ARENA_SIZE
// bytes surrounded by a canary; the outputs must match mem-opt-run's host run
// of the same TOSA function (upstream MLIR's lowering, no DSP) bit for bit
// (run_model.py). The same with the kernels off (--dsp-kernels=false), and
// with the inputs and outputs in the caller's buffers.
// REQUIRES: cortex-m-qemu
// RUN: %run_firmware %S/Inputs/int8_dsp.mlir --work %t --seed 5 \
// RUN:   --cpu cortex-m4 --cpu cortex-m7 | FileCheck %s
// RUN: %run_firmware %S/Inputs/int8_dsp.mlir --work %t.off --seed 6 \
// RUN:   --cpu cortex-m4 --compile-arg=--dsp-kernels=false \
// RUN:   | FileCheck %s --check-prefix=OFF
// RUN: %run_firmware %S/Inputs/int8_dsp.mlir --work %t.caller --seed 7 \
// RUN:   --cpu cortex-m4 --cpu cortex-m7 --compile-arg=--io=caller \
// RUN:   | FileCheck %s
// The object really has the kernels: every one of the six layers uses them.
// RUN: llvm-objdump -d %t/cortex-m4/model.o | FileCheck %s --check-prefix=ASM
// CHECK-NOT: FAIL
// CHECK: OK cortex-m4 on mps2-an386: int8_dsp: predicted_peak=
// CHECK-NOT: FAIL
// CHECK: OK cortex-m7 on mps2-an500: int8_dsp: predicted_peak=
// CHECK-NOT: FAIL
// OFF-NOT: FAIL
// OFF: OK cortex-m4 on mps2-an386: int8_dsp: predicted_peak=
// ASM-DAG: sxtb16
// ASM-DAG: sadd16
// ASM-DAG: smlad
// ASM-DAG: smlabb
// ASM-DAG: smlatt
