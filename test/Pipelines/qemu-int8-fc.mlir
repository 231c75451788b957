// The fully connected layers of Inputs/int8_fc.mlir (cortex-m-fully-connected.mlir:
// accumulators in a stack slot, arena 96 bytes), compiled by mem-opt-compile
// for Cortex-M4, M7 and M55 (DSP and MVE kernels, the input zero point
// folded into the bias of each block), run on QEMU in an arena of exactly
// <FN>_ARENA_SIZE bytes surrounded by a canary; the outputs must match
// mem-opt-run's host run of the same TOSA function bit for bit
// (run_model.py), for several seeded inputs.
// REQUIRES: cortex-m-qemu
// RUN: %run_firmware %S/Inputs/int8_fc.mlir --work %t --seed 3 \
// RUN:   --cpu cortex-m4 --cpu cortex-m7 --cpu cortex-m55 | FileCheck %s
// RUN: %run_firmware %S/Inputs/int8_fc.mlir --work %t.s9 --seed 9 \
// RUN:   --cpu cortex-m4 --cpu cortex-m55 --compile-arg=--io=caller | FileCheck %s --check-prefix=CALLER
// CHECK-NOT: FAIL
// CHECK: OK cortex-m4 on mps2-an386: int8_fc: predicted_peak=96
// CHECK-NOT: FAIL
// CHECK: OK cortex-m7 on mps2-an500: int8_fc: predicted_peak=96
// CHECK-NOT: FAIL
// CHECK: OK cortex-m55 on mps3-an547: int8_fc: predicted_peak=96
// CHECK-NOT: FAIL
// CALLER-NOT: FAIL
// CALLER: OK cortex-m4 on mps2-an386: int8_fc: predicted_peak=151
// CALLER-NOT: FAIL
// CALLER: OK cortex-m55 on mps3-an547: int8_fc: predicted_peak=151
// CALLER-NOT: FAIL
