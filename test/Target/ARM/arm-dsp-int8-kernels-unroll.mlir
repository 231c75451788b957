// RUN: mem-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(arm-dsp-int8-kernels{unroll=4}),canonicalize)' | FileCheck %s
// RUN: mem-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(arm-dsp-int8-kernels),canonicalize)' | FileCheck %s --check-prefix=NONE

// One pixel of a 1x1 conv with 24 input channels: the SIMD reduction takes
// 24 / 4 = 6 steps, more than the 4 emitted in line, so it is an scf.for
// over [0, 24) by 4 that asks LLVM for an unroll count of 4 (convert-scf-to-cf
// copies the attribute to the loop's back edge, whose llvm.br turns it into
// llvm.loop.unroll.count). The output channel loop is not annotated; without
// the option no loop is. The default oc-block of 4 gives 8 SMLADs per step.
// CHECK: #[[UNROLL:.*]] = #llvm.loop_unroll<count = 4 : i32>
// CHECK: #[[ANNOTATION:.*]] = #llvm.loop_annotation<unroll = #[[UNROLL]]>
// CHECK-LABEL: func.func @conv
// CHECK-DAG: %[[C24:.*]] = arith.constant 24 : i32
// CHECK-DAG: %[[C4:.*]] = arith.constant 4 : i32
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %[[C4]] : i32 {
// CHECK: scf.for %{{.*}} = %{{.*}} to %[[C24]] step %[[C4]] iter_args
// CHECK-COUNT-8: llvm.call_intrinsic "llvm.arm.smlad"
// CHECK-NOT: llvm.call_intrinsic "llvm.arm.smlad"
// CHECK: } {loop_annotation = #[[ANNOTATION]]}
// CHECK: memref.store
// CHECK-NOT: loop_annotation
// CHECK: return
// NONE-NOT: loop_annotation
func.func @conv(%in: memref<1x1x1x24xi8>, %w: memref<8x1x1x24xi8>, %out: memref<1x1x1x8xi32>) {
  %zp = arith.constant -128 : i32
  %z = arith.constant 0 : i32
  linalg.conv_2d_nhwc_fhwc_q {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%in, %w, %zp, %z : memref<1x1x1x24xi8>, memref<8x1x1x24xi8>, i32, i32) outs(%out : memref<1x1x1x8xi32>)
  return
}

// -----

// 16 input channels: 4 SIMD steps, emitted in line, so there is no loop to
// annotate.
// CHECK-LABEL: func.func @short
// CHECK-NOT: loop_annotation
// CHECK: return
func.func @short(%in: memref<1x1x1x16xi8>, %w: memref<4x1x1x16xi8>, %out: memref<1x1x1x4xi32>) {
  %zp = arith.constant -128 : i32
  %z = arith.constant 0 : i32
  linalg.conv_2d_nhwc_fhwc_q {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%in, %w, %zp, %z : memref<1x1x1x16xi8>, memref<4x1x1x16xi8>, i32, i32) outs(%out : memref<1x1x1x4xi32>)
  return
}
