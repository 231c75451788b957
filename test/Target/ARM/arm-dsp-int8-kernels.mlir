// RUN: mem-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(arm-dsp-int8-kernels{oc-block=2}),canonicalize)' | FileCheck %s

// One pixel of a 1x1 conv, 7 input channels (4 with DSP, a scalar tail of
// 3), 5 output channels (two blocks of 2, a tail of 1), input zero point
// -128: SADD16 adds the halfword pair (128, 128) = 128 + 128 * 65536 =
// 8388736. The input row starts at the view's dynamic offset.
// CHECK-LABEL: func.func @conv
// CHECK-DAG: %[[ZP:.*]] = arith.constant 8388736 : i32
// CHECK-DAG: %[[C8:.*]] = arith.constant 8 : i32
// CHECK-DAG: %[[C2:.*]] = arith.constant 2 : i32
// CHECK-DAG: %[[C4:.*]] = arith.constant 4 : i32
// CHECK-DAG: %[[C7:.*]] = arith.constant 7 : i32
// CHECK-DAG: %[[ZPS:.*]] = arith.constant -128 : i32
// CHECK: %[[INT:.*]] = memref.extract_aligned_pointer_as_index %arg0
// CHECK: %[[IN:.*]] = llvm.inttoptr
// CHECK: %{{.*}}, %[[OFF:.*]], %{{.*}} = memref.extract_strided_metadata %arg0
// CHECK: scf.for %[[OC:.*]] = %{{.*}} to %[[C4]] step %[[C2]] : i32 {
// CHECK:   %[[ACC0:.*]] = memref.load %arg2
// CHECK:   %[[ACC1:.*]] = memref.load %arg2
// CHECK:   %[[X:.*]] = llvm.load %{{.*}} {alignment = 1 : i64} : !llvm.ptr -> i32
// CHECK:   %[[XE:.*]] = llvm.call_intrinsic "llvm.arm.sxtb16"(%[[X]])
// CHECK:   %[[XEZ:.*]] = llvm.call_intrinsic "llvm.arm.sadd16"(%[[XE]], %[[ZP]])
// CHECK:   %[[XR:.*]] = llvm.intr.fshr(%[[X]], %[[X]], %[[C8]])
// CHECK:   %[[XO:.*]] = llvm.call_intrinsic "llvm.arm.sxtb16"(%[[XR]])
// CHECK:   %[[XOZ:.*]] = llvm.call_intrinsic "llvm.arm.sadd16"(%[[XO]], %[[ZP]])
// CHECK:   llvm.call_intrinsic "llvm.arm.smlad"(%[[XEZ]], %{{.*}}, %[[ACC0]])
// CHECK:   llvm.call_intrinsic "llvm.arm.smlad"(%[[XOZ]]
// CHECK:   llvm.call_intrinsic "llvm.arm.smlad"(%[[XEZ]], %{{.*}}, %[[ACC1]])
// CHECK:   llvm.call_intrinsic "llvm.arm.smlad"(%[[XOZ]]
// The scalar tail: input channels 4 to 6, (x - zp) * w, unrolled (at most 4
// steps).
// CHECK-NOT: scf.for
// CHECK-COUNT-3: arith.subi %{{.*}}, %[[ZPS]] : i32
// CHECK-NOT: scf.for
// CHECK:   memref.store
// CHECK:   memref.store
// CHECK: }
// The fifth output channel alone.
// CHECK: memref.load %arg2[%{{.*}}, %{{.*}}, %{{.*}}, %[[C4I:.*]]] : memref<1x1x1x5xi32>
// CHECK: llvm.call_intrinsic "llvm.arm.smlad"
// CHECK: llvm.call_intrinsic "llvm.arm.smlad"
// CHECK-NOT: llvm.call_intrinsic "llvm.arm.smlad"
// CHECK: memref.store
// CHECK-NOT: linalg.conv_2d_nhwc_fhwc_q
// CHECK: return
func.func @conv(%in: memref<1x1x1x7xi8, strided<[18432, 384, 7, 1], offset: ?>>, %w: memref<5x1x1x7xi8>, %out: memref<1x1x1x5xi32>) {
  %zp = arith.constant -128 : i32
  %z = arith.constant 0 : i32
  linalg.conv_2d_nhwc_fhwc_q {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%in, %w, %zp, %z : memref<1x1x1x7xi8, strided<[18432, 384, 7, 1], offset: ?>>, memref<5x1x1x7xi8>, i32, i32) outs(%out : memref<1x1x1x5xi32>)
  return
}

// -----

