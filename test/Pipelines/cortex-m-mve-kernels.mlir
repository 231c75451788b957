// mem-opt-compile --cpu=cortex-m55 compiles the int8 inner loops with MVE
// (arm-mve-int8-kernels): the reduction loop of the 1x1 convolution (32
// input channels, 16 at a time: two iterations of the low-overhead loop
// `le`) loads 16 input bytes (VLDRB.U8) and, for each of the 4 output
// channels of a block, 16 filter bytes and one VMLAVA.S8 (16 products into
// the accumulator); the input zero point -128 is folded into the bias
// (arm-dsp-fold-zero-points), so there is no filter sum (VADDVA.S8, SUMS).
// The 3x3 depthwise convolution (8 channels, one
// vector<8xi32>, padding 1) reads the input directly instead of a padded
// window and multiplies per tap 2 x 4 lanes with VMUL.I32 of the input and
// filter bytes sign-extended by VLDRB.S32: the 9 taps of a pixel away from
// the border unrolled (9 x 2 = 18 VMULs), and a loop over the taps inside
// the input at the border (2 more). Both rescales (8 channels each) are
// two vectors of 4 channels (RESCALE).
// @inplace's 3x3 depthwise convolution is computed in place, one channel
// at a time (16 channels of 8x8, padding 1): per output row, vectors of 4
// output pixels of the channel, 7 interior columns as 2 vectors, per tap a
// gather of 4 input bytes 16 apart (VLDRB.S32 with a vector of offsets) and
// a VMLA.I32 by the tap's weight: 6 taps in the top and bottom rows, whose
// window row outside the input is skipped, 9 in the interior rows, then the
// rescale (VMULH.S32) and a store of 4 bytes (VSTRB.32) (DW): 6 + 9 + 6 =
// 21 VMLA.I32 in the code of a channel's three row loops (VMLA). The
// channel is then copied back over the input's channel 4 pixels at a time,
// a scatter store of 4 bytes 16 apart (VSTRB.32 with a vector of offsets).
// With --mve-kernels=false there is none of these, and neither on the
// cores without MVE (cortex-m4, whose kernels are the DSP ones) (NOMVE).
// RUN: rm -rf %t && mkdir -p %t
// RUN: mem-opt-compile %s --cpu=cortex-m55 -o %t/m55.o --quiet
// RUN: llvm-objdump -d --no-show-raw-insn %t/m55.o | FileCheck %s --check-prefix=MVE
// RUN: llvm-objdump -d --no-show-raw-insn %t/m55.o | FileCheck %s --check-prefix=SUMS
// RUN: llvm-objdump -d --no-show-raw-insn %t/m55.o | FileCheck %s --check-prefix=RESCALE
// RUN: llvm-objdump -d --no-show-raw-insn %t/m55.o | FileCheck %s --check-prefix=DW
// RUN: llvm-objdump -d --no-show-raw-insn %t/m55.o | FileCheck %s --check-prefix=VMLA
// RUN: mem-opt-compile %s --cpu=cortex-m55 --mve-kernels=false -o %t/off.o --quiet
// RUN: llvm-objdump -d --no-show-raw-insn %t/off.o | FileCheck %s --check-prefix=NOMVE
// RUN: mem-opt-compile %s --cpu=cortex-m4 -o %t/m4.o --quiet
// RUN: llvm-objdump -d --no-show-raw-insn %t/m4.o | FileCheck %s --check-prefix=NOMVE
// RUN: mem-opt %s --cortex-m-pipeline="cpu=cortex-m55 mve-kernels=false" \
// RUN:   | FileCheck %s --check-prefix=NOVECTOR

