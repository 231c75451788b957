// RUN: mem-opt %s --split-input-file --partition-concat=mode=always | FileCheck %s
// RUN: mem-opt %s --split-input-file --partition-concat="mode=always conv=false" | FileCheck %s --check-prefix=NOCONV

// The rewritten IR of legal sites. Correctness of the values is checked by
// execution (test/Differential, test/tools/mem-opt-run); here the structure:
// weights sliced by input channel, bias once, partials accumulated in order.

// f32, three branches (4 + 2 + 2 channels), 3x3 kernel, pad 1.
// CHECK-LABEL: func.func @conv_f32_3x3
// CHECK-SAME: (%[[A:.*]]: tensor<1x8x8x4xf32>, %[[B:.*]]: tensor<1x8x8x2xf32>, %[[C:.*]]: tensor<1x8x8x2xf32>)
// CHECK-NOT: tosa.concat
// CHECK-DAG: %[[BIAS:.*]] = "tosa.const"() <{values = dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>}>
// CHECK-DAG: %[[W0:.*]] = "tosa.const"() <{values = dense<5.000000e-01> : tensor<2x3x3x4xf32>}>
// CHECK-DAG: %[[ZERO:.*]] = "tosa.const"() <{values = dense<0.000000e+00> : tensor<2xf32>}>
// CHECK-DAG: %[[P0:.*]] = tosa.conv2d %[[A]], %[[W0]], %[[BIAS]], %{{.*}}, %{{.*}} {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>} : (tensor<1x8x8x4xf32>, tensor<2x3x3x4xf32>, tensor<2xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x8x2xf32>
// CHECK-DAG: %[[P1:.*]] = tosa.conv2d %[[B]], %{{.*}}, %[[ZERO]], {{.*}} : (tensor<1x8x8x2xf32>, tensor<2x3x3x2xf32>, tensor<2xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x8x2xf32>
// CHECK: %[[S1:.*]] = tosa.add %[[P0]], %[[P1]] {memopt.accumulate}
// CHECK: %[[P2:.*]] = tosa.conv2d %[[C]], %{{.*}}, %[[ZERO]], {{.*}} -> tensor<1x8x8x2xf32>
// CHECK: %[[S2:.*]] = tosa.add %[[S1]], %[[P2]] {memopt.accumulate}
// CHECK: return %[[S2]]
// NOCONV-LABEL: func.func @conv_f32_3x3
// NOCONV: tosa.concat
// NOCONV: tosa.conv2d
// NOCONV-NEXT: return
func.func @conv_f32_3x3(%a: tensor<1x8x8x4xf32>, %b: tensor<1x8x8x2xf32>, %c: tensor<1x8x8x2xf32>) -> tensor<1x8x8x2xf32> {
  %cat = tosa.concat %a, %b, %c {axis = 3 : i32} : (tensor<1x8x8x4xf32>, tensor<1x8x8x2xf32>, tensor<1x8x8x2xf32>) -> tensor<1x8x8x8xf32>
  %w = "tosa.const"() <{values = dense<0.5> : tensor<2x3x3x8xf32>}> : () -> tensor<2x3x3x8xf32>
  %bias = "tosa.const"() <{values = dense<[1.0, 2.0]> : tensor<2xf32>}> : () -> tensor<2xf32>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %y = tosa.conv2d %cat, %w, %bias, %zp, %zp {acc_type = f32, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>} : (tensor<1x8x8x8xf32>, tensor<2x3x3x8xf32>, tensor<2xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x8x2xf32>
  return %y : tensor<1x8x8x2xf32>
}

// -----

// int8 with ReLU between concat and conv, zero point -3, stride 2: the clamp
// is cloned per branch, the weights [OC, 1, 1, 4] are split by input channel
// (values sliced, not copied whole), the partials are i32 and summed before
// the single rescale.
// CHECK-LABEL: func.func @conv_i8_relu_rescale
// CHECK-SAME: (%[[A:.*]]: tensor<1x5x5x3xi8>, %[[B:.*]]: tensor<1x5x5x1xi8>)
// CHECK-NOT: tosa.concat
// CHECK-DAG: %[[IZP:.*]] = "tosa.const"() <{values = dense<-3> : tensor<1xi8>}>
// CHECK-DAG: %[[W0:.*]] = "tosa.const"() <{values = dense<{{\[\[\[\[}}1, 2, 3]]], {{\[\[\[}}5, 6, 7]]], {{\[\[\[}}-1, -2, -3]]], {{\[\[\[}}9, 10, 11]]]]> : tensor<4x1x1x3xi8>}>
// CHECK-DAG: %[[W1:.*]] = "tosa.const"() <{values = dense<{{\[\[\[\[}}4]]], {{\[\[\[}}8]]], {{\[\[\[}}-4]]], {{\[\[\[}}12]]]]> : tensor<4x1x1x1xi8>}>
// CHECK-DAG: %[[RA:.*]] = tosa.clamp %[[A]] {max_val = 127 : i8, min_val = -3 : i8} : (tensor<1x5x5x3xi8>) -> tensor<1x5x5x3xi8>
// CHECK-DAG: %[[RB:.*]] = tosa.clamp %[[B]] {max_val = 127 : i8, min_val = -3 : i8} : (tensor<1x5x5x1xi8>) -> tensor<1x5x5x1xi8>
// CHECK-DAG: %[[P0:.*]] = tosa.conv2d %[[RA]], %[[W0]], %{{.*}}, %[[IZP]], %{{.*}} {acc_type = i32, {{.*}}stride = array<i64: 2, 2>} : {{.*}} -> tensor<1x3x3x4xi32>
// CHECK-DAG: %[[P1:.*]] = tosa.conv2d %[[RB]], %[[W1]], %{{.*}}, %[[IZP]], %{{.*}} -> tensor<1x3x3x4xi32>
// CHECK: %[[S:.*]] = tosa.add %[[P0]], %[[P1]] {memopt.accumulate} : (tensor<1x3x3x4xi32>, tensor<1x3x3x4xi32>) -> tensor<1x3x3x4xi32>
// CHECK: %[[Y:.*]] = tosa.rescale %[[S]]
// CHECK: return %[[Y]]
func.func @conv_i8_relu_rescale(%a: tensor<1x5x5x3xi8>, %b: tensor<1x5x5x1xi8>) -> tensor<1x3x3x4xi8> {
  %cat = tosa.concat %a, %b {axis = 3 : i32} : (tensor<1x5x5x3xi8>, tensor<1x5x5x1xi8>) -> tensor<1x5x5x4xi8>
  %r = tosa.clamp %cat {min_val = -3 : i8, max_val = 127 : i8} : (tensor<1x5x5x4xi8>) -> tensor<1x5x5x4xi8>
  %w = "tosa.const"() <{values = dense<[[[[1, 2, 3, 4]]], [[[5, 6, 7, 8]]], [[[-1, -2, -3, -4]]], [[[9, 10, 11, 12]]]]> : tensor<4x1x1x4xi8>}> : () -> tensor<4x1x1x4xi8>
  %bias = "tosa.const"() <{values = dense<[10, 20, 30, 40]> : tensor<4xi32>}> : () -> tensor<4xi32>
  %izp = "tosa.const"() <{values = dense<-3> : tensor<1xi8>}> : () -> tensor<1xi8>
  %wzp = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %acc = tosa.conv2d %r, %w, %bias, %izp, %wzp {acc_type = i32, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 2, 2>, dilation = array<i64: 1, 1>} : (tensor<1x5x5x4xi8>, tensor<4x1x1x4xi8>, tensor<4xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x3x3x4xi32>
  %m = "tosa.const"() <{values = dense<1073741824> : tensor<1xi32>}> : () -> tensor<1xi32>
  %s = "tosa.const"() <{values = dense<35> : tensor<1xi8>}> : () -> tensor<1xi8>
  %z32 = "tosa.const"() <{values = dense<0> : tensor<1xi32>}> : () -> tensor<1xi32>
  %ozp = "tosa.const"() <{values = dense<-1> : tensor<1xi8>}> : () -> tensor<1xi8>
  %y = tosa.rescale %acc, %m, %s, %z32, %ozp {scale32 = true, rounding_mode = DOUBLE_ROUND, per_channel = false, input_unsigned = false, output_unsigned = false} : (tensor<1x3x3x4xi32>, tensor<1xi32>, tensor<1xi8>, tensor<1xi32>, tensor<1xi8>) -> tensor<1x3x3x4xi8>
  return %y : tensor<1x3x3x4xi8>
}

// -----

// A per-channel rescale between concat and conv: its multipliers and shifts
// are sliced with the branches. Dilation 2 and asymmetric padding are kept.
// CHECK-LABEL: func.func @conv_i8_per_channel_rescale
// CHECK-DAG: %[[M0:.*]] = "tosa.const"() <{values = dense<[1073741824, 1073741825]> : tensor<2xi32>}>
// CHECK-DAG: %[[S0:.*]] = "tosa.const"() <{values = dense<[30, 31]> : tensor<2xi8>}>
// CHECK-DAG: %[[M1:.*]] = "tosa.const"() <{values = dense<1073741826> : tensor<1xi32>}>
// CHECK-DAG: %[[S1:.*]] = "tosa.const"() <{values = dense<32> : tensor<1xi8>}>
// CHECK-DAG: tosa.rescale %arg0, %[[M0]], %[[S0]], {{.*}}per_channel = true{{.*}} -> tensor<1x6x6x2xi8>
// CHECK-DAG: tosa.rescale %arg1, %[[M1]], %[[S1]], {{.*}}per_channel = true{{.*}} -> tensor<1x6x6x1xi8>
// CHECK: tosa.conv2d {{.*}}dilation = array<i64: 2, 2>, pad = array<i64: 0, 1, 0, 1>{{.*}} -> tensor<1x3x5x2xi32>
// CHECK: tosa.conv2d {{.*}}dilation = array<i64: 2, 2>, pad = array<i64: 0, 1, 0, 1>{{.*}} -> tensor<1x3x5x2xi32>
// CHECK: tosa.add {{.*}} {memopt.accumulate}
// CHECK-NOT: tosa.concat
func.func @conv_i8_per_channel_rescale(%a: tensor<1x6x6x2xi8>, %b: tensor<1x6x6x1xi8>) -> tensor<1x3x5x2xi32> {
  %cat = tosa.concat %a, %b {axis = 3 : i32} : (tensor<1x6x6x2xi8>, tensor<1x6x6x1xi8>) -> tensor<1x6x6x3xi8>
  %m = "tosa.const"() <{values = dense<[1073741824, 1073741825, 1073741826]> : tensor<3xi32>}> : () -> tensor<3xi32>
  %s = "tosa.const"() <{values = dense<[30, 31, 32]> : tensor<3xi8>}> : () -> tensor<3xi8>
  %zp = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %r = tosa.rescale %cat, %m, %s, %zp, %zp {scale32 = true, rounding_mode = SINGLE_ROUND, per_channel = true, input_unsigned = false, output_unsigned = false} : (tensor<1x6x6x3xi8>, tensor<3xi32>, tensor<3xi8>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x6x6x3xi8>
  %w = "tosa.const"() <{values = dense<3> : tensor<2x2x2x3xi8>}> : () -> tensor<2x2x2x3xi8>
  %bias = "tosa.const"() <{values = dense<7> : tensor<2xi32>}> : () -> tensor<2xi32>
  %y = tosa.conv2d %r, %w, %bias, %zp, %zp {acc_type = i32, pad = array<i64: 0, 1, 0, 1>, stride = array<i64: 2, 1>, dilation = array<i64: 2, 2>} : (tensor<1x6x6x3xi8>, tensor<2x2x2x3xi8>, tensor<2xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x3x5x2xi32>
  return %y : tensor<1x3x5x2xi32>
}

// -----

// Depthwise f32 with channel multiplier 2 and stride 2: weights [1, 1, 3, 2]
// split along C, bias [6] split into [4] and [2], outputs concatenated.
// CHECK-LABEL: func.func @dw_f32_mult2
// CHECK-SAME: (%[[A:.*]]: tensor<1x9x9x2xf32>, %[[B:.*]]: tensor<1x9x9x1xf32>)
// CHECK-DAG: %[[W0:.*]] = "tosa.const"() <{values = dense<{{\[\[\[\[}}1.000000e+00, 2.000000e+00], [3.000000e+00, 4.000000e+00]]]]> : tensor<1x1x2x2xf32>}>
// CHECK-DAG: %[[B0:.*]] = "tosa.const"() <{values = dense<[1.000000e-01, 2.000000e-01, 3.000000e-01, 4.000000e-01]> : tensor<4xf32>}>
// CHECK-DAG: %[[W1:.*]] = "tosa.const"() <{values = dense<{{\[\[\[\[}}5.000000e+00, 6.000000e+00]]]]> : tensor<1x1x1x2xf32>}>
// CHECK-DAG: %[[B1:.*]] = "tosa.const"() <{values = dense<[5.000000e-01, 6.000000e-01]> : tensor<2xf32>}>
// CHECK-DAG: %[[D0:.*]] = tosa.depthwise_conv2d %[[A]], %[[W0]], %[[B0]], {{.*}}stride = array<i64: 2, 2>{{.*}} -> tensor<1x5x5x4xf32>
// CHECK-DAG: %[[D1:.*]] = tosa.depthwise_conv2d %[[B]], %[[W1]], %[[B1]], {{.*}} -> tensor<1x5x5x2xf32>
// CHECK: %[[Y:.*]] = tosa.concat %[[D0]], %[[D1]] {axis = 3 : i32} : (tensor<1x5x5x4xf32>, tensor<1x5x5x2xf32>) -> tensor<1x5x5x6xf32>
// CHECK: return %[[Y]]
// NOCONV-LABEL: func.func @dw_f32_mult2
// NOCONV: tosa.depthwise_conv2d
// NOCONV: tosa.depthwise_conv2d
func.func @dw_f32_mult2(%a: tensor<1x9x9x2xf32>, %b: tensor<1x9x9x1xf32>) -> tensor<1x5x5x6xf32> {
  %cat = tosa.concat %a, %b {axis = 3 : i32} : (tensor<1x9x9x2xf32>, tensor<1x9x9x1xf32>) -> tensor<1x9x9x3xf32>
  %w = "tosa.const"() <{values = dense<[[[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]]]> : tensor<1x1x3x2xf32>}> : () -> tensor<1x1x3x2xf32>
  %bias = "tosa.const"() <{values = dense<[0.1, 0.2, 0.3, 0.4, 0.5, 0.6]> : tensor<6xf32>}> : () -> tensor<6xf32>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %y = tosa.depthwise_conv2d %cat, %w, %bias, %zp, %zp {acc_type = f32, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 2, 2>, dilation = array<i64: 1, 1>} : (tensor<1x9x9x3xf32>, tensor<1x1x3x2xf32>, tensor<6xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x5x5x6xf32>
  return %y : tensor<1x5x5x6xf32>
}

// -----

// Depthwise int8, 3x3 kernel, pad 1, broadcast bias [1] kept whole, input
// zero point 5 shared, ReLU6-like clamp pushed into both branches.
// CHECK-LABEL: func.func @dw_i8_clamp
// CHECK-DAG: %[[BIAS:.*]] = "tosa.const"() <{values = dense<100> : tensor<1xi32>}>
// CHECK-DAG: %[[IZP:.*]] = "tosa.const"() <{values = dense<5> : tensor<1xi8>}>
// CHECK-DAG: %[[RA:.*]] = tosa.clamp %arg0 {{.*}} -> tensor<1x4x4x3xi8>
// CHECK-DAG: %[[RB:.*]] = tosa.clamp %arg1 {{.*}} -> tensor<1x4x4x5xi8>
// CHECK-DAG: %[[D0:.*]] = tosa.depthwise_conv2d %[[RA]], %{{.*}}, %[[BIAS]], %[[IZP]], {{.*}}pad = array<i64: 1, 1, 1, 1>{{.*}} -> tensor<1x4x4x3xi32>
// CHECK-DAG: %[[D1:.*]] = tosa.depthwise_conv2d %[[RB]], %{{.*}}, %[[BIAS]], %[[IZP]], {{.*}} -> tensor<1x4x4x5xi32>
// CHECK: tosa.concat %[[D0]], %[[D1]] {axis = 3 : i32}
func.func @dw_i8_clamp(%a: tensor<1x4x4x3xi8>, %b: tensor<1x4x4x5xi8>) -> tensor<1x4x4x8xi32> {
  %cat = tosa.concat %a, %b {axis = 3 : i32} : (tensor<1x4x4x3xi8>, tensor<1x4x4x5xi8>) -> tensor<1x4x4x8xi8>
  %r = tosa.clamp %cat {min_val = 0 : i8, max_val = 96 : i8} : (tensor<1x4x4x8xi8>) -> tensor<1x4x4x8xi8>
  %w = "tosa.const"() <{values = dense<-2> : tensor<3x3x8x1xi8>}> : () -> tensor<3x3x8x1xi8>
  %bias = "tosa.const"() <{values = dense<100> : tensor<1xi32>}> : () -> tensor<1xi32>
  %izp = "tosa.const"() <{values = dense<5> : tensor<1xi8>}> : () -> tensor<1xi8>
  %wzp = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %y = tosa.depthwise_conv2d %r, %w, %bias, %izp, %wzp {acc_type = i32, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>} : (tensor<1x4x4x8xi8>, tensor<3x3x8x1xi8>, tensor<1xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x4x4x8xi32>
  return %y : tensor<1x4x4x8xi32>
}

// -----

// Other consumers: the concat (and the clamp) also feed the results. The
// conv is rewritten on cloned branch clamps; the concat and its clamp stay
// for the other users.
// CHECK-LABEL: func.func @other_users
// CHECK: %[[CAT:.*]] = tosa.concat %arg0, %arg1
// CHECK: %[[R:.*]] = tosa.clamp %[[CAT]]
// CHECK-DAG: %[[RA:.*]] = tosa.clamp %arg0
// CHECK-DAG: %[[RB:.*]] = tosa.clamp %arg1
// CHECK-DAG: %[[P0:.*]] = tosa.conv2d %[[RA]]
// CHECK-DAG: %[[P1:.*]] = tosa.conv2d %[[RB]]
// CHECK: %[[S:.*]] = tosa.add %[[P0]], %[[P1]] {memopt.accumulate}
// CHECK: return %[[S]], %[[CAT]], %[[R]]
func.func @other_users(%a: tensor<1x4x4x2xf32>, %b: tensor<1x4x4x2xf32>) -> (tensor<1x4x4x3xf32>, tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>) {
  %cat = tosa.concat %a, %b {axis = 3 : i32} : (tensor<1x4x4x2xf32>, tensor<1x4x4x2xf32>) -> tensor<1x4x4x4xf32>
  %r = tosa.clamp %cat {min_val = 0.0 : f32, max_val = 6.0 : f32} : (tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  %w = "tosa.const"() <{values = dense<1.0> : tensor<3x1x1x4xf32>}> : () -> tensor<3x1x1x4xf32>
  %bias = "tosa.const"() <{values = dense<0.0> : tensor<3xf32>}> : () -> tensor<3xf32>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %y = tosa.conv2d %r, %w, %bias, %zp, %zp {acc_type = f32, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>} : (tensor<1x4x4x4xf32>, tensor<3x1x1x4xf32>, tensor<3xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x4x3xf32>
  return %y, %cat, %r : tensor<1x4x4x3xf32>, tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>
}