// A 3x3 depthwise window of 6 channels, input zero point 3 (pair (-3, -3) =
// 0xFFFDFFFD = -131075), weight zero point 0 (no SADD16 on the filter):
// channels 0-3 with SMLABB/SMLATT over the 9 unrolled taps (36 products),
// channels 4 and 5 scalar (9 taps each).
// CHECK-LABEL: func.func @dw
// CHECK-DAG: %[[DZP:.*]] = arith.constant -131075 : i32
// CHECK-COUNT-18: llvm.call_intrinsic "llvm.arm.sadd16"(%{{.*}}, %[[DZP]])
// CHECK-NOT: llvm.arm.sadd16
// CHECK-NOT: scf.for
// CHECK: llvm.call_intrinsic "llvm.arm.smlabb"
// CHECK: llvm.call_intrinsic "llvm.arm.smlabb"
// CHECK: llvm.call_intrinsic "llvm.arm.smlatt"
// CHECK: llvm.call_intrinsic "llvm.arm.smlatt"
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} : i32 {
// CHECK-COUNT-9: arith.muli
// CHECK: memref.store
// CHECK: }
// CHECK-NOT: linalg.depthwise_conv_2d_nhwc_hwc_q
func.func @dw(%in: memref<1x3x3x6xi8>, %w: memref<3x3x6xi8>, %out: memref<1x1x1x6xi32>) {
  %zp = arith.constant 3 : i32
  %z = arith.constant 0 : i32
  linalg.depthwise_conv_2d_nhwc_hwc_q {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%in, %w, %zp, %z : memref<1x3x3x6xi8>, memref<3x3x6xi8>, i32, i32) outs(%out : memref<1x1x1x6xi32>)
  return
}

// -----

// The plain ops on int8 (zero points 0, as mem-opt-zoo's int8 models lower):
// no SADD16 at all.
// CHECK-LABEL: func.func @plain
// CHECK-NOT: llvm.arm.sadd16
// CHECK: llvm.call_intrinsic "llvm.arm.smlad"
// CHECK-NOT: llvm.arm.sadd16
// CHECK: llvm.call_intrinsic "llvm.arm.smlabb"
// CHECK-NOT: llvm.arm.sadd16
// CHECK-NOT: linalg.
// CHECK: return
func.func @plain(%in: memref<1x1x1x8xi8>, %w: memref<2x1x1x8xi8>, %out: memref<1x1x1x2xi32>, %din: memref<1x3x3x4xi8>, %dw: memref<3x3x4xi8>, %dout: memref<1x1x1x4xi32>) {
  linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%in, %w : memref<1x1x1x8xi8>, memref<2x1x1x8xi8>) outs(%out : memref<1x1x1x2xi32>)
  linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%din, %dw : memref<1x3x3x4xi8>, memref<3x3x4xi8>) outs(%dout : memref<1x1x1x4xi32>)
  return
}

// -----

// Left alone: a float conv, a zero point that is not a constant, and a conv on tensors.
// CHECK-LABEL: func.func @negative
// CHECK: linalg.conv_2d_nhwc_fhwc ins
// CHECK: linalg.conv_2d_nhwc_fhwc_q
// CHECK: linalg.depthwise_conv_2d_nhwc_hwc_q
// CHECK-NOT: llvm.call_intrinsic
func.func @negative(%in: memref<1x1x1x8xi8>, %w: memref<4x1x1x8xi8>, %out: memref<1x1x1x4xi32>, %zp: i32, %t: tensor<1x3x3x4xi8>, %tw: tensor<3x3x4xi8>, %tout: tensor<1x1x1x4xi32>, %fin: memref<1x1x1x8xf32>, %fw: memref<4x1x1x8xf32>, %fout: memref<1x1x1x4xf32>) -> tensor<1x1x1x4xi32> {
  %z = arith.constant 0 : i32
  linalg.conv_2d_nhwc_fhwc ins(%fin, %fw : memref<1x1x1x8xf32>, memref<4x1x1x8xf32>) outs(%fout : memref<1x1x1x4xf32>)
  linalg.conv_2d_nhwc_fhwc_q {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%in, %w, %zp, %z : memref<1x1x1x8xi8>, memref<4x1x1x8xi8>, i32, i32) outs(%out : memref<1x1x1x4xi32>)
  %r = linalg.depthwise_conv_2d_nhwc_hwc_q {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%t, %tw, %z, %z : tensor<1x3x3x4xi8>, tensor<3x3x4xi8>, i32, i32) outs(%tout : tensor<1x1x1x4xi32>) -> tensor<1x1x1x4xi32>
  return %r : tensor<1x1x1x4xi32>
}

// -----

// An HWCF filter (one input channel, 6 output channels): the input value
// minus its zero point (-128) multiplies output channels 0-3 with
// SMLABB/SMLABT over the 9 unrolled taps, channels 4 and 5 are scalar.
// CHECK-LABEL: func.func @hwcf
// CHECK-DAG: %[[HZP:.*]] = arith.constant -128 : i32
// CHECK: %[[XV:.*]] = arith.subi %{{.*}}, %[[HZP]] : i32
// CHECK: llvm.call_intrinsic "llvm.arm.smlabb"(%[[XV]]
// CHECK: llvm.call_intrinsic "llvm.arm.smlabb"(%[[XV]]
// CHECK: llvm.call_intrinsic "llvm.arm.smlabt"(%[[XV]]
// CHECK: llvm.call_intrinsic "llvm.arm.smlabt"(%[[XV]]
// CHECK-COUNT-32: llvm.arm.smlab
// CHECK-NOT: llvm.arm.smlab
// CHECK: scf.for
// CHECK-COUNT-9: arith.muli
// CHECK-NOT: linalg.conv_2d_nhwc_hwcf_q
func.func @hwcf(%in: memref<1x3x3x1xi8>, %w: memref<3x3x1x6xi8>, %out: memref<1x1x1x6xi32>) {
  %zp = arith.constant -128 : i32
  %z = arith.constant 0 : i32
  linalg.conv_2d_nhwc_hwcf_q {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%in, %w, %zp, %z : memref<1x3x3x1xi8>, memref<3x3x1x6xi8>, i32, i32) outs(%out : memref<1x1x1x6xi32>)
  return
}

