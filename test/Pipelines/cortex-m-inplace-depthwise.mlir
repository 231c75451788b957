// In-place depthwise convolution through cortex-m-pipeline (and an in-place
// tosa.mul, @hard_swish at the end): the planned IR
// computes the 3x3 depthwise conv of an inverted-residual block one channel
// at a time over its input's buffer, and the arena holds what the cost model
// predicts, computed here by hand.
//
// @block, io=caller (x: 1x8x8x8 i8 = 512 B and the output, 512 B, are the
// caller's: 1024 B pinned). Steps of the arena, in the only order:
//   expand (1x1 conv 8->16 fused with its rescale): E 1024 + one pixel of
//     16 i32 accumulators 64 = 1088
//   clamp (in place over E)                                   = 1024
//   dw (in place, E dies): E's buffer 1024 + the channel 8x8x1 i8 64 + the
//     3x3x1 window 9 -> 16 + one i32 4 -> 16                   = 1120
//   clamp (in place)                                          = 1024
//   project (1x1 conv 16->8 into the caller's output): 1024 + 8 x i32 32
//                                                             = 1056
// Arena 1120 B, predicted peak 1120 + 1024 = 2144 B. Out of place the dw
// step would hold E, the output and a 3x3x16 window: 1024 + 1024 + 64 + 144
// = 2256 B of arena.
// RUN: mem-opt %s --cortex-m-pipeline="stop-after=plan io=caller" | FileCheck %s
// CHECK-LABEL: func.func @block
// CHECK-SAME: memopt.peak_bytes = 2144
// CHECK-SAME: memplan.arena_size = 1120
// The block's only full-size arena buffer is E (1x8x8x16 i8); the depthwise
// conv's output is E's buffer again.
// CHECK: memplan.place {{.*}} to memref<1x8x8x16xi8>
// CHECK: %[[CH:.*]] = memplan.place {{.*}} to memref<1x8x8x1xi8>
// CHECK: memplan.place {{.*}} to memref<1x3x3x1xi8>
// CHECK: memplan.place {{.*}} to memref<1x1x1x1xi32>
// CHECK: scf.for %[[C:.*]] = 
// CHECK: %[[VIEW:.*]] = memref.subview %[[E:.*]][0, 0, 0, %[[C]]] [1, 8, 8, 1]
// CHECK: linalg.depthwise_conv_2d_nhwc_hwc_q
// The channel is copied over input channel c, after the pixel loops.
// CHECK: linalg.copy ins(%[[CH]] : memref<1x8x8x1xi8>) outs(%[[VIEW]] :
// CHECK: linalg.conv_2d_nhwc_fhwc_q
// RUN: mem-opt %s --cortex-m-pipeline="stop-after=plan io=caller" | FileCheck %s --check-prefix=ONE
// ONE-COUNT-1: memplan.place {{.*}} to memref<1x8x8x16xi8>
// ONE-NOT: memplan.place {{.*}} to memref<1x8x8x16xi8>
// ONE-NOT: memref.alloc
// ONE-NOT: memref.copy

// io=arena: x (512) and the output (512) are arena buffers. The expand conv
// would peak at x 512 + E 1024 + 64 = 1600, but it writes E over x, which
// dies there (docs/MemoryModel.md, "Convolutions over their dying inputs"):
// E's pixel q ends at byte 16(q + 1), the next pixel reads x from 8(q + 1),
// so E starts 8 * 63 = 504 bytes below x, 512 at 16 bytes, and the two
// share x's 512 bytes: 1088. The peak moves to the project step,
// E 1024 + the output 512 + 32 = 1568 (the dw step is 1120 as above).
// RUN: mem-opt %s --cortex-m-pipeline="stop-after=plan io=arena" | FileCheck %s --check-prefix=ARENA
// ARENA: memopt.peak_bytes = 1568
// ARENA-SAME: memplan.arena_size = 1568

