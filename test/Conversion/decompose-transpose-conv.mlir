// RUN: mem-opt %s --decompose-transpose-conv | FileCheck %s
// RUN: mem-opt %s --decompose-transpose-conv -o %t.mlir
// RUN: mem-opt-run --compare %s %t.mlir --seeds=5 | FileCheck %s --check-prefix=SAME
// RUN: mem-opt %s --cortex-m-pipeline="stop-after=plan" | FileCheck %s --check-prefix=PLAN

// A stride-1 transposed convolution of a 4x4x2 image by 3x3 kernels (3 out
// channels) is a convolution with padding k - 1 = 2 of the weights reversed
// in height and width. Weights are OHWI: the reversed constant starts with
// w[0][2][2] = [1.0, -0.5], then w[0][2][1] = [1.5, 2.0], w[0][2][0] =
// [0.0, 1.0]. The reversal is folded, not left to run.
// CHECK-LABEL: func.func @tconv
// CHECK-NOT: tosa.transpose_conv2d
// CHECK-NOT: tosa.reverse
// CHECK: "tosa.const"() <{values = dense<{{\[\[\[\[}}1.000000e+00, -5.000000e-01], [1.500000e+00, 2.000000e+00], [0.000000e+00, 1.000000e+00]]
// CHECK: tosa.conv2d %arg0, {{.*}} pad = array<i64: 2, 2, 2, 2>, stride = array<i64: 1, 1>

// Against upstream's decomposition, whose reversal runs on the host.
// SAME: OK: 1 function(s)

// The model sees the convolution: output 6x6x3 f32 (432 B), input 4x4x2 f32
// (128 B, in the arena), one 3x3x2 f32 window of the padded input per output
// pixel (72 B, 80 at 16-byte alignment): 640 B predicted and placed.
// PLAN: memopt.peak_bytes = 640
// PLAN-SAME: memplan.arena_size = 640
func.func @tconv(%arg0: tensor<1x4x4x2xf32>) -> tensor<1x6x6x3xf32> {
  %w = "tosa.const"() <{values = dense<[[[[1.0, 2.0], [0.5, -1.0], [0.25, 1.0]], [[2.0, 0.0], [1.0, 1.0], [-1.0, 0.5]], [[0.0, 1.0], [1.5, 2.0], [1.0, -0.5]]], [[[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]], [[0.5, 0.5], [2.0, -2.0], [0.0, 0.25]], [[1.0, 2.0], [3.0, 1.0], [-1.0, -1.0]]], [[[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]], [[1.0, 1.0], [1.0, 1.0], [1.0, 1.0]], [[2.0, 1.0], [0.5, 0.5], [0.0, 2.0]]]]> : tensor<3x3x3x2xf32>}> : () -> tensor<3x3x3x2xf32>
  %b = "tosa.const"() <{values = dense<[0.5, -1.0, 2.0]> : tensor<3xf32>}> : () -> tensor<3xf32>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %0 = tosa.transpose_conv2d %arg0, %w, %b, %zp, %zp {acc_type = f32, out_pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x4x4x2xf32>, tensor<3x3x3x2xf32>, tensor<3xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x6x6x3xf32>
  return %0 : tensor<1x6x6x3xf32>
}