// -----

// The rounding multiply of a rescale with constant shifts in [32, 62]
// becomes 32-bit: one widening multiply, t = (hi << 1) | (lo >> 31), then
// (t >> (s - 31)) + ((t >> (s - 32)) & 1), computed as (y >> 1) + (y & 1)
// with y = t >> (s - 32). Shift 31 (below 32) stays 64-bit.
// CHECK-LABEL: func.func @rescale
// CHECK: linalg.generic
// CHECK-NOT: i64
// CHECK: %[[LO:.*]], %[[HI:.*]] = arith.mulsi_extended
// CHECK: %[[SHL:.*]] = arith.shli %[[HI]], %{{.*}} : i32
// CHECK: %[[SHR:.*]] = arith.shrui %[[LO]], %{{.*}} : i32
// CHECK: %[[T:.*]] = arith.ori %[[SHL]], %[[SHR]] : i32
// CHECK: %[[S:.*]] = arith.extui %{{.*}} : i8 to i32
// CHECK: %[[S32:.*]] = arith.subi %[[S]], %c32_i32 : i32
// CHECK: %[[Y:.*]] = arith.shrsi %[[T]], %[[S32]] : i32
// CHECK: %[[Q:.*]] = arith.shrsi %[[Y]], %c1_i32 : i32
// CHECK: %[[BIT:.*]] = arith.andi %[[Y]], %c1_i32 : i32
// CHECK: arith.addi %[[Q]], %[[BIT]] : i32
// CHECK: linalg.generic
// CHECK: arith.muli %{{.*}}, %{{.*}} : i64
memref.global "private" constant @mult : memref<2xi32> = dense<[1073741824, 2147483647]>
memref.global "private" constant @shift : memref<2xi8> = dense<[32, 62]>
memref.global "private" constant @shift31 : memref<2xi8> = dense<[31, 40]>
func.func @rescale(%acc: memref<2xi32>, %out: memref<2xi32>) {
  %c1 = arith.constant 1 : i64
  %m = memref.get_global @mult : memref<2xi32>
  %s = memref.get_global @shift : memref<2xi8>
  %s31 = memref.get_global @shift31 : memref<2xi8>
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%acc, %m, %s : memref<2xi32>, memref<2xi32>, memref<2xi8>) outs(%out : memref<2xi32>) {
  ^bb0(%in: i32, %in_1: i32, %in_2: i8, %o: i32):
    %0 = arith.extsi %in : i32 to i64
    %1 = arith.extsi %in_1 : i32 to i64
    %2 = arith.muli %0, %1 : i64
    %3 = arith.extui %in_2 : i8 to i64
    %4 = arith.shli %c1, %3 : i64
    %5 = arith.shrui %4, %c1 : i64
    %6 = arith.addi %2, %5 : i64
    %7 = arith.shrsi %6, %3 : i64
    %8 = arith.trunci %7 : i64 to i32
    linalg.yield %8 : i32
  }
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%acc, %m, %s31 : memref<2xi32>, memref<2xi32>, memref<2xi8>) outs(%out : memref<2xi32>) {
  ^bb0(%in: i32, %in_1: i32, %in_2: i8, %o: i32):
    %0 = arith.extsi %in : i32 to i64
    %1 = arith.extsi %in_1 : i32 to i64
    %2 = arith.muli %0, %1 : i64
    %3 = arith.extui %in_2 : i8 to i64
    %4 = arith.shli %c1, %3 : i64
    %5 = arith.shrui %4, %c1 : i64
    %6 = arith.addi %2, %5 : i64
    %7 = arith.shrsi %6, %3 : i64
    %8 = arith.trunci %7 : i64 to i32
    linalg.yield %8 : i32
  }
  return
}

// -----

