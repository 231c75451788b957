// RUN: mem-opt %s --fuse-rescale-accumulators --split-input-file | FileCheck %s

// A conv whose i32 result only feeds a narrowing elementwise op (the lowered
// tosa.rescale) is computed inside the rescale's loop over N, H and W, one
// pixel of 16 channels at a time, with its bias broadcast.
#c = affine_map<(d0, d1, d2, d3) -> (d3)>
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func.func @conv_rescale
// CHECK-NOT: tensor<1x4x4x16xi32>
// CHECK: scf.for
// CHECK: scf.for
// CHECK: scf.for
// CHECK: tensor.empty() : tensor<1x1x1x16xi32>
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<1x1x1x16xi32>)
// CHECK: linalg.conv_2d_nhwc_fhwc {{.*}} ins(%{{.*}}, %{{.*}} : tensor<1x1x1x8xi8>, tensor<16x1x1x8xi8>) outs(%{{.*}} : tensor<1x1x1x16xi32>)
// CHECK: linalg.generic {{.*}} ins(%{{.*}} : tensor<1x1x1x16xi32>) outs(%{{.*}} : tensor<1x1x1x16xi8>
// CHECK: tensor.insert_slice
// CHECK-NOT: tensor<1x4x4x16xi32>
func.func @conv_rescale(%x: tensor<1x4x4x8xi8>) -> tensor<1x4x4x16xi8> {
  %w = arith.constant dense<3> : tensor<16x1x1x8xi8>
  %b = arith.constant dense<1> : tensor<16xi32>
  %e = tensor.empty() : tensor<1x4x4x16xi32>
  %bias = linalg.generic {indexing_maps = [#c, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%b : tensor<16xi32>) outs(%e : tensor<1x4x4x16xi32>) {
  ^bb0(%in: i32, %out: i32):
    linalg.yield %in : i32
  } -> tensor<1x4x4x16xi32>
  %acc = linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x4x4x8xi8>, tensor<16x1x1x8xi8>) outs(%bias : tensor<1x4x4x16xi32>) -> tensor<1x4x4x16xi32>
  %e8 = tensor.empty() : tensor<1x4x4x16xi8>
  %out = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%acc : tensor<1x4x4x16xi32>) outs(%e8 : tensor<1x4x4x16xi8>) {
  ^bb0(%in: i32, %o: i8):
    %t = arith.trunci %in : i32 to i8
    linalg.yield %t : i8
  } -> tensor<1x4x4x16xi8>
  return %out : tensor<1x4x4x16xi8>
}

// -----

// A depthwise conv with one input channel (HWCM filter 3x3x1x2) collapsed to
// 4-d becomes a conv_2d_nhwc_hwcf_q with the same filter, then is fused.
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func.func @depthwise_one_channel
// CHECK-NOT: depthwise
// CHECK: scf.for
// CHECK: linalg.fill {{.*}} -> tensor<1x1x1x2xi32>
// CHECK: linalg.conv_2d_nhwc_hwcf_q {{.*}} ins(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : tensor<1x3x3x1xi8>, tensor<3x3x1x2xi8>, i32, i32) outs(%{{.*}} : tensor<1x1x1x2xi32>)
// CHECK-NOT: depthwise
func.func @depthwise_one_channel(%x: tensor<1x6x6x1xi8>) -> tensor<1x4x4x2xi8> {
  %w = arith.constant dense<5> : tensor<3x3x1x2xi8>
  %izp = arith.constant -7 : i32
  %wzp = arith.constant 0 : i32
  %zero = arith.constant 0 : i32
  %e = tensor.empty() : tensor<1x4x4x1x2xi32>
  %f = linalg.fill ins(%zero : i32) outs(%e : tensor<1x4x4x1x2xi32>) -> tensor<1x4x4x1x2xi32>
  %dw = linalg.depthwise_conv_2d_nhwc_hwcm_q {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w, %izp, %wzp : tensor<1x6x6x1xi8>, tensor<3x3x1x2xi8>, i32, i32) outs(%f : tensor<1x4x4x1x2xi32>) -> tensor<1x4x4x1x2xi32>
  %acc = tensor.collapse_shape %dw [[0], [1], [2], [3, 4]] : tensor<1x4x4x1x2xi32> into tensor<1x4x4x2xi32>
  %e8 = tensor.empty() : tensor<1x4x4x2xi8>
  %out = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%acc : tensor<1x4x4x2xi32>) outs(%e8 : tensor<1x4x4x2xi8>) {
  ^bb0(%in: i32, %o: i8):
    %t = arith.trunci %in : i32 to i8
    linalg.yield %t : i8
  } -> tensor<1x4x4x2xi8>
  return %out : tensor<1x4x4x2xi8>
}

