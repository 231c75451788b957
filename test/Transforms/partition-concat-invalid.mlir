// RUN: mem-opt %s --split-input-file --allow-unregistered-dialect --partition-concat --verify-diagnostics

// mode=auto judges a site with the memory model; a function it cannot model
// is an error at the offending op and at the function.
// expected-error @+1 {{partition-concat: mode=auto needs the memory model of @unknown_op; use mode=always}}
func.func @unknown_op(%a: tensor<1x4x4x2xf32>, %b: tensor<1x4x4x2xf32>) -> tensor<1x4x4x2xf32> {
  // expected-error @+1 {{'foo.producer' op is an unknown op producing tensors}}
  %c = "foo.producer"(%a) : (tensor<1x4x4x2xf32>) -> tensor<1x4x4x2xf32>
  %cat = tosa.concat %c, %b {axis = 3 : i32} : (tensor<1x4x4x2xf32>, tensor<1x4x4x2xf32>) -> tensor<1x4x4x4xf32>
  %w = "tosa.const"() <{values = dense<1.0> : tensor<2x1x1x4xf32>}> : () -> tensor<2x1x1x4xf32>
  %bias = "tosa.const"() <{values = dense<0.0> : tensor<2xf32>}> : () -> tensor<2xf32>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %y = tosa.conv2d %cat, %w, %bias, %zp, %zp {acc_type = f32, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>} : (tensor<1x4x4x4xf32>, tensor<2x1x1x4xf32>, tensor<2xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x4x2xf32>
  return %y : tensor<1x4x4x2xf32>
}

// -----

// Without a site, auto mode does not need the model: no error.
func.func @no_site(%a: tensor<1x4x4x2xf32>) -> tensor<1x4x4x2xf32> {
  %c = "foo.producer"(%a) : (tensor<1x4x4x2xf32>) -> tensor<1x4x4x2xf32>
  return %c : tensor<1x4x4x2xf32>
}