// A depthwise conv reading a padded window (fuse-rescale-accumulators): the
// window is filled with the input zero point -128 and the part of the image
// at rows/columns [%r, %r + %h) x [%c, %c + %w) is copied to window
// position (%y, %x). The kernel reads the image in place instead, so the
// fill and the copy are gone: window element (0, i, j, c) is image element
// (0, i + %r - %y, j + %c - %x, c) when i - %y <u %h and j - %x <u %w (a
// row check per kernel row, a column check per tap), else the zero point,
// whose products are 0 (the tap is skipped). A window the copy covers whole
// (offsets 0, sizes 3) takes the branch without checks.
// CHECK-LABEL: func.func @window
// CHECK-NOT: linalg.fill
// CHECK-NOT: linalg.copy
// CHECK: memref.extract_aligned_pointer_as_index %arg0
// CHECK-COUNT-2: arith.cmpi eq, %{{.*}}, %c3_i32 : i32
// CHECK-NEXT: arith.andi
// CHECK-NEXT: %[[WHOLE:.*]] = arith.andi %{{.*}}, %{{.*}} : i1
// CHECK-NEXT: scf.if %[[WHOLE]] {
// CHECK-NOT: scf.if
// CHECK: llvm.call_intrinsic "llvm.arm.smlabb"
// CHECK: } else {
// CHECK: %[[ROW:.*]] = arith.cmpi ult, %{{.*}}, %{{.*}} : i32
// CHECK: scf.if %[[ROW]] -> (i32, i32, i32, i32) {
// CHECK: %[[COL:.*]] = arith.cmpi ult, %{{.*}}, %{{.*}} : i32
// CHECK: scf.if %[[COL]] -> (i32, i32, i32, i32) {
// CHECK: llvm.call_intrinsic "llvm.arm.smlabb"
// CHECK-NOT: linalg.depthwise_conv_2d_nhwc_hwc_q
func.func @window(%image: memref<1x5x5x4xi8>, %window: memref<1x3x3x4xi8>, %w: memref<3x3x4xi8>, %out: memref<1x1x1x4xi32>, %r: index, %c: index, %y: index, %x: index, %h: index, %wd: index) {
  %zp = arith.constant -128 : i32
  %z = arith.constant 0 : i32
  %pad = arith.constant -128 : i8
  linalg.fill ins(%pad : i8) outs(%window : memref<1x3x3x4xi8>)
  %part = memref.subview %image[0, %r, %c, 0] [1, %h, %wd, 4] [1, 1, 1, 1] : memref<1x5x5x4xi8> to memref<1x?x?x4xi8, strided<[100, 20, 4, 1], offset: ?>>
  %dst = memref.subview %window[0, %y, %x, 0] [1, %h, %wd, 4] [1, 1, 1, 1] : memref<1x3x3x4xi8> to memref<1x?x?x4xi8, strided<[36, 12, 4, 1], offset: ?>>
  linalg.copy ins(%part : memref<1x?x?x4xi8, strided<[100, 20, 4, 1], offset: ?>>) outs(%dst : memref<1x?x?x4xi8, strided<[36, 12, 4, 1], offset: ?>>)
  linalg.depthwise_conv_2d_nhwc_hwc_q {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%window, %w, %zp, %z : memref<1x3x3x4xi8>, memref<3x3x4xi8>, i32, i32) outs(%out : memref<1x1x1x4xi32>)
  return
}

// -----

// A window filled with another value than the input zero point is read as
// it is: its fill and copy stay.
// CHECK-LABEL: func.func @window_other_fill
// CHECK: linalg.fill
// CHECK: linalg.copy
// CHECK-NOT: scf.if
// CHECK: llvm.call_intrinsic "llvm.arm.smlabb"
func.func @window_other_fill(%image: memref<1x5x5x4xi8>, %window: memref<1x3x3x4xi8>, %w: memref<3x3x4xi8>, %out: memref<1x1x1x4xi32>, %r: index, %c: index, %y: index, %x: index, %h: index, %wd: index) {
  %zp = arith.constant -128 : i32
  %z = arith.constant 0 : i32
  %pad = arith.constant 0 : i8
  linalg.fill ins(%pad : i8) outs(%window : memref<1x3x3x4xi8>)
  %part = memref.subview %image[0, %r, %c, 0] [1, %h, %wd, 4] [1, 1, 1, 1] : memref<1x5x5x4xi8> to memref<1x?x?x4xi8, strided<[100, 20, 4, 1], offset: ?>>
  %dst = memref.subview %window[0, %y, %x, 0] [1, %h, %wd, 4] [1, 1, 1, 1] : memref<1x3x3x4xi8> to memref<1x?x?x4xi8, strided<[36, 12, 4, 1], offset: ?>>
  linalg.copy ins(%part : memref<1x?x?x4xi8, strided<[100, 20, 4, 1], offset: ?>>) outs(%dst : memref<1x?x?x4xi8, strided<[36, 12, 4, 1], offset: ?>>)
  linalg.depthwise_conv_2d_nhwc_hwc_q {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%window, %w, %zp, %z : memref<1x3x3x4xi8>, memref<3x3x4xi8>, i32, i32) outs(%out : memref<1x1x1x4xi32>)
  return
}

// -----

