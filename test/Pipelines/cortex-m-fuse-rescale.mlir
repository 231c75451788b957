// int8 conv/depthwise/matmul + tosa.rescale through cortex-m-pipeline: no
// full-size i32 accumulator is left in the planned IR, only one pixel per
// fused loop (one row of the matmul), placed in the arena at function level.
// The depthwise conv with 2 channels and multiplier 3 (dw3) is not fused and
// keeps its 5x5x2x3 i32 accumulator. Execution on QEMU: qemu-int8-fused.mlir.
// RUN: mem-opt %S/Inputs/int8_fused.mlir --cortex-m-pipeline=stop-after=plan | FileCheck %s

// CHECK-LABEL: func.func @int8_fused
// CHECK-NOT: xi32>{{.*}} = memref.alloc
// dw1: 1 input channel, multiplier 4 -> a conv, one pixel of 4 channels.
// CHECK: memplan.place {{.*}} to memref<1x1x1x4xi32>
// CHECK-NEXT: scf.for
// CHECK-NEXT: scf.for
// CHECK: linalg.conv_2d_nhwc_hwcf_q {{.*}} outs({{.*}} : memref<1x1x1x4xi32>)
// dw2: multiplier 1, stride 1, and its input (dw1) dies at it: computed in
// place one channel at a time (inplace-depthwise), a 4-d depthwise conv per
// channel with a 5x5 channel, a 3x3 padded window and one i32 pixel.
// CHECK: memplan.place {{.*}} to memref<1x5x5x1xi8>
// CHECK: memplan.place {{.*}} to memref<1x3x3x1xi8>
// CHECK: memplan.place {{.*}} to memref<1x1x1x1xi32>
// CHECK: scf.for
// CHECK: linalg.depthwise_conv_2d_nhwc_hwc_q {{.*}} outs({{.*}} : memref<1x1x1x1xi32>)
// pw: 1x1 conv, two channels.
// CHECK: memplan.place {{.*}} to memref<1x1x1x2xi32>
// CHECK: linalg.conv_2d_nhwc_fhwc_q {{.*}} outs({{.*}} : memref<1x1x1x2xi32>)
// dw3: not fused.
// CHECK: memplan.place {{.*}} to memref<1x5x5x2x3xi32>
// CHECK: linalg.depthwise_conv_2d_nhwc_hwcm_q
// fc: one row of 5 outputs.
// CHECK: memplan.place {{.*}} to memref<1x1x5xi32>
// CHECK: linalg.quantized_batch_matmul {{.*}} outs({{.*}} : memref<1x1x5xi32>)

// No other i32 buffer: the full accumulators 5x5x4, 5x5x2 and 25x5 are gone.
// RUN: mem-opt %S/Inputs/int8_fused.mlir --cortex-m-pipeline=stop-after=plan | FileCheck %s --check-prefix=ALL
// ALL-COUNT-5: memplan.place {{.*}}xi32>
// ALL-NOT: memplan.place {{.*}}xi32>
// ALL-NOT: memref.alloc

// The same rule as the cost model (../Transforms/memory-report-fused-accumulator.mlir):
// @fused becomes a loop over 4x4 pixels with a 16 x i32 accumulator (the arena
// holds only it: x and out are the caller's); the one-pixel conv is not fused.
// RUN: mem-opt %S/../Transforms/memory-report-fused-accumulator.mlir --cortex-m-pipeline="stop-after=plan io=caller" | FileCheck %s --check-prefix=RULE
// RULE-LABEL: func.func @fused
// RULE-SAME: memplan.arena_size = 64
// RULE: memplan.place {{.*}} to memref<1x1x1x16xi32>
// RULE-NEXT: scf.for
// RULE-LABEL: func.func @two_users
// RULE: memplan.place {{.*}} to memref<1x4x4x16xi32>
// RULE-NOT: scf.for
// RULE-LABEL: func.func @wide_depthwise
// RULE: memplan.place {{.*}} to memref<1x4x4x2x3xi32>
// RULE-NOT: scf.for
// One pixel: blocks of 4 output channels, the accumulator a stack slot
// outside the arena (cortex-m-fully-connected.mlir).
// RULE-LABEL: func.func @one_pixel
// RULE-NOT: memplan.place {{.*}}xi32>
// RULE: memref.alloca() {memopt.register_accumulator} : memref<1x1x1x4xi32>
// RULE-NEXT: scf.for

// Padding: a fused conv reads its padded input through one padded window per
// pixel (3x3 x input channels, at function level), not a padded copy of the
// whole input (dw1: 11x11x1, dw2: 7x7x4; dw2, in place, reads one channel
// per window). The unfused dw3 keeps its copy.
// RUN: mem-opt %S/Inputs/int8_fused.mlir --cortex-m-pipeline=stop-after=plan | FileCheck %s --check-prefix=PAD
// PAD-NOT: memref<1x11x11x1xi8>
// PAD-NOT: memref<1x7x7x4xi8>
// PAD: memplan.place {{.*}} to memref<1x3x3x1xi8>
// PAD: scf.for
// PAD: linalg.fill
// PAD-SAME: outs(%{{.*}} : memref<1x3x3x1xi8>)
// PAD: linalg.copy
// PAD: linalg.conv_2d_nhwc_hwcf_q
// PAD: memplan.place {{.*}} to memref<1x3x3x1xi8>
// PAD: memplan.place {{.*}} to memref<1x7x7x2xi8>
// PAD: linalg.depthwise_conv_2d_nhwc_hwcm_q
// PAD-NOT: memref<1x11x11x1xi8>
// PAD-NOT: memref<1x7x7x4xi8>

// The lowering of @padded holds what the model counts at the rescale (its
// arena excludes x and out): acc 64 + window 72 (aligned to 80) = 144.
// RUN: mem-opt %S/../Transforms/memory-report-fused-accumulator.mlir --cortex-m-pipeline="stop-after=plan io=caller" | FileCheck %s --check-prefix=PADDED
// PADDED-LABEL: func.func @padded
// PADDED-SAME: memplan.arena_size = 144
// PADDED-DAG: memplan.place {{.*}} to memref<1x3x3x8xi8>
// PADDED-DAG: memplan.place {{.*}} to memref<1x1x1x16xi32>
// RULE-LABEL: func.func @padded
