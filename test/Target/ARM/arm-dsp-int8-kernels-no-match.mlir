// RUN: mem-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(arm-dsp-int8-kernels))' | FileCheck %s

// A convolution the kernels cannot read (the filter has dynamic strides) is
// left to the default lowering, and the failed match builds nothing: no byte
// view of the input (aligned pointer, cast, inttoptr) is left behind. No
// canonicalization runs after the pass, so stray ops would show.
// CHECK-LABEL: func.func @dynamic_filter
// CHECK-NOT: memref.extract_aligned_pointer_as_index
// CHECK-NOT: llvm.inttoptr
// CHECK: linalg.conv_2d_nhwc_fhwc_q
// CHECK-NOT: memref.extract_aligned_pointer_as_index
func.func @dynamic_filter(%in: memref<1x1x1x8xi8>, %w: memref<2x1x1x8xi8, strided<[?, ?, ?, 1]>>, %out: memref<1x1x1x2xi32>) {
  %zp = arith.constant -128 : i32
  %z = arith.constant 0 : i32
  linalg.conv_2d_nhwc_fhwc_q {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%in, %w, %zp, %z : memref<1x1x1x8xi8>, memref<2x1x1x8xi8, strided<[?, ?, ?, 1]>>, i32, i32) outs(%out : memref<1x1x1x2xi32>)
  return
}

// -----

// The same for a depthwise convolution.
// CHECK-LABEL: func.func @dynamic_depthwise_filter
// CHECK-NOT: memref.extract_aligned_pointer_as_index
// CHECK-NOT: llvm.inttoptr
// CHECK: linalg.depthwise_conv_2d_nhwc_hwc_q
// CHECK-NOT: memref.extract_aligned_pointer_as_index
func.func @dynamic_depthwise_filter(%in: memref<1x3x3x4xi8>, %w: memref<3x3x4xi8, strided<[?, ?, 1]>>, %out: memref<1x1x1x4xi32>) {
  %zp = arith.constant -128 : i32
  %z = arith.constant 0 : i32
  linalg.depthwise_conv_2d_nhwc_hwc_q {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%in, %w, %zp, %z : memref<1x3x3x4xi8>, memref<3x3x4xi8, strided<[?, ?, 1]>>, i32, i32) outs(%out : memref<1x1x1x4xi32>)
  return
}
