// RUN: not mem-opt %s --pass-pipeline='builtin.module(func.func(patch-prefix{patches=2x1}))' 2>&1 | FileCheck %s

// An op that already carries a malformed patch tag (an empty array) gets an
// error at the op from the memory model the pass consults; nothing crashes.
// CHECK: patch-prefix-invalid-tag.mlir:[[# @LINE + 5]]:8: error: 'memopt.patch' must be array<i64: grid, patch> with non-negative entries
func.func @f(%x: tensor<1x8x8x2xf32>) -> tensor<1x1x4x4xf32> {
  %w = "tosa.const"() <{values = dense<0.25> : tensor<4x3x3x2xf32>}> : () -> tensor<4x3x3x2xf32>
  %b = "tosa.const"() <{values = dense<0.5> : tensor<4xf32>}> : () -> tensor<4xf32>
  %z = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %0 = tosa.conv2d %x, %w, %b, %z, %z {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 1, 0, 1>, stride = array<i64: 2, 2>, memopt.patch = array<i64>} : (tensor<1x8x8x2xf32>, tensor<4x3x3x2xf32>, tensor<4xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x4x4xf32>
  %1 = tosa.reduce_sum %0 {axis = 1 : i32} : (tensor<1x4x4x4xf32>) -> tensor<1x1x4x4xf32>
  return %1 : tensor<1x1x4x4xf32>
}
