// tosa-to-linalg resizes an input of height or width 1 that grows at that
// size first, into a buffer of its own, and broadcasts it into the output
// (upstream's MaterializeResizeBroadcast); the lowering model counts that
// buffer. (Found by the pass fuzzer, test/fuzz/pass_fuzz.py: the predicted
// peak was below the planned bytes.)
// RUN: mem-opt %s --split-input-file --cortex-m-pipeline="stop-after=plan io=arena" | FileCheck %s --check-prefix=ARENA
// RUN: mem-opt %s --split-input-file --cortex-m-pipeline="stop-after=plan io=caller" | FileCheck %s --check-prefix=CALLER

// By hand (16-byte alignment): input 1x1x7x1xf32 = 28 B (32), the resized
// 1x1x14x1xf32 = 56 B (64), output 1x2x14x1xf32 = 112 B. The input dies
// once resized: peak max(32 + 64, 64 + 112) = 176. io=caller: the caller's
// 28 + 112 = 140 B plus the 64-byte buffer in the arena = 204.
// ARENA-LABEL: func.func @unit_height
// ARENA-SAME: memopt.peak_bytes = 176 : i64
// ARENA-SAME: memplan.lower_bound = 176 : i64
// CALLER-LABEL: func.func @unit_height
// CALLER-SAME: memopt.peak_bytes = 204 : i64
// CALLER-SAME: memplan.lower_bound = 64 : i64
func.func @unit_height(%arg0: tensor<1x1x7x1xf32>) -> tensor<1x2x14x1xf32> {
  %s = tosa.const_shape {values = dense<[2, 1, 2, 1]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %o = tosa.const_shape {values = dense<0> : tensor<2xindex>} : () -> !tosa.shape<2>
  %b = tosa.const_shape {values = dense<1> : tensor<2xindex>} : () -> !tosa.shape<2>
  %0 = tosa.resize %arg0, %s, %o, %b {mode = NEAREST_NEIGHBOR} : (tensor<1x1x7x1xf32>, !tosa.shape<4>, !tosa.shape<2>, !tosa.shape<2>) -> tensor<1x2x14x1xf32>
  return %0 : tensor<1x2x14x1xf32>
}

// -----

// A 1x1 input has nothing left to resize: it is broadcast as is, with no
// buffer. io=caller: 1x1x1x3xf32 = 12 B and 1x2x2x3xf32 = 48 B, all the
// caller's: 60, and an empty arena.
// CALLER-LABEL: func.func @unit_both
// CALLER-SAME: memopt.peak_bytes = 60 : i64
// CALLER-SAME: memplan.lower_bound = 0 : i64
func.func @unit_both(%arg0: tensor<1x1x1x3xf32>) -> tensor<1x2x2x3xf32> {
  %s = tosa.const_shape {values = dense<[2, 1, 2, 1]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %o = tosa.const_shape {values = dense<0> : tensor<2xindex>} : () -> !tosa.shape<2>
  %b = tosa.const_shape {values = dense<1> : tensor<2xindex>} : () -> !tosa.shape<2>
  %0 = tosa.resize %arg0, %s, %o, %b {mode = NEAREST_NEIGHBOR} : (tensor<1x1x1x3xf32>, !tosa.shape<4>, !tosa.shape<2>, !tosa.shape<2>) -> tensor<1x2x2x3xf32>
  return %0 : tensor<1x2x2x3xf32>
}
