// RUN: mem-opt %s --fuse-rescale-accumulators --split-input-file | FileCheck %s
// RUN: mem-opt %s --fuse-rescale-accumulators=fuse-padding=false --split-input-file | FileCheck %s --check-prefix=NOPAD

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

// Not fused: the accumulator has a second user; the consumer does not narrow.
// One pixel (a fully connected layer): fused a block of 4 output channels at
// a time, with a 4-element accumulator of its own (the register accumulator).
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func.func @not_fused
// CHECK-NOT: scf.for
// CHECK: linalg.conv_2d_nhwc_fhwc {{.*}} -> tensor<1x4x4x16xi32>
// CHECK-NOT: scf.for
// CHECK: linalg.conv_2d_nhwc_fhwc {{.*}} -> tensor<1x4x4x16xi32>
// CHECK-NOT: scf.for
// CHECK: scf.for
// CHECK: tensor.empty() : tensor<1x1x1x4xi32>
// CHECK: linalg.conv_2d_nhwc_fhwc {{.*}} -> tensor<1x1x1x4xi32>
// CHECK: tensor.insert_slice {{.*}} [1, 1, 1, 4] [1, 1, 1, 1] : tensor<1x1x1x4xi8> into tensor<1x1x1x16xi8>
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

// -----

// A padded input (pad 1, padding value -7, the input zero point) is read
// through a 3x3 window per pixel: filled with -7, then the part of %x it
// covers (clamped to %x, empty for none) is inserted at its place. Without
// fuse-padding the whole padded copy stays.
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-DAG: #[[BEGIN:.*]] = affine_map<()[s0] -> (s0 - 1, 0)>
// CHECK-DAG: #[[CLAMP:.*]] = affine_map<()[s0] -> (s0, 4)>
// CHECK-DAG: #[[END:.*]] = affine_map<()[s0] -> (s0 + 2, 0)>
// CHECK-DAG: #[[SIZE:.*]] = affine_map<()[s0, s1] -> (s0 - s1)>
// CHECK-DAG: #[[DST:.*]] = affine_map<()[s0, s1] -> (s0 - s1 + 1)>
// CHECK-LABEL: func.func @padded
// CHECK-NOT: tensor.pad
// CHECK: scf.for
// CHECK: %[[W:.*]] = tensor.empty() : tensor<1x3x3x2xi8>
// CHECK: %[[F:.*]] = linalg.fill ins(%{{.*}} : i8) outs(%[[W]] : tensor<1x3x3x2xi8>)
// The window's rows (and columns) [h - 1, h + 2) clamped to [0, 4): for h = 0
// it copies rows [0, 2) of %x to rows [1, 3) of the window.
// CHECK: %[[B0:.*]] = affine.max #[[BEGIN]]()[%[[H:.*]]]
// CHECK: %[[B:.*]] = affine.min #[[CLAMP]]()[%[[B0]]]
// CHECK: %[[E0:.*]] = affine.max #[[END]]()[%[[H]]]
// CHECK: %[[E:.*]] = affine.min #[[CLAMP]]()[%[[E0]]]
// CHECK: %[[S:.*]] = affine.apply #[[SIZE]]()[%[[E]], %[[B]]]
// CHECK: %[[D:.*]] = affine.apply #[[DST]]()[%[[B]], %[[H]]]
// CHECK: %[[P:.*]] = tensor.extract_slice %arg0[%{{.*}}, %[[B]], %{{.*}}, 0] [%{{.*}}, %[[S]], %{{.*}}, 2] [1, 1, 1, 1] : tensor<1x4x4x2xi8> to tensor<?x?x?x2xi8>
// CHECK: %[[I:.*]] = tensor.insert_slice %[[P]] into %[[F]][%{{.*}}, %[[D]], %{{.*}}, 0] [%{{.*}}, %[[S]], %{{.*}}, 2] [1, 1, 1, 1]
// CHECK: linalg.conv_2d_nhwc_fhwc_q {{.*}} ins(%[[I]],
// CHECK-NOT: tensor.pad
// NOPAD-LABEL: func.func @padded
// NOPAD: tensor.pad
// NOPAD: scf.for
// NOPAD: linalg.conv_2d_nhwc_fhwc_q
func.func @padded(%x: tensor<1x4x4x2xi8>) -> tensor<1x4x4x3xi8> {
  %w = arith.constant dense<5> : tensor<3x3x3x2xi8>
  %izp = arith.constant -7 : i32
  %wzp = arith.constant 0 : i32
  %zero = arith.constant 0 : i32
  %pv = arith.constant -7 : i8
  %padded = tensor.pad %x low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %pv : i8
  } : tensor<1x4x4x2xi8> to tensor<1x6x6x2xi8>
  %e = tensor.empty() : tensor<1x4x4x3xi32>
  %f = linalg.fill ins(%zero : i32) outs(%e : tensor<1x4x4x3xi32>) -> tensor<1x4x4x3xi32>
  %acc = linalg.conv_2d_nhwc_fhwc_q {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%padded, %w, %izp, %wzp : tensor<1x6x6x2xi8>, tensor<3x3x3x2xi8>, i32, i32) outs(%f : tensor<1x4x4x3xi32>) -> tensor<1x4x4x3xi32>
  %e8 = tensor.empty() : tensor<1x4x4x3xi8>
  %out = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%acc : tensor<1x4x4x3xi32>) outs(%e8 : tensor<1x4x4x3xi8>) {
  ^bb0(%in: i32, %o: i8):
    %t = arith.trunci %in : i32 to i8
    linalg.yield %t : i8
  } -> tensor<1x4x4x3xi8>
  return %out : tensor<1x4x4x3xi8>
}
