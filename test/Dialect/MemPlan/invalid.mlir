// RUN: mem-opt %s --split-input-file --verify-diagnostics

// Overlap: %b's bytes [512, 1536) meet %a's [0, 1024) at steps 1-2.
func.func @overlap() {
  %arena = memplan.arena align 16 : memref<2048xi8>
  // expected-note @below {{the other buffer is placed here}}
  %a = memplan.place %arena[0] live [0, 2] : memref<2048xi8> to memref<256xf32>
  // expected-error @below {{buffer at offset 512 (1024 bytes, live [1, 3]) overlaps buffer at offset 0 (1024 bytes, live [0, 2]): both use bytes [512, 1024) at steps [1, 2]}}
  %b = memplan.place %arena[512] live [1, 3] : memref<2048xi8> to memref<256xf32>
  return
}

// -----

// Live ranges are inclusive: sharing only step 2 is an overlap.
func.func @overlap_one_step() {
  %arena = memplan.arena align 4 : memref<64xi8>
  // expected-note @below {{the other buffer is placed here}}
  %a = memplan.place %arena[0] live [0, 2] : memref<64xi8> to memref<4xi32>
  // expected-error @below {{both use bytes [12, 16) at steps [2, 2]}}
  %b = memplan.place %arena[12] live [2, 5] : memref<64xi8> to memref<4xi32>
  return
}

// -----

// memplan.overwrites exempts only the buffer at the offset it names, and
// only an output that starts while that buffer is live and outlives it.
func.func @overwrites_wrong_offset() {
  %arena = memplan.arena align 16 : memref<256xi8>
  // expected-note @below {{the other buffer is placed here}}
  %in = memplan.place %arena[64] live [1, 3] : memref<256xi8> to memref<64xi8>
  // expected-error @below {{both use bytes [64, 128) at steps [3, 3]}}
  %out = memplan.place %arena[0] live [3, 5] {memplan.overwrites = 48 : i64} : memref<256xi8> to memref<128xi8>
  return
}

// -----

// The input outlives the output that names it: not an overwrite.
func.func @overwrites_outlived() {
  %arena = memplan.arena align 16 : memref<256xi8>
  // expected-note @below {{the other buffer is placed here}}
  %in = memplan.place %arena[64] live [1, 6] : memref<256xi8> to memref<64xi8>
  // expected-error @below {{both use bytes [64, 128) at steps [3, 5]}}
  %out = memplan.place %arena[0] live [3, 5] {memplan.overwrites = 64 : i64} : memref<256xi8> to memref<128xi8>
  return
}

// -----

// Overflow: 1024 bytes at offset 1536 end at 2560 > 2048.
func.func @overflow() {
  %arena = memplan.arena align 16 : memref<2048xi8>
  // expected-error @below {{buffer at offset 1536 (1024 bytes, live [0, 0]) ends at byte 2560, past the end of the 2048-byte arena}}
  %a = memplan.place %arena[1536] live [0, 0] : memref<2048xi8> to memref<256xf32>
  return
}

// -----

// An i24 element takes four bytes (its ABI alignment): 4 x 4 = 16 > 12.
func.func @overflow_odd_width() {
  %arena = memplan.arena align 4 : memref<12xi8>
  // expected-error @below {{buffer at offset 0 (16 bytes, live [0, 0]) ends at byte 16, past the end of the 12-byte arena}}
  %a = memplan.place %arena[0] live [0, 0] : memref<12xi8> to memref<4xi24>
  return
}

// -----

func.func @misaligned() {
  %arena = memplan.arena align 16 : memref<2048xi8>
  // An f32 buffer needs 4-byte aligned offsets (its element's alignment).
  // expected-error @below {{offset 1002 is not a multiple of 4, the alignment of 'f32' in the arena}}
  %a = memplan.place %arena[1002] live [0, 0] : memref<2048xi8> to memref<16xf32>
  return
}

// -----

func.func @alignment_not_power_of_two() {
  // expected-error @below {{alignment 12 is not a power of two}}
  %arena = memplan.arena align 12 : memref<2048xi8>
  return
}

// -----

func.func @alignment_zero() {
  // expected-error @below {{attribute 'alignment' failed to satisfy constraint: 64-bit signless integer attribute whose value is positive}}
  %arena = memplan.arena align 0 : memref<2048xi8>
  return
}

// -----

func.func @arena_not_bytes() {
  // expected-error @below {{result #0 must be 1D memref of 8-bit signless integer values}}
  %arena = memplan.arena align 16 : memref<512xf32>
  return
}

// -----

func.func @arena_dynamic() {
  // expected-error @below {{arena type 'memref<?xi8>' must have a static size}}
  %arena = memplan.arena align 16 : memref<?xi8>
  return
}

