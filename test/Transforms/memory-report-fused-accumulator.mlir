// The lowering's model of an int8 conv + tosa.rescale (docs/MemoryModel.md):
// the lowering (fuse-rescale-accumulators) computes the conv one pixel at a
// time inside the rescale's loop, so the pair is one step (one node of the
// graph) whose workspace is the i32 accumulator of one pixel (16 channels x 4
// = 64 bytes), and the conv's input is live at it. Every buffer takes its
// size rounded up to 16 bytes (the arena's alignment).
// By hand, @fused: x 4x4x8 i8 = 128, acc 64, out 4x4x16 i8 = 256;
//   step 0 (conv + rescale): x + acc + out = 448.
// @two_users: the accumulator has two readers, so it is not fused and is the
// whole 4x4x16 i32 tensor (1024):
//   step 0: x + acc = 1152; step 1: acc + r1 256 = 1280;
//   step 2: acc + r1 + r2 = 1536.
// @wide_depthwise: a depthwise conv with 2 channels and multiplier 3 is not
// fused (as in the lowering): acc 4x4x6 i32 = 384; x 4x4x2 i8 = 32;
//   step 0: 32 + 384 = 416; step 1: 384 + out 96 = 480.
// RUN: mem-opt %s --memory-report -o /dev/null 2>&1 | FileCheck %s

