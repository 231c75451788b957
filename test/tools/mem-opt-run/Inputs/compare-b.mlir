// compare.mlir: @conv is split by input channel (equal up to rounding),
// @iadd adds in the other order (bit-exact), @shift adds 1e-3.
func.func @conv(%x: tensor<1x4x4x3xf32>) -> tensor<1x4x4x2xf32> {
  %s0 = tosa.const_shape {values = dense<[0, 0, 0, 0]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %n0 = tosa.const_shape {values = dense<[1, 4, 4, 2]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %s2 = tosa.const_shape {values = dense<[0, 0, 0, 2]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %n2 = tosa.const_shape {values = dense<[1, 4, 4, 1]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %x01 = tosa.slice %x, %s0, %n0 : (tensor<1x4x4x3xf32>, !tosa.shape<4>, !tosa.shape<4>) -> tensor<1x4x4x2xf32>
  %x2 = tosa.slice %x, %s2, %n2 : (tensor<1x4x4x3xf32>, !tosa.shape<4>, !tosa.shape<4>) -> tensor<1x4x4x1xf32>
  %w01 = "tosa.const"() <{values = dense<[[[[0.5, -1.0]]], [[[1.0, 2.0]]]]> : tensor<2x1x1x2xf32>}> : () -> tensor<2x1x1x2xf32>
  %w2 = "tosa.const"() <{values = dense<[[[[0.25]]], [[[-0.75]]]]> : tensor<2x1x1x1xf32>}> : () -> tensor<2x1x1x1xf32>
  %b = "tosa.const"() <{values = dense<[0.5, -0.5]> : tensor<2xf32>}> : () -> tensor<2xf32>
  %b0 = "tosa.const"() <{values = dense<0.0> : tensor<2xf32>}> : () -> tensor<2xf32>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %0 = tosa.conv2d %x01, %w01, %b, %zp, %zp {acc_type = f32, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>} : (tensor<1x4x4x2xf32>, tensor<2x1x1x2xf32>, tensor<2xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x4x2xf32>
  %1 = tosa.conv2d %x2, %w2, %b0, %zp, %zp {acc_type = f32, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>} : (tensor<1x4x4x1xf32>, tensor<2x1x1x1xf32>, tensor<2xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x4x2xf32>
  %2 = tosa.add %0, %1 : (tensor<1x4x4x2xf32>, tensor<1x4x4x2xf32>) -> tensor<1x4x4x2xf32>
  return %2 : tensor<1x4x4x2xf32>
}
func.func @iadd(%x: tensor<2x3xi32>, %y: tensor<2x3xi32>) -> tensor<2x3xi32> {
  %0 = tosa.add %y, %x : (tensor<2x3xi32>, tensor<2x3xi32>) -> tensor<2x3xi32>
  return %0 : tensor<2x3xi32>
}
func.func @shift(%x: tensor<8xf32>) -> tensor<8xf32> {
  %c = "tosa.const"() <{values = dense<1.0e-3> : tensor<8xf32>}> : () -> tensor<8xf32>
  %0 = tosa.add %x, %c : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}
