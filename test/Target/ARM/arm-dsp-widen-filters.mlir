// RUN: mem-opt %s --split-input-file --pass-pipeline='builtin.module(arm-dsp-widen-filters)' | FileCheck %s
// RUN: mem-opt %s --split-input-file --pass-pipeline='builtin.module(arm-dsp-widen-filters,func.func(arm-dsp-int8-kernels))' | FileCheck %s --check-prefix=KERNEL
// RUN: mem-opt %s --split-input-file --pass-pipeline='builtin.module(arm-dsp-widen-filters{max-bytes=8})' | FileCheck %s --check-prefix=BUDGET

// The widened copy, computed by hand: w - zw with zw = 5,
//   channel 0: (1, -2, 3, -128) - 5 = (-4, -7, -2, -133),
//   channel 1: (127, 0, -1, 6) - 5 = (122, -5, -6, 1),
// stored as the halfword pairs (w0, w2), (w1, w3), little-endian bytes:
//   -4 = 0xFFFC: -4, -1;  -2 = 0xFFFE: -2, -1;  -7 = 0xFFF9: -7, -1;
//   -133 = 0xFF7B: 123, -1;  122: 122, 0;  -6 = 0xFFFA: -6, -1;
//   -5 = 0xFFFB: -5, -1;  1: 1, 0.
// Both convolutions (two output pixels each) of the same filter and zero
// point share one copy.
// CHECK-DAG: memref.global "private" constant @w_w16 : memref<2x1x1x8xi8> = dense<{{\[\[\[\[}}-4, -1, -2, -1, -7, -1, 123, -1]]], {{\[\[\[}}122, 0, -6, -1, -5, -1, 1, 0]]]]> {alignment = 8 : i64}
// CHECK-LABEL: func.func @widen
// CHECK: linalg.conv_2d_nhwc_fhwc_q {{.*}}memopt.dsp_wide_filter = [@w_w16, memref<2x1x1x8xi8>]
// CHECK: linalg.conv_2d_nhwc_fhwc_q {{.*}}memopt.dsp_wide_filter = [@w_w16, memref<2x1x1x8xi8>]
// The kernel reads the copy: two words (one aligned i64) and two SMLADs per output
// channel, no SXTB16 of the filter (two of the input word only).
// KERNEL-LABEL: func.func @widen
// KERNEL: memref.get_global @w_w16
// KERNEL-COUNT-2: llvm.call_intrinsic "llvm.arm.sxtb16"
// KERNEL-NOT: llvm.call_intrinsic "llvm.arm.sxtb16"
// KERNEL: llvm.load {{.*}} {alignment = 8 : i64} : !llvm.ptr -> i64
// KERNEL: llvm.call_intrinsic "llvm.arm.smlad"
// KERNEL: llvm.call_intrinsic "llvm.arm.smlad"
memref.global "private" constant @w : memref<2x1x1x4xi8> = dense<[[[[1, -2, 3, -128]]], [[[127, 0, -1, 6]]]]>
func.func @widen(%x: memref<1x2x1x4xi8>, %acc: memref<1x2x1x2xi32>, %acc2: memref<1x2x1x2xi32>) {
  %izp = arith.constant 0 : i32
  %wzp = arith.constant 5 : i32
  %w = memref.get_global @w : memref<2x1x1x4xi8>
  linalg.conv_2d_nhwc_fhwc_q {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w, %izp, %wzp : memref<1x2x1x4xi8>, memref<2x1x1x4xi8>, i32, i32) outs(%acc : memref<1x2x1x2xi32>)
  linalg.conv_2d_nhwc_fhwc_q {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w, %izp, %wzp : memref<1x2x1x4xi8>, memref<2x1x1x4xi8>, i32, i32) outs(%acc2 : memref<1x2x1x2xi32>)
  return
}

// -----

// Not widened: input channels that are not a multiple of 4, a filter that
// is not a constant global, and a filter read for one output pixel (a
// fully connected layer), whole or as blocks of rows; a loop around the
// convolution counts its trips as pixels.
// CHECK-LABEL: func.func @keep
// CHECK-NOT: memopt.dsp_wide_filter
// CHECK: return
memref.global "private" constant @w3 : memref<1x1x1x3xi8> = dense<[[[[1, 2, 3]]]]>
memref.global "private" constant @w4 : memref<1x1x1x4xi8> = dense<[[[[1, 2, 3, 4]]]]>
func.func @keep(%x: memref<1x1x1x3xi8>, %acc: memref<1x1x1x1xi32>, %x4: memref<1x1x1x4xi8>, %f: memref<1x1x1x4xi8>) {
  %zp = arith.constant 0 : i32
  %w = memref.get_global @w3 : memref<1x1x1x3xi8>
  linalg.conv_2d_nhwc_fhwc_q {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w, %zp, %zp : memref<1x1x1x3xi8>, memref<1x1x1x3xi8>, i32, i32) outs(%acc : memref<1x1x1x1xi32>)
  linalg.conv_2d_nhwc_fhwc_q {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x4, %f, %zp, %zp : memref<1x1x1x4xi8>, memref<1x1x1x4xi8>, i32, i32) outs(%acc : memref<1x1x1x1xi32>)
  %w4 = memref.get_global @w4 : memref<1x1x1x4xi8>
  linalg.conv_2d_nhwc_fhwc_q {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x4, %w4, %zp, %zp : memref<1x1x1x4xi8>, memref<1x1x1x4xi8>, i32, i32) outs(%acc : memref<1x1x1x1xi32>)
  return
}