// The same window whose copy carries the mark of fuse-rescale-accumulators
// (it covers exactly the window's intersection with the 5x5 image): a tap is
// tested against the image, (origin + i) <u 5 with origin = %r - %y, and the
// interior is origin <=u 5 - 3 = 2 in H and W; the copied rectangle (%h,
// %wd) is not read.
// CHECK-LABEL: func.func @window_exact
// CHECK-NOT: linalg.copy
// CHECK: %[[OH:.*]] = arith.subi %{{.*}}, %{{.*}} : i32
// CHECK: %[[OW:.*]] = arith.subi %{{.*}}, %{{.*}} : i32
// CHECK: %[[IH:.*]] = arith.cmpi ule, %[[OH]], %c2_i32 : i32
// CHECK: %[[IW:.*]] = arith.cmpi ule, %[[OW]], %c2_i32 : i32
// CHECK: %[[WHOLE:.*]] = arith.andi %[[IH]], %[[IW]] : i1
// CHECK-NEXT: scf.if %[[WHOLE]] {
// CHECK: } else {
// CHECK: %[[ROW:.*]] = arith.cmpi ult, %{{.*}}, %c5_i32 : i32
// CHECK: scf.if %[[ROW]] -> (i32, i32, i32, i32) {
// CHECK: %[[COL:.*]] = arith.cmpi ult, %{{.*}}, %c5_i32 : i32
// CHECK: scf.if %[[COL]] -> (i32, i32, i32, i32) {
// CHECK: llvm.call_intrinsic "llvm.arm.smlabb"
func.func @window_exact(%image: memref<1x5x5x4xi8>, %window: memref<1x3x3x4xi8>, %w: memref<3x3x4xi8>, %out: memref<1x1x1x4xi32>, %r: index, %c: index, %y: index, %x: index, %h: index, %wd: index) {
  %zp = arith.constant -128 : i32
  %z = arith.constant 0 : i32
  %pad = arith.constant -128 : i8
  linalg.fill ins(%pad : i8) outs(%window : memref<1x3x3x4xi8>)
  %part = memref.subview %image[0, %r, %c, 0] [1, %h, %wd, 4] [1, 1, 1, 1] : memref<1x5x5x4xi8> to memref<1x?x?x4xi8, strided<[100, 20, 4, 1], offset: ?>>
  %dst = memref.subview %window[0, %y, %x, 0] [1, %h, %wd, 4] [1, 1, 1, 1] : memref<1x3x3x4xi8> to memref<1x?x?x4xi8, strided<[36, 12, 4, 1], offset: ?>>
  linalg.copy ins(%part : memref<1x?x?x4xi8, strided<[100, 20, 4, 1], offset: ?>>) outs(%dst : memref<1x?x?x4xi8, strided<[36, 12, 4, 1], offset: ?>>) loc(fused<"memopt.padded_window">[unknown])
  linalg.depthwise_conv_2d_nhwc_hwc_q {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%window, %w, %zp, %z : memref<1x3x3x4xi8>, memref<3x3x4xi8>, i32, i32) outs(%out : memref<1x1x1x4xi32>)
  return
}

// -----

// An int8 clamp to [-20, 100] (a lowered tosa.clamp) of 18 bytes, in place:
// four words, each through SSUB8 and SEL against the bound in every byte
// (-20 = 0xEC: 0xECECECEC = -320017172; 100 = 0x64: 0x64646464 =
// 1684300900); max(x, lo) is SEL(x, lo) where x >= lo, min(x, hi) is
// SEL(hi, x) where x >= hi. The last 2 bytes one at a time.
// CHECK-LABEL: func.func @clamp
// CHECK-DAG: %[[LO:.*]] = arith.constant -320017172 : i32
// CHECK-DAG: %[[HI:.*]] = arith.constant 1684300900 : i32
// CHECK: scf.for %{{.*}} = %{{.*}} to %c16_i32 step %c4_i32 iter_args(%[[P:.*]] = %{{.*}}, %[[Q:.*]] = %{{.*}}) -> (!llvm.ptr, !llvm.ptr) : i32 {
// CHECK:   %[[X:.*]] = llvm.load %[[P]] {alignment = 1 : i64} : !llvm.ptr -> i32
// CHECK:   llvm.call_intrinsic "llvm.arm.ssub8"(%[[X]], %[[LO]])
// CHECK:   %[[M:.*]] = llvm.call_intrinsic "llvm.arm.sel"(%[[X]], %[[LO]])
// CHECK:   llvm.call_intrinsic "llvm.arm.ssub8"(%[[M]], %[[HI]])
// CHECK:   %[[N:.*]] = llvm.call_intrinsic "llvm.arm.sel"(%[[HI]], %[[M]])
// CHECK:   llvm.store %[[N]], %[[Q]] {alignment = 1 : i64} : i32, !llvm.ptr
// CHECK: scf.for %{{.*}} = %c16_i32 to %c18_i32 step %c1_i32
// CHECK:   arith.maxsi %{{.*}}, %c-20_i8 : i8
// CHECK:   arith.minsi %{{.*}}, %c100_i8 : i8
// CHECK-NOT: linalg.generic
func.func @clamp(%x: memref<1x2x3x3xi8>) {
  %lo = arith.constant -20 : i8
  %hi = arith.constant 100 : i8
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x : memref<1x2x3x3xi8>) outs(%x : memref<1x2x3x3xi8>) {
  ^bb0(%in: i8, %out: i8):
    %0 = arith.maxsi %in, %lo : i8
    %1 = arith.minsi %0, %hi : i8
    linalg.yield %1 : i8
  }
  return
}

