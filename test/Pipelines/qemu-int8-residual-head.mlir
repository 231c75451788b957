// The fused int32 steps of an int8 residual add and a mean pooling (fuse-elementwise-groups; non-zero zero points), compiled by
// mem-opt-compile for Cortex-M4 and Cortex-M7, runs on QEMU's mps2-an386 and
// mps2-an500 in an arena of exactly <FN>_ARENA_SIZE bytes surrounded by a
// canary; its outputs must match mem-opt-run's host run of the same TOSA
// function (bit-exact), and the object must not reference
// malloc, free or memrefCopy (run_model.py).
// REQUIRES: cortex-m-qemu
// RUN: %run_firmware %S/Inputs/int8_residual_head.mlir --work %t --seed 5 \
// RUN:   --cpu cortex-m4 --cpu cortex-m7 | FileCheck %s
// The same with the inputs and outputs in the caller's buffers (io=caller).
// RUN: %run_firmware %S/Inputs/int8_residual_head.mlir --work %t.caller --seed 5 \
// RUN:   --cpu cortex-m4 --cpu cortex-m7 --compile-arg=--io=caller | FileCheck %s
// Its clamps are computed four bytes at a time (arm-dsp-int8-kernels: SSUB8
// sets the GE flags, SEL picks element or bound per byte).
// RUN: llvm-objdump -d %t/cortex-m4/model.o | FileCheck %s --check-prefix=ASM
// ASM: ssub8
// ASM-NEXT: sel
// CHECK-NOT: FAIL
// CHECK: OK cortex-m4 on mps2-an386: int8_residual_head: predicted_peak=
// CHECK-NOT: FAIL
// CHECK: OK cortex-m7 on mps2-an500: int8_residual_head: predicted_peak=
// CHECK-NOT: FAIL