// -----

// CHECK-NOT: @fc_w16
// CHECK-LABEL: func.func @rows
// CHECK-NOT: memopt.dsp_wide_filter
// CHECK: return
memref.global "private" constant @fc : memref<8x1x1x4xi8> = dense<1>
func.func @rows(%x: memref<1x1x1x4xi8>, %acc: memref<1x1x1x4xi32>, %i: index) {
  %zp = arith.constant 0 : i32
  %w = memref.get_global @fc : memref<8x1x1x4xi8>
  %rows = memref.subview %w[%i, 0, 0, 0] [4, 1, 1, 4] [1, 1, 1, 1] : memref<8x1x1x4xi8> to memref<4x1x1x4xi8, strided<[4, 4, 4, 1], offset: ?>>
  linalg.conv_2d_nhwc_fhwc_q {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %rows, %zp, %zp : memref<1x1x1x4xi8>, memref<4x1x1x4xi8, strided<[4, 4, 4, 1], offset: ?>>, i32, i32) outs(%acc : memref<1x1x1x4xi32>)
  return
}

// -----

// One pixel per convolution inside a loop of 3 pixels: widened.
// CHECK-LABEL: func.func @loop
// CHECK: scf.for
// CHECK: linalg.conv_2d_nhwc_fhwc_q {{.*}}memopt.dsp_wide_filter = [@p_w16, memref<4x1x1x8xi8>]
memref.global "private" constant @p : memref<4x1x1x4xi8> = dense<1>
func.func @loop(%x: memref<1x1x1x4xi8>, %acc: memref<1x1x1x4xi32>) {
  %zp = arith.constant 0 : i32
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %w = memref.get_global @p : memref<4x1x1x4xi8>
  scf.for %i = %c0 to %c3 step %c1 {
    linalg.conv_2d_nhwc_fhwc_q {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w, %zp, %zp : memref<1x1x1x4xi8>, memref<4x1x1x4xi8>, i32, i32) outs(%acc : memref<1x1x1x4xi32>)
  }
  return
}

// -----

// A budget of 8 bytes: the 8-byte filter read for 4 pixels is widened, the
// one read for 2 pixels is not (it would exceed the budget), whatever their
// order; the default budget widens both.
// BUDGET-LABEL: func.func @budget
// BUDGET: linalg.conv_2d_nhwc_fhwc_q
// BUDGET-NOT: memopt.dsp_wide_filter
// BUDGET-SAME: outs(%arg2
// BUDGET: linalg.conv_2d_nhwc_fhwc_q {{.*}}memopt.dsp_wide_filter = [@many_w16
// CHECK-LABEL: func.func @budget
// CHECK: memopt.dsp_wide_filter = [@few_w16
// CHECK: memopt.dsp_wide_filter = [@many_w16
memref.global "private" constant @few : memref<2x1x1x4xi8> = dense<1>
memref.global "private" constant @many : memref<2x1x1x4xi8> = dense<2>
func.func @budget(%x2: memref<1x2x1x4xi8>, %x4: memref<1x4x1x4xi8>, %acc2: memref<1x2x1x2xi32>, %acc4: memref<1x4x1x2xi32>) {
  %zp = arith.constant 0 : i32
  %few = memref.get_global @few : memref<2x1x1x4xi8>
  %many = memref.get_global @many : memref<2x1x1x4xi8>
  linalg.conv_2d_nhwc_fhwc_q {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x2, %few, %zp, %zp : memref<1x2x1x4xi8>, memref<2x1x1x4xi8>, i32, i32) outs(%acc2 : memref<1x2x1x2xi32>)
  linalg.conv_2d_nhwc_fhwc_q {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x4, %many, %zp, %zp : memref<1x4x1x4xi8>, memref<2x1x1x4xi8>, i32, i32) outs(%acc4 : memref<1x4x1x2xi32>)
  return
}
