// RUN: mem-opt %s --split-input-file --partition-concat=mode=always | FileCheck %s

// Sites that are not legal stay as they are, even with mode=always.

// A concat along H (axis 1), not channels.
// CHECK-LABEL: func.func @concat_not_channels
// CHECK: tosa.concat
// CHECK: tosa.conv2d
// CHECK-NOT: tosa.conv2d
// CHECK-NOT: memopt.accumulate
// CHECK: return
func.func @concat_not_channels(%a: tensor<1x4x8x4xf32>, %b: tensor<1x4x8x4xf32>) -> tensor<1x8x8x2xf32> {
  %cat = tosa.concat %a, %b {axis = 1 : i32} : (tensor<1x4x8x4xf32>, tensor<1x4x8x4xf32>) -> tensor<1x8x8x4xf32>
  %w = "tosa.const"() <{values = dense<1.0> : tensor<2x1x1x4xf32>}> : () -> tensor<2x1x1x4xf32>
  %bias = "tosa.const"() <{values = dense<0.0> : tensor<2xf32>}> : () -> tensor<2xf32>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %y = tosa.conv2d %cat, %w, %bias, %zp, %zp {acc_type = f32, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>} : (tensor<1x8x8x4xf32>, tensor<2x1x1x4xf32>, tensor<2xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x8x2xf32>
  return %y : tensor<1x8x8x2xf32>
}

// -----

// A binary op between concat and conv does not commute with the concat.
// CHECK-LABEL: func.func @binary_in_between
// CHECK: tosa.concat
// CHECK: tosa.add
// CHECK: tosa.conv2d
// CHECK-NOT: tosa.conv2d
// CHECK: return
func.func @binary_in_between(%a: tensor<1x4x4x2xf32>, %b: tensor<1x4x4x2xf32>, %c: tensor<1x4x4x4xf32>) -> tensor<1x4x4x2xf32> {
  %cat = tosa.concat %a, %b {axis = 3 : i32} : (tensor<1x4x4x2xf32>, tensor<1x4x4x2xf32>) -> tensor<1x4x4x4xf32>
  %s = tosa.add %cat, %c : (tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  %w = "tosa.const"() <{values = dense<1.0> : tensor<2x1x1x4xf32>}> : () -> tensor<2x1x1x4xf32>
  %bias = "tosa.const"() <{values = dense<0.0> : tensor<2xf32>}> : () -> tensor<2xf32>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %y = tosa.conv2d %s, %w, %bias, %zp, %zp {acc_type = f32, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>} : (tensor<1x4x4x4xf32>, tensor<2x1x1x4xf32>, tensor<2xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x4x2xf32>
  return %y : tensor<1x4x4x2xf32>
}

// -----

// int16 x int8 convolutions accumulate in i48, which tosa.add cannot sum.
// CHECK-LABEL: func.func @i48_accumulator
// CHECK: tosa.concat
// CHECK: tosa.conv2d
// CHECK-NOT: tosa.conv2d
// CHECK: return
func.func @i48_accumulator(%a: tensor<1x4x4x2xi16>, %b: tensor<1x4x4x2xi16>) -> tensor<1x4x4x2xi48> {
  %cat = tosa.concat %a, %b {axis = 3 : i32} : (tensor<1x4x4x2xi16>, tensor<1x4x4x2xi16>) -> tensor<1x4x4x4xi16>
  %w = "tosa.const"() <{values = dense<1> : tensor<2x1x1x4xi8>}> : () -> tensor<2x1x1x4xi8>
  %bias = "tosa.const"() <{values = dense<0> : tensor<2xi48>}> : () -> tensor<2xi48>
  %izp = "tosa.const"() <{values = dense<0> : tensor<1xi16>}> : () -> tensor<1xi16>
  %wzp = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %y = tosa.conv2d %cat, %w, %bias, %izp, %wzp {acc_type = i48, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>} : (tensor<1x4x4x4xi16>, tensor<2x1x1x4xi8>, tensor<2xi48>, tensor<1xi16>, tensor<1xi8>) -> tensor<1x4x4x2xi48>
  return %y : tensor<1x4x4x2xi48>
}

// -----

// A per-channel rescale whose parameters are not constants cannot be sliced
// at compile time.
// CHECK-LABEL: func.func @rescale_dynamic_params
// CHECK: tosa.concat
// CHECK: tosa.rescale
// CHECK: tosa.conv2d
// CHECK-NOT: tosa.conv2d
// CHECK: return
func.func @rescale_dynamic_params(%a: tensor<1x4x4x2xi8>, %b: tensor<1x4x4x2xi8>, %m: tensor<4xi32>) -> tensor<1x4x4x2xi32> {
  %cat = tosa.concat %a, %b {axis = 3 : i32} : (tensor<1x4x4x2xi8>, tensor<1x4x4x2xi8>) -> tensor<1x4x4x4xi8>
  %s = "tosa.const"() <{values = dense<30> : tensor<4xi8>}> : () -> tensor<4xi8>
  %zp = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %r = tosa.rescale %cat, %m, %s, %zp, %zp {scale32 = true, rounding_mode = SINGLE_ROUND, per_channel = true, input_unsigned = false, output_unsigned = false} : (tensor<1x4x4x4xi8>, tensor<4xi32>, tensor<4xi8>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x4x4x4xi8>
  %w = "tosa.const"() <{values = dense<1> : tensor<2x1x1x4xi8>}> : () -> tensor<2x1x1x4xi8>
  %bias = "tosa.const"() <{values = dense<0> : tensor<2xi32>}> : () -> tensor<2xi32>
  %y = tosa.conv2d %r, %w, %bias, %zp, %zp {acc_type = i32, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>} : (tensor<1x4x4x4xi8>, tensor<2x1x1x4xi8>, tensor<2xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x4x4x2xi32>
  return %y : tensor<1x4x4x2xi32>
}

// -----

// Weights that are not constants are legal: they are sliced at run time
// with tosa.slice.
// CHECK-LABEL: func.func @runtime_weights
// CHECK-DAG: %[[S0:.*]] = tosa.const_shape {values = dense<0> : tensor<4xindex>}
// CHECK-DAG: %[[N0:.*]] = tosa.const_shape {values = dense<[2, 1, 1, 3]> : tensor<4xindex>}
// CHECK-DAG: %[[S1:.*]] = tosa.const_shape {values = dense<[0, 0, 0, 3]> : tensor<4xindex>}
// CHECK-DAG: %[[N1:.*]] = tosa.const_shape {values = dense<[2, 1, 1, 1]> : tensor<4xindex>}
// CHECK-DAG: %[[W0:.*]] = tosa.slice %arg2, %[[S0]], %[[N0]] : (tensor<2x1x1x4xf32>, !tosa.shape<4>, !tosa.shape<4>) -> tensor<2x1x1x3xf32>
// CHECK-DAG: %[[W1:.*]] = tosa.slice %arg2, %[[S1]], %[[N1]] : (tensor<2x1x1x4xf32>, !tosa.shape<4>, !tosa.shape<4>) -> tensor<2x1x1x1xf32>
// CHECK-DAG: tosa.conv2d %arg0, %[[W0]]
// CHECK-DAG: tosa.conv2d %arg1, %[[W1]]
// CHECK: tosa.add {{.*}} {memopt.accumulate}
func.func @runtime_weights(%a: tensor<1x4x4x3xf32>, %b: tensor<1x4x4x1xf32>, %w: tensor<2x1x1x4xf32>) -> tensor<1x4x4x2xf32> {
  %cat = tosa.concat %a, %b {axis = 3 : i32} : (tensor<1x4x4x3xf32>, tensor<1x4x4x1xf32>) -> tensor<1x4x4x4xf32>
  %bias = "tosa.const"() <{values = dense<0.0> : tensor<2xf32>}> : () -> tensor<2xf32>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %y = tosa.conv2d %cat, %w, %bias, %zp, %zp {acc_type = f32, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>} : (tensor<1x4x4x4xf32>, tensor<2x1x1x4xf32>, tensor<2xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x4x2xf32>
  return %y : tensor<1x4x4x2xf32>
}
