// RUN: mem-opt %s --decompose-transpose-conv --verify-diagnostics --split-input-file

// Spatial dimensions unknown: upstream's decomposition leaves the op, and the
// pass says so at it instead of letting TOSA to linalg fail later.
func.func @dynamic_spatial(%arg0: tensor<1x?x?x2xf32>, %w: tensor<3x3x3x2xf32>, %b: tensor<3xf32>) -> tensor<1x?x?x3xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  // expected-error @below {{could not be decomposed into tosa.conv2d (it needs static shapes)}}
  %0 = tosa.transpose_conv2d %arg0, %w, %b, %zp, %zp {acc_type = f32, out_pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x?x?x2xf32>, tensor<3x3x3x2xf32>, tensor<3xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x?x?x3xf32>
  return %0 : tensor<1x?x?x3xf32>
}