// -----

// A clamp of a strided (not contiguous) view stays a linalg.generic.
// CHECK-LABEL: func.func @clamp_strided
// CHECK: linalg.generic
// CHECK-NOT: llvm.arm.ssub8
func.func @clamp_strided(%x: memref<1x2x3x3xi8, strided<[36, 18, 6, 1]>>) {
  %lo = arith.constant -20 : i8
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x : memref<1x2x3x3xi8, strided<[36, 18, 6, 1]>>) outs(%x : memref<1x2x3x3xi8, strided<[36, 18, 6, 1]>>) {
  ^bb0(%in: i8, %out: i8):
    %0 = arith.maxsi %in, %lo : i8
    linalg.yield %0 : i8
  }
  return
}

// -----

// A one-channel 3x3 depthwise conv inside loops over its output pixels (as
// the in-place depthwise convolution computes a channel), input zero point
// 3, weight zero point 2. Its weights are loaded once, before the loops
// (the filter is a constant global, defined outside both), minus 2, and
// packed into halfword
// pairs (w0 & 0xFFFF) | (w1 << 16), ..., w8 alone; the input zero point is
// folded: -3 * sum(w - 2) is added to the accumulator once per pixel and the
// nine taps multiply the input bytes as they are, SMLABB for the even taps
// and SMLABT for the odd ones (the bottom or the top half of their pair).
// CHECK-LABEL: func.func @dw_one_channel
// CHECK-DAG: %[[MASK:.*]] = arith.constant 65535 : i32
// CHECK-DAG: %[[SIXTEEN:.*]] = arith.constant 16 : i32
// CHECK-DAG: %[[NEGZP:.*]] = arith.constant -3 : i32
// CHECK-DAG: %[[WZP:.*]] = arith.constant 2 : i32
// CHECK: %[[W:.*]] = memref.get_global @dw_filter
// CHECK-NOT: scf.for
// CHECK: memref.extract_aligned_pointer_as_index %[[W]]
// CHECK: %[[W0:.*]] = arith.subi %{{.*}}, %[[WZP]] : i32
// CHECK: %[[W1:.*]] = arith.subi %{{.*}}, %[[WZP]] : i32
// CHECK-COUNT-6: arith.subi %{{.*}}, %[[WZP]] : i32
// CHECK: %[[W8:.*]] = arith.subi %{{.*}}, %[[WZP]] : i32
// CHECK: %[[LO:.*]] = arith.andi %[[W0]], %[[MASK]] : i32
// CHECK: %[[HI:.*]] = arith.shli %[[W1]], %[[SIXTEEN]] : i32
// CHECK: %[[P0:.*]] = arith.ori %[[LO]], %[[HI]] : i32
// CHECK-COUNT-3: arith.ori
// CHECK: %[[SUM:.*]] = arith.addi %{{.*}}, %[[W8]] : i32
// CHECK: %[[FOLD:.*]] = arith.muli %[[SUM]], %[[NEGZP]] : i32
// CHECK: scf.for
// CHECK: scf.for
// CHECK: %[[ACC:.*]] = memref.load
// CHECK: %[[ACCZ:.*]] = arith.addi %[[ACC]], %[[FOLD]] : i32
// CHECK: %[[X0:.*]] = arith.extsi %{{.*}} : i8 to i32
// CHECK-NEXT: %[[A0:.*]] = llvm.call_intrinsic "llvm.arm.smlabb"(%[[X0]], %[[P0]], %[[ACCZ]])
// CHECK: %[[X1:.*]] = arith.extsi %{{.*}} : i8 to i32
// CHECK-NEXT: llvm.call_intrinsic "llvm.arm.smlabt"(%[[X1]], %[[P0]], %[[A0]])
// CHECK-COUNT-6: llvm.call_intrinsic "llvm.arm.smla{{bb|bt}}"
// CHECK: %[[X8:.*]] = arith.extsi %{{.*}} : i8 to i32
// CHECK-NEXT: %[[R:.*]] = llvm.call_intrinsic "llvm.arm.smlabb"(%[[X8]], %[[W8]], %{{.*}})
// CHECK-NEXT: memref.store %[[R]]
memref.global "private" constant @dw_filter : memref<3x3x1xi8> = dense<[[[1], [2], [3]], [[4], [5], [6]], [[7], [8], [9]]]>
func.func @dw_one_channel(%in: memref<1x5x5x1xi8>, %out: memref<1x3x3x1xi32>) {
  %zp = arith.constant 3 : i32
  %wzp = arith.constant 2 : i32
  %w = memref.get_global @dw_filter : memref<3x3x1xi8>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  scf.for %oh = %c0 to %c3 step %c1 {
    scf.for %ow = %c0 to %c3 step %c1 {
      %win = memref.subview %in[0, %oh, %ow, 0] [1, 3, 3, 1] [1, 1, 1, 1] : memref<1x5x5x1xi8> to memref<1x3x3x1xi8, strided<[25, 5, 1, 1], offset: ?>>
      %acc = memref.subview %out[0, %oh, %ow, 0] [1, 1, 1, 1] [1, 1, 1, 1] : memref<1x3x3x1xi32> to memref<1x1x1x1xi32, strided<[9, 3, 1, 1], offset: ?>>
      linalg.depthwise_conv_2d_nhwc_hwc_q {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%win, %w, %zp, %wzp : memref<1x3x3x1xi8, strided<[25, 5, 1, 1], offset: ?>>, memref<3x3x1xi8>, i32, i32) outs(%acc : memref<1x1x1x1xi32, strided<[9, 3, 1, 1], offset: ?>>)
    }
  }
  return
}