// CHECK:      memory report for @fused: 1 step, peak 448 bytes at step 0 (out)
// CHECK:        0  tosa.rescale  out   448  <- peak
// CHECK-NEXT: peak: 448 bytes; live: %arg0 (128) out (256) out workspace (64)
func.func @fused(%x: tensor<1x4x4x8xi8>) -> tensor<1x4x4x16xi8> {
  %w = "tosa.const"() <{values = dense<3> : tensor<16x1x1x8xi8>}> : () -> tensor<16x1x1x8xi8>
  %b = "tosa.const"() <{values = dense<1> : tensor<16xi32>}> : () -> tensor<16xi32>
  %zp8 = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %zp32 = "tosa.const"() <{values = dense<0> : tensor<1xi32>}> : () -> tensor<1xi32>
  %m = "tosa.const"() <{values = dense<1073741824> : tensor<1xi32>}> : () -> tensor<1xi32>
  %s = "tosa.const"() <{values = dense<32> : tensor<1xi8>}> : () -> tensor<1xi8>
  %acc = tosa.conv2d %x, %w, %b, %zp8, %zp8 {acc_type = i32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x4x4x8xi8>, tensor<16x1x1x8xi8>, tensor<16xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x4x4x16xi32> loc("acc")
  %out = tosa.rescale %acc, %m, %s, %zp32, %zp8 {input_unsigned = false, output_unsigned = false, per_channel = false, rounding_mode = SINGLE_ROUND, scale32 = true} : (tensor<1x4x4x16xi32>, tensor<1xi32>, tensor<1xi8>, tensor<1xi32>, tensor<1xi8>) -> tensor<1x4x4x16xi8> loc("out")
  return %out : tensor<1x4x4x16xi8>
}

// CHECK:      memory report for @two_users: 3 steps, peak 1536 bytes at step 2 (r2)
// CHECK:        0  tosa.conv2d   acc   1152
// CHECK-NEXT:   1  tosa.rescale  r1    1280
// CHECK-NEXT:   2  tosa.rescale  r2    1536  <- peak
func.func @two_users(%x: tensor<1x4x4x8xi8>) -> (tensor<1x4x4x16xi8>, tensor<1x4x4x16xi8>) {
  %w = "tosa.const"() <{values = dense<3> : tensor<16x1x1x8xi8>}> : () -> tensor<16x1x1x8xi8>
  %b = "tosa.const"() <{values = dense<1> : tensor<16xi32>}> : () -> tensor<16xi32>
  %zp8 = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %zp32 = "tosa.const"() <{values = dense<0> : tensor<1xi32>}> : () -> tensor<1xi32>
  %m = "tosa.const"() <{values = dense<1073741824> : tensor<1xi32>}> : () -> tensor<1xi32>
  %s = "tosa.const"() <{values = dense<32> : tensor<1xi8>}> : () -> tensor<1xi8>
  %acc = tosa.conv2d %x, %w, %b, %zp8, %zp8 {acc_type = i32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x4x4x8xi8>, tensor<16x1x1x8xi8>, tensor<16xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x4x4x16xi32> loc("acc")
  %r1 = tosa.rescale %acc, %m, %s, %zp32, %zp8 {input_unsigned = false, output_unsigned = false, per_channel = false, rounding_mode = SINGLE_ROUND, scale32 = true} : (tensor<1x4x4x16xi32>, tensor<1xi32>, tensor<1xi8>, tensor<1xi32>, tensor<1xi8>) -> tensor<1x4x4x16xi8> loc("r1")
  // A different scale, so that the two rescales are not one op after CSE.
  %m2 = "tosa.const"() <{values = dense<1073741823> : tensor<1xi32>}> : () -> tensor<1xi32>
  %r2 = tosa.rescale %acc, %m2, %s, %zp32, %zp8 {input_unsigned = false, output_unsigned = false, per_channel = false, rounding_mode = SINGLE_ROUND, scale32 = true} : (tensor<1x4x4x16xi32>, tensor<1xi32>, tensor<1xi8>, tensor<1xi32>, tensor<1xi8>) -> tensor<1x4x4x16xi8> loc("r2")
  return %r1, %r2 : tensor<1x4x4x16xi8>, tensor<1x4x4x16xi8>
}

// CHECK:      memory report for @wide_depthwise: 2 steps, peak 480 bytes at step 1 (dwout)
// CHECK:        0  tosa.depthwise_conv2d  dwacc   416
// CHECK-NEXT:   1  tosa.rescale           dwout   480  <- peak
func.func @wide_depthwise(%x: tensor<1x4x4x2xi8>) -> tensor<1x4x4x6xi8> {
  %w = "tosa.const"() <{values = dense<3> : tensor<1x1x2x3xi8>}> : () -> tensor<1x1x2x3xi8>
  %b = "tosa.const"() <{values = dense<1> : tensor<6xi32>}> : () -> tensor<6xi32>
  %zp8 = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %zp32 = "tosa.const"() <{values = dense<0> : tensor<1xi32>}> : () -> tensor<1xi32>
  %m = "tosa.const"() <{values = dense<1073741824> : tensor<1xi32>}> : () -> tensor<1xi32>
  %s = "tosa.const"() <{values = dense<32> : tensor<1xi8>}> : () -> tensor<1xi8>
  %acc = tosa.depthwise_conv2d %x, %w, %b, %zp8, %zp8 {acc_type = i32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x4x4x2xi8>, tensor<1x1x2x3xi8>, tensor<6xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x4x4x6xi32> loc("dwacc")
  %out = tosa.rescale %acc, %m, %s, %zp32, %zp8 {input_unsigned = false, output_unsigned = false, per_channel = false, rounding_mode = SINGLE_ROUND, scale32 = true} : (tensor<1x4x4x6xi32>, tensor<1xi32>, tensor<1xi8>, tensor<1xi32>, tensor<1xi8>) -> tensor<1x4x4x6xi8> loc("dwout")
  return %out : tensor<1x4x4x6xi8>
}

// @one_pixel: an accumulator of one pixel (a fully connected layer) is
// fused a block of output channels at a time, its accumulator a register
// (isRegisterAccumulator: no workspace): x 1x1x1x8 i8 = 8 (an input in the
// arena takes its element's alignment, 1) and out 16 are all that is live,
// one step of 8 + 16 = 24. (Unfused, the 1x1x1x16 i32 accumulator, 64
// bytes, would be live with x, then with out: 72, then 80.)
// CHECK:      memory report for @one_pixel: 1 step, peak 24 bytes at step 0 (px_out)
// CHECK:        0  tosa.rescale  px_out   24  <- peak
// CHECK-NEXT: peak: 24 bytes; live: %arg0 (8) px_out (16)
func.func @one_pixel(%x: tensor<1x1x1x8xi8>) -> tensor<1x1x1x16xi8> {
  %w = "tosa.const"() <{values = dense<3> : tensor<16x1x1x8xi8>}> : () -> tensor<16x1x1x8xi8>
  %b = "tosa.const"() <{values = dense<1> : tensor<16xi32>}> : () -> tensor<16xi32>
  %zp8 = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %zp32 = "tosa.const"() <{values = dense<0> : tensor<1xi32>}> : () -> tensor<1xi32>
  %m = "tosa.const"() <{values = dense<1073741824> : tensor<1xi32>}> : () -> tensor<1xi32>
  %s = "tosa.const"() <{values = dense<32> : tensor<1xi8>}> : () -> tensor<1xi8>
  %acc = tosa.conv2d %x, %w, %b, %zp8, %zp8 {acc_type = i32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x1x1x8xi8>, tensor<16x1x1x8xi8>, tensor<16xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x1x1x16xi32> loc("px_acc")
  %out = tosa.rescale %acc, %m, %s, %zp32, %zp8 {input_unsigned = false, output_unsigned = false, per_channel = false, rounding_mode = SINGLE_ROUND, scale32 = true} : (tensor<1x1x1x16xi32>, tensor<1xi32>, tensor<1xi8>, tensor<1xi32>, tensor<1xi8>) -> tensor<1x1x1x16xi8> loc("px_out")
  return %out : tensor<1x1x1x16xi8>
}

// @padded: a 3x3 conv with pad 1 reads x through a 3x3x8 i8 window per pixel
// (72 bytes, 80 aligned), not a padded copy of x; the window and the
// accumulator are the workspace of the fused step:
// step 0: x 128 + acc 64 + out 256 + window 80 = 528.
// CHECK:      memory report for @padded: 1 step, peak 528 bytes at step 0 (pad_out)
// CHECK:        0  tosa.rescale  pad_out   528  <- peak
// CHECK-NEXT: peak: 528 bytes; live: %arg0 (128) pad_out (256) pad_out workspace (144)
func.func @padded(%x: tensor<1x4x4x8xi8>) -> tensor<1x4x4x16xi8> {
  %w = "tosa.const"() <{values = dense<3> : tensor<16x3x3x8xi8>}> : () -> tensor<16x3x3x8xi8>
  %b = "tosa.const"() <{values = dense<1> : tensor<16xi32>}> : () -> tensor<16xi32>
  %zp8 = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %zp32 = "tosa.const"() <{values = dense<0> : tensor<1xi32>}> : () -> tensor<1xi32>
  %m = "tosa.const"() <{values = dense<1073741824> : tensor<1xi32>}> : () -> tensor<1xi32>
  %s = "tosa.const"() <{values = dense<32> : tensor<1xi8>}> : () -> tensor<1xi8>
  %acc = tosa.conv2d %x, %w, %b, %zp8, %zp8 {acc_type = i32, dilation = array<i64: 1, 1>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>} : (tensor<1x4x4x8xi8>, tensor<16x3x3x8xi8>, tensor<16xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x4x4x16xi32> loc("pad_acc")
  %out = tosa.rescale %acc, %m, %s, %zp32, %zp8 {input_unsigned = false, output_unsigned = false, per_channel = false, rounding_mode = SINGLE_ROUND, scale32 = true} : (tensor<1x4x4x16xi32>, tensor<1xi32>, tensor<1xi8>, tensor<1xi32>, tensor<1xi8>) -> tensor<1x4x4x16xi8> loc("pad_out")
  return %out : tensor<1x4x4x16xi8>
}