// -----

// Not fused: the accumulator has a second user; the consumer does not narrow;
// one pixel.
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func.func @not_fused
// CHECK-NOT: scf.for
// CHECK: linalg.conv_2d_nhwc_fhwc {{.*}} -> tensor<1x4x4x16xi32>
// CHECK-NOT: scf.for
// CHECK: linalg.conv_2d_nhwc_fhwc {{.*}} -> tensor<1x4x4x16xi32>
// CHECK-NOT: scf.for
// CHECK: linalg.conv_2d_nhwc_fhwc {{.*}} -> tensor<1x1x1x16xi32>
// CHECK-NOT: scf.for
func.func @not_fused(%x: tensor<1x4x4x8xi8>, %p: tensor<1x1x1x8xi8>) -> (tensor<1x4x4x16xi8>, tensor<1x4x4x16xi32>, tensor<1x4x4x16xi32>, tensor<1x1x1x16xi8>) {
  %w = arith.constant dense<3> : tensor<16x1x1x8xi8>
  %zero = arith.constant 0 : i32
  %e = tensor.empty() : tensor<1x4x4x16xi32>
  %f = linalg.fill ins(%zero : i32) outs(%e : tensor<1x4x4x16xi32>) -> tensor<1x4x4x16xi32>
  %acc = linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x4x4x8xi8>, tensor<16x1x1x8xi8>) outs(%f : tensor<1x4x4x16xi32>) -> tensor<1x4x4x16xi32>
  %e8 = tensor.empty() : tensor<1x4x4x16xi8>
  %out = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%acc : tensor<1x4x4x16xi32>) outs(%e8 : tensor<1x4x4x16xi8>) {
  ^bb0(%in: i32, %o: i8):
    %t = arith.trunci %in : i32 to i8
    linalg.yield %t : i8
  } -> tensor<1x4x4x16xi8>
  %f2 = linalg.fill ins(%zero : i32) outs(%e : tensor<1x4x4x16xi32>) -> tensor<1x4x4x16xi32>
  %acc2 = linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x4x4x8xi8>, tensor<16x1x1x8xi8>) outs(%f2 : tensor<1x4x4x16xi32>) -> tensor<1x4x4x16xi32>
  %wide = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%acc2 : tensor<1x4x4x16xi32>) outs(%e : tensor<1x4x4x16xi32>) {
  ^bb0(%in: i32, %o: i32):
    %t = arith.addi %in, %in : i32
    linalg.yield %t : i32
  } -> tensor<1x4x4x16xi32>
  %e1 = tensor.empty() : tensor<1x1x1x16xi32>
  %f1 = linalg.fill ins(%zero : i32) outs(%e1 : tensor<1x1x1x16xi32>) -> tensor<1x1x1x16xi32>
  %acc1 = linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%p, %w : tensor<1x1x1x8xi8>, tensor<16x1x1x8xi8>) outs(%f1 : tensor<1x1x1x16xi32>) -> tensor<1x1x1x16xi32>
  %e18 = tensor.empty() : tensor<1x1x1x16xi8>
  %px = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%acc1 : tensor<1x1x1x16xi32>) outs(%e18 : tensor<1x1x1x16xi8>) {
  ^bb0(%in: i32, %o: i8):
    %t = arith.trunci %in : i32 to i8
    linalg.yield %t : i8
  } -> tensor<1x1x1x16xi8>
  return %out, %acc, %wide, %px : tensor<1x4x4x16xi8>, tensor<1x4x4x16xi32>, tensor<1x4x4x16xi32>, tensor<1x1x1x16xi8>
}
