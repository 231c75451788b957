// RUN: mem-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(arm-mve-int8-kernels{oc-block=2}),canonicalize)' | FileCheck %s

// One pixel of a 1x1 conv, 20 input channels (one vector of 16, then a
// masked vector whose first 20 - 16 = 4 lanes are read), 5 output channels
// (a loop over two blocks of 2, then the fifth alone), input zero point
// -128 and weight zero point 3. The raw products are summed; per output
// channel the filter sum is multiplied by -zx = 128, the input sum by
// -zw = -3, and N zx zw = 20 * (-128) * 3 = -7680 is added.
// CHECK-LABEL: func.func @conv
// CHECK-DAG: %[[N:.*]] = arith.constant -7680 : i32
// CHECK-DAG: %[[NZW:.*]] = arith.constant -3 : i32
// CHECK-DAG: %[[NZX:.*]] = arith.constant 128 : i32
// CHECK-DAG: %[[MASK:.*]] = arith.constant dense<[true, true, true, true, false, false, false, false, false, false, false, false, false, false, false, false]> : vector<16xi1>
// CHECK-DAG: %[[C4:.*]] = arith.constant 4 : i32
// CHECK-DAG: %[[C2:.*]] = arith.constant 2 : i32
// CHECK: scf.for %{{.*}} = %{{.*}} to %[[C4]] step %[[C2]] : i32 {
// CHECK:   %[[ACC0:.*]] = memref.load %arg2
// CHECK:   %[[ACC1:.*]] = memref.load %arg2
// CHECK:   %[[XB:.*]] = llvm.load %{{.*}} {alignment = 1 : i64} : !llvm.ptr -> vector<16xi8>
// CHECK:   %[[X:.*]] = arith.extsi %[[XB]] : vector<16xi8> to vector<16xi32>
// CHECK:   %[[WB:.*]] = llvm.load %{{.*}} {alignment = 1 : i64} : !llvm.ptr -> vector<16xi8>
// CHECK:   %[[W:.*]] = arith.extsi %[[WB]] : vector<16xi8> to vector<16xi32>
// CHECK:   %[[P:.*]] = arith.muli %[[X]], %[[W]] : vector<16xi32>
// CHECK:   %[[D:.*]] = vector.reduction <add>, %[[P]] : vector<16xi32> into i32
// CHECK:   arith.addi %[[ACC0]], %[[D]] : i32
// CHECK:   vector.reduction <add>, %[[W]] : vector<16xi32> into i32
// CHECK:   llvm.load %{{.*}} {alignment = 1 : i64} : !llvm.ptr -> vector<16xi8>
// CHECK:   vector.reduction <add>
// CHECK:   arith.addi %[[ACC1]]
// CHECK:   vector.reduction <add>
// CHECK:   vector.reduction <add>, %[[X]] : vector<16xi32> into i32
// The masked vector of the last 4 input channels.
// CHECK:   llvm.intr.masked.load %{{.*}}, %[[MASK]], %{{.*}} {alignment = 1 : i32}
// CHECK:   llvm.intr.masked.load %{{.*}}, %[[MASK]], %{{.*}} {alignment = 1 : i32}
// CHECK:   arith.muli %{{.*}}, %[[NZX]] : i32
// CHECK:   arith.muli %{{.*}}, %[[NZW]] : i32
// CHECK:   arith.addi %{{.*}}, %[[N]] : i32
// CHECK:   memref.store
// CHECK:   memref.store
// CHECK: }
// The fifth output channel: filter row 4 starts at byte 4 * 20 = 80.
// CHECK: memref.load %arg2[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] : memref<1x1x1x5xi32>
// CHECK: llvm.getelementptr %{{.*}}[80] : (!llvm.ptr) -> !llvm.ptr, i8
// CHECK: llvm.getelementptr %{{.*}}[96] : (!llvm.ptr) -> !llvm.ptr, i8
// CHECK: memref.store
// CHECK-NOT: linalg.conv_2d_nhwc_fhwc_q
// CHECK: return
func.func @conv(%in: memref<1x1x1x20xi8, strided<[18432, 384, 20, 1], offset: ?>>, %w: memref<5x1x1x20xi8>, %out: memref<1x1x1x5xi32>) {
  %zp = arith.constant -128 : i32
  %zw = arith.constant 3 : i32
  linalg.conv_2d_nhwc_fhwc_q {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%in, %w, %zp, %zw : memref<1x1x1x20xi8, strided<[18432, 384, 20, 1], offset: ?>>, memref<5x1x1x20xi8>, i32, i32) outs(%out : memref<1x1x1x5xi32>)
  return
}

// -----

// Weight zero point 0, input zero point 0 (the plain op): no sums of the
// filter or the input, no correction.
// CHECK-LABEL: func.func @plain
// CHECK-COUNT-2: vector.reduction <add>
// CHECK-NOT: vector.reduction
// CHECK: return
func.func @plain(%in: memref<1x1x1x16xi8>, %w: memref<2x1x1x16xi8>, %out: memref<1x1x1x2xi32>) {
  linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%in, %w : memref<1x1x1x16xi8>, memref<2x1x1x16xi8>) outs(%out : memref<1x1x1x2xi32>)
  return
}

// -----

// A 3x3 depthwise window of 14 channels, input zero point 3: channels 0-7 as
// one vector<8xi32>, 8-11 as a vector<4xi32>, 12-13 as a masked vector<4xi32>
// (2 of 4 lanes), each over the 9 unrolled taps: per tap sign-extended input
// plus -3, times the sign-extended filter, added to the accumulator, which
// is loaded and stored once.
// CHECK-LABEL: func.func @dw
// CHECK-DAG: %[[M2:.*]] = arith.constant dense<[true, true, false, false]> : vector<4xi1>
// CHECK-DAG: %[[Z8:.*]] = arith.constant dense<-3> : vector<8xi32>
// CHECK-DAG: %[[Z4:.*]] = arith.constant dense<-3> : vector<4xi32>
// CHECK: llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr -> vector<8xi32>
// CHECK-COUNT-9: arith.addi %{{.*}}, %[[Z8]] : vector<8xi32>
// CHECK: llvm.store %{{.*}} {alignment = 4 : i64} : vector<8xi32>, !llvm.ptr
// CHECK: llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr -> vector<4xi32>
// CHECK-COUNT-9: arith.addi %{{.*}}, %[[Z4]] : vector<4xi32>
// CHECK: llvm.store %{{.*}} {alignment = 4 : i64} : vector<4xi32>, !llvm.ptr
// CHECK: llvm.intr.masked.load %{{.*}}, %[[M2]], %{{.*}} {alignment = 4 : i32} : (!llvm.ptr, vector<4xi1>, vector<4xi32>) -> vector<4xi32>
// CHECK-COUNT-9: arith.addi %{{.*}}, %[[Z4]] : vector<4xi32>
// CHECK: llvm.intr.masked.store %{{.*}}, %{{.*}}, %[[M2]] {alignment = 4 : i32}
// CHECK-NOT: linalg.depthwise_conv_2d_nhwc_hwc_q
func.func @dw(%in: memref<1x3x3x14xi8>, %w: memref<3x3x14xi8>, %out: memref<1x1x1x14xi32>) {
  %zp = arith.constant 3 : i32
  %z = arith.constant 0 : i32
  linalg.depthwise_conv_2d_nhwc_hwc_q {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%in, %w, %zp, %z : memref<1x3x3x14xi8>, memref<3x3x14xi8>, i32, i32) outs(%out : memref<1x1x1x14xi32>)
  return
}

// -----

