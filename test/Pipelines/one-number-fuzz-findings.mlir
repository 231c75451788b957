// Causes of one-number mismatches that the pass fuzzer found
// (test/fuzz/pass_fuzz.py): for each, the schedule's predicted peak
// (memopt.peak_bytes) equals the planned arena plus the caller's bytes, with
// the bytes computed by hand below (arena alignment 16; every buffer here is
// a multiple of 16 bytes).
// RUN: mem-opt %s --split-input-file --cortex-m-pipeline="stop-after=plan io=arena" | FileCheck %s --check-prefix=ARENA
// RUN: mem-opt %s --split-input-file --cortex-m-pipeline="stop-after=plan io=caller" | FileCheck %s --check-prefix=CALLER

// An input no op reads is live at the entry only (the caller writes it),
// and the first op's buffers may reuse its bytes (--seed=50 --nodes=1).
// io=arena: entry a 256 + u 64 = 320; abs: a 256 + y 256 = 512 (u is dead).
// The model used to add u to the first step: 576.
// io=caller: a, u and y are the caller's (576 B); the arena is empty.
// ARENA-LABEL: func.func @unused_input
// ARENA-SAME: memopt.peak_bytes = 512
// ARENA-SAME: memplan.arena_size = 512
// CALLER-LABEL: func.func @unused_input
// CALLER-SAME: memopt.peak_bytes = 576
// CALLER-SAME: memplan.arena_size = 0
func.func @unused_input(%a: tensor<1x4x4x4xf32>, %u: tensor<1x2x2x4xf32>) -> tensor<1x4x4x4xf32> {
  %y = tosa.abs %a : (tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  return %y : tensor<1x4x4x4xf32>
}

// -----

// A returned slice is copied where the schedule put it, not at the return
// (--seed=75 --nodes=7). a: 1x8x8x4 i8 = 256 B, b and d 256 B each, the
// slice s 1x4x8x4 i8 = 128 B. io=arena, order b, s, d:
//   b: a 256 + b 256             = 512
//   s: a 256 + b 256 + s 128     = 640 (b dies)
//   d: a 256 + s 128 + d 256     = 640
// (d first: a + d + b = 768.) Copied at the return, b would stay live to the
// end: a + b + s + d = 896.
// io=caller: a, s and d are the caller's (640 B); the arena holds b: 256.
// ARENA-LABEL: func.func @returned_slice
// ARENA-SAME: memopt.peak_bytes = 640
// ARENA-SAME: memplan.arena_size = 640
// CALLER-LABEL: func.func @returned_slice
// CALLER-SAME: memopt.peak_bytes = 896
// CALLER-SAME: memplan.arena_size = 256
func.func @returned_slice(%a: tensor<1x8x8x4xi8>) -> (tensor<1x4x8x4xi8>, tensor<1x8x8x4xi8>) {
  %start = tosa.const_shape {values = dense<[0, 2, 0, 0]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %size = tosa.const_shape {values = dense<[1, 4, 8, 4]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %b = tosa.clamp %a {max_val = 100 : i8, min_val = 0 : i8} : (tensor<1x8x8x4xi8>) -> tensor<1x8x8x4xi8>
  %s = tosa.slice %b, %start, %size : (tensor<1x8x8x4xi8>, !tosa.shape<4>, !tosa.shape<4>) -> tensor<1x4x8x4xi8>
  %d = tosa.clamp %a {max_val = 50 : i8, min_val = -50 : i8} : (tensor<1x8x8x4xi8>) -> tensor<1x8x8x4xi8>
  return %s, %d : tensor<1x4x8x4xi8>, tensor<1x8x8x4xi8>
}

// -----

// The same through a reshape (--seed=175): the slice s of b (1x2x2x4 f32 =
// 64 B) is returned as a 1x16 reshape; a, b, d 1x4x4x4 f32 = 256 B each.
// io=arena, order b, s, d: b 512; s 512 + 64 = 576; d: a + s + d = 576.
// ARENA-LABEL: func.func @returned_slice_reshaped
// ARENA-SAME: memopt.peak_bytes = 576
// ARENA-SAME: memplan.arena_size = 576
func.func @returned_slice_reshaped(%a: tensor<1x4x4x4xf32>) -> (tensor<1x16xf32>, tensor<1x4x4x4xf32>) {
  %start = tosa.const_shape {values = dense<[0, 1, 1, 0]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %size = tosa.const_shape {values = dense<[1, 2, 2, 4]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %shape = tosa.const_shape {values = dense<[1, 16]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %b = tosa.abs %a : (tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  %s = tosa.slice %b, %start, %size : (tensor<1x4x4x4xf32>, !tosa.shape<4>, !tosa.shape<4>) -> tensor<1x2x2x4xf32>
  %r = tosa.reshape %s, %shape : (tensor<1x2x2x4xf32>, !tosa.shape<2>) -> tensor<1x16xf32>
  %d = tosa.clamp %a {max_val = 1.0 : f32, min_val = 0.0 : f32} : (tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  return %r, %d : tensor<1x16xf32>, tensor<1x4x4x4xf32>
}

// -----

// io=caller: b is returned first as a reshape of another shape (copied into
// the caller's buffer) and then as itself: b is computed into the caller's
// second buffer and copied from there (--seed=175). Caller bytes: a, r, b
// 256 each = 768; the arena is empty. (The model kept b in the arena: 1024.)
// CALLER-LABEL: func.func @returned_reshaped_and_itself
// CALLER-SAME: memopt.peak_bytes = 768
// CALLER-SAME: memplan.arena_size = 0
func.func @returned_reshaped_and_itself(%a: tensor<1x4x4x4xf32>) -> (tensor<1x16x4xf32>, tensor<1x4x4x4xf32>) {
  %shape = tosa.const_shape {values = dense<[1, 16, 4]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %b = tosa.abs %a : (tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  %r = tosa.reshape %b, %shape : (tensor<1x4x4x4xf32>, !tosa.shape<3>) -> tensor<1x16x4xf32>
  return %r, %b : tensor<1x16x4xf32>, tensor<1x4x4x4xf32>
}

// -----

// A 1x1 int8 depthwise convolution stays a convolution (no TOSA
// decomposition into elementwise ops), so its accumulator is fused into its
// rescale as the model says (--seed=53 --nodes=1). x and the output 1x4x4x8
// i8 = 128 B each, one pixel of 8 i32 accumulators = 32 B.
// io=arena: x 128 + out 128 + 32 = 288 (unfused: x + the 1x4x4x8 i32
// accumulator 512 = 640).
// io=caller: x and the output are the caller's (256 B); arena 32.
// ARENA-LABEL: func.func @depthwise_1x1
// ARENA-SAME: memopt.peak_bytes = 288
// ARENA-SAME: memplan.arena_size = 288
// ARENA-NOT: memplan.place {{.*}} to memref<1x4x4x8x1xi32>
// CALLER-LABEL: func.func @depthwise_1x1
// CALLER-SAME: memopt.peak_bytes = 288
// CALLER-SAME: memplan.arena_size = 32
func.func @depthwise_1x1(%x: tensor<1x4x4x8xi8>) -> tensor<1x4x4x8xi8> {
  %w = "tosa.const"() <{values = dense<[[[[3], [-2], [5], [7], [-1], [2], [4], [-3]]]]> : tensor<1x1x8x1xi8>}> : () -> tensor<1x1x8x1xi8>
  %b = "tosa.const"() <{values = dense<[1, 2, 3, 4, 5, 6, 7, 8]> : tensor<8xi32>}> : () -> tensor<8xi32>
  %zp = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %zp32 = "tosa.const"() <{values = dense<0> : tensor<1xi32>}> : () -> tensor<1xi32>
  %m = "tosa.const"() <{values = dense<1073741824> : tensor<1xi32>}> : () -> tensor<1xi32>
  %s = "tosa.const"() <{values = dense<31> : tensor<1xi8>}> : () -> tensor<1xi8>
  %acc = tosa.depthwise_conv2d %x, %w, %b, %zp, %zp {acc_type = i32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x4x4x8xi8>, tensor<1x1x8x1xi8>, tensor<8xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x4x4x8xi32>
  %y = tosa.rescale %acc, %m, %s, %zp32, %zp {input_unsigned = false, output_unsigned = false, per_channel = false, rounding_mode = SINGLE_ROUND, scale32 = true} : (tensor<1x4x4x8xi32>, tensor<1xi32>, tensor<1xi8>, tensor<1xi32>, tensor<1xi8>) -> tensor<1x4x4x8xi8>
  return %y : tensor<1x4x4x8xi8>
}

// -----

// Two consecutive pads with one constant value are merged into one pad of
// the first source by the canonicalization of tensor.pad; the inner pad is
// never built (--seed=39 --nodes=2, --seed=12 --nodes=6). x 4x4x4 i8 = 64 B,
// the inner pad 6x6x4 = 144 B, the outer 8x8x4 = 256 B.
// io=arena: x 64 + the merged pad 256 = 320 (unmerged: x + p1 = 208, then
// p1 + p2 = 400).
// io=caller: x and p2 are the caller's (320 B); arena 0.
// ARENA-LABEL: func.func @merged_pads
// ARENA-SAME: memopt.peak_bytes = 320
// ARENA-SAME: memplan.arena_size = 320
// CALLER-LABEL: func.func @merged_pads
// CALLER-SAME: memopt.peak_bytes = 320
// CALLER-SAME: memplan.arena_size = 0
func.func @merged_pads(%x: tensor<4x4x4xi8>) -> tensor<8x8x4xi8> {
  %p = tosa.const_shape {values = dense<[1, 1, 1, 1, 0, 0]> : tensor<6xindex>} : () -> !tosa.shape<6>
  %v = "tosa.const"() <{values = dense<-3> : tensor<1xi8>}> : () -> tensor<1xi8>
  %p1 = tosa.pad %x, %p, %v : (tensor<4x4x4xi8>, !tosa.shape<6>, tensor<1xi8>) -> tensor<6x6x4xi8>
  %p2 = tosa.pad %p1, %p, %v : (tensor<6x6x4xi8>, !tosa.shape<6>, tensor<1xi8>) -> tensor<8x8x4xi8>
  return %p2 : tensor<8x8x4xi8>
}