// -----

// The same with a filter that is a function argument: its memory could be
// written inside the loops, so its weights are loaded (and packed) in the
// inner loop, right before the taps.
// CHECK-LABEL: func.func @dw_one_channel_argument
// CHECK: scf.for
// CHECK: scf.for
// CHECK: memref.extract_aligned_pointer_as_index %arg1
// CHECK: arith.ori
// CHECK: llvm.call_intrinsic "llvm.arm.smlabb"
func.func @dw_one_channel_argument(%in: memref<1x5x5x1xi8>, %w: memref<3x3x1xi8>, %out: memref<1x3x3x1xi32>) {
  %zp = arith.constant 3 : i32
  %wzp = arith.constant 2 : i32
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  scf.for %oh = %c0 to %c3 step %c1 {
    scf.for %ow = %c0 to %c3 step %c1 {
      %win = memref.subview %in[0, %oh, %ow, 0] [1, 3, 3, 1] [1, 1, 1, 1] : memref<1x5x5x1xi8> to memref<1x3x3x1xi8, strided<[25, 5, 1, 1], offset: ?>>
      %acc = memref.subview %out[0, %oh, %ow, 0] [1, 1, 1, 1] [1, 1, 1, 1] : memref<1x3x3x1xi32> to memref<1x1x1x1xi32, strided<[9, 3, 1, 1], offset: ?>>
      linalg.depthwise_conv_2d_nhwc_hwc_q {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%win, %w, %zp, %wzp : memref<1x3x3x1xi8, strided<[25, 5, 1, 1], offset: ?>>, memref<3x3x1xi8>, i32, i32) outs(%acc : memref<1x1x1x1xi32, strided<[9, 3, 1, 1], offset: ?>>)
    }
  }
  return
}

// -----

// The same reading a marked padded window, input zero point -7: the
// interior branch folds the zero point (-(-7) * sum(w) added, no
// subtraction), the border branch skips taps outside the image and so
// subtracts the zero point from each input byte it reads, without the fold.
// CHECK-LABEL: func.func @dw_one_channel_window
// CHECK-DAG: %[[ZP:.*]] = arith.constant -7 : i32
// CHECK-DAG: %[[NEGZP:.*]] = arith.constant 7 : i32
// CHECK: %[[FOLD:.*]] = arith.muli %{{.*}}, %[[NEGZP]] : i32
// CHECK: scf.if
// CHECK: arith.addi %{{.*}}, %[[FOLD]] : i32
// CHECK-NOT: arith.subi %{{.*}}, %[[ZP]]
// CHECK-COUNT-9: llvm.call_intrinsic "llvm.arm.smla
// CHECK: } else {
// CHECK-NOT: %[[FOLD]]
// CHECK: scf.if
// CHECK: scf.if
// CHECK: %[[XZ:.*]] = arith.subi %{{.*}}, %[[ZP]] : i32
// CHECK-NEXT: llvm.call_intrinsic "llvm.arm.smlabb"(%[[XZ]]
func.func @dw_one_channel_window(%image: memref<1x5x5x1xi8>, %window: memref<1x3x3x1xi8>, %w: memref<3x3x1xi8>, %out: memref<1x1x1x1xi32>, %r: index, %c: index, %y: index, %x: index, %h: index, %wd: index) {
  %zp = arith.constant -7 : i32
  %z = arith.constant 0 : i32
  %pad = arith.constant -7 : i8
  linalg.fill ins(%pad : i8) outs(%window : memref<1x3x3x1xi8>)
  %part = memref.subview %image[0, %r, %c, 0] [1, %h, %wd, 1] [1, 1, 1, 1] : memref<1x5x5x1xi8> to memref<1x?x?x1xi8, strided<[25, 5, 1, 1], offset: ?>>
  %dst = memref.subview %window[0, %y, %x, 0] [1, %h, %wd, 1] [1, 1, 1, 1] : memref<1x3x3x1xi8> to memref<1x?x?x1xi8, strided<[9, 3, 1, 1], offset: ?>>
  linalg.copy ins(%part : memref<1x?x?x1xi8, strided<[25, 5, 1, 1], offset: ?>>) outs(%dst : memref<1x?x?x1xi8, strided<[9, 3, 1, 1], offset: ?>>) loc(fused<"memopt.padded_window">[unknown])
  linalg.depthwise_conv_2d_nhwc_hwc_q {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%window, %w, %zp, %z : memref<1x3x3x1xi8>, memref<3x3x1xi8>, i32, i32) outs(%out : memref<1x1x1x1xi32>)
  return
}