// The in-place depthwise's one channel with a strided filter slice: scalar,
// 9 taps unrolled, (x + 128) * (w - 0) added to the accumulator in a
// register, stored once.
// CHECK-LABEL: func.func @dw_one
// CHECK-DAG: %[[ZX:.*]] = arith.constant 128 : i32
// CHECK: %[[A:.*]] = llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr -> i32
// CHECK-COUNT-9: arith.addi %{{.*}}, %[[ZX]] : i32
// CHECK-NOT: vector
// CHECK: llvm.store %{{.*}} {alignment = 4 : i64} : i32, !llvm.ptr
// CHECK-NOT: linalg.depthwise_conv_2d_nhwc_hwc_q
func.func @dw_one(%in: memref<1x3x3x1xi8>, %w: memref<3x3x1xi8, strided<[384, 128, 1], offset: ?>>, %out: memref<1x1x1x1xi32>) {
  %zp = arith.constant -128 : i32
  %z = arith.constant 0 : i32
  linalg.depthwise_conv_2d_nhwc_hwc_q {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%in, %w, %zp, %z : memref<1x3x3x1xi8>, memref<3x3x1xi8, strided<[384, 128, 1], offset: ?>>, i32, i32) outs(%out : memref<1x1x1x1xi32>)
  return
}

// -----

// A first layer (HWCF filter, 3x3 taps of 1 input channel, 8 output
// channels): per tap the input byte minus its zero point -1 (+ 1),
// broadcast, times the 8 sign-extended filter bytes, added to one
// vector<8xi32> accumulator.
// CHECK-LABEL: func.func @hwcf
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1 : i32
// CHECK: llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr -> vector<8xi32>
// CHECK-COUNT-9: vector.broadcast %{{.*}} : i32 to vector<8xi32>
// CHECK: llvm.store %{{.*}} {alignment = 4 : i64} : vector<8xi32>, !llvm.ptr
// CHECK-NOT: linalg.conv_2d_nhwc_hwcf_q
func.func @hwcf(%in: memref<1x3x3x1xi8>, %w: memref<3x3x1x8xi8>, %out: memref<1x1x1x8xi32>) {
  %zp = arith.constant -1 : i32
  %z = arith.constant 0 : i32
  linalg.conv_2d_nhwc_hwcf_q {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%in, %w, %zp, %z : memref<1x3x3x1xi8>, memref<3x3x1x8xi8>, i32, i32) outs(%out : memref<1x1x1x8xi32>)
  return
}

// -----

// Dynamic strides: left to the default lowering.
// CHECK-LABEL: func.func @dynamic
// CHECK: linalg.conv_2d_nhwc_fhwc_q
func.func @dynamic(%in: memref<1x1x1x16xi8, strided<[?, ?, ?, ?]>>, %w: memref<2x1x1x16xi8>, %out: memref<1x1x1x2xi32>) {
  %zp = arith.constant -128 : i32
  %z = arith.constant 0 : i32
  linalg.conv_2d_nhwc_fhwc_q {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%in, %w, %zp, %z : memref<1x1x1x16xi8, strided<[?, ?, ?, ?]>>, memref<2x1x1x16xi8>, i32, i32) outs(%out : memref<1x1x1x2xi32>)
  return
}

// -----

// conv_2d_nhwc_fhwc reads its padded window itself; the copy overwrites
// all of W when h = w = 3 (an output pixel away from the border), so the
// fill runs only when h != 3 or w != 3, just before the copy. A window
// row is 3 x 4 = 12 bytes, so the copy is one vector per row with its
// first 4w lanes active (VCTP8; source rows 32 bytes apart, window rows
// 12).
// CHECK-LABEL: func.func @fhwc_window
// CHECK-SAME: (%{{.*}}: memref<1x8x8x4xi8>, %[[WIN:.*]]: memref<1x3x3x4xi8>, %{{.*}}: memref<2x3x3x4xi8>, %{{.*}}: memref<1x1x1x2xi32>, %{{.*}}: index, %{{.*}}: index, %[[H:.*]]: index, %[[W:.*]]: index, %{{.*}}: index, %{{.*}}: index)
// CHECK-DAG: %[[C3:.*]] = arith.constant 3 : index
// CHECK-DAG: %[[HP:.*]] = arith.cmpi ne, %[[H]], %[[C3]] : index
// CHECK-DAG: %[[WP:.*]] = arith.cmpi ne, %[[W]], %[[C3]] : index
// CHECK: %[[PART:.*]] = arith.ori %[[HP]], %[[WP]] : i1
// CHECK: scf.if %[[PART]] {
// CHECK-NEXT: linalg.fill ins(%{{.*}} : i8) outs(%[[WIN]] : memref<1x3x3x4xi8>)
// CHECK-NEXT: }
// CHECK-NOT: linalg.copy
// CHECK: %[[HI:.*]] = arith.index_cast %[[H]] : index to i32
// CHECK: %[[WI:.*]] = arith.index_cast %[[W]] : index to i32
// CHECK: %[[BYTES:.*]] = arith.muli %[[WI]], %[[C4:.*]] : i32
// CHECK: %[[MASK:.*]] = llvm.call_intrinsic "llvm.arm.mve.vctp8"(%[[BYTES]])
// CHECK: scf.for %[[Y:.*]] = %{{.*}} to %[[HI]] step
// CHECK: arith.muli %[[Y]], %[[C32:.*]] : i32
// CHECK: %[[V:.*]] = llvm.intr.masked.load %{{.*}}, %[[MASK]], %{{.*}} {alignment = 1 : i32} : (!llvm.ptr, vector<16xi1>, vector<16xi8>) -> vector<16xi8>
// CHECK: arith.muli %[[Y]], %[[C12:.*]] : i32
// CHECK: llvm.intr.masked.store %[[V]], %{{.*}}, %[[MASK]] {alignment = 1 : i32} : vector<16xi8>, vector<16xi1> into !llvm.ptr
// CHECK-NEXT: }
// CHECK-NOT: linalg.copy
// CHECK-NOT: linalg.fill ins(%{{.*}} : i8)
// CHECK-NOT: linalg.conv_2d_nhwc_fhwc_q
func.func @fhwc_window(%src: memref<1x8x8x4xi8>, %win: memref<1x3x3x4xi8>, %f: memref<2x3x3x4xi8>, %acc: memref<1x1x1x2xi32>, %oy: index, %ox: index, %h: index, %w: index, %sy: index, %sx: index) {
  %zp8 = arith.constant -128 : i8
  %zp = arith.constant -128 : i32
  %z = arith.constant 0 : i32
  linalg.fill ins(%zp8 : i8) outs(%win : memref<1x3x3x4xi8>)
  %s = memref.subview %src[0, %sy, %sx, 0] [1, %h, %w, 4] [1, 1, 1, 1] : memref<1x8x8x4xi8> to memref<1x?x?x4xi8, strided<[256, 32, 4, 1], offset: ?>>
  %t = memref.subview %win[0, %oy, %ox, 0] [1, %h, %w, 4] [1, 1, 1, 1] : memref<1x3x3x4xi8> to memref<1x?x?x4xi8, strided<[36, 12, 4, 1], offset: ?>>
  linalg.copy ins(%s : memref<1x?x?x4xi8, strided<[256, 32, 4, 1], offset: ?>>) outs(%t : memref<1x?x?x4xi8, strided<[36, 12, 4, 1], offset: ?>>)
  linalg.fill ins(%z : i32) outs(%acc : memref<1x1x1x2xi32>)
  linalg.conv_2d_nhwc_fhwc_q {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%win, %f, %zp, %z : memref<1x3x3x4xi8>, memref<2x3x3x4xi8>, i32, i32) outs(%acc : memref<1x1x1x2xi32>)
  return
}

