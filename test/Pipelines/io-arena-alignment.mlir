// Inputs and outputs in the arena (io=arena) take their element's alignment,
// and so does a buffer that an in-place op overwrites with a returned result:
// the lowering computes the output in that buffer, so the model must count
// it at the output's alignment too, or the predicted peak would exceed the
// lowered bound.
//
// By hand: %x is 3 x f32 = 12 bytes (alignment 4, no padding); exp writes a
// fresh 12-byte buffer (%x is an input: read-only); sigmoid overwrites it in
// place and returns it, so that buffer is the output's, 12 bytes (16 if it
// took the arena's alignment: a peak of 28). At exp both are live: 24.
// io=caller: the arena is empty and the caller holds 12 + 12 = 24.
// RUN: mem-opt %s --cortex-m-pipeline="stop-after=plan io=arena" | FileCheck %s --check-prefix=ARENA
// RUN: mem-opt %s --cortex-m-pipeline="stop-after=plan io=caller" | FileCheck %s --check-prefix=CALLER
// ARENA: memopt.peak_bytes = 24 : i64
// ARENA-SAME: memplan.arena_size = 24 : i64
// ARENA-SAME: memplan.input_offsets = array<i64: 0>
// ARENA-SAME: memplan.lower_bound = 24 : i64
// ARENA-SAME: memplan.output_offsets = array<i64: 12>
// ARENA: memplan.arena align 16 : memref<24xi8>
// CALLER: memopt.peak_bytes = 24 : i64
// CALLER-SAME: memplan.arena_size = 0 : i64
func.func @inplace_output(%x: tensor<3xf32>) -> tensor<3xf32> {
  %a = tosa.exp %x : (tensor<3xf32>) -> tensor<3xf32>
  %b = tosa.sigmoid %a : (tensor<3xf32>) -> tensor<3xf32>
  return %b : tensor<3xf32>
}