// -----

// A splat filter (a constant of 3s, weight zero point 1): every weight is
// the constant 3 - 1 = 2, which the taps multiply by (no load, no pair),
// and the folded input zero point is -3 * 9 * 2 = -54.
// CHECK-LABEL: func.func @dw_one_channel_splat
// CHECK-DAG: %[[TWO:.*]] = arith.constant 2 : i32
// CHECK-DAG: %[[FOLD:.*]] = arith.constant -54 : i32
// CHECK-NOT: llvm.call_intrinsic
// CHECK: %[[ACC:.*]] = memref.load
// CHECK: arith.addi %[[ACC]], %[[FOLD]] : i32
// CHECK-COUNT-9: arith.muli %{{.*}}, %[[TWO]] : i32
// CHECK-NOT: llvm.call_intrinsic
// CHECK: memref.store
memref.global "private" constant @splat_filter : memref<3x3x1xi8> = dense<3>
func.func @dw_one_channel_splat(%in: memref<1x3x3x1xi8>, %out: memref<1x1x1x1xi32>) {
  %zp = arith.constant 3 : i32
  %wzp = arith.constant 1 : i32
  %w = memref.get_global @splat_filter : memref<3x3x1xi8>
  linalg.depthwise_conv_2d_nhwc_hwc_q {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%in, %w, %zp, %wzp : memref<1x3x3x1xi8>, memref<3x3x1xi8>, i32, i32) outs(%out : memref<1x1x1x1xi32>)
  return
}

// -----

// Rescales of a small value (an int16 input: a in [-2^15, 2^15 - 1]) with a
// constant shift s <= 31 become one high-word multiply of a 2^(32 - s) when
// that fits int32, that is s >= 16 (-2^15 2^16 = -2^31, (2^15 - 1) 2^16 <
// 2^31): s = 16 is rewritten (rounded by the 2^31 added before the high
// word is taken), s = 15 keeps its 64-bit shift. Then the clamp to the
// whole int8 range becomes SSAT.
// CHECK-LABEL: func.func @small_value
// CHECK: %[[A:.*]] = arith.extsi %{{.*}} : i16 to i32
// CHECK: %[[AS:.*]] = arith.shli %[[A]], %c16_i32 : i32
// CHECK: %[[AW:.*]] = arith.extsi %[[AS]] : i32 to i64
// CHECK: %[[P:.*]] = arith.muli %[[AW]], %c1518500250_i64 : i64
// CHECK: %[[R:.*]] = arith.addi %[[P]], %c2147483648_i64 : i64
// CHECK: arith.shrui %[[R]], %c32_i64 : i64
// CHECK: llvm.call_intrinsic "llvm.arm.ssat"
// CHECK: arith.shrsi %{{.*}}, %c15_i64 : i64
// CHECK-NOT: arith.shli
#id1 = affine_map<(d0) -> (d0)>
func.func @small_value(%x: memref<16xi16>, %out: memref<16xi8>, %out15: memref<16xi32>) {
  %m = arith.constant 1518500250 : i64
  %round16 = arith.constant 32768 : i64
  %s16 = arith.constant 16 : i64
  %round15 = arith.constant 16384 : i64
  %s15 = arith.constant 15 : i64
  %lo = arith.constant -128 : i32
  %hi = arith.constant 127 : i32
  linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]} ins(%x : memref<16xi16>) outs(%out : memref<16xi8>) {
  ^bb0(%in: i16, %o: i8):
    %a = arith.extsi %in : i16 to i32
    %a64 = arith.extsi %a : i32 to i64
    %p = arith.muli %a64, %m : i64
    %r = arith.addi %p, %round16 : i64
    %q = arith.shrsi %r, %s16 : i64
    %t = arith.trunci %q : i64 to i32
    %c0 = arith.maxsi %t, %lo : i32
    %c1 = arith.minsi %c0, %hi : i32
    %b = arith.trunci %c1 : i32 to i8
    linalg.yield %b : i8
  }
  linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]} ins(%x : memref<16xi16>) outs(%out15 : memref<16xi32>) {
  ^bb0(%in: i16, %o: i32):
    %a = arith.extsi %in : i16 to i32
    %a64 = arith.extsi %a : i32 to i64
    %p = arith.muli %a64, %m : i64
    %r = arith.addi %p, %round15 : i64
    %q = arith.shrsi %r, %s15 : i64
    %t = arith.trunci %q : i64 to i32
    linalg.yield %t : i32
  }
  return
}