// -----

// The same with 8 channels: a window row is 24 bytes, more than a vector,
// so the copy goes pixel by pixel, 8 of 16 lanes active (a constant mask).
// The input zero point is 0 (arm-dsp-fold-zero-points put -128 into the
// bias, whose memref.get_global stands between the copy and the
// convolution): the fill need not be the zero point for this kernel.
// CHECK-LABEL: func.func @fhwc_window_wide
// CHECK: scf.if
// CHECK-NEXT: linalg.fill ins(%{{.*}} : i8)
// CHECK-NOT: llvm.arm.mve.vctp8
// CHECK: scf.for %[[Y:.*]] = %{{.*}} to %{{.*}} step
// CHECK: scf.for %[[X:.*]] = %{{.*}} to %{{.*}} step
// CHECK: arith.muli %[[X]], %{{.*}} : i32
// CHECK: %[[V:.*]] = llvm.intr.masked.load %{{.*}}, %[[MASK:.*]], %{{.*}} {alignment = 1 : i32}
// CHECK: llvm.intr.masked.store %[[V]], %{{.*}}, %[[MASK]]
// CHECK-NOT: linalg.copy
// CHECK-NOT: linalg.conv_2d_nhwc_fhwc_q
memref.global "private" constant @b : memref<2xi32> = dense<[1, 2]>
func.func @fhwc_window_wide(%src: memref<1x8x8x8xi8>, %win: memref<1x3x3x8xi8>, %f: memref<2x3x3x8xi8>, %acc: memref<1x1x1x2xi32>, %oy: index, %ox: index, %h: index, %w: index, %sy: index, %sx: index) {
  %zp8 = arith.constant -128 : i8
  %zp = arith.constant 0 : i32
  %z = arith.constant 0 : i32
  linalg.fill ins(%zp8 : i8) outs(%win : memref<1x3x3x8xi8>)
  %s = memref.subview %src[0, %sy, %sx, 0] [1, %h, %w, 8] [1, 1, 1, 1] : memref<1x8x8x8xi8> to memref<1x?x?x8xi8, strided<[512, 64, 8, 1], offset: ?>>
  %t = memref.subview %win[0, %oy, %ox, 0] [1, %h, %w, 8] [1, 1, 1, 1] : memref<1x3x3x8xi8> to memref<1x?x?x8xi8, strided<[72, 24, 8, 1], offset: ?>>
  linalg.copy ins(%s : memref<1x?x?x8xi8, strided<[512, 64, 8, 1], offset: ?>>) outs(%t : memref<1x?x?x8xi8, strided<[72, 24, 8, 1], offset: ?>>)
  %b = memref.get_global @b : memref<2xi32>
  linalg.fill ins(%z : i32) outs(%acc : memref<1x1x1x2xi32>)
  linalg.conv_2d_nhwc_fhwc_q {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%win, %f, %zp, %z : memref<1x3x3x8xi8>, memref<2x3x3x8xi8>, i32, i32) outs(%acc : memref<1x1x1x2xi32>)
  return
}

// -----

// fuse-rescale-accumulators' padded window: W is filled with the input zero
// point -128 and the in-bounds part of the input (h x w pixels at (oy, ox)
// of W) copied into it. The kernel reads the input directly: all 9 taps
// unrolled when h = w = 3, else loops over the h x w taps with the filter
// tap (oy + ty, ox + tx); padded taps add (-128 + 128) * w = 0. The fill and
// the copy are gone; the accumulator's fill stays.
// CHECK-LABEL: func.func @window
// CHECK-SAME: (%[[SRC:.*]]: memref<1x8x8x4xi8>, %{{.*}}: memref<1x3x3x4xi8>, %{{.*}}: memref<3x3x4xi8>, %[[ACC:.*]]: memref<1x1x1x4xi32>, %[[OY:.*]]: index, %[[OX:.*]]: index, %[[H:.*]]: index, %[[W:.*]]: index, %[[SY:.*]]: index, %[[SX:.*]]: index)
// CHECK-NOT: linalg.copy
// CHECK: linalg.fill ins(%{{.*}} : i32) outs(%[[ACC]]
// CHECK-NOT: linalg.copy
// CHECK: %[[HI:.*]] = arith.index_cast %[[H]] : index to i32
// CHECK: %[[WI:.*]] = arith.index_cast %[[W]] : index to i32
// CHECK: %[[HF:.*]] = arith.cmpi eq, %[[HI]], %[[C3:.*]] : i32
// CHECK: %[[WF:.*]] = arith.cmpi eq, %[[WI]], %[[C3]] : i32
// CHECK: %[[WHOLE:.*]] = arith.andi %[[HF]], %[[WF]] : i1
// CHECK: scf.if %[[WHOLE]] -> (vector<4xi32>) {
// CHECK-COUNT-9: arith.muli %{{.*}} : vector<4xi32>
// CHECK: } else {
// CHECK:   scf.for %{{.*}} = %{{.*}} to %[[HI]] step
// CHECK:     scf.for %{{.*}} = %{{.*}} to %[[WI]] step
// CHECK:       arith.muli %{{.*}} : vector<4xi32>
// CHECK-NOT: arith.muli
// CHECK: }
// CHECK-NOT: linalg.depthwise_conv_2d_nhwc_hwc_q
// CHECK-NOT: linalg.fill ins(%{{.*}} : i8)
func.func @window(%src: memref<1x8x8x4xi8>, %win: memref<1x3x3x4xi8>, %f: memref<3x3x4xi8>, %acc: memref<1x1x1x4xi32>, %oy: index, %ox: index, %h: index, %w: index, %sy: index, %sx: index) {
  %zp8 = arith.constant -128 : i8
  %zp = arith.constant -128 : i32
  %z = arith.constant 0 : i32
  linalg.fill ins(%zp8 : i8) outs(%win : memref<1x3x3x4xi8>)
  %s = memref.subview %src[0, %sy, %sx, 0] [1, %h, %w, 4] [1, 1, 1, 1] : memref<1x8x8x4xi8> to memref<1x?x?x4xi8, strided<[256, 32, 4, 1], offset: ?>>
  %t = memref.subview %win[0, %oy, %ox, 0] [1, %h, %w, 4] [1, 1, 1, 1] : memref<1x3x3x4xi8> to memref<1x?x?x4xi8, strided<[36, 12, 4, 1], offset: ?>>
  linalg.copy ins(%s : memref<1x?x?x4xi8, strided<[256, 32, 4, 1], offset: ?>>) outs(%t : memref<1x?x?x4xi8, strided<[36, 12, 4, 1], offset: ?>>)
  linalg.fill ins(%z : i32) outs(%acc : memref<1x1x1x4xi32>)
  linalg.depthwise_conv_2d_nhwc_hwc_q {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%win, %f, %zp, %z : memref<1x3x3x4xi8>, memref<3x3x4xi8>, i32, i32) outs(%acc : memref<1x1x1x4xi32>)
  return
}

// -----

