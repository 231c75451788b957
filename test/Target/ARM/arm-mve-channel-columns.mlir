// RUN: mem-opt %s --pass-pipeline='builtin.module(func.func(arm-mve-int8-kernels),canonicalize)' | FileCheck %s
// The counts, computed by hand below: 3 bands x 5 input columns x 3 window
// rows = 45 gathers, 10 of them predicated (with their selects); 3 bands x
// 5 output columns = 15 scatters, and the copy back's.
// RUN: mem-opt %s --pass-pipeline='builtin.module(func.func(arm-mve-int8-kernels),canonicalize)' | grep -c "vldr.gather.offset.v4i32" | FileCheck %s --check-prefix=GATHERS
// RUN: mem-opt %s --pass-pipeline='builtin.module(func.func(arm-mve-int8-kernels),canonicalize)' | grep -c "vldr.gather.offset.predicated" | FileCheck %s --check-prefix=PREDICATED
// RUN: mem-opt %s --pass-pipeline='builtin.module(func.func(arm-mve-int8-kernels),canonicalize)' | grep -c "arith.select" | FileCheck %s --check-prefix=PREDICATED
// RUN: mem-opt %s --pass-pipeline='builtin.module(func.func(arm-mve-int8-kernels),canonicalize)' | grep -c "vstr.scatter.offset" | FileCheck %s --check-prefix=SCATTERS
// GATHERS: {{^}}35{{$}}
// PREDICATED: {{^}}10{{$}}
// SCATTERS: {{^}}16{{$}}

