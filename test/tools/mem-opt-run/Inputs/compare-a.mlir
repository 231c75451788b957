// Reference functions for compare.mlir.
func.func @conv(%x: tensor<1x4x4x3xf32>) -> tensor<1x4x4x2xf32> {
  %w = "tosa.const"() <{values = dense<[[[[0.5, -1.0, 0.25]]], [[[1.0, 2.0, -0.75]]]]> : tensor<2x1x1x3xf32>}> : () -> tensor<2x1x1x3xf32>
  %b = "tosa.const"() <{values = dense<[0.5, -0.5]> : tensor<2xf32>}> : () -> tensor<2xf32>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %0 = tosa.conv2d %x, %w, %b, %zp, %zp {acc_type = f32, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>} : (tensor<1x4x4x3xf32>, tensor<2x1x1x3xf32>, tensor<2xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x4x2xf32>
  return %0 : tensor<1x4x4x2xf32>
}
func.func @iadd(%x: tensor<2x3xi32>, %y: tensor<2x3xi32>) -> tensor<2x3xi32> {
  %0 = tosa.add %x, %y : (tensor<2x3xi32>, tensor<2x3xi32>) -> tensor<2x3xi32>
  return %0 : tensor<2x3xi32>
}
func.func @shift(%x: tensor<8xf32>) -> tensor<8xf32> {
  return %x : tensor<8xf32>
}