// A window filled with a value other than the input zero point: its padded
// taps add (fill - zp) * w, so the window stays and the kernel reads it.
// CHECK-LABEL: func.func @window_other_fill
// CHECK: linalg.fill ins(%{{.*}} : i8)
// CHECK: linalg.copy
// CHECK-NOT: scf.if
// CHECK: return
func.func @window_other_fill(%src: memref<1x8x8x4xi8>, %win: memref<1x3x3x4xi8>, %f: memref<3x3x4xi8>, %acc: memref<1x1x1x4xi32>, %oy: index, %ox: index, %h: index, %w: index) {
  %fill = arith.constant 0 : i8
  %zp = arith.constant -128 : i32
  %z = arith.constant 0 : i32
  linalg.fill ins(%fill : i8) outs(%win : memref<1x3x3x4xi8>)
  %s = memref.subview %src[0, 0, 0, 0] [1, %h, %w, 4] [1, 1, 1, 1] : memref<1x8x8x4xi8> to memref<1x?x?x4xi8, strided<[256, 32, 4, 1]>>
  %t = memref.subview %win[0, %oy, %ox, 0] [1, %h, %w, 4] [1, 1, 1, 1] : memref<1x3x3x4xi8> to memref<1x?x?x4xi8, strided<[36, 12, 4, 1], offset: ?>>
  linalg.copy ins(%s : memref<1x?x?x4xi8, strided<[256, 32, 4, 1]>>) outs(%t : memref<1x?x?x4xi8, strided<[36, 12, 4, 1], offset: ?>>)
  linalg.depthwise_conv_2d_nhwc_hwc_q {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%win, %f, %zp, %z : memref<1x3x3x4xi8>, memref<3x3x4xi8>, i32, i32) outs(%acc : memref<1x1x1x4xi32>)
  return
}

// -----

// A first layer's window per output pixel, 3x3 taps of 3 input channels:
// the taps are contiguous in the window (strides 27, 9, 3, 1) and in the
// filter (27, 9, 3, 1), so the reduction is one run of 3 * 3 * 3 = 27
// bytes: a vector of 16 and a masked vector of 27 - 16 = 11 lanes, with
// no loop over taps.
// CHECK-LABEL: func.func @first_layer
// CHECK-DAG: %[[M11:.*]] = arith.constant dense<[true, true, true, true, true, true, true, true, true, true, true, false, false, false, false, false]> : vector<16xi1>
// CHECK-NOT: scf.for
// CHECK: llvm.load %{{.*}} {alignment = 1 : i64} : !llvm.ptr -> vector<16xi8>
// CHECK: llvm.intr.masked.load %{{.*}}, %[[M11]]
// CHECK-NOT: scf.for
// CHECK: return
func.func @first_layer(%in: memref<1x3x3x3xi8>, %w: memref<2x3x3x3xi8>, %out: memref<1x1x1x2xi32>) {
  %zp = arith.constant -128 : i32
  %z = arith.constant 0 : i32
  linalg.conv_2d_nhwc_fhwc_q {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%in, %w, %zp, %z : memref<1x3x3x3xi8>, memref<2x3x3x3xi8>, i32, i32) outs(%out : memref<1x1x1x2xi32>)
  return
}

// -----

// The rescale of one pixel of 6 channels to int8, shifts 37 and 40 in
// [32, 62] and multipliers not INT32_MIN, read from constant globals: one
// vector of 4 channels and a masked one of 2. t = (hi << 1) | (lo >> 31)
// with hi from VMULH.S32 (unsigned flag 0) and lo = a * m; a rounding
// shift of t (VRSHL.S32: saturate 0, round 1, unsigned 0) by 31 - s, i.e.
// right by s - 31; then + zp (-128), max -128, min 127 and a narrowing
// store.
// CHECK-LABEL: func.func @rescale
// CHECK-DAG: %[[ONE:.*]] = arith.constant dense<1> : vector<4xi32>
// CHECK-DAG: %[[B31:.*]] = arith.constant dense<31> : vector<4xi32>
// CHECK-DAG: %[[LO:.*]] = arith.constant dense<-128> : vector<4xi32>
// CHECK-DAG: %[[HI:.*]] = arith.constant dense<127> : vector<4xi32>
// CHECK-DAG: %[[MASK2:.*]] = arith.constant dense<[true, true, false, false]> : vector<4xi1>
// CHECK-DAG: %[[I0:.*]] = arith.constant 0 : i32
// CHECK-DAG: %[[I1:.*]] = arith.constant 1 : i32
// CHECK: %[[A:.*]] = llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr -> vector<4xi32>
// CHECK: %[[M:.*]] = llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr -> vector<4xi32>
// CHECK: %[[SB:.*]] = llvm.load %{{.*}} {alignment = 1 : i64} : !llvm.ptr -> vector<4xi8>
// CHECK: %[[S:.*]] = arith.extui %[[SB]] : vector<4xi8> to vector<4xi32>
// CHECK: %[[H:.*]] = llvm.call_intrinsic "llvm.arm.mve.vmulh.v4i32"(%[[A]], %[[M]], %{{.*}}) : (vector<4xi32>, vector<4xi32>, i32) -> vector<4xi32>
// CHECK: %[[L:.*]] = arith.muli %[[A]], %[[M]] : vector<4xi32>
// CHECK: %[[H2:.*]] = arith.shli %[[H]], %[[ONE]] : vector<4xi32>
// CHECK: %[[L2:.*]] = arith.shrui %[[L]], %[[B31]] : vector<4xi32>
// CHECK: %[[T:.*]] = arith.ori %[[H2]], %[[L2]] : vector<4xi32>
// CHECK: %[[K:.*]] = arith.subi %[[B31]], %[[S]] : vector<4xi32>
// CHECK: %[[Y:.*]] = llvm.call_intrinsic "llvm.arm.mve.vshl.vector.v4i32.v4i32"(%[[T]], %[[K]], %[[I0]], %[[I1]], %[[I0]]) : (vector<4xi32>, vector<4xi32>, i32, i32, i32) -> vector<4xi32>
// CHECK: %[[Z:.*]] = arith.addi %[[Y]], %[[LO]] : vector<4xi32>
// CHECK: %[[C1:.*]] = arith.maxsi %[[Z]], %[[LO]] : vector<4xi32>
// CHECK: %[[C2:.*]] = arith.minsi %[[C1]], %[[HI]] : vector<4xi32>
// CHECK: %[[Y8:.*]] = arith.trunci %[[C2]] : vector<4xi32> to vector<4xi8>
// CHECK: llvm.store %[[Y8]], %{{.*}} {alignment = 1 : i64} : vector<4xi8>, !llvm.ptr
// CHECK: llvm.intr.masked.load %{{.*}}, %[[MASK2]]
// CHECK: llvm.intr.masked.store %{{.*}}, %{{.*}}, %[[MASK2]] {alignment = 1 : i32} : vector<4xi8>, vector<4xi1> into !llvm.ptr
// CHECK-NOT: linalg.generic
memref.global "private" constant @mult : memref<6xi32> = dense<[1073741824, 1500000000, 2000000000, -5, 7, 1073741824]>
memref.global "private" constant @shift : memref<6xi8> = dense<[37, 40, 37, 40, 37, 40]>
func.func @rescale(%acc: memref<1x1x1x6xi32>, %out: memref<1x1x1x6xi8, strided<[384, 48, 6, 1], offset: ?>>) {
  %m = memref.get_global @mult : memref<6xi32>
  %s = memref.get_global @shift : memref<6xi8>
  %c1_i64 = arith.constant 1 : i64
  %c-128_i32 = arith.constant -128 : i32
  %c127_i32 = arith.constant 127 : i32
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d3)>, affine_map<(d0, d1, d2, d3) -> (d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%acc, %m, %s : memref<1x1x1x6xi32>, memref<6xi32>, memref<6xi8>) outs(%out : memref<1x1x1x6xi8, strided<[384, 48, 6, 1], offset: ?>>) {
  ^bb0(%in: i32, %in_0: i32, %in_1: i8, %o: i8):
    %0 = arith.extsi %in : i32 to i64
    %1 = arith.extsi %in_0 : i32 to i64
    %2 = arith.muli %0, %1 : i64
    %3 = arith.extui %in_1 : i8 to i64
    %4 = arith.shli %c1_i64, %3 : i64
    %5 = arith.shrui %4, %c1_i64 : i64
    %6 = arith.addi %2, %5 : i64
    %7 = arith.shrsi %6, %3 : i64
    %8 = arith.trunci %7 : i64 to i32
    %9 = arith.addi %8, %c-128_i32 : i32
    %10 = arith.maxsi %9, %c-128_i32 : i32
    %11 = arith.minsi %10, %c127_i32 : i32
    %12 = arith.trunci %11 : i32 to i8
    linalg.yield %12 : i8
  }
  return
}