// The pointwise loop: the input vector, then per output channel a filter
// vector and VMLAVA.S8 with the input, and the backward branch of the loop;
// no filter sum (SUMS).
// MVE: vldrb.u8 [[X:q[0-7]]], [r{{[0-9]+}}]
// MVE-COUNT-4: vmlava.s8 r{{[0-9]+}}, q{{[0-7]}}, [[X]]
// MVE: le lr, 0x{{[0-9a-f]+}} <{{.*}}> @ imm = #-
// SUMS-NOT: vaddva.s8
// The rescale of 4 channels: VMULH.S32 (the high words of the 64-bit
// product), the rounding shift VRSHL.S32, the clamp and a narrowing store;
// its multiplier 2^30 makes the low words a shift.
// RESCALE: vmulh.s32
// RESCALE: vrshl.s32
// RESCALE: vmax.s32
// RESCALE: vmin.s32
// RESCALE: vstrb.32
// RESCALE: vmulh.s32
// RESCALE: vrshl.s32
// RESCALE: vmax.s32
// RESCALE: vmin.s32
// RESCALE: vstrb.32
// The in-place depthwise convolution's vectors: the top row, an interior
// row, the bottom row.
// DW-COUNT-6: vldrb.s32 q{{[0-7]}}, [r{{[0-9]+}}, q{{[0-7]}}]
// DW: vmulh.s32
// DW: vstrb.32
// DW-COUNT-9: vldrb.s32 q{{[0-7]}}, [r{{[0-9]+}}, q{{[0-7]}}]
// DW: vmulh.s32
// DW: vstrb.32 q{{[0-7]}}, [r{{[0-9]+}}]
// DW-NEXT: le lr
// DW-COUNT-6: vldrb.s32 q{{[0-7]}}, [r{{[0-9]+}}, q{{[0-7]}}]
// DW-NOT: vldrb.s32 q{{[0-7]}}, [r{{[0-9]+}}, q{{[0-7]}}]
// The channel copied back over the input's channel: a scatter store.
// DW: vstrb.32 q{{[0-7]}}, [r{{[0-9]+}}, q{{[0-7]}}]
// DW-NOT: vldrb.s32 q{{[0-7]}}, [r{{[0-9]+}}, q{{[0-7]}}]
// VMLA-COUNT-21: vmla.i32 q{{[0-7]}}, q{{[0-7]}}, r{{[0-9]+}}
// VMLA-NOT: vmla.i32
// The depthwise taps.
// MVE-COUNT-20: vmul.i32
// MVE-NOT: vmul.i32
// (Without the kernels LLVM vectorizes @inplace's clamps itself: VLDRB.U8,
// VMAX, VMIN.)
// NOMVE-NOT: {{vmlava|vaddva|vmul.i32|vmla.i32|vmulh|vldrb.s32|vstrb.32}}
// NOVECTOR-NOT: vector<

