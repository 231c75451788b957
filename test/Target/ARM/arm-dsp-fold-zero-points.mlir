// RUN: mem-opt %s --split-input-file --pass-pipeline='builtin.module(arm-dsp-fold-zero-points)' | FileCheck %s
// RUN: mem-opt %s --split-input-file --pass-pipeline='builtin.module(arm-dsp-fold-zero-points{padded-windows=true})' | FileCheck %s --check-prefix=WIN

// The input zero point -128 goes into a new bias, b' = b - zi * sum(w - zw)
// with zw = 2, computed by hand:
//   channel 0: w = (1, 2, 3, 4),      sum(w - 2) = -1 + 0 + 1 + 2 = 2,
//              b' = 100 + 128 * 2 = 356;
//   channel 1: w = (-1, 0, 5, -128), sum(w - 2) = -3 - 2 + 3 - 130 = -132,
//              b' = -7 + 128 * (-132) = -16903.
// The convolution's input zero point becomes 0; the old bias stays for
// other readers.
// CHECK-DAG: memref.global "private" constant @bias_izp : memref<2xi32> = dense<[356, -16903]>
// CHECK-DAG: memref.global "private" constant @bias : memref<2xi32> = dense<[100, -7]>
// CHECK-LABEL: func.func @fold
// CHECK: %[[B:.*]] = memref.get_global @bias_izp
// CHECK: linalg.generic {{.*}} ins(%[[B]] : memref<2xi32>)
// CHECK: %[[ZERO:.*]] = arith.constant 0 : i32
// CHECK: linalg.conv_2d_nhwc_fhwc_q {{.*}} ins(%arg0, %{{.*}}, %[[ZERO]], %{{.*}} :
memref.global "private" constant @w : memref<2x1x1x4xi8> = dense<[[[[1, 2, 3, 4]]], [[[-1, 0, 5, -128]]]]>
memref.global "private" constant @bias : memref<2xi32> = dense<[100, -7]>
func.func @fold(%x: memref<1x1x1x4xi8>, %acc: memref<1x1x1x2xi32>) {
  %izp = arith.constant -128 : i32
  %wzp = arith.constant 2 : i32
  %w = memref.get_global @w : memref<2x1x1x4xi8>
  %b = memref.get_global @bias : memref<2xi32>
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%b : memref<2xi32>) outs(%acc : memref<1x1x1x2xi32>) {
  ^bb0(%in: i32, %out: i32):
    linalg.yield %in : i32
  }
  linalg.conv_2d_nhwc_fhwc_q {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w, %izp, %wzp : memref<1x1x1x4xi8>, memref<2x1x1x4xi8>, i32, i32) outs(%acc : memref<1x1x1x2xi32>)
  return
}

// -----

// A padded window (filled with the zero point; the kernels skip its taps
// outside the image) and a filter that is not a constant keep their zero
// points.
// CHECK-NOT: _izp
// CHECK-LABEL: func.func @window
// CHECK: linalg.conv_2d_nhwc_fhwc_q {{.*}} ins(%arg0, %{{.*}}, %c-128_i32, %c0_i32 :
// CHECK-LABEL: func.func @filter_argument
// CHECK: linalg.conv_2d_nhwc_fhwc_q {{.*}} ins(%arg0, %arg2, %c-128_i32, %c0_i32 :
// With padded-windows (the MVE kernel reads every tap of the window) the
// window's convolution folds too: w = 1, zw = 0, sum(w) = 4 per channel,
// b' = b + 128 * 4 = (612, 505); its padded taps hold -128 and add
// -128 * 1 to the sum, and 128 * 1 is in b'. The filter argument still
// keeps its zero point.
// WIN-DAG: memref.global "private" constant @bias_izp : memref<2xi32> = dense<[612, 505]>
// WIN-LABEL: func.func @window
// WIN: linalg.fill
// WIN: memref.get_global @bias_izp
// WIN: linalg.conv_2d_nhwc_fhwc_q {{.*}} ins(%arg0, %{{.*}}, %{{.*}}, %c0_i32 :
// WIN-LABEL: func.func @filter_argument
// WIN: linalg.conv_2d_nhwc_fhwc_q {{.*}} ins(%arg0, %arg2, %c-128_i32, %c0_i32 :
memref.global "private" constant @w : memref<2x1x1x4xi8> = dense<1>
memref.global "private" constant @bias : memref<2xi32> = dense<[100, -7]>
func.func @window(%x: memref<1x1x1x4xi8>, %acc: memref<1x1x1x2xi32>) {
  %izp = arith.constant -128 : i32
  %wzp = arith.constant 0 : i32
  %pad = arith.constant -128 : i8
  linalg.fill ins(%pad : i8) outs(%x : memref<1x1x1x4xi8>)
  %w = memref.get_global @w : memref<2x1x1x4xi8>
  %b = memref.get_global @bias : memref<2xi32>
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%b : memref<2xi32>) outs(%acc : memref<1x1x1x2xi32>) {
  ^bb0(%in: i32, %out: i32):
    linalg.yield %in : i32
  }
  linalg.conv_2d_nhwc_fhwc_q {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w, %izp, %wzp : memref<1x1x1x4xi8>, memref<2x1x1x4xi8>, i32, i32) outs(%acc : memref<1x1x1x2xi32>)
  return
}
func.func @filter_argument(%x: memref<1x1x1x4xi8>, %acc: memref<1x1x1x2xi32>, %w: memref<2x1x1x4xi8>) {
  %izp = arith.constant -128 : i32
  %wzp = arith.constant 0 : i32
  %b = memref.get_global @bias : memref<2xi32>
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%b : memref<2xi32>) outs(%acc : memref<1x1x1x2xi32>) {
  ^bb0(%in: i32, %out: i32):
    linalg.yield %in : i32
  }
  linalg.conv_2d_nhwc_fhwc_q {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w, %izp, %wzp : memref<1x1x1x4xi8>, memref<2x1x1x4xi8>, i32, i32) outs(%acc : memref<1x1x1x2xi32>)
  return
}
