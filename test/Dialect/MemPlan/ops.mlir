// RUN: mem-opt %s | FileCheck %s
// RUN: mem-opt %s | mem-opt | FileCheck %s
// RUN: mem-opt %s --mlir-print-op-generic | mem-opt | FileCheck %s

// Three 1 KiB buffers in a 2 KiB arena: %a and %c share bytes [0, 1024) but
// are never live at the same step; %b sits beside both.
// CHECK-LABEL: func.func @plan
// CHECK: %[[ARENA:.*]] = memplan.arena align 16 : memref<2048xi8>
// CHECK: memplan.place %[[ARENA]][0] live [0, 1] : memref<2048xi8> to memref<256xf32>
// CHECK: memplan.place %[[ARENA]][1024] live [1, 2] : memref<2048xi8> to memref<16x16xf32>
// CHECK: memplan.place %[[ARENA]][0] live [2, 2] : memref<2048xi8> to memref<1024xi8>
func.func @plan() {
  %arena = memplan.arena align 16 : memref<2048xi8>
  %a = memplan.place %arena[0] live [0, 1] : memref<2048xi8> to memref<256xf32>
  %b = memplan.place %arena[1024] live [1, 2] : memref<2048xi8> to memref<16x16xf32>
  %c = memplan.place %arena[0] live [2, 2] : memref<2048xi8> to memref<1024xi8>
  return
}

// Zero-size buffers and an arena without users are fine; a buffer may end
// exactly at the end of the arena. i1 elements take a byte each, and a
// complex<f32> eight: 16 + 2 * 8 = 32 bytes.
// CHECK-LABEL: func.func @edges
// CHECK: memplan.arena align 1 : memref<0xi8>
// CHECK: memplan.arena align 8 : memref<32xi8>
// CHECK: memplan.place %{{.*}}[0] live [0, 0] : memref<32xi8> to memref<0xf32>
// CHECK: memplan.place %{{.*}}[0] live [0, 3] : memref<32xi8> to memref<16xi1>
// CHECK: memplan.place %{{.*}}[16] live [0, 3] : memref<32xi8> to memref<2xcomplex<f32>>
// CHECK: memplan.place %{{.*}}[0] live [4, 4] : memref<32xi8> to memref<4x2xf32>
func.func @edges() {
  %empty = memplan.arena align 1 : memref<0xi8>
  %arena = memplan.arena align 8 : memref<32xi8>
  %z = memplan.place %arena[0] live [0, 0] : memref<32xi8> to memref<0xf32>
  %m = memplan.place %arena[0] live [0, 3] : memref<32xi8> to memref<16xi1>
  %c = memplan.place %arena[16] live [0, 3] : memref<32xi8> to memref<2xcomplex<f32>>
  %e = memplan.place %arena[0] live [4, 4] : memref<32xi8> to memref<4x2xf32>
  return
}

// An output written over its dying input (memplan.overwrites names the
// input's offset): %out starts at the step %in dies at and outlives it, and
// the two share bytes [0, 64) at that step.
// CHECK-LABEL: func.func @overwrites
// CHECK: memplan.place %{{.*}}[64] live [1, 3] : memref<256xi8> to memref<64xi8>
// CHECK: memplan.place %{{.*}}[0] live [3, 5] {memplan.overwrites = 64 : i64} : memref<256xi8> to memref<128xi8>
func.func @overwrites() {
  %arena = memplan.arena align 16 : memref<256xi8>
  %in = memplan.place %arena[64] live [1, 3] : memref<256xi8> to memref<64xi8>
  %out = memplan.place %arena[0] live [3, 5] {memplan.overwrites = 64 : i64} : memref<256xi8> to memref<128xi8>
  return
}

// Buffers that share bytes are fine when every use of the first precedes
// every use of the second, even through views and nested regions.
// CHECK-LABEL: func.func @reuse
func.func @reuse(%in: memref<16xf32>, %out: memref<4x4xf32>) {
  %arena = memplan.arena align 16 : memref<64xi8>
  %a = memplan.place %arena[0] live [0, 2] : memref<64xi8> to memref<16xf32>
  %b = memplan.place %arena[0] live [3, 4] : memref<64xi8> to memref<4x4xf32>
  linalg.copy ins(%in : memref<16xf32>) outs(%a : memref<16xf32>)
  %av = memref.expand_shape %a [[0, 1]] output_shape [4, 4] : memref<16xf32> into memref<4x4xf32>
  linalg.copy ins(%av : memref<4x4xf32>) outs(%out : memref<4x4xf32>)
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} outs(%out : memref<4x4xf32>) {
  ^bb0(%o: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    memref.store %o, %b[%i, %j] : memref<4x4xf32>
    linalg.yield %o : f32
  }
  linalg.copy ins(%b : memref<4x4xf32>) outs(%out : memref<4x4xf32>)
  return
}

// Offsets need the alignment of the element type only (the planner puts
// inputs and outputs in the arena there): an i8 buffer at byte 3, an i16
// one at byte 6 and an f32 one at byte 8, in a 16-byte aligned arena.
// CHECK-LABEL: func.func @element_alignment
// CHECK: memplan.place %{{.*}}[3] live [0, 1] : memref<16xi8> to memref<3xi8>
// CHECK: memplan.place %{{.*}}[6] live [0, 1] : memref<16xi8> to memref<1xi16>
// CHECK: memplan.place %{{.*}}[8] live [0, 1] : memref<16xi8> to memref<2xf32>
func.func @element_alignment() {
  %arena = memplan.arena align 16 : memref<16xi8>
  %a = memplan.place %arena[3] live [0, 1] : memref<16xi8> to memref<3xi8>
  %b = memplan.place %arena[6] live [0, 1] : memref<16xi8> to memref<1xi16>
  %c = memplan.place %arena[8] live [0, 1] : memref<16xi8> to memref<2xf32>
  return
}

// Places in a loop's body (a loop over patches): the two buffers of the body
// share bytes, one used after the other in every iteration; %in, placed
// before the loop and read in it, lives until the loop's end and keeps its
// own bytes.
// CHECK-LABEL: func.func @loop_body
// CHECK: scf.for
// CHECK-NEXT: memplan.place %{{.*}}[64] live [2, 3]
// CHECK: memplan.place %{{.*}}[64] live [4, 5]
func.func @loop_body(%out: memref<16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %arena = memplan.arena align 16 : memref<128xi8>
  %in = memplan.place %arena[0] live [0, 6] : memref<128xi8> to memref<16xf32>
  scf.for %i = %c0 to %c2 step %c1 {
    %a = memplan.place %arena[64] live [2, 3] : memref<128xi8> to memref<16xf32>
    linalg.copy ins(%in : memref<16xf32>) outs(%a : memref<16xf32>)
    %b = memplan.place %arena[64] live [4, 5] : memref<128xi8> to memref<16xf32>
    linalg.copy ins(%in : memref<16xf32>) outs(%b : memref<16xf32>)
    linalg.copy ins(%b : memref<16xf32>) outs(%out : memref<16xf32>)
  }
  return
}
