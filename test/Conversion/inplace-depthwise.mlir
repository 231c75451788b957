// RUN: mem-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(inplace-depthwise))' | FileCheck %s

// An int8 depthwise conv (multiplier 1, stride 1, pad 1) fused with its
// per-channel rescale, whose input %e dies at it: one loop over the 4
// channels with %e as iteration argument. Each iteration views channel c of
// it, slices channel c's weights, bias, multiplier and shift, computes the
// one-channel conv and rescale, and inserts the channel over channel c.
// CHECK-LABEL: func.func @int8_same
// CHECK: %[[E:.*]] = tosa.clamp %arg0
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[C4:.*]] = arith.constant 4 : index
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : index
// CHECK: %[[LOOP:.*]] = scf.for %[[C:.*]] = %[[C0]] to %[[C4]] step %[[C1]] iter_args(%[[ACC:.*]] = %[[E]]) -> (tensor<1x6x6x4xi8>)
// CHECK: %[[CH:.*]] = tensor.extract_slice %[[ACC]][0, 0, 0, %[[C]]] [1, 6, 6, 1] [1, 1, 1, 1] : tensor<1x6x6x4xi8> to tensor<1x6x6x1xi8>
// CHECK: %[[W:.*]] = tensor.extract_slice %{{.*}}[0, 0, %[[C]], 0] [3, 3, 1, 1] [1, 1, 1, 1] : tensor<3x3x4x1xi8> to tensor<3x3x1x1xi8>
// CHECK: %[[B:.*]] = tensor.extract_slice %{{.*}}[%[[C]]] [1] [1] : tensor<4xi32> to tensor<1xi32>
// CHECK: %[[D:.*]] = tosa.depthwise_conv2d %[[CH]], %[[W]], %[[B]], {{.*}}pad = array<i64: 1, 1, 1, 1>{{.*}} -> tensor<1x6x6x1xi32>
// CHECK: %[[M:.*]] = tensor.extract_slice %{{.*}}[%[[C]]] [1] [1] : tensor<4xi32> to tensor<1xi32>
// CHECK: %[[S:.*]] = tensor.extract_slice %{{.*}}[%[[C]]] [1] [1] : tensor<4xi8> to tensor<1xi8>
// CHECK: %[[R:.*]] = tosa.rescale %[[D]], %[[M]], %[[S]], {{.*}}per_channel = true{{.*}} -> tensor<1x6x6x1xi8>
// CHECK: %[[I:.*]] = tensor.insert_slice %[[R]] into %[[ACC]][0, 0, 0, %[[C]]] [1, 6, 6, 1] [1, 1, 1, 1] : tensor<1x6x6x1xi8> into tensor<1x6x6x4xi8>
// CHECK: scf.yield %[[I]]
// CHECK: tosa.clamp %[[LOOP]]
// CHECK-NOT: tosa.depthwise_conv2d
func.func @int8_same(%x: tensor<1x6x6x4xi8>) -> tensor<1x6x6x4xi8> {
  %izp = "tosa.const"() <{values = dense<-3> : tensor<1xi8>}> : () -> tensor<1xi8>
  %wzp = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %zp32 = "tosa.const"() <{values = dense<0> : tensor<1xi32>}> : () -> tensor<1xi32>
  %ozp = "tosa.const"() <{values = dense<2> : tensor<1xi8>}> : () -> tensor<1xi8>
  %w = "tosa.const"() <{values = dense<3> : tensor<3x3x4x1xi8>}> : () -> tensor<3x3x4x1xi8>
  %b = "tosa.const"() <{values = dense<[1, 2, 3, 4]> : tensor<4xi32>}> : () -> tensor<4xi32>
  %m = "tosa.const"() <{values = dense<[859260949, 1068498049, 905675123, 1018802958]> : tensor<4xi32>}> : () -> tensor<4xi32>
  %s = "tosa.const"() <{values = dense<[37, 38, 36, 36]> : tensor<4xi8>}> : () -> tensor<4xi8>
  %e = tosa.clamp %x {max_val = 100 : i8, min_val = -100 : i8} : (tensor<1x6x6x4xi8>) -> tensor<1x6x6x4xi8>
  %d = tosa.depthwise_conv2d %e, %w, %b, %izp, %wzp {acc_type = i32, dilation = array<i64: 1, 1>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>} : (tensor<1x6x6x4xi8>, tensor<3x3x4x1xi8>, tensor<4xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x6x6x4xi32>
  %o = tosa.rescale %d, %m, %s, %zp32, %ozp {input_unsigned = false, output_unsigned = false, per_channel = true, rounding_mode = SINGLE_ROUND, scale32 = true} : (tensor<1x6x6x4xi32>, tensor<4xi32>, tensor<4xi8>, tensor<1xi32>, tensor<1xi8>) -> tensor<1x6x6x4xi8>
  %y = tosa.clamp %o {max_val = 100 : i8, min_val = -100 : i8} : (tensor<1x6x6x4xi8>) -> tensor<1x6x6x4xi8>
  return %y : tensor<1x6x6x4xi8>
}

// -----

// f32, a 5x5 kernel with dilation 1 and pad 2, one bias for all channels
// (not sliced): in place, the loop yields the conv's channels directly.
// CHECK-LABEL: func.func @f32_same
// CHECK: scf.for {{.*}} iter_args(%[[ACC:.*]] = %{{.*}}) -> (tensor<1x5x5x3xf32>)
// CHECK: %[[CH:.*]] = tensor.extract_slice %[[ACC]][0, 0, 0, %{{.*}}] [1, 5, 5, 1]
// CHECK: %[[W:.*]] = tensor.extract_slice %{{.*}}[0, 0, %{{.*}}, 0] [5, 5, 1, 1]
// CHECK: %[[D:.*]] = tosa.depthwise_conv2d %[[CH]], %[[W]], %{{.*}} : (tensor<1x5x5x1xf32>, tensor<5x5x1x1xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x5x5x1xf32>
// CHECK: tensor.insert_slice %[[D]] into %[[ACC]]
func.func @f32_same(%x: tensor<1x5x5x3xf32>) -> tensor<1x5x5x3xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %w = "tosa.const"() <{values = dense<0.25> : tensor<5x5x3x1xf32>}> : () -> tensor<5x5x3x1xf32>
  %b = "tosa.const"() <{values = dense<0.5> : tensor<1xf32>}> : () -> tensor<1xf32>
  %e = tosa.clamp %x {min_val = 0.0 : f32, max_val = 6.0 : f32} : (tensor<1x5x5x3xf32>) -> tensor<1x5x5x3xf32>
  %d = tosa.depthwise_conv2d %e, %w, %b, %zp, %zp {acc_type = f32, pad = array<i64: 2, 2, 2, 2>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>} : (tensor<1x5x5x3xf32>, tensor<5x5x3x1xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x5x5x3xf32>
  return %d : tensor<1x5x5x3xf32>
}

// -----

// Not in place: the input is a graph input (read-only), the input has
// another reader, stride 2 (the output is smaller than the input), a
// multiplier of 2, one channel (nothing to gain), and an int8 conv whose
// accumulator has a second reader (its i32 result cannot take an i8
// buffer).
// CHECK-LABEL: func.func @negative
// CHECK-NOT: scf.for
// CHECK-COUNT-6: tosa.depthwise_conv2d
// CHECK-NOT: scf.for
func.func @negative(%x: tensor<1x6x6x4xf32>, %q: tensor<1x6x6x4xi8>) -> (tensor<1x6x6x4xf32>, tensor<1x3x3x4xf32>, tensor<1x6x6x8xf32>, tensor<1x6x6x1xf32>, tensor<1x6x6x4xi8>, tensor<1x6x6x4xi32>) {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %w = "tosa.const"() <{values = dense<0.25> : tensor<3x3x4x1xf32>}> : () -> tensor<3x3x4x1xf32>
  %w2 = "tosa.const"() <{values = dense<0.25> : tensor<3x3x4x2xf32>}> : () -> tensor<3x3x4x2xf32>
  %w1 = "tosa.const"() <{values = dense<0.25> : tensor<3x3x1x1xf32>}> : () -> tensor<3x3x1x1xf32>
  %b = "tosa.const"() <{values = dense<0.5> : tensor<1xf32>}> : () -> tensor<1xf32>
  %d0 = tosa.depthwise_conv2d %x, %w, %b, %zp, %zp {acc_type = f32, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>} : (tensor<1x6x6x4xf32>, tensor<3x3x4x1xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x6x6x4xf32>
  %e = tosa.clamp %x {min_val = 0.0 : f32, max_val = 6.0 : f32} : (tensor<1x6x6x4xf32>) -> tensor<1x6x6x4xf32>
  %d1 = tosa.depthwise_conv2d %e, %w, %b, %zp, %zp {acc_type = f32, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>} : (tensor<1x6x6x4xf32>, tensor<3x3x4x1xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x6x6x4xf32>
  %s = tosa.add %d1, %e : (tensor<1x6x6x4xf32>, tensor<1x6x6x4xf32>) -> tensor<1x6x6x4xf32>
  %e2 = tosa.clamp %s {min_val = 0.0 : f32, max_val = 6.0 : f32} : (tensor<1x6x6x4xf32>) -> tensor<1x6x6x4xf32>
  %d2 = tosa.depthwise_conv2d %e2, %w, %b, %zp, %zp {acc_type = f32, pad = array<i64: 0, 1, 0, 1>, stride = array<i64: 2, 2>, dilation = array<i64: 1, 1>} : (tensor<1x6x6x4xf32>, tensor<3x3x4x1xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x3x3x4xf32>
  %e3 = tosa.clamp %x {min_val = 1.0 : f32, max_val = 6.0 : f32} : (tensor<1x6x6x4xf32>) -> tensor<1x6x6x4xf32>
  %d3 = tosa.depthwise_conv2d %e3, %w2, %b, %zp, %zp {acc_type = f32, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>} : (tensor<1x6x6x4xf32>, tensor<3x3x4x2xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x6x6x8xf32>
  %start = tosa.const_shape {values = dense<0> : tensor<4xindex>} : () -> !tosa.shape<4>
  %size = tosa.const_shape {values = dense<[1, 6, 6, 1]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %x1 = tosa.slice %x, %start, %size : (tensor<1x6x6x4xf32>, !tosa.shape<4>, !tosa.shape<4>) -> tensor<1x6x6x1xf32>
  %e4 = tosa.clamp %x1 {min_val = 0.0 : f32, max_val = 6.0 : f32} : (tensor<1x6x6x1xf32>) -> tensor<1x6x6x1xf32>
  %d4 = tosa.depthwise_conv2d %e4, %w1, %b, %zp, %zp {acc_type = f32, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>} : (tensor<1x6x6x1xf32>, tensor<3x3x1x1xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x6x6x1xf32>
  %izp = "tosa.const"() <{values = dense<-3> : tensor<1xi8>}> : () -> tensor<1xi8>
  %zp32 = "tosa.const"() <{values = dense<0> : tensor<1xi32>}> : () -> tensor<1xi32>
  %wq = "tosa.const"() <{values = dense<3> : tensor<3x3x4x1xi8>}> : () -> tensor<3x3x4x1xi8>
  %bq = "tosa.const"() <{values = dense<1> : tensor<4xi32>}> : () -> tensor<4xi32>
  %m = "tosa.const"() <{values = dense<859260949> : tensor<1xi32>}> : () -> tensor<1xi32>
  %sh = "tosa.const"() <{values = dense<37> : tensor<1xi8>}> : () -> tensor<1xi8>
  %eq = tosa.clamp %q {max_val = 100 : i8, min_val = -100 : i8} : (tensor<1x6x6x4xi8>) -> tensor<1x6x6x4xi8>
  %dq = tosa.depthwise_conv2d %eq, %wq, %bq, %izp, %izp {acc_type = i32, dilation = array<i64: 1, 1>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>} : (tensor<1x6x6x4xi8>, tensor<3x3x4x1xi8>, tensor<4xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x6x6x4xi32>
  %rq = tosa.rescale %dq, %m, %sh, %zp32, %izp {input_unsigned = false, output_unsigned = false, per_channel = false, rounding_mode = SINGLE_ROUND, scale32 = true} : (tensor<1x6x6x4xi32>, tensor<1xi32>, tensor<1xi8>, tensor<1xi32>, tensor<1xi8>) -> tensor<1x6x6x4xi8>
  return %d0, %d2, %d3, %d4, %rq, %dq : tensor<1x6x6x4xf32>, tensor<1x3x3x4xf32>, tensor<1x6x6x8xf32>, tensor<1x6x6x1xf32>, tensor<1x6x6x4xi8>, tensor<1x6x6x4xi32>
}