// The same with an f32 depthwise conv (no rescale), io=caller (x 1x6x6x4
// f32 = 576 B and the output 576 B pinned). The output clamp overwrites the
// dw's result, which is E's buffer: so E itself is the caller's output
// buffer, and the arena holds only the dw's one-channel buffers: the
// channel's bias-initialized accumulator 6x6x1 f32 = 144 and the 3x3x1 f32
// window 36 -> 48. Arena 192 B, predicted peak 192 + 1152 = 1344 B.
// RUN: mem-opt %s --cortex-m-pipeline="stop-after=plan io=caller" | FileCheck %s --check-prefix=F32
// F32-LABEL: func.func @f32_block
// F32-SAME: memopt.peak_bytes = 1344
// F32-SAME: memplan.arena_size = 192
// F32: memplan.place {{.*}} to memref<1x6x6x1xf32>
// F32: memplan.place {{.*}} to memref<1x3x3x1xf32>
// F32-NOT: memplan.place
// F32: scf.for

func.func @block(%x: tensor<1x8x8x8xi8>) -> tensor<1x8x8x8xi8> {
  %izp = "tosa.const"() <{values = dense<-5> : tensor<1xi8>}> : () -> tensor<1xi8>
  %wzp = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %zp32 = "tosa.const"() <{values = dense<0> : tensor<1xi32>}> : () -> tensor<1xi32>
  %ozp = "tosa.const"() <{values = dense<3> : tensor<1xi8>}> : () -> tensor<1xi8>
  %we = "tosa.const"() <{values = dense<7> : tensor<16x1x1x8xi8>}> : () -> tensor<16x1x1x8xi8>
  %be = "tosa.const"() <{values = dense<11> : tensor<16xi32>}> : () -> tensor<16xi32>
  %wd = "tosa.const"() <{values = dense<-3> : tensor<3x3x16x1xi8>}> : () -> tensor<3x3x16x1xi8>
  %bd = "tosa.const"() <{values = dense<5> : tensor<16xi32>}> : () -> tensor<16xi32>
  %wp = "tosa.const"() <{values = dense<2> : tensor<8x1x1x16xi8>}> : () -> tensor<8x1x1x16xi8>
  %bp = "tosa.const"() <{values = dense<-7> : tensor<8xi32>}> : () -> tensor<8xi32>
  %m = "tosa.const"() <{values = dense<1073741824> : tensor<1xi32>}> : () -> tensor<1xi32>
  %s = "tosa.const"() <{values = dense<38> : tensor<1xi8>}> : () -> tensor<1xi8>
  %e_acc = tosa.conv2d %x, %we, %be, %izp, %wzp {acc_type = i32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x8x8x8xi8>, tensor<16x1x1x8xi8>, tensor<16xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x8x8x16xi32>
  %e = tosa.rescale %e_acc, %m, %s, %zp32, %ozp {input_unsigned = false, output_unsigned = false, per_channel = false, rounding_mode = SINGLE_ROUND, scale32 = true} : (tensor<1x8x8x16xi32>, tensor<1xi32>, tensor<1xi8>, tensor<1xi32>, tensor<1xi8>) -> tensor<1x8x8x16xi8>
  %e6 = tosa.clamp %e {max_val = 100 : i8, min_val = -5 : i8} : (tensor<1x8x8x16xi8>) -> tensor<1x8x8x16xi8>
  %d_acc = tosa.depthwise_conv2d %e6, %wd, %bd, %izp, %wzp {acc_type = i32, dilation = array<i64: 1, 1>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>} : (tensor<1x8x8x16xi8>, tensor<3x3x16x1xi8>, tensor<16xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x8x8x16xi32>
  %d = tosa.rescale %d_acc, %m, %s, %zp32, %ozp {input_unsigned = false, output_unsigned = false, per_channel = false, rounding_mode = SINGLE_ROUND, scale32 = true} : (tensor<1x8x8x16xi32>, tensor<1xi32>, tensor<1xi8>, tensor<1xi32>, tensor<1xi8>) -> tensor<1x8x8x16xi8>
  %d6 = tosa.clamp %d {max_val = 100 : i8, min_val = -5 : i8} : (tensor<1x8x8x16xi8>) -> tensor<1x8x8x16xi8>
  %p_acc = tosa.conv2d %d6, %wp, %bp, %izp, %wzp {acc_type = i32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x8x8x16xi8>, tensor<8x1x1x16xi8>, tensor<8xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x8x8x8xi32>
  %p = tosa.rescale %p_acc, %m, %s, %zp32, %ozp {input_unsigned = false, output_unsigned = false, per_channel = false, rounding_mode = SINGLE_ROUND, scale32 = true} : (tensor<1x8x8x8xi32>, tensor<1xi32>, tensor<1xi8>, tensor<1xi32>, tensor<1xi8>) -> tensor<1x8x8x8xi8>
  return %p : tensor<1x8x8x8xi8>
}

func.func @f32_block(%x: tensor<1x6x6x4xf32>) -> tensor<1x6x6x4xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %w = "tosa.const"() <{values = dense<0.25> : tensor<3x3x4x1xf32>}> : () -> tensor<3x3x4x1xf32>
  %b = "tosa.const"() <{values = dense<[0.5, -0.5, 0.25, 1.0]> : tensor<4xf32>}> : () -> tensor<4xf32>
  %e = tosa.clamp %x {min_val = 0.0 : f32, max_val = 6.0 : f32} : (tensor<1x6x6x4xf32>) -> tensor<1x6x6x4xf32>
  %d = tosa.depthwise_conv2d %e, %w, %b, %zp, %zp {acc_type = f32, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>} : (tensor<1x6x6x4xf32>, tensor<3x3x4x1xf32>, tensor<4xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x6x6x4xf32>
  %y = tosa.clamp %d {min_val = 0.0 : f32, max_val = 6.0 : f32} : (tensor<1x6x6x4xf32>) -> tensor<1x6x6x4xf32>
  return %y : tensor<1x6x6x4xf32>
}

// A hard-swish, x * clamp(x * c + c, 0, 1), as torchvision's MobileNetV3
// exports it: the second tosa.mul writes over its dying operand %e like
// every elementwise op (it lowers to one elementwise generic; its shift is a
// constant), in the model as in the lowering. io=caller (x 16,384 B and the
// 1x1x16x16 f32 output 1,024 B pinned): clamp A 16,384; mul M (A has a
// second reader, so M is new) 32,768; add, clamp in place over M 32,768; mul
// in place over %e (M) with A still live 32,768 (49,152 if the model wrote a
// new buffer); clamp 16,384. Arena 32,768, predicted peak 32,768 + 17,408 =
// 50,176.
// RUN: mem-opt %s --cortex-m-pipeline="stop-after=plan io=caller" | FileCheck %s --check-prefix=MUL
// MUL-LABEL: func.func @hard_swish
// MUL-SAME: memopt.peak_bytes = 50176
// MUL-SAME: memplan.arena_size = 32768
func.func @hard_swish(%x: tensor<1x16x16x16xf32>) -> tensor<1x1x16x16xf32> {
  %c = "tosa.const"() <{values = dense<0.5> : tensor<1x1x1x1xf32>}> : () -> tensor<1x1x1x1xf32>
  %sh = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %a = tosa.clamp %x {min_val = 0.0 : f32, max_val = 6.0 : f32} : (tensor<1x16x16x16xf32>) -> tensor<1x16x16x16xf32>
  %m = tosa.mul %a, %c, %sh : (tensor<1x16x16x16xf32>, tensor<1x1x1x1xf32>, tensor<1xi8>) -> tensor<1x16x16x16xf32>
  %d = tosa.add %m, %c : (tensor<1x16x16x16xf32>, tensor<1x1x1x1xf32>) -> tensor<1x16x16x16xf32>
  %e = tosa.clamp %d {min_val = 0.0 : f32, max_val = 1.0 : f32} : (tensor<1x16x16x16xf32>) -> tensor<1x16x16x16xf32>
  %y = tosa.mul %a, %e, %sh : (tensor<1x16x16x16xf32>, tensor<1x16x16x16xf32>, tensor<1xi8>) -> tensor<1x16x16x16xf32>
  %z = tosa.clamp %y {min_val = 0.0 : f32, max_val = 6.0 : f32} : (tensor<1x16x16x16xf32>) -> tensor<1x16x16x16xf32>
  %r = tosa.reduce_sum %z {axis = 1 : i32} : (tensor<1x16x16x16xf32>) -> tensor<1x1x16x16xf32>
  return %r : tensor<1x1x16x16xf32>
}
