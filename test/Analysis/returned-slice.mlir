// The lowering copies a returned slice into a buffer of its own (a strided
// view cannot be a function result), so under io=arena the lowering model
// does not treat it as a view. (Found by the pass fuzzer,
// test/fuzz/pass_fuzz.py: the predicted peak was 16 bytes below the planned
// arena.)
// By hand: input 1x8x7x1xi16 = 112 B, output 1x5x1x1xi16 = 10 B (inputs
// and outputs in the arena take their element's alignment, 2 bytes: no
// padding), both in the arena and live together at the copy: 122, the
// output at byte 112. io=caller: both are the caller's (122 B), the copy
// writes into the caller's output, and the arena is empty.
// RUN: mem-opt %s --cortex-m-pipeline="stop-after=plan io=arena" | FileCheck %s --check-prefix=ARENA
// RUN: mem-opt %s --cortex-m-pipeline="stop-after=plan io=caller" | FileCheck %s --check-prefix=CALLER
// ARENA: memopt.peak_bytes = 122 : i64
// ARENA-SAME: memplan.arena_size = 122 : i64
// ARENA-SAME: memplan.lower_bound = 122 : i64
// ARENA-SAME: memplan.output_offsets = array<i64: 112>
// CALLER: memopt.peak_bytes = 122 : i64
// CALLER-SAME: memplan.lower_bound = 0 : i64
func.func @returned_slice(%arg0: tensor<1x8x7x1xi16>) -> tensor<1x5x1x1xi16> {
  %start = tosa.const_shape {values = dense<[0, 0, 1, 0]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %size = tosa.const_shape {values = dense<[1, 5, 1, 1]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %0 = tosa.slice %arg0, %start, %size : (tensor<1x8x7x1xi16>, !tosa.shape<4>, !tosa.shape<4>) -> tensor<1x5x1x1xi16>
  return %0 : tensor<1x5x1x1xi16>
}
