// Convolutions written over their dying inputs (Inputs/int8_overwrite.mlir:
// a 1x1 conv into exactly its input's bytes, then a padded 3x3 conv of
// stride 2 whose output starts 16 bytes below its input and takes most of
// it), compiled by mem-opt-compile and run on QEMU in an arena of exactly
// <FN>_ARENA_SIZE bytes surrounded by a canary: the outputs must match
// mem-opt-run's host run of the same TOSA function (upstream MLIR's
// lowering, no arena, no overwrites) bit for bit, on the plain, DSP and MVE
// kernels (run_model.py). A pixel that wrote before reading its window, or
// a shift past the bound, would clobber input bytes a later pixel reads.
// REQUIRES: cortex-m-qemu
// RUN: %run_firmware %S/Inputs/int8_overwrite.mlir --work %t --seed 11 \
// RUN:   --cpu cortex-m4 --cpu cortex-m7 | FileCheck %s
// RUN: %run_firmware %S/Inputs/int8_overwrite.mlir --work %t.caller \
// RUN:   --seed 12 --cpu cortex-m4 --compile-arg=--io=caller | FileCheck %s
// RUN: %run_firmware %S/Inputs/int8_overwrite.mlir --work %t.m55 --seed 13 \
// RUN:   --cpu cortex-m55 | FileCheck %s --check-prefix=M55
// CHECK-NOT: FAIL
// CHECK: OK cortex-m4 on mps2-an386: int8_overwrite: predicted_peak=
// CHECK-NOT: FAIL
// M55-NOT: FAIL
// M55: OK cortex-m55 on mps3-an547: int8_overwrite: predicted_peak=
// M55-NOT: FAIL

// The planned IR has both pairs: conv_b's output at conv_a's offset, conv_c's
// 16 bytes below it.
// RUN: mem-opt %S/Inputs/int8_overwrite.mlir \
// RUN:   --cortex-m-pipeline="stop-after=plan io=arena" | FileCheck %s --check-prefix=PLAN
// PLAN: memplan.place %{{.*}}{{\[}}[[A:[0-9]+]]{{\]}} live [{{.*}}] : memref<{{[0-9]+}}xi8> to memref<1x13x11x8xi8>
// PLAN: memplan.place %{{.*}}{{\[}}[[A]]{{\]}} live [{{.*}}] {memplan.overwrites = [[A]] : i64} : memref<{{[0-9]+}}xi8> to memref<1x13x11x8xi8>
// PLAN: memplan.place %{{.*}}[0] live [{{.*}}] {memplan.overwrites = 16 : i64} : memref<{{[0-9]+}}xi8> to memref<1x7x6x12xi8>