// The in-place depthwise convolution's channel loop on a map of 9 rows and
// 5 columns (DepthwiseChannelColumnsToMve): channel %c of E (1x9x5x4 at
// byte 0, pixels 4 bytes apart, rows 5 * 4 = 20) into the channel buffer O
// (1x9x5x1 at byte 180), a 3x3 window padded by 1, input zero point -5.
// Only columns [1, 4) are interior, fewer than 4, so the vectors along a
// row leave it; it has 9 >= 4 rows. Bands of 4 output rows start at 0, 4
// and min(8, 9 - 4) = 5; their patterns of lanes inside differ (band 0:
// window row 0 of lane 0 is input row -1; band 5: window row 2 of lane 3 is
// input row 9), so all three are in line, no loop. Each band gathers
// every input column once per window row, the 4 lanes one input row (20
// bytes) apart, from (start - 1) * 20 + 4 x + 20 ky after the channel's
// offset: band 0's first gather at -20, predicated with lanes 1-3 active,
// its inactive lane replaced by zx = -5. Output column 0's accumulator
// starts at c + B - zx sum w (-zx = 5) plus zx times the weights of its
// window column 0, outside (filter bytes 2, 14 and 26 of the 3x3x4 filter:
// 2 + 12 ky); column 4's of its window column 2 (10, 22, 34). Each output
// column is rescaled and scattered into O, lanes one row (5 bytes) apart,
// at 5 * start + ow: band 0's column 0 at O's first byte.
// CHECK-LABEL: func.func @channel_columns
// CHECK-DAG: %[[LAST:.*]] = arith.constant dense<[true, true, true, false]> : vector<4xi1>
// CHECK-DAG: %[[FIRST:.*]] = arith.constant dense<[false, true, true, true]> : vector<4xi1>
// CHECK-DAG: %[[MZX:.*]] = arith.constant 5 : i32
// CHECK-DAG: %[[ZX:.*]] = arith.constant -5 : i32
// CHECK-DAG: %[[UP:.*]] = arith.constant -20 : i32
// CHECK-DAG: %[[ZXS:.*]] = arith.constant dense<-5> : vector<4xi32>
// CHECK-DAG: %[[OUTLANES:.*]] = arith.constant dense<[0, 5, 10, 15]> : vector<4xi32>
// CHECK-DAG: %[[INLANES:.*]] = arith.constant dense<[0, 20, 40, 60]> : vector<4xi32>
// CHECK: scf.for
// CHECK: %[[IN:.*]] = llvm.inttoptr
// CHECK: %[[OFF:.*]] = arith.index_cast %offset : index to i32
// CHECK: %[[F:.*]] = llvm.inttoptr
// CHECK: %[[O:.*]] = llvm.inttoptr
// CHECK: llvm.getelementptr %[[F]][2] : (!llvm.ptr) -> !llvm.ptr, i8
// CHECK-NEXT: %[[B00:.*]] = llvm.load
// CHECK-NEXT: %[[W00:.*]] = arith.extsi %[[B00]] : i8 to i32
// CHECK: llvm.getelementptr %[[F]][10] : (!llvm.ptr) -> !llvm.ptr, i8
// CHECK-NEXT: %[[B02:.*]] = llvm.load
// CHECK-NEXT: %[[W02:.*]] = arith.extsi %[[B02]] : i8 to i32
// CHECK: llvm.getelementptr %[[F]][14] : (!llvm.ptr) -> !llvm.ptr, i8
// CHECK-NEXT: %[[B10:.*]] = llvm.load
// CHECK-NEXT: %[[W10:.*]] = arith.extsi %[[B10]] : i8 to i32
// CHECK: llvm.getelementptr %[[F]][22] : (!llvm.ptr) -> !llvm.ptr, i8
// CHECK-NEXT: %[[B12:.*]] = llvm.load
// CHECK-NEXT: %[[W12:.*]] = arith.extsi %[[B12]] : i8 to i32
// CHECK: llvm.getelementptr %[[F]][26] : (!llvm.ptr) -> !llvm.ptr, i8
// CHECK-NEXT: %[[B20:.*]] = llvm.load
// CHECK-NEXT: %[[W20:.*]] = arith.extsi %[[B20]] : i8 to i32
// CHECK: llvm.getelementptr %[[F]][34] : (!llvm.ptr) -> !llvm.ptr, i8
// CHECK-NEXT: %[[B22:.*]] = llvm.load
// CHECK-NEXT: %[[W22:.*]] = arith.extsi %[[B22]] : i8 to i32
// CHECK: %[[SUMZX:.*]] = arith.muli %{{.*}}, %[[MZX]] : i32
// CHECK: %[[INIT:.*]] = arith.addi %[[SUMZX]], %{{.*}} : i32
// CHECK-NOT: scf.for
// CHECK: %[[ROW0:.*]] = arith.addi %[[OFF]], %[[UP]] : i32
// CHECK: arith.muli %[[W00]], %[[ZX]] : i32
// CHECK: arith.muli %[[W10]], %[[ZX]] : i32
// CHECK: arith.muli %[[W20]], %[[ZX]] : i32
// CHECK: arith.muli %[[W02]], %[[ZX]] : i32
// CHECK: arith.muli %[[W12]], %[[ZX]] : i32
// CHECK: arith.muli %[[W22]], %[[ZX]] : i32
// CHECK: %[[AT:.*]] = llvm.getelementptr %[[IN]][%[[ROW0]]] : (!llvm.ptr, i32) -> !llvm.ptr, i8
// CHECK: %[[G:.*]] = llvm.call_intrinsic "llvm.arm.mve.vldr.gather.offset.predicated.v4i32.p0.v4i32.v4i1"(%[[AT]], %[[INLANES]], %{{.*}}, %{{.*}}, %{{.*}}, %[[FIRST]])
// CHECK: arith.select %[[FIRST]], %[[G]], %[[ZXS]] : vector<4xi1>, vector<4xi32>
// CHECK: llvm.call_intrinsic "llvm.arm.mve.vmulh.v4i32"
// CHECK: llvm.call_intrinsic "llvm.arm.mve.vstr.scatter.offset.p0.v4i32.v4i32"(%[[O]], %[[OUTLANES]], %{{.*}}, %{{.*}}, %{{.*}})
// CHECK-NOT: scf.for
// CHECK: llvm.call_intrinsic "llvm.arm.mve.vldr.gather.offset.predicated.v4i32.p0.v4i32.v4i1"(%{{.*}}, %[[INLANES]], %{{.*}}, %{{.*}}, %{{.*}}, %[[LAST]])
// The copy back: 45 pixels, 12 vectors.
// CHECK: scf.for
// CHECK: llvm.call_intrinsic "llvm.arm.mve.vstr.scatter.offset.p0.v4i32.v4i32"
// CHECK-NOT: linalg
// CHECK: return
memref.global "private" constant @dwc_w : memref<3x3x4x1xi8> = dense<3>
memref.global "private" constant @dwc_b : memref<4xi32> = dense<[1, 2, 3, 4]>
memref.global "private" constant @dwc_m : memref<4xi32> = dense<1518500250>
memref.global "private" constant @dwc_s : memref<4xi8> = dense<[36, 37, 38, 39]>
func.func @channel_columns(%arena: memref<256xi8> {llvm.noalias}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c5 = arith.constant 5 : index
  %c9 = arith.constant 9 : index
  %zx8 = arith.constant -5 : i8
  %zx = arith.constant -5 : i32
  %z = arith.constant 0 : i32
  %c1_i64 = arith.constant 1 : i64
  %ozp = arith.constant 3 : i32
  %lo = arith.constant -128 : i32
  %hi = arith.constant 127 : i32
  %wg = memref.get_global @dwc_w : memref<3x3x4x1xi8>
  %bg = memref.get_global @dwc_b : memref<4xi32>
  %mg = memref.get_global @dwc_m : memref<4xi32>
  %sg = memref.get_global @dwc_s : memref<4xi8>
  %e = memref.view %arena[%c0][] : memref<256xi8> to memref<1x9x5x4xi8>
  %shift = arith.constant 180 : index
  %o2 = memref.view %arena[%shift][] : memref<256xi8> to memref<1x9x5x1xi8>
  %wshift = arith.constant 232 : index
  %win = memref.view %arena[%wshift][] : memref<256xi8> to memref<1x3x3x1xi8>
  %ashift = arith.constant 244 : index
  %acc = memref.view %arena[%ashift][] : memref<256xi8> to memref<1x1x1x1xi32>
  scf.for %c = %c0 to %c4 step %c1 {
    %src = memref.subview %e[0, 0, 0, %c] [1, 9, 5, 1] [1, 1, 1, 1] : memref<1x9x5x4xi8> to memref<1x9x5x1xi8, strided<[180, 20, 4, 1], offset: ?>>
    %w4 = memref.subview %wg[0, 0, 2, 0] [3, 3, 1, 1] [1, 1, 1, 1] : memref<3x3x4x1xi8> to memref<3x3x1x1xi8, strided<[12, 4, 1, 1], offset: 2>>
    %w = memref.collapse_shape %w4 [[0], [1], [2, 3]] : memref<3x3x1x1xi8, strided<[12, 4, 1, 1], offset: 2>> into memref<3x3x1xi8, strided<[12, 4, 1], offset: 2>>
    %b = memref.subview %bg[%c] [1] [1] : memref<4xi32> to memref<1xi32, strided<[1], offset: ?>>
    %m1 = memref.subview %mg[%c] [1] [1] : memref<4xi32> to memref<1xi32, strided<[1], offset: ?>>
    %s1 = memref.subview %sg[%c] [1] [1] : memref<4xi8> to memref<1xi8, strided<[1], offset: ?>>
    %m = memref.collapse_shape %m1 [] : memref<1xi32, strided<[1], offset: ?>> into memref<i32, strided<[], offset: ?>>
    %s = memref.collapse_shape %s1 [] : memref<1xi8, strided<[1], offset: ?>> into memref<i8, strided<[], offset: ?>>
    scf.for %oh = %c0 to %c9 step %c1 {
      scf.for %ow = %c0 to %c5 step %c1 {
        linalg.fill ins(%zx8 : i8) outs(%win : memref<1x3x3x1xi8>)
        %0 = affine.max affine_map<()[s0] -> (0, s0 - 1)>()[%oh]
        %1 = affine.min affine_map<()[s0] -> (9, s0)>()[%0]
        %2 = affine.max affine_map<()[s0] -> (0, s0 + 2)>()[%oh]
        %3 = affine.min affine_map<()[s0] -> (9, s0)>()[%2]
        %4 = affine.apply affine_map<()[s0, s1] -> (s0 - s1)>()[%3, %1]
        %5 = affine.apply affine_map<()[s0, s1] -> (s0 - s1 + 1)>()[%1, %oh]
        %6 = affine.max affine_map<()[s0] -> (0, s0 - 1)>()[%ow]
        %7 = affine.min affine_map<()[s0] -> (5, s0)>()[%6]
        %8 = affine.max affine_map<()[s0] -> (0, s0 + 2)>()[%ow]
        %9 = affine.min affine_map<()[s0] -> (5, s0)>()[%8]
        %10 = affine.apply affine_map<()[s0, s1] -> (s0 - s1)>()[%9, %7]
        %11 = affine.apply affine_map<()[s0, s1] -> (s0 - s1 + 1)>()[%7, %ow]
        %part = memref.subview %src[0, %1, %7, 0] [1, %4, %10, 1] [1, 1, 1, 1] : memref<1x9x5x1xi8, strided<[180, 20, 4, 1], offset: ?>> to memref<1x?x?x1xi8, strided<[180, 20, 4, 1], offset: ?>>
        %dst = memref.subview %win[0, %5, %11, 0] [1, %4, %10, 1] [1, 1, 1, 1] : memref<1x3x3x1xi8> to memref<1x?x?x1xi8, strided<[9, 3, 1, 1], offset: ?>>
        linalg.copy ins(%part : memref<1x?x?x1xi8, strided<[180, 20, 4, 1], offset: ?>>) outs(%dst : memref<1x?x?x1xi8, strided<[9, 3, 1, 1], offset: ?>>)
        linalg.fill ins(%z : i32) outs(%acc : memref<1x1x1x1xi32>)
        linalg.depthwise_conv_2d_nhwc_hwc_q {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%win, %w, %zx, %z : memref<1x3x3x1xi8>, memref<3x3x1xi8, strided<[12, 4, 1], offset: 2>>, i32, i32) outs(%acc : memref<1x1x1x1xi32>)
        linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (0)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%b, %acc : memref<1xi32, strided<[1], offset: ?>>, memref<1x1x1x1xi32>) outs(%acc : memref<1x1x1x1xi32>) {
        ^bb0(%in: i32, %in_1: i32, %out: i32):
          %r = arith.addi %in, %in_1 : i32
          linalg.yield %r : i32
        }
        %px = memref.subview %o2[0, %oh, %ow, 0] [1, 1, 1, 1] [1, 1, 1, 1] : memref<1x9x5x1xi8> to memref<1x1x1x1xi8, strided<[45, 5, 1, 1], offset: ?>>
        linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> ()>, affine_map<(d0, d1, d2, d3) -> ()>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%acc, %m, %s : memref<1x1x1x1xi32>, memref<i32, strided<[], offset: ?>>, memref<i8, strided<[], offset: ?>>) outs(%px : memref<1x1x1x1xi8, strided<[45, 5, 1, 1], offset: ?>>) {
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
    linalg.copy ins(%o2 : memref<1x9x5x1xi8>) outs(%src : memref<1x9x5x1xi8, strided<[180, 20, 4, 1], offset: ?>>)
  }
  return
}