// -----

// A shift of 31 (below 32) or a multiplier of INT32_MIN: t = P >> 31 would
// not give the rounding (or not fit), so the rescale stays scalar.
// CHECK-LABEL: func.func @rescale_shift31
// CHECK: linalg.generic
// CHECK-LABEL: func.func @rescale_int32_min
// CHECK: linalg.generic
memref.global "private" constant @mult2 : memref<4xi32> = dense<[1073741824, 1073741824, 1073741824, -2147483648]>
memref.global "private" constant @mult1 : memref<4xi32> = dense<1073741824>
memref.global "private" constant @shift2 : memref<4xi8> = dense<[37, 31, 37, 37]>
memref.global "private" constant @shift1 : memref<4xi8> = dense<37>
func.func @rescale_shift31(%acc: memref<1x1x1x4xi32>, %out: memref<1x1x1x4xi8>) {
  %m = memref.get_global @mult1 : memref<4xi32>
  %s = memref.get_global @shift2 : memref<4xi8>
  %c1_i64 = arith.constant 1 : i64
  %c-128_i32 = arith.constant -128 : i32
  %c127_i32 = arith.constant 127 : i32
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d3)>, affine_map<(d0, d1, d2, d3) -> (d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%acc, %m, %s : memref<1x1x1x4xi32>, memref<4xi32>, memref<4xi8>) outs(%out : memref<1x1x1x4xi8>) {
  ^bb0(%in: i32, %in_0: i32, %in_1: i8, %o: i8):
    %0 = arith.extsi %in : i32 to i64
    %1 = arith.extsi %in_0 : i32 to i64
    %2 = arith.muli %0, %1 : i64
    %3 = arith.extui %in_1 : i8 to i64
    %4 = arith.shli %c1_i64, %3 : i64
    %5 = arith.shrui %4, %c1_i64 : i64
    %6 = arith.addi %2, %5 : i64
    %7 = arith.shrsi %6, %3 : i64
    %8 = arith.trunci %7 : i64 to i32
    %9 = arith.addi %8, %c-128_i32 : i32
    %10 = arith.maxsi %9, %c-128_i32 : i32
    %11 = arith.minsi %10, %c127_i32 : i32
    %12 = arith.trunci %11 : i32 to i8
    linalg.yield %12 : i8
  }
  return
}
func.func @rescale_int32_min(%acc: memref<1x1x1x4xi32>, %out: memref<1x1x1x4xi8>) {
  %m = memref.get_global @mult2 : memref<4xi32>
  %s = memref.get_global @shift1 : memref<4xi8>
  %c1_i64 = arith.constant 1 : i64
  %c-128_i32 = arith.constant -128 : i32
  %c127_i32 = arith.constant 127 : i32
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d3)>, affine_map<(d0, d1, d2, d3) -> (d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%acc, %m, %s : memref<1x1x1x4xi32>, memref<4xi32>, memref<4xi8>) outs(%out : memref<1x1x1x4xi8>) {
  ^bb0(%in: i32, %in_0: i32, %in_1: i8, %o: i8):
    %0 = arith.extsi %in : i32 to i64
    %1 = arith.extsi %in_0 : i32 to i64
    %2 = arith.muli %0, %1 : i64
    %3 = arith.extui %in_1 : i8 to i64
    %4 = arith.shli %c1_i64, %3 : i64
    %5 = arith.shrui %4, %c1_i64 : i64
    %6 = arith.addi %2, %5 : i64
    %7 = arith.shrsi %6, %3 : i64
    %8 = arith.trunci %7 : i64 to i32
    %9 = arith.addi %8, %c-128_i32 : i32
    %10 = arith.maxsi %9, %c-128_i32 : i32
    %11 = arith.minsi %10, %c127_i32 : i32
    %12 = arith.trunci %11 : i32 to i8
    linalg.yield %12 : i8
  }
  return
}

// -----