// -----

func.func @negative_offset() {
  %arena = memplan.arena align 16 : memref<2048xi8>
  // expected-error @below {{attribute 'offset' failed to satisfy constraint: 64-bit signless integer attribute whose value is non-negative}}
  %a = memplan.place %arena[-16] live [0, 0] : memref<2048xi8> to memref<16xf32>
  return
}

// -----

func.func @backwards_range() {
  %arena = memplan.arena align 16 : memref<2048xi8>
  // expected-error @below {{live range [5, 2] ends before it starts}}
  %a = memplan.place %arena[0] live [5, 2] : memref<2048xi8> to memref<16xf32>
  return
}

// -----

func.func @dynamic_buffer() {
  %arena = memplan.arena align 16 : memref<2048xi8>
  // expected-error @below {{result #0 must be statically shaped memref of any type values}}
  %a = memplan.place %arena[0] live [0, 0] : memref<2048xi8> to memref<?xf32>
  return
}

// -----

func.func @strided_buffer() {
  %arena = memplan.arena align 16 : memref<2048xi8>
  // expected-error @below {{result type 'memref<16xf32, strided<[2]>>' must have the identity layout}}
  %a = memplan.place %arena[0] live [0, 0] : memref<2048xi8> to memref<16xf32, strided<[2]>>
  return
}

// -----

func.func @no_byte_size() {
  %arena = memplan.arena align 16 : memref<2048xi8>
  // expected-error @below {{element type 'vector<4xf32>' has no fixed byte size}}
  %a = memplan.place %arena[0] live [0, 0] : memref<2048xi8> to memref<4xvector<4xf32>>
  return
}

// -----

func.func @arena_from_argument(%arena: memref<2048xi8>) {
  // expected-error @below {{arena must be the result of a memplan.arena}}
  %a = memplan.place %arena[0] live [0, 0] : memref<2048xi8> to memref<16xf32>
  return
}

// -----

func.func @other_user() {
  // expected-error @below {{is used by 'memref.dealloc'; only memplan.place may use an arena}}
  %arena = memplan.arena align 16 : memref<2048xi8>
  // expected-note @below {{used here}}
  memref.dealloc %arena : memref<2048xi8>
  return
}

// -----

// In a loop's body (a loop over patches), the live ranges claim %a and %b
// never meet, but the body reads %a at the op that writes %b.
func.func @stale_ranges_in_loop(%out: memref<16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %arena = memplan.arena align 16 : memref<64xi8>
  scf.for %i = %c0 to %c2 step %c1 {
    %a = memplan.place %arena[0] live [1, 2] : memref<64xi8> to memref<16xf32>
    linalg.copy ins(%out : memref<16xf32>) outs(%a : memref<16xf32>)
    // expected-error @below {{buffer at offset 0 (64 bytes, live [1, 2]) and buffer at offset 0 (64 bytes, live [3, 4]) share bytes [0, 64), but the first is still used when the second is}}
    %b = memplan.place %arena[0] live [3, 4] : memref<64xi8> to memref<16xf32>
    // expected-note @below {{last use of the buffer at offset 0}}
    // expected-note @below {{first use of the buffer at offset 0}}
    linalg.copy ins(%a : memref<16xf32>) outs(%b : memref<16xf32>)
  }
  return
}

// -----

// The live ranges claim %a and %b never meet, but the IR reads %a (through a
// view) at the op that writes %b.
func.func @stale_ranges(%out: memref<16xf32>) {
  %arena = memplan.arena align 16 : memref<64xi8>
  %a = memplan.place %arena[0] live [0, 1] : memref<64xi8> to memref<16xf32>
  linalg.copy ins(%out : memref<16xf32>) outs(%a : memref<16xf32>)
  %av = memref.expand_shape %a [[0, 1]] output_shape [4, 4] : memref<16xf32> into memref<4x4xf32>
  // expected-error @below {{buffer at offset 0 (64 bytes, live [0, 1]) and buffer at offset 0 (64 bytes, live [2, 3]) share bytes [0, 64), but the first is still used when the second is}}
  %b = memplan.place %arena[0] live [2, 3] : memref<64xi8> to memref<4x4xf32>
  // expected-note @below {{last use of the buffer at offset 0}}
  // expected-note @below {{first use of the buffer at offset 0}}
  linalg.copy ins(%av : memref<4x4xf32>) outs(%b : memref<4x4xf32>)
  return
}

// -----

func.func @misaligned_i16() {
  %arena = memplan.arena align 16 : memref<64xi8>
  // expected-error @below {{offset 3 is not a multiple of 2, the alignment of 'i16' in the arena}}
  %a = memplan.place %arena[3] live [0, 0] : memref<64xi8> to memref<4xi16>
  return
}
