// Under io=caller, tosa-to-linalg computes a reduction into a buffer without
// the reduced dimension and returns a reshape of it, which
// buffer-results-to-out-params copies into the caller's buffer: the
// reduction's buffer stays in the arena. (Found by the pass fuzzer,
// test/fuzz/pass_fuzz.py: the lowering model moved it to the caller's
// buffer and predicted 48 bytes less than the device needs.)
// By hand: input 1x5x7x2xf32 = 280 B and output 1x5x1x2xf32 = 40 B are the
// caller's; the 1x5x2xf32 buffer (40 B, 48 with 16-byte alignment) is in
// the arena. Predicted peak 280 + 40 + 48 = 368 = the planned bound 48 +
// the caller's 320.
// RUN: mem-opt %s --split-input-file --memory-report="io=caller" -o /dev/null 2>&1 | FileCheck %s --check-prefix=REPORT
// RUN: mem-opt %s --split-input-file --cortex-m-pipeline="stop-after=plan io=caller" | FileCheck %s --check-prefix=PLAN
// REPORT: memory report for @reduce_out: 1 step, peak 368 bytes
// PLAN-LABEL: func.func @reduce_out
// PLAN-SAME: memopt.peak_bytes = 368 : i64
// PLAN-SAME: memplan.lower_bound = 48 : i64
func.func @reduce_out(%arg0: tensor<1x5x7x2xf32>) -> tensor<1x5x1x2xf32> {
  %0 = tosa.reduce_sum %arg0 {axis = 2 : i32} : (tensor<1x5x7x2xf32>) -> tensor<1x5x1x2xf32>
  return %0 : tensor<1x5x1x2xf32>
}

// -----

// The same when an elementwise op overwrites the reduction's buffer on the
// way to the output. By hand: input 1x7x6x3xf32 = 504 B and output
// 1x7x1x3xf32 = 84 B are the caller's; the reduction's 1x7x3xf32 buffer
// (84 B, 96 aligned), which the clamp overwrites, stays in the arena:
// 504 + 84 + 96 = 684.
// PLAN-LABEL: func.func @reduce_clamp_out
// PLAN-SAME: memopt.peak_bytes = 684 : i64
// PLAN-SAME: memplan.lower_bound = 96 : i64
func.func @reduce_clamp_out(%arg0: tensor<1x7x6x3xf32>) -> tensor<1x7x1x3xf32> {
  %0 = tosa.reduce_sum %arg0 {axis = 2 : i32} : (tensor<1x7x6x3xf32>) -> tensor<1x7x1x3xf32>
  %1 = tosa.clamp %0 {max_val = 6.0 : f32, min_val = 0.0 : f32} : (tensor<1x7x1x3xf32>) -> tensor<1x7x1x3xf32>
  return %1 : tensor<1x7x1x3xf32>
}