func.func @mve(%x: tensor<1x4x4x32xi8>) -> (tensor<1x4x4x8xi8>, tensor<1x4x4x8xi8>) {
  %izp = "tosa.const"() <{values = dense<-128> : tensor<1xi8>}> : () -> tensor<1xi8>
  %wzp = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %zp32 = "tosa.const"() <{values = dense<0> : tensor<1xi32>}> : () -> tensor<1xi32>
  %ozp = "tosa.const"() <{values = dense<-128> : tensor<1xi8>}> : () -> tensor<1xi8>
  %w = "tosa.const"() <{values = dense<[[[[-60, -96, 2, -68, 125, 102, 113, 66, -21, -80, 121, -114, 71, 93, -127, 100, 8, -11, -76, 34, -113, -117, -115, -124, 67, -18, 88, -114, -15, 96, 125, -9]]], [[[48, -10, -16, 107, 20, -117, 85, -77, -33, 23, -67, 42, 88, -31, 27, 17, 127, 73, -111, 117, -4, 78, 84, -40, 59, 63, -84, 96, -73, -45, 73, 61]]], [[[122, -113, 112, -106, 29, 73, -41, -42, -12, -122, -26, -10, 79, 48, 52, 107, 9, -126, 68, -62, -23, 90, -100, 118, 58, -26, 83, 120, 54, 84, 49, -128]]], [[[41, 106, -114, -11, -38, -36, -82, 2, -112, -92, -86, -120, 103, -121, 15, -1, 9, -72, -34, 48, 20, -93, -43, -47, 2, -42, 11, 22, 104, 36, 126, 114]]], [[[-70, -116, 31, 69, 47, 87, -32, 4, -73, 1, -21, 93, -118, -13, -119, 75, -54, -110, -46, 100, 90, -16, 102, -14, -113, 74, 36, 90, -98, 24, -64, -20]]], [[[-104, 28, -92, -89, 30, 24, -47, 85, 1, -62, -124, -109, -17, 107, -41, -109, 65, -26, 49, -78, -23, 93, -29, 124, -75, 71, 23, 127, -120, 38, 77, 16]]], [[[-119, -48, -26, 39, -59, 45, 91, -19, 8, -79, 66, 48, 120, -8, -95, -108, -85, -60, -42, -43, -19, 9, 42, 2, 60, 45, 46, -70, 21, -8, 122, -59]]], [[[-75, 36, -108, 80, -91, 66, -53, -64, 46, -70, 65, -89, -14, -87, 8, 58, 23, -70, 106, 13, -73, -105, 23, -122, -121, -82, 83, -70, -108, -32, -6, 87]]]]> : tensor<8x1x1x32xi8>}> : () -> tensor<8x1x1x32xi8>
  %b = "tosa.const"() <{values = dense<100> : tensor<8xi32>}> : () -> tensor<8xi32>
  %acc = tosa.conv2d %x, %w, %b, %izp, %wzp {acc_type = i32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x4x4x32xi8>, tensor<8x1x1x32xi8>, tensor<8xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x4x4x8xi32>
  %m = "tosa.const"() <{values = dense<1073741824> : tensor<8xi32>}> : () -> tensor<8xi32>
  %s = "tosa.const"() <{values = dense<37> : tensor<8xi8>}> : () -> tensor<8xi8>
  %y = tosa.rescale %acc, %m, %s, %zp32, %ozp {input_unsigned = false, output_unsigned = false, per_channel = true, rounding_mode = SINGLE_ROUND, scale32 = true} : (tensor<1x4x4x8xi32>, tensor<8xi32>, tensor<8xi8>, tensor<1xi32>, tensor<1xi8>) -> tensor<1x4x4x8xi8>
  %dw = "tosa.const"() <{values = dense<[[[[-100], [-82], [-85], [56], [-42], [29], [0], [-20]], [[-110], [-47], [92], [73], [62], [99], [9], [-110]], [[-114], [58], [110], [35], [66], [88], [-44], [-38]]], [[[-8], [-10], [-116], [-38], [38], [-40], [-59], [56]], [[-35], [100], [84], [58], [53], [57], [100], [-46]], [[76], [108], [-1], [122], [14], [127], [53], [104]]], [[[108], [51], [105], [121], [-15], [38], [-43], [9]], [[117], [30], [27], [80], [31], [-22], [122], [59]], [[-90], [46], [-124], [-31], [-74], [-98], [-103], [11]]]]> : tensor<3x3x8x1xi8>}> : () -> tensor<3x3x8x1xi8>
  %dacc = tosa.depthwise_conv2d %y, %dw, %b, %izp, %wzp {acc_type = i32, dilation = array<i64: 1, 1>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>} : (tensor<1x4x4x8xi8>, tensor<3x3x8x1xi8>, tensor<8xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x4x4x8xi32>
  %z = tosa.rescale %dacc, %m, %s, %zp32, %ozp {input_unsigned = false, output_unsigned = false, per_channel = true, rounding_mode = SINGLE_ROUND, scale32 = true} : (tensor<1x4x4x8xi32>, tensor<8xi32>, tensor<8xi8>, tensor<1xi32>, tensor<1xi8>) -> tensor<1x4x4x8xi8>
  return %y, %z : tensor<1x4x4x8xi8>, tensor<1x4x4x8xi8>
}

func.func @inplace(%x: tensor<1x8x8x8xi8>) -> tensor<1x8x8x8xi8> {
  %izp = "tosa.const"() <{values = dense<-5> : tensor<1xi8>}> : () -> tensor<1xi8>
  %wzp = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %zp32 = "tosa.const"() <{values = dense<0> : tensor<1xi32>}> : () -> tensor<1xi32>
  %ozp = "tosa.const"() <{values = dense<3> : tensor<1xi8>}> : () -> tensor<1xi8>
  %we = "tosa.const"() <{values = dense<7> : tensor<16x1x1x8xi8>}> : () -> tensor<16x1x1x8xi8>
  %be = "tosa.const"() <{values = dense<11> : tensor<16xi32>}> : () -> tensor<16xi32>
  %wd = "tosa.const"() <{values = dense<[[[[-11], [-6], [-1], [4], [9], [-9], [-4], [1], [6], [11], [-7], [-2], [3], [8], [-10], [-5]], [[-8], [-3], [2], [7], [-11], [-6], [-1], [4], [9], [-9], [-4], [1], [6], [11], [-7], [-2]], [[-5], [0], [5], [10], [-8], [-3], [2], [7], [-11], [-6], [-1], [4], [9], [-9], [-4], [1]]], [[[-4], [1], [6], [11], [-7], [-2], [3], [8], [-10], [-5], [0], [5], [10], [-8], [-3], [2]], [[-1], [4], [9], [-9], [-4], [1], [6], [11], [-7], [-2], [3], [8], [-10], [-5], [0], [5]], [[2], [7], [-11], [-6], [-1], [4], [9], [-9], [-4], [1], [6], [11], [-7], [-2], [3], [8]]], [[[3], [8], [-10], [-5], [0], [5], [10], [-8], [-3], [2], [7], [-11], [-6], [-1], [4], [9]], [[6], [11], [-7], [-2], [3], [8], [-10], [-5], [0], [5], [10], [-8], [-3], [2], [7], [-11]], [[9], [-9], [-4], [1], [6], [11], [-7], [-2], [3], [8], [-10], [-5], [0], [5], [10], [-8]]]]> : tensor<3x3x16x1xi8>}> : () -> tensor<3x3x16x1xi8>
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
