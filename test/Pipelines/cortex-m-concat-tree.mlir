// A binary tree of 2-operand concats over 128 leaves (127 concats, each
// within TOSA level 8K's MAX_TENSOR_LIST_SIZE of 64) is a valid input.
// Canonicalization folds it into one concat of 128 operands; the pipeline
// still accepts it, and lowers and plans the one concat (no buffer for any
// inner concat).
// RUN: %python %memopt_src/benchmarks/scale-gen.py concat 256 > %t.mlir
// RUN: mem-opt %t.mlir --cortex-m-pipeline=stop-after=linalg | FileCheck %s
// RUN: mem-opt %t.mlir --cortex-m-pipeline=stop-after=plan | FileCheck %s --check-prefix=PLAN

// One destination of all 128 channels; no destination of a subtree.
// CHECK-NOT: tensor<1x4x4x64xf32>
// CHECK: tensor.empty() : tensor<1x4x4x128xf32>
// CHECK-COUNT-128: tensor.insert_slice
// CHECK-NOT: tensor.insert_slice
// CHECK-NOT: tensor.empty

// Hand count (io=arena, f32): the 128 leaves (1x4x4x1, 64 bytes each) are
// all live when the concat copies them into its 128 x 64 = 8192-byte
// buffer: 8192 + 8192 = 16384 bytes (the 64-byte input dies at the last
// leaf, before the concat). The schedule's peak, the liveness bound of the
// planned buffers and the arena agree.
// PLAN: memopt.peak_bytes = 16384
// PLAN-SAME: memplan.arena_size = 16384
// PLAN-SAME: memplan.lower_bound = 16384