// The in-place depthwise convolution's channel loop (inplace-depthwise,
// fuse-rescale-accumulators): channel %c of E (1x6x9x4 at byte 0, pixels
// 4 bytes apart, rows 9 * 4 = 36) into the channel buffer O (1x6x9x1 at
// byte 216), a 3x3 window padded by 1, input zero point -5. The rows split
// into the border rows 0 and 5 and the interior rows [1, 5). The windows of
// columns [1, 8) lie inside E: 7 columns, two vectors of 4 pixels starting
// at 1 and 5 (bounds 1 to 1 + 2 * 4 = 9), the second moved to min(5, 8 - 4)
// = 4. Per tap one gather of 4 bytes 4 apart (lane offsets 0, 4, 8, 12) at
// 36 * ky + 4 * kx after the window's origin, (oh - 1) * 36 + (first - 1)
// * 4. The weights of channel 2 are read once, before each row loop, at 2 +
// 12 * ky + 4 * kx of the 3x3x4 filter; the accumulator starts at the bias
// plus -zx = 5 times their sum, and a window row outside E (row 0 of output
// row 0, row 2 of output row 5: canonicalize folds their tests) adds back
// zx = -5 times its weights' sum and has no gathers. Columns 0 and 8 keep
// their scalar convolutions.
// CHECK-LABEL: func.func @channel_rows
// CHECK-DAG: %[[LANES:.*]] = arith.constant dense<[0, 4, 8, 12]> : vector<4xi32>
// CHECK-DAG: %[[MZX:.*]] = arith.constant 5 : i32
// CHECK-DAG: %[[ZX:.*]] = arith.constant -5 : i32
// CHECK-DAG: %[[C4:.*]] = arith.constant 4 : i32
// CHECK-DAG: %[[C9:.*]] = arith.constant 9 : i32
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : i32
// CHECK-DAG: %[[UP:.*]] = arith.constant -36 : i32
// CHECK-DAG: %[[DOWN:.*]] = arith.constant 144 : i32
// CHECK-DAG: %[[C56:.*]] = arith.constant 56 : i32
// CHECK-DAG: %[[C50:.*]] = arith.constant 50 : i32
// CHECK: scf.for
// Output row 0.
// CHECK: llvm.getelementptr %[[W:.*]][2] : (!llvm.ptr) -> !llvm.ptr, i8
// CHECK: llvm.getelementptr %[[W]][6]
// CHECK: llvm.getelementptr %[[W]][10]
// CHECK: llvm.getelementptr %[[W]][14]
// CHECK: llvm.getelementptr %[[W]][18]
// CHECK: llvm.getelementptr %[[W]][22]
// CHECK: llvm.getelementptr %[[W]][26]
// CHECK: llvm.getelementptr %[[W]][30]
// CHECK: llvm.getelementptr %[[W]][34]
// CHECK: arith.muli %{{.*}}, %[[MZX]] : i32
// CHECK: linalg.fill
// CHECK: scf.for %[[FIRST:.*]] = %[[C1]] to %[[C9]] step %[[C4]] : i32 {
// CHECK:   %[[AT:.*]] = arith.minsi %[[FIRST]], %[[C4]] : i32
// CHECK:   arith.addi %{{.*}}, %[[UP]] : i32
// CHECK:   arith.muli %{{.*}}, %[[ZX]] : i32
// CHECK-COUNT-6: llvm.call_intrinsic "llvm.arm.mve.vldr.gather.offset.v4i32.p0.v4i32"(%{{.*}}, %[[LANES]], %{{.*}}, %{{.*}}, %{{.*}}) : (!llvm.ptr, vector<4xi32>, i32, i32, i32) -> vector<4xi32>
// CHECK-NOT: gather
// CHECK:   llvm.call_intrinsic "llvm.arm.mve.vmulh.v4i32"
// CHECK:   %[[OUT:.*]] = llvm.getelementptr %{{.*}}[%[[AT]]] : (!llvm.ptr, i32) -> !llvm.ptr, i8
// CHECK:   llvm.store %{{.*}}, %[[OUT]] {alignment = 1 : i64} : vector<4xi8>, !llvm.ptr
// CHECK: }
// CHECK: linalg.fill
// The interior rows: 9 gathers, no test.
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK:   linalg.fill
// CHECK:   scf.for %{{.*}} = %[[C1]] to %[[C9]] step %[[C4]] : i32 {
// CHECK-NOT: scf.if
// CHECK-NOT: arith.muli %{{.*}}, %[[ZX]] : i32
// CHECK-COUNT-9: llvm.call_intrinsic "llvm.arm.mve.vldr.gather.offset.v4i32.p0.v4i32"
// CHECK-NOT: gather
// CHECK:     llvm.call_intrinsic "llvm.arm.mve.vmulh.v4i32"
// CHECK:   linalg.fill
// Output row 5.
// CHECK: scf.for %{{.*}} = %[[C1]] to %[[C9]] step %[[C4]] : i32 {
// CHECK:   arith.addi %{{.*}}, %[[DOWN]] : i32
// CHECK-COUNT-6: llvm.call_intrinsic "llvm.arm.mve.vldr.gather.offset.v4i32.p0.v4i32"
// CHECK-NOT: gather
// CHECK:   arith.muli %{{.*}}, %[[ZX]] : i32
// CHECK:   llvm.call_intrinsic "llvm.arm.mve.vmulh.v4i32"
// CHECK-NOT: gather
// The channel copied back over channel %c of E: 6 * 9 = 54 pixels, 14
// vectors (bounds 0 to 56 by 4), the last moved to min(52, 54 - 4 = 50),
// each a load of 4 contiguous bytes scattered 4 bytes apart into E.
// CHECK: scf.for %[[P:.*]] = %{{.*}} to %[[C56]] step %[[C4]] : i32 {
// CHECK:   %[[Q:.*]] = arith.minsi %[[P]], %[[C50]] : i32
// CHECK:   %[[B:.*]] = llvm.load %{{.*}} {alignment = 1 : i64} : !llvm.ptr -> vector<4xi8>
// CHECK:   %[[X:.*]] = arith.extui %[[B]] : vector<4xi8> to vector<4xi32>
// CHECK:   arith.muli %[[Q]], %[[C4]] : i32
// CHECK:   llvm.call_intrinsic "llvm.arm.mve.vstr.scatter.offset.p0.v4i32.v4i32"(%{{.*}}, %[[LANES]], %[[X]], %{{.*}}, %{{.*}})
// CHECK-NOT: linalg.copy
// CHECK: return
memref.global "private" constant @dw_w : memref<3x3x4x1xi8> = dense<3>
memref.global "private" constant @dw_b : memref<4xi32> = dense<[1, 2, 3, 4]>
memref.global "private" constant @dw_m : memref<4xi32> = dense<1518500250>
memref.global "private" constant @dw_s : memref<4xi8> = dense<[36, 37, 38, 39]>
func.func @channel_rows(%arena: memref<336xi8> {llvm.noalias}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c6 = arith.constant 6 : index
  %c9 = arith.constant 9 : index
  %zx8 = arith.constant -5 : i8
  %zx = arith.constant -5 : i32
  %z = arith.constant 0 : i32
  %c1_i64 = arith.constant 1 : i64
  %ozp = arith.constant 3 : i32
  %lo = arith.constant -128 : i32
  %hi = arith.constant 127 : i32
  %wg = memref.get_global @dw_w : memref<3x3x4x1xi8>
  %bg = memref.get_global @dw_b : memref<4xi32>
  %mg = memref.get_global @dw_m : memref<4xi32>
  %sg = memref.get_global @dw_s : memref<4xi8>
  %e = memref.view %arena[%c0][] : memref<336xi8> to memref<1x6x9x4xi8>
  %shift = arith.constant 216 : index
  %o2 = memref.view %arena[%shift][] : memref<336xi8> to memref<1x6x9x1xi8>
  %wshift = arith.constant 272 : index
  %win = memref.view %arena[%wshift][] : memref<336xi8> to memref<1x3x3x1xi8>
  %ashift = arith.constant 288 : index
  %acc = memref.view %arena[%ashift][] : memref<336xi8> to memref<1x1x1x1xi32>
  scf.for %c = %c0 to %c4 step %c1 {
    %src = memref.subview %e[0, 0, 0, %c] [1, 6, 9, 1] [1, 1, 1, 1] : memref<1x6x9x4xi8> to memref<1x6x9x1xi8, strided<[216, 36, 4, 1], offset: ?>>
    %w4 = memref.subview %wg[0, 0, 2, 0] [3, 3, 1, 1] [1, 1, 1, 1] : memref<3x3x4x1xi8> to memref<3x3x1x1xi8, strided<[12, 4, 1, 1], offset: 2>>
    %w = memref.collapse_shape %w4 [[0], [1], [2, 3]] : memref<3x3x1x1xi8, strided<[12, 4, 1, 1], offset: 2>> into memref<3x3x1xi8, strided<[12, 4, 1], offset: 2>>
    %b = memref.subview %bg[%c] [1] [1] : memref<4xi32> to memref<1xi32, strided<[1], offset: ?>>
    %m1 = memref.subview %mg[%c] [1] [1] : memref<4xi32> to memref<1xi32, strided<[1], offset: ?>>
    %s1 = memref.subview %sg[%c] [1] [1] : memref<4xi8> to memref<1xi8, strided<[1], offset: ?>>
    %m = memref.collapse_shape %m1 [] : memref<1xi32, strided<[1], offset: ?>> into memref<i32, strided<[], offset: ?>>
    %s = memref.collapse_shape %s1 [] : memref<1xi8, strided<[1], offset: ?>> into memref<i8, strided<[], offset: ?>>
    scf.for %oh = %c0 to %c6 step %c1 {
      scf.for %ow = %c0 to %c9 step %c1 {
        linalg.fill ins(%zx8 : i8) outs(%win : memref<1x3x3x1xi8>)
        %0 = affine.max affine_map<()[s0] -> (0, s0 - 1)>()[%oh]
        %1 = affine.min affine_map<()[s0] -> (6, s0)>()[%0]
        %2 = affine.max affine_map<()[s0] -> (0, s0 + 2)>()[%oh]
        %3 = affine.min affine_map<()[s0] -> (6, s0)>()[%2]
        %4 = affine.apply affine_map<()[s0, s1] -> (s0 - s1)>()[%3, %1]
        %5 = affine.apply affine_map<()[s0, s1] -> (s0 - s1 + 1)>()[%1, %oh]
        %6 = affine.max affine_map<()[s0] -> (0, s0 - 1)>()[%ow]
        %7 = affine.min affine_map<()[s0] -> (9, s0)>()[%6]
        %8 = affine.max affine_map<()[s0] -> (0, s0 + 2)>()[%ow]
        %9 = affine.min affine_map<()[s0] -> (9, s0)>()[%8]
        %10 = affine.apply affine_map<()[s0, s1] -> (s0 - s1)>()[%9, %7]
        %11 = affine.apply affine_map<()[s0, s1] -> (s0 - s1 + 1)>()[%7, %ow]
        %part = memref.subview %src[0, %1, %7, 0] [1, %4, %10, 1] [1, 1, 1, 1] : memref<1x6x9x1xi8, strided<[216, 36, 4, 1], offset: ?>> to memref<1x?x?x1xi8, strided<[216, 36, 4, 1], offset: ?>>
        %dst = memref.subview %win[0, %5, %11, 0] [1, %4, %10, 1] [1, 1, 1, 1] : memref<1x3x3x1xi8> to memref<1x?x?x1xi8, strided<[9, 3, 1, 1], offset: ?>>
        linalg.copy ins(%part : memref<1x?x?x1xi8, strided<[216, 36, 4, 1], offset: ?>>) outs(%dst : memref<1x?x?x1xi8, strided<[9, 3, 1, 1], offset: ?>>)
        linalg.fill ins(%z : i32) outs(%acc : memref<1x1x1x1xi32>)
        linalg.depthwise_conv_2d_nhwc_hwc_q {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%win, %w, %zx, %z : memref<1x3x3x1xi8>, memref<3x3x1xi8, strided<[12, 4, 1], offset: 2>>, i32, i32) outs(%acc : memref<1x1x1x1xi32>)
        linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (0)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%b, %acc : memref<1xi32, strided<[1], offset: ?>>, memref<1x1x1x1xi32>) outs(%acc : memref<1x1x1x1xi32>) {
        ^bb0(%in: i32, %in_1: i32, %out: i32):
          %r = arith.addi %in, %in_1 : i32
          linalg.yield %r : i32
        }
        %px = memref.subview %o2[0, %oh, %ow, 0] [1, 1, 1, 1] [1, 1, 1, 1] : memref<1x6x9x1xi8> to memref<1x1x1x1xi8, strided<[54, 9, 1, 1], offset: ?>>
        linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> ()>, affine_map<(d0, d1, d2, d3) -> ()>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%acc, %m, %s : memref<1x1x1x1xi32>, memref<i32, strided<[], offset: ?>>, memref<i8, strided<[], offset: ?>>) outs(%px : memref<1x1x1x1xi8, strided<[54, 9, 1, 1], offset: ?>>) {
        ^bb0(%in: i32, %in_1: i32, %in_2: i8, %out: i8):
          %a = arith.extsi %in : i32 to i64
          %mm = arith.extsi %in_1 : i32 to i64
          %p = arith.muli %a, %mm : i64
          %sh = arith.extui %in_2 : i8 to i64
          %h = arith.shli %c1_i64, %sh : i64
          %h2 = arith.shrui %h, %c1_i64 : i64
          %q = arith.addi %p, %h2 : i64
          %y = arith.shrsi %q, %sh : i64
          %t = arith.trunci %y : i64 to i32
          %yz = arith.addi %t, %ozp : i32
          %cl = arith.maxsi %yz, %lo : i32
          %d = arith.minsi %cl, %hi : i32
          %r = arith.trunci %d : i32 to i8
          linalg.yield %r : i8
        }
      }
    }
    linalg.copy ins(%o2 : memref<1x6x9x1xi8>) outs(%src : memref<1x6x9x1xi8, strided<[216, 36, 4, 1], offset: ?>>)
  }
  return
}

