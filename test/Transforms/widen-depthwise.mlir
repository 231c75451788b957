// RUN: mem-opt %s --split-input-file --widen-depthwise | FileCheck %s
// Bit for bit the original functions' outputs (mem-opt-run's reference
// interpreter on both).
// RUN: mem-opt %s --widen-depthwise -o %t.wide.mlir
// RUN: mem-opt-run --compare --atol=0 --rtol=0 --seeds=3 %s %t.wide.mlir | FileCheck %s --check-prefix=SAME
// SAME: OK: 8 function(s), 3 seed(s) each

// A middle band of rows: its input E holds rows 0..7 of which the output
// needs rows 1..6, so the 3x3 window has no padding along the height
// (pad 0, 0) and 6 output rows. Wider: the window's 'same' padding (1, 1)
// over E's 8 rows, the rescale and the clamp over 8 rows too, and the rows
// 1..6 as a view (offset 1 = new padding 1 - old 0).
// CHECK-LABEL: func.func @band_rows
// CHECK: %[[D:.*]] = tosa.depthwise_conv2d %[[E:.*]], %{{.*}} {acc_type = i32, dilation = array<i64: 1, 1>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>} : (tensor<1x8x8x16xi8>, {{.*}}) -> tensor<1x8x8x16xi32>
// CHECK: %[[R:.*]] = tosa.rescale %[[D]], {{.*}} -> tensor<1x8x8x16xi8>
// CHECK: %[[C:.*]] = tosa.clamp %[[R]] {{.*}} -> tensor<1x8x8x16xi8>
// CHECK: %[[V:.*]] = tensor.extract_slice %[[C]][0, 1, 0, 0] [1, 6, 8, 16] [1, 1, 1, 1] : tensor<1x8x8x16xi8> to tensor<1x6x8x16xi8>
// CHECK: tosa.conv2d %[[V]],
//
// The arena through cortex-m-pipeline, by hand (io=caller: x 1x8x8x8 i8 =
// 512 B and the output 1x6x8x8 = 384 B are the caller's, 896 B pinned):
// before, the depthwise step holds E (1x8x8x16 i8, 1024), its output
// (1x6x8x16, 768), one pixel of 16 i32 accumulators (64) and the padded
// 3x3x16 i8 window (144): 2000 B apart. The output is written over E, which
// dies there (docs/MemoryModel.md, "Convolutions over their dying
// inputs"): pixel (r, c) ends at 16(8r + c + 1), the next one reads E from
// row r, column c, byte 16(8r + c): 16 bytes below, and the two share
// 768 - 16 = 752 bytes: 1024 + 768 - 752 + 64 + 144 = 1248 (the expansion
// 1024 + 64, the projection 768 + 8 x i32 32 are below). After, it is in
// place: E 1024 + the channel 8x8x1 (64) + the 3x3x1 window (9 -> 16) + one
// i32 (4 -> 16) = 1120 B; the projection then reads the view of E:
// 1024 + 32 = 1056; the expansion 1088. Arena 1248 -> 1120, peak
// 2144 -> 2016.
// RUN: mem-opt %s --split-input-file --cortex-m-pipeline="stop-after=plan io=caller" | FileCheck %s --check-prefix=BEFORE
// RUN: mem-opt %s --split-input-file --widen-depthwise --cortex-m-pipeline="stop-after=plan io=caller" | FileCheck %s --check-prefix=AFTER
// BEFORE-LABEL: func.func @band_rows
// BEFORE-SAME: memopt.peak_bytes = 2144
// BEFORE-SAME: memplan.arena_size = 1248
// AFTER-LABEL: func.func @band_rows
// AFTER-SAME: memopt.peak_bytes = 2016
// AFTER-SAME: memplan.arena_size = 1120
func.func @band_rows(%x: tensor<1x8x8x8xi8>) -> tensor<1x6x8x8xi8> {
  %izp = "tosa.const"() <{values = dense<-5> : tensor<1xi8>}> : () -> tensor<1xi8>
  %wzp = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %zp32 = "tosa.const"() <{values = dense<0> : tensor<1xi32>}> : () -> tensor<1xi32>
  %ozp = "tosa.const"() <{values = dense<3> : tensor<1xi8>}> : () -> tensor<1xi8>
  %we = "tosa.const"() <{values = dense<7> : tensor<16x1x1x8xi8>}> : () -> tensor<16x1x1x8xi8>
  %be = "tosa.const"() <{values = dense<11> : tensor<16xi32>}> : () -> tensor<16xi32>
  %wd = "tosa.const"() <{values = dense<[[[[1], [-2], [3], [-4], [5], [-6], [7], [-8], [9], [-10], [11], [-12], [13], [-14], [15], [-16]], [[2], [3], [-1], [4], [-5], [6], [1], [2], [-3], [4], [5], [-6], [7], [8], [-9], [10]], [[-3], [1], [2], [-2], [3], [1], [-1], [2], [3], [-3], [1], [2], [-2], [3], [1], [-1]]], [[[4], [-1], [1], [3], [-2], [2], [5], [-4], [1], [2], [-1], [3], [2], [-2], [4], [1]], [[9], [8], [7], [6], [5], [4], [3], [2], [1], [-1], [-2], [-3], [-4], [-5], [-6], [-7]], [[1], [1], [-1], [2], [2], [-2], [3], [3], [-3], [4], [4], [-4], [5], [5], [-5], [6]]], [[[-1], [2], [-3], [4], [-5], [6], [-7], [8], [-9], [10], [-11], [12], [-13], [14], [-15], [16]], [[3], [-3], [2], [-2], [1], [-1], [4], [-4], [5], [-5], [6], [-6], [7], [-7], [8], [-8]], [[2], [1], [3], [1], [2], [1], [3], [1], [2], [1], [3], [1], [2], [1], [3], [1]]]]> : tensor<3x3x16x1xi8>}> : () -> tensor<3x3x16x1xi8>
  %bd = "tosa.const"() <{values = dense<5> : tensor<16xi32>}> : () -> tensor<16xi32>
  %wp = "tosa.const"() <{values = dense<2> : tensor<8x1x1x16xi8>}> : () -> tensor<8x1x1x16xi8>
  %bp = "tosa.const"() <{values = dense<-7> : tensor<8xi32>}> : () -> tensor<8xi32>
  %m = "tosa.const"() <{values = dense<1073741824> : tensor<1xi32>}> : () -> tensor<1xi32>
  %s = "tosa.const"() <{values = dense<38> : tensor<1xi8>}> : () -> tensor<1xi8>
  %e_acc = tosa.conv2d %x, %we, %be, %izp, %wzp {acc_type = i32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x8x8x8xi8>, tensor<16x1x1x8xi8>, tensor<16xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x8x8x16xi32>
  %e = tosa.rescale %e_acc, %m, %s, %zp32, %ozp {input_unsigned = false, output_unsigned = false, per_channel = false, rounding_mode = SINGLE_ROUND, scale32 = true} : (tensor<1x8x8x16xi32>, tensor<1xi32>, tensor<1xi8>, tensor<1xi32>, tensor<1xi8>) -> tensor<1x8x8x16xi8>
  %e6 = tosa.clamp %e {max_val = 100 : i8, min_val = -5 : i8} : (tensor<1x8x8x16xi8>) -> tensor<1x8x8x16xi8>
  %d_acc = tosa.depthwise_conv2d %e6, %wd, %bd, %izp, %wzp {acc_type = i32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 1, 1>, stride = array<i64: 1, 1>} : (tensor<1x8x8x16xi8>, tensor<3x3x16x1xi8>, tensor<16xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x6x8x16xi32>
  %d = tosa.rescale %d_acc, %m, %s, %zp32, %ozp {input_unsigned = false, output_unsigned = false, per_channel = false, rounding_mode = SINGLE_ROUND, scale32 = true} : (tensor<1x6x8x16xi32>, tensor<1xi32>, tensor<1xi8>, tensor<1xi32>, tensor<1xi8>) -> tensor<1x6x8x16xi8>
  %d6 = tosa.clamp %d {max_val = 100 : i8, min_val = -5 : i8} : (tensor<1x6x8x16xi8>) -> tensor<1x6x8x16xi8>
  %p_acc = tosa.conv2d %d6, %wp, %bp, %izp, %wzp {acc_type = i32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x6x8x16xi8>, tensor<8x1x1x16xi8>, tensor<8xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x6x8x8xi32>
  %p = tosa.rescale %p_acc, %m, %s, %zp32, %ozp {input_unsigned = false, output_unsigned = false, per_channel = false, rounding_mode = SINGLE_ROUND, scale32 = true} : (tensor<1x6x8x8xi32>, tensor<1xi32>, tensor<1xi8>, tensor<1xi32>, tensor<1xi8>) -> tensor<1x6x8x8xi8>
  return %p : tensor<1x6x8x8xi8>
}

// -----

// The top band (rows 0..3 of an image, its input rows 0..4): the image's
// padding row above (pad 1) and a halo row below (pad 0). Wider: padding
// (1, 1), the half window before, which is the old padding: offset 0.
// CHECK-LABEL: func.func @top_band
// CHECK: %[[D:.*]] = tosa.depthwise_conv2d %{{.*}} {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>} : (tensor<1x5x6x4xf32>, {{.*}}) -> tensor<1x5x6x4xf32>
// CHECK: %[[C:.*]] = tosa.clamp %[[D]] {{.*}} -> tensor<1x5x6x4xf32>
// CHECK: tensor.extract_slice %[[C]][0, 0, 0, 0] [1, 4, 6, 4] [1, 1, 1, 1] : tensor<1x5x6x4xf32> to tensor<1x4x6x4xf32>
func.func @top_band(%x: tensor<1x5x6x4xf32>) -> tensor<1x4x6x1xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %w = "tosa.const"() <{values = dense<[[[[0.5], [-0.25], [0.75], [1.0]], [[0.125], [0.5], [-1.0], [0.25]], [[1.5], [0.25], [0.5], [-0.5]]], [[[-0.75], [1.0], [0.5], [0.25]], [[2.0], [1.5], [1.25], [1.0]], [[0.5], [-0.5], [0.25], [0.75]]], [[[0.25], [0.5], [-0.25], [1.0]], [[1.0], [-0.75], [0.5], [0.5]], [[-0.5], [0.25], [1.0], [0.125]]]]> : tensor<3x3x4x1xf32>}> : () -> tensor<3x3x4x1xf32>
  %b = "tosa.const"() <{values = dense<[0.5, -0.5, 0.25, 1.0]> : tensor<4xf32>}> : () -> tensor<4xf32>
  %wp = "tosa.const"() <{values = dense<[[[[0.5, -0.25, 0.75, 0.125]]]]> : tensor<1x1x1x4xf32>}> : () -> tensor<1x1x1x4xf32>
  %bp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %e = tosa.clamp %x {min_val = -4.0 : f32, max_val = 6.0 : f32} : (tensor<1x5x6x4xf32>) -> tensor<1x5x6x4xf32>
  %d = tosa.depthwise_conv2d %e, %w, %b, %zp, %zp {acc_type = f32, pad = array<i64: 1, 0, 1, 1>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>} : (tensor<1x5x6x4xf32>, tensor<3x3x4x1xf32>, tensor<4xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x6x4xf32>
  %c = tosa.clamp %d {min_val = 0.0 : f32, max_val = 6.0 : f32} : (tensor<1x4x6x4xf32>) -> tensor<1x4x6x4xf32>
  %p = tosa.conv2d %c, %wp, %bp, %zp, %zp {acc_type = f32, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>} : (tensor<1x4x6x4xf32>, tensor<1x1x1x4xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x6x1xf32>
  return %p : tensor<1x4x6x1xf32>
}

// -----

// The bottom band (a halo row above, the image's padding row below): the
// half window before is more than the old 0, so the rows it had start at
// row 1 of the wider output.
// CHECK-LABEL: func.func @bottom_band
// CHECK: %[[D:.*]] = tosa.depthwise_conv2d %{{.*}} pad = array<i64: 1, 1, 1, 1>, {{.*}} -> tensor<1x5x6x4xf32>
// CHECK: tensor.extract_slice %[[D]][0, 1, 0, 0] [1, 4, 6, 4] [1, 1, 1, 1] : tensor<1x5x6x4xf32> to tensor<1x4x6x4xf32>
func.func @bottom_band(%x: tensor<1x5x6x4xf32>) -> tensor<1x4x6x1xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %w = "tosa.const"() <{values = dense<[[[[0.5], [-0.25], [0.75], [1.0]], [[0.125], [0.5], [-1.0], [0.25]], [[1.5], [0.25], [0.5], [-0.5]]], [[[-0.75], [1.0], [0.5], [0.25]], [[2.0], [1.5], [1.25], [1.0]], [[0.5], [-0.5], [0.25], [0.75]]], [[[0.25], [0.5], [-0.25], [1.0]], [[1.0], [-0.75], [0.5], [0.5]], [[-0.5], [0.25], [1.0], [0.125]]]]> : tensor<3x3x4x1xf32>}> : () -> tensor<3x3x4x1xf32>
  %b = "tosa.const"() <{values = dense<[0.5, -0.5, 0.25, 1.0]> : tensor<4xf32>}> : () -> tensor<4xf32>
  %wp = "tosa.const"() <{values = dense<[[[[0.5, -0.25, 0.75, 0.125]]]]> : tensor<1x1x1x4xf32>}> : () -> tensor<1x1x1x4xf32>
  %bp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %e = tosa.clamp %x {min_val = -4.0 : f32, max_val = 6.0 : f32} : (tensor<1x5x6x4xf32>) -> tensor<1x5x6x4xf32>
  %d = tosa.depthwise_conv2d %e, %w, %b, %zp, %zp {acc_type = f32, pad = array<i64: 0, 1, 1, 1>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>} : (tensor<1x5x6x4xf32>, tensor<3x3x4x1xf32>, tensor<4xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x6x4xf32>
  %p = tosa.conv2d %d, %wp, %bp, %zp, %zp {acc_type = f32, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>} : (tensor<1x4x6x4xf32>, tensor<1x1x1x4xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x6x1xf32>
  return %p : tensor<1x4x6x1xf32>
}

// -----

// A patch of a grid, halos along both dimensions, with a dilated window
// (3x3, dilation 2: it spans 5 rows and columns) on an 8x8 input. Height:
// padding (1, 1) gives 8 + 2 - 4 = 6 rows; the wider padding is the half
// window 2 before (at least 1, at most 4 - 1 = 3) and 2 after: offset
// 2 - 1 = 1. Width: padding (0, 2) gives 6 columns; wider (2, 2), at least
// 0 before and at most 4 - 2 = 2: offset 2.
// CHECK-LABEL: func.func @dilated_patch
// CHECK: %[[D:.*]] = tosa.depthwise_conv2d %{{.*}} dilation = array<i64: 2, 2>, pad = array<i64: 2, 2, 2, 2>, {{.*}} -> tensor<1x8x8x4xf32>
// CHECK: tensor.extract_slice %[[D]][0, 1, 2, 0] [1, 6, 6, 4] [1, 1, 1, 1] : tensor<1x8x8x4xf32> to tensor<1x6x6x4xf32>
func.func @dilated_patch(%x: tensor<1x8x8x4xf32>) -> tensor<1x6x6x1xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %w = "tosa.const"() <{values = dense<[[[[0.5], [-0.25], [0.75], [1.0]], [[0.125], [0.5], [-1.0], [0.25]], [[1.5], [0.25], [0.5], [-0.5]]], [[[-0.75], [1.0], [0.5], [0.25]], [[2.0], [1.5], [1.25], [1.0]], [[0.5], [-0.5], [0.25], [0.75]]], [[[0.25], [0.5], [-0.25], [1.0]], [[1.0], [-0.75], [0.5], [0.5]], [[-0.5], [0.25], [1.0], [0.125]]]]> : tensor<3x3x4x1xf32>}> : () -> tensor<3x3x4x1xf32>
  %b = "tosa.const"() <{values = dense<[0.5, -0.5, 0.25, 1.0]> : tensor<4xf32>}> : () -> tensor<4xf32>
  %wp = "tosa.const"() <{values = dense<[[[[0.5, -0.25, 0.75, 0.125]]]]> : tensor<1x1x1x4xf32>}> : () -> tensor<1x1x1x4xf32>
  %bp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %e = tosa.clamp %x {min_val = -4.0 : f32, max_val = 6.0 : f32} : (tensor<1x8x8x4xf32>) -> tensor<1x8x8x4xf32>
  %d = tosa.depthwise_conv2d %e, %w, %b, %zp, %zp {acc_type = f32, pad = array<i64: 1, 1, 0, 2>, stride = array<i64: 1, 1>, dilation = array<i64: 2, 2>} : (tensor<1x8x8x4xf32>, tensor<3x3x4x1xf32>, tensor<4xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x6x6x4xf32>
  %p = tosa.conv2d %d, %wp, %bp, %zp, %zp {acc_type = f32, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>} : (tensor<1x6x6x4xf32>, tensor<1x1x1x4xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x6x6x1xf32>
  return %p : tensor<1x6x6x1xf32>
}

// -----

// Left alone: the input has another reader (the add), so the wider
// convolution could not write over it.
// CHECK-LABEL: func.func @input_read_twice
// CHECK: tosa.depthwise_conv2d {{.*}} -> tensor<1x4x6x4xf32>
// CHECK-NOT: tensor.extract_slice
func.func @input_read_twice(%x: tensor<1x6x6x4xf32>) -> (tensor<1x4x6x4xf32>, tensor<1x6x6x4xf32>) {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %w = "tosa.const"() <{values = dense<0.25> : tensor<3x3x4x1xf32>}> : () -> tensor<3x3x4x1xf32>
  %b = "tosa.const"() <{values = dense<[0.5, -0.5, 0.25, 1.0]> : tensor<4xf32>}> : () -> tensor<4xf32>
  %e = tosa.clamp %x {min_val = -4.0 : f32, max_val = 6.0 : f32} : (tensor<1x6x6x4xf32>) -> tensor<1x6x6x4xf32>
  %d = tosa.depthwise_conv2d %e, %w, %b, %zp, %zp {acc_type = f32, pad = array<i64: 0, 0, 1, 1>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>} : (tensor<1x6x6x4xf32>, tensor<3x3x4x1xf32>, tensor<4xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x6x4xf32>
  %a = tosa.add %e, %e : (tensor<1x6x6x4xf32>, tensor<1x6x6x4xf32>) -> tensor<1x6x6x4xf32>
  return %d, %a : tensor<1x4x6x4xf32>, tensor<1x6x6x4xf32>
}

// -----

// Left alone: the input is the function's argument (the caller's buffer).
// CHECK-LABEL: func.func @argument
// CHECK: tosa.depthwise_conv2d {{.*}} -> tensor<1x4x6x4xf32>
// CHECK-NOT: tensor.extract_slice
func.func @argument(%x: tensor<1x6x6x4xf32>) -> tensor<1x4x6x4xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %w = "tosa.const"() <{values = dense<0.25> : tensor<3x3x4x1xf32>}> : () -> tensor<3x3x4x1xf32>
  %b = "tosa.const"() <{values = dense<[0.5, -0.5, 0.25, 1.0]> : tensor<4xf32>}> : () -> tensor<4xf32>
  %d = tosa.depthwise_conv2d %x, %w, %b, %zp, %zp {acc_type = f32, pad = array<i64: 0, 0, 1, 1>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>} : (tensor<1x6x6x4xf32>, tensor<3x3x4x1xf32>, tensor<4xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x6x4xf32>
  return %d : tensor<1x4x6x4xf32>
}

// -----

// Left alone: stride 2 (output pixels are not input pixels), and a channel
// multiplier of 2 (an output channel is not its input channel).
// CHECK-LABEL: func.func @stride_and_multiplier
// CHECK: tosa.depthwise_conv2d {{.*}} -> tensor<1x3x3x4xf32>
// CHECK: tosa.depthwise_conv2d {{.*}} -> tensor<1x4x6x8xf32>
// CHECK-NOT: tensor.extract_slice
func.func @stride_and_multiplier(%x: tensor<1x6x6x4xf32>) -> (tensor<1x3x3x4xf32>, tensor<1x4x6x8xf32>) {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %w = "tosa.const"() <{values = dense<0.25> : tensor<3x3x4x1xf32>}> : () -> tensor<3x3x4x1xf32>
  %w2 = "tosa.const"() <{values = dense<0.5> : tensor<3x3x4x2xf32>}> : () -> tensor<3x3x4x2xf32>
  %b = "tosa.const"() <{values = dense<[0.5, -0.5, 0.25, 1.0]> : tensor<4xf32>}> : () -> tensor<4xf32>
  %b2 = "tosa.const"() <{values = dense<0.5> : tensor<8xf32>}> : () -> tensor<8xf32>
  %e = tosa.clamp %x {min_val = -4.0 : f32, max_val = 6.0 : f32} : (tensor<1x6x6x4xf32>) -> tensor<1x6x6x4xf32>
  %d = tosa.depthwise_conv2d %e, %w, %b, %zp, %zp {acc_type = f32, pad = array<i64: 0, 1, 0, 1>, stride = array<i64: 2, 2>, dilation = array<i64: 1, 1>} : (tensor<1x6x6x4xf32>, tensor<3x3x4x1xf32>, tensor<4xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x3x3x4xf32>
  %f = tosa.clamp %x {min_val = -3.0 : f32, max_val = 6.0 : f32} : (tensor<1x6x6x4xf32>) -> tensor<1x6x6x4xf32>
  %g = tosa.depthwise_conv2d %f, %w2, %b2, %zp, %zp {acc_type = f32, pad = array<i64: 0, 0, 1, 1>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>} : (tensor<1x6x6x4xf32>, tensor<3x3x4x2xf32>, tensor<8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x6x8xf32>
  return %d, %g : tensor<1x3x3x4xf32>, tensor<1x4x6x8xf32>
}

// -----

// Left alone: an output of its input's shape is in place already.
// CHECK-LABEL: func.func @same_shape
// CHECK: tosa.depthwise_conv2d {{.*}} pad = array<i64: 1, 1, 1, 1>, {{.*}} -> tensor<1x6x6x4xf32>
// CHECK-NOT: tensor.extract_slice
func.func @same_shape(%x: tensor<1x6x6x4xf32>) -> tensor<1x6x6x1xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %w = "tosa.const"() <{values = dense<0.25> : tensor<3x3x4x1xf32>}> : () -> tensor<3x3x4x1xf32>
  %b = "tosa.const"() <{values = dense<[0.5, -0.5, 0.25, 1.0]> : tensor<4xf32>}> : () -> tensor<4xf32>
  %wp = "tosa.const"() <{values = dense<[[[[0.5, -0.25, 0.75, 0.125]]]]> : tensor<1x1x1x4xf32>}> : () -> tensor<1x1x1x4xf32>
  %bp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %e = tosa.clamp %x {min_val = -4.0 : f32, max_val = 6.0 : f32} : (tensor<1x6x6x4xf32>) -> tensor<1x6x6x4xf32>
  %d = tosa.depthwise_conv2d %e, %w, %b, %zp, %zp {acc_type = f32, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>} : (tensor<1x6x6x4xf32>, tensor<3x3x4x1xf32>, tensor<4xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x6x6x4xf32>
  %p = tosa.conv2d %d, %wp, %bp, %zp, %zp {acc_type = f32, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>} : (tensor<1x6x6x4xf32>, tensor<1x1x1x4xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x6x6x1xf32>
  return %p : tensor<1x6x6x1xf32>
}