// -----

// The same with O at byte 100, inside E: a vector would read pixels that
// an earlier one wrote, so the pixels stay scalar, and so does the copy.
// CHECK-LABEL: func.func @channel_rows_overlap
// CHECK-NOT: {{gather|scatter}}
// CHECK: linalg.copy ins(%{{.*}} : memref<1x6x9x1xi8>)
// CHECK-NOT: {{gather|scatter}}
// CHECK: return
memref.global "private" constant @dw_w2 : memref<3x3x4x1xi8> = dense<3>
memref.global "private" constant @dw_b2 : memref<4xi32> = dense<[1, 2, 3, 4]>
memref.global "private" constant @dw_m2 : memref<4xi32> = dense<1518500250>
memref.global "private" constant @dw_s2 : memref<4xi8> = dense<[36, 37, 38, 39]>
func.func @channel_rows_overlap(%arena: memref<336xi8> {llvm.noalias}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c6 = arith.constant 6 : index
  %c9 = arith.constant 9 : index
  %zx8 = arith.constant -5 : i8
  %zx = arith.constant -5 : i32
  %z = arith.constant 0 : i32
  %c1_i64 = arith.constant 1 : i64
  %ozp = arith.constant 3 : i32
  %lo = arith.constant -128 : i32
  %hi = arith.constant 127 : i32
  %wg = memref.get_global @dw_w2 : memref<3x3x4x1xi8>
  %bg = memref.get_global @dw_b2 : memref<4xi32>
  %mg = memref.get_global @dw_m2 : memref<4xi32>
  %sg = memref.get_global @dw_s2 : memref<4xi8>
  %e = memref.view %arena[%c0][] : memref<336xi8> to memref<1x6x9x4xi8>
  %shift = arith.constant 100 : index
  %o2 = memref.view %arena[%shift][] : memref<336xi8> to memref<1x6x9x1xi8>
  %wshift = arith.constant 272 : index
  %win = memref.view %arena[%wshift][] : memref<336xi8> to memref<1x3x3x1xi8>
  %ashift = arith.constant 288 : index
  %acc = memref.view %arena[%ashift][] : memref<336xi8> to memref<1x1x1x1xi32>
  scf.for %c = %c0 to %c4 step %c1 {
    %src = memref.subview %e[0, 0, 0, %c] [1, 6, 9, 1] [1, 1, 1, 1] : memref<1x6x9x4xi8> to memref<1x6x9x1xi8, strided<[216, 36, 4, 1], offset: ?>>
    %w4 = memref.subview %wg[0, 0, 2, 0] [3, 3, 1, 1] [1, 1, 1, 1] : memref<3x3x4x1xi8> to memref<3x3x1x1xi8, strided<[12, 4, 1, 1], offset: 2>>
    %w = memref.collapse_shape %w4 [[0], [1], [2, 3]] : memref<3x3x1x1xi8, strided<[12, 4, 1, 1], offset: 2>> into memref<3x3x1xi8, strided<[12, 4, 1], offset: 2>>
    %b = memref.subview %bg[%c] [1] [1] : memref<4xi32> to memref<1xi32, strided<[1], offset: ?>>
    %m1 = memref.subview %mg[%c] [1] [1] : memref<4xi32> to memref<1xi32, strided<[1], offset: ?>>
    %s1 = memref.subview %sg[%c] [1] [1] : memref<4xi8> to memref<1xi8, strided<[1], offset: ?>>
    %m = memref.collapse_shape %m1 [] : memref<1xi32, strided<[1], offset: ?>> into memref<i32, strided<[], offset: ?>>
    %s = memref.collapse_shape %s1 [] : memref<1xi8, strided<[1], offset: ?>> into memref<i8, strided<[], offset: ?>>
    scf.for %oh = %c0 to %c6 step %c1 {
      scf.for %ow = %c0 to %c9 step %c1 {
        linalg.fill ins(%zx8 : i8) outs(%win : memref<1x3x3x1xi8>)
        %0 = affine.max affine_map<()[s0] -> (0, s0 - 1)>()[%oh]
        %1 = affine.min affine_map<()[s0] -> (6, s0)>()[%0]
        %2 = affine.max affine_map<()[s0] -> (0, s0 + 2)>()[%oh]
        %3 = affine.min affine_map<()[s0] -> (6, s0)>()[%2]
        %4 = affine.apply affine_map<()[s0, s1] -> (s0 - s1)>()[%3, %1]
        %5 = affine.apply affine_map<()[s0, s1] -> (s0 - s1 + 1)>()[%1, %oh]
        %6 = affine.max affine_map<()[s0] -> (0, s0 - 1)>()[%ow]
        %7 = affine.min affine_map<()[s0] -> (9, s0)>()[%6]
        %8 = affine.max affine_map<()[s0] -> (0, s0 + 2)>()[%ow]
        %9 = affine.min affine_map<()[s0] -> (9, s0)>()[%8]
        %10 = affine.apply affine_map<()[s0, s1] -> (s0 - s1)>()[%9, %7]
        %11 = affine.apply affine_map<()[s0, s1] -> (s0 - s1 + 1)>()[%7, %ow]
        %part = memref.subview %src[0, %1, %7, 0] [1, %4, %10, 1] [1, 1, 1, 1] : memref<1x6x9x1xi8, strided<[216, 36, 4, 1], offset: ?>> to memref<1x?x?x1xi8, strided<[216, 36, 4, 1], offset: ?>>
        %dst = memref.subview %win[0, %5, %11, 0] [1, %4, %10, 1] [1, 1, 1, 1] : memref<1x3x3x1xi8> to memref<1x?x?x1xi8, strided<[9, 3, 1, 1], offset: ?>>
        linalg.copy ins(%part : memref<1x?x?x1xi8, strided<[216, 36, 4, 1], offset: ?>>) outs(%dst : memref<1x?x?x1xi8, strided<[9, 3, 1, 1], offset: ?>>)
        linalg.fill ins(%z : i32) outs(%acc : memref<1x1x1x1xi32>)
        linalg.depthwise_conv_2d_nhwc_hwc_q {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%win, %w, %zx, %z : memref<1x3x3x1xi8>, memref<3x3x1xi8, strided<[12, 4, 1], offset: 2>>, i32, i32) outs(%acc : memref<1x1x1x1xi32>)
        linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (0)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%b, %acc : memref<1xi32, strided<[1], offset: ?>>, memref<1x1x1x1xi32>) outs(%acc : memref<1x1x1x1xi32>) {
        ^bb0(%in: i32, %in_1: i32, %out: i32):
          %r = arith.addi %in, %in_1 : i32
          linalg.yield %r : i32
        }
        %px = memref.subview %o2[0, %oh, %ow, 0] [1, 1, 1, 1] [1, 1, 1, 1] : memref<1x6x9x1xi8> to memref<1x1x1x1xi8, strided<[54, 9, 1, 1], offset: ?>>
        linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> ()>, affine_map<(d0, d1, d2, d3) -> ()>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%acc, %m, %s : memref<1x1x1x1xi32>, memref<i32, strided<[], offset: ?>>, memref<i8, strided<[], offset: ?>>) outs(%px : memref<1x1x1x1xi8, strided<[54, 9, 1, 1], offset: ?>>) {
        ^bb0(%in: i32, %in_1: i32, %in_2: i8, %out: i8):
          %a = arith.extsi %in : i32 to i64
          %mm = arith.extsi %in_1 : i32 to i64
          %p = arith.muli %a, %mm : i64
          %sh = arith.extui %in_2 : i8 to i64
          %h = arith.shli %c1_i64, %sh : i64
          %h2 = arith.shrui %h, %c1_i64 : i64
          %q = arith.addi %p, %h2 : i64
          %y = arith.shrsi %q, %sh : i64
          %t = arith.trunci %y : i64 to i32
          %yz = arith.addi %t, %ozp : i32
          %cl = arith.maxsi %yz, %lo : i32
          %d = arith.minsi %cl, %hi : i32
          %r = arith.trunci %d : i32 to i8
          linalg.yield %r : i8
        }
      }
    }
    linalg.copy ins(%o2 : memref<1x6x9x1xi8>) outs(%src : memref<1x6x9x1xi8, strided<[216, 36, 4, 1], offset: ?>>)
  }
  return
}

// -----

// A per-tensor rescale whose multiplier 1073741824 and shift 38 are
// constants in the body, with the rounding term 2^37 = 137438953472
// folded: 8 channels as two vectors, the shifts splat: a rounding shift
// of t by 31 - 38 = -7.
// CHECK-LABEL: func.func @rescale_constant
// CHECK-DAG: %[[M:.*]] = arith.constant dense<1073741824> : vector<4xi32>
// CHECK-DAG: %[[S7:.*]] = arith.constant dense<-7> : vector<4xi32>
// CHECK: scf.for
// CHECK:   llvm.call_intrinsic "llvm.arm.mve.vmulh.v4i32"(%{{.*}}, %[[M]], %{{.*}})
// CHECK:   llvm.call_intrinsic "llvm.arm.mve.vshl.vector.v4i32.v4i32"(%{{.*}}, %[[S7]], %{{.*}}, %{{.*}}, %{{.*}})
// CHECK:   llvm.store %{{.*}} {alignment = 1 : i64} : vector<4xi8>, !llvm.ptr
// CHECK-NOT: linalg.generic
func.func @rescale_constant(%acc: memref<1x1x1x8xi32>, %out: memref<1x1x1x8xi8>) {
  %m = arith.constant 1073741824 : i64
  %s = arith.constant 38 : i64
  %r = arith.constant 137438953472 : i64
  %c-128_i32 = arith.constant -128 : i32
  %c127_i32 = arith.constant 127 : i32
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%acc : memref<1x1x1x8xi32>) outs(%out : memref<1x1x1x8xi8>) {
  ^bb0(%in: i32, %o: i8):
    %0 = arith.extsi %in : i32 to i64
    %1 = arith.muli %0, %m : i64
    %2 = arith.addi %1, %r : i64
    %3 = arith.shrsi %2, %s : i64
    %4 = arith.trunci %3 : i64 to i32
    %5 = arith.maxsi %4, %c-128_i32 : i32
    %6 = arith.minsi %5, %c127_i32 : i32
    %7 = arith.trunci %6 : i32 to i8
    linalg.yield %7 : i8
  }
  return
}

// -----

// The same with a rounding term that is not 2^(38 - 1) (2^36): not the
// rescale, left alone.
// CHECK-LABEL: func.func @rescale_constant_other_rounding
// CHECK: linalg.generic
func.func @rescale_constant_other_rounding(%acc: memref<1x1x1x8xi32>, %out: memref<1x1x1x8xi8>) {
  %m = arith.constant 1073741824 : i64
  %s = arith.constant 38 : i64
  %r = arith.constant 68719476736 : i64
  %c-128_i32 = arith.constant -128 : i32
  %c127_i32 = arith.constant 127 : i32
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%acc : memref<1x1x1x8xi32>) outs(%out : memref<1x1x1x8xi8>) {
  ^bb0(%in: i32, %o: i8):
    %0 = arith.extsi %in : i32 to i64
    %1 = arith.muli %0, %m : i64
    %2 = arith.addi %1, %r : i64
    %3 = arith.shrsi %2, %s : i64
    %4 = arith.trunci %3 : i64 to i32
    %5 = arith.maxsi %4, %c-128_i32 : i32
    %6 = arith.minsi %5, %c127_i32 : i32
    %7 = arith.trunci %6 : i32 to i8
    linalg.yield %7 : i8
  }
  return
}
