// RUN: mem-opt %s --split-input-file --test-print-memref-liveness -o /dev/null | FileCheck %s

// Expected values are derived by hand: steps number the top-level ops of the
// function from 0; a buffer lives from the step of its allocation to the last
// step at which it or any alias is used; memref.dealloc is not a use; uses in
// nested regions count at their top-level op.

// Aliases through every view-like op. The constant is step 0. %a
// (256xf32 = 1024 B) is allocated at step 1 and read through the
// collapse_shape of an expand_shape by the copy at step 5, so it lives over
// [1, 5] (the dealloc at step 6 does not extend it). %b (64xi8, step 7) is
// viewed as f32 at step 9 and read through a cast of a reinterpret_cast of a
// subview by the copy at step 13: [7, 13].
// CHECK-LABEL: memref liveness of @aliases
// CHECK-NEXT: buffer 0 memref.alloc memref<256xf32> 1024 bytes live [1, 5], 1 dealloc
// CHECK-NEXT: buffer 1 memref.alloca memref<64xi8> 64 bytes live [7, 13]
// CHECK-NEXT: step 0 arith.constant 0 bytes
// CHECK-NEXT: step 1 memref.alloc 1024 bytes
// CHECK-NEXT: step 2 linalg.fill 1024 bytes
// CHECK-NEXT: step 3 memref.expand_shape 1024 bytes
// CHECK-NEXT: step 4 memref.collapse_shape 1024 bytes
// CHECK-NEXT: step 5 linalg.copy 1024 bytes
// CHECK-NEXT: step 6 memref.dealloc 0 bytes
// CHECK-NEXT: step 7 memref.alloca 64 bytes
// CHECK-NEXT: step 8 arith.constant 64 bytes
// CHECK-NEXT: step 9 memref.view 64 bytes
// CHECK-NEXT: step 10 memref.subview 64 bytes
// CHECK-NEXT: step 11 memref.reinterpret_cast 64 bytes
// CHECK-NEXT: step 12 memref.cast 64 bytes
// CHECK-NEXT: step 13 linalg.copy 64 bytes
// CHECK-NEXT: step 14 func.return 0 bytes
// CHECK-NEXT: peak 1024 bytes at step 1
func.func @aliases(%out: memref<256xf32>, %out2: memref<8xi8>) {
  %cst = arith.constant 0.0 : f32
  %a = memref.alloc() : memref<256xf32>
  linalg.fill ins(%cst : f32) outs(%a : memref<256xf32>)
  %e = memref.expand_shape %a [[0, 1]] output_shape [16, 16] : memref<256xf32> into memref<16x16xf32>
  %c = memref.collapse_shape %e [[0, 1]] : memref<16x16xf32> into memref<256xf32>
  linalg.copy ins(%c : memref<256xf32>) outs(%out : memref<256xf32>)
  memref.dealloc %a : memref<256xf32>
  %b = memref.alloca() : memref<64xi8>
  %c0 = arith.constant 0 : index
  %v = memref.view %b[%c0][] : memref<64xi8> to memref<16xf32>
  %s = memref.subview %b[8] [8] [1] : memref<64xi8> to memref<8xi8, strided<[1], offset: 8>>
  %r = memref.reinterpret_cast %s to offset: [8], sizes: [8], strides: [1] : memref<8xi8, strided<[1], offset: 8>> to memref<8xi8, strided<[1], offset: 8>>
  %k = memref.cast %r : memref<8xi8, strided<[1], offset: 8>> to memref<8xi8, strided<[?], offset: ?>>
  linalg.copy ins(%k : memref<8xi8, strided<[?], offset: ?>>) outs(%out2 : memref<8xi8>)
  return
}

// -----

// Uses inside nested regions count at the top-level op: %a is captured by
// the scf.for body (step 3), %b is read inside a linalg.generic body through
// memref.load (step 4). The constants are steps 0 and 1.
// 16xf32 = 64 B, 4xi32 = 16 B.
// CHECK-LABEL: memref liveness of @nested
// CHECK-NEXT: buffer 0 memref.alloc memref<16xf32> 64 bytes live [2, 4]
// CHECK-NEXT: buffer 1 memref.alloc memref<4xi32> 16 bytes live [5, 6]
// CHECK-NEXT: step 0 arith.constant 0 bytes
// CHECK-NEXT: step 1 arith.constant 0 bytes
// CHECK-NEXT: step 2 memref.alloc 64 bytes
// CHECK-NEXT: step 3 scf.for 64 bytes
// CHECK-NEXT: step 4 linalg.copy 64 bytes
// CHECK-NEXT: step 5 memref.alloc 16 bytes
// CHECK-NEXT: step 6 linalg.generic 16 bytes
// CHECK-NEXT: step 7 func.return 0 bytes
// CHECK-NEXT: peak 64 bytes at step 2
func.func @nested(%out: memref<16xf32>, %out2: memref<4xi32>) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %a = memref.alloc() : memref<16xf32>
  scf.for %i = %c0 to %c16 step %c16 {
    %x = memref.load %out[%i] : memref<16xf32>
    memref.store %x, %a[%i] : memref<16xf32>
  }
  linalg.copy ins(%a : memref<16xf32>) outs(%out : memref<16xf32>)
  %b = memref.alloc() : memref<4xi32>
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} outs(%out2 : memref<4xi32>) {
  ^bb0(%o: i32):
    %i = linalg.index 0 : index
    %y = memref.load %b[%i] : memref<4xi32>
    linalg.yield %y : i32
  }
  return
}

// -----

// An op that is not a view but computes a memref from buffers (here an
// arith.select) aliases all of them: both stay live until the copy at step 4.
// CHECK-LABEL: memref liveness of @select
// CHECK-NEXT: buffer 0 memref.alloc memref<4xf32> 16 bytes live [0, 4]
// CHECK-NEXT: buffer 1 memref.alloc memref<4xf32> 16 bytes live [1, 4]
// CHECK:      peak 32 bytes at step 1
func.func @select(%c: i1, %out: memref<4xf32>) {
  %a = memref.alloc() : memref<4xf32>
  %b = memref.alloc() : memref<4xf32>
  %s = arith.select %c, %a, %b : memref<4xf32>
  %t = arith.constant 0 : index
  linalg.copy ins(%s : memref<4xf32>) outs(%out : memref<4xf32>)
  return
}

// -----

// Element sizes: i1 takes one byte, i24 four (its ABI alignment), index
// eight (the default data layout), complex<f32> eight. An unused buffer lives
// only at its allocation.
// CHECK-LABEL: memref liveness of @sizes
// CHECK-NEXT: buffer 0 memref.alloc memref<10xi1> 10 bytes live [0, 0]
// CHECK-NEXT: buffer 1 memref.alloc memref<3xi24> 12 bytes live [1, 1]
// CHECK-NEXT: buffer 2 memref.alloc memref<2xindex> 16 bytes live [2, 2]
// CHECK-NEXT: buffer 3 memref.alloc memref<2xcomplex<f32>> 16 bytes live [3, 3]
func.func @sizes() {
  %0 = memref.alloc() : memref<10xi1>
  %1 = memref.alloc() : memref<3xi24>
  %2 = memref.alloc() : memref<2xindex>
  %3 = memref.alloc() : memref<2xcomplex<f32>>
  return
}

// -----

// Inputs in the arena (memplan.input, from memplan-io-to-arena) are written
// by the caller before the call, so every one is live from step 0, even one
// no op reads. (Found by the pass fuzzer, test/fuzz/pass_fuzz.py: an unused
// input was live at its own step only and the next input from its own
// step on, so memplan-plan-arena put both at offset 0 and the caller's writes
// clobbered each other.) By hand, steps 0-6 are the seven top-level ops:
// %in0 (1x7x5x8xf32 = 1120 B) is never read: [0, 0]; %in1 (16xi16 = 32 B)
// is read by the copy at step 3: [0, 3] (not [1, 3]); %t [2, 5]; the
// returned %out lives to the return: [4, 6]. Peak at step 0: 1120 + 32.
// CHECK-LABEL: memref liveness of @unused_input
// CHECK-NEXT: buffer 0 memref.alloc memref<1x7x5x8xf32> 1120 bytes live [0, 0]
// CHECK-NEXT: buffer 1 memref.alloc memref<16xi16> 32 bytes live [0, 3]
// CHECK-NEXT: buffer 2 memref.alloc memref<16xi16> 32 bytes live [2, 5]
// CHECK-NEXT: buffer 3 memref.alloc memref<16xi16> 32 bytes live [4, 6]
// CHECK:      peak 1152 bytes at step 0
func.func @unused_input() -> memref<16xi16> attributes {memplan.io_in_arena} {
  %in0 = memref.alloc() {memplan.input = 0 : i64} : memref<1x7x5x8xf32>
  %in1 = memref.alloc() {memplan.input = 1 : i64} : memref<16xi16>
  %t = memref.alloc() : memref<16xi16>
  linalg.copy ins(%in1 : memref<16xi16>) outs(%t : memref<16xi16>)
  %out = memref.alloc() : memref<16xi16>
  linalg.copy ins(%t : memref<16xi16>) outs(%out : memref<16xi16>)
  return %out : memref<16xi16>
}

// -----

// A loop whose body allocates buffers (a loop over patches) is a step for its
// start (6), the steps of its body (7-12, the yield included) and a step for
// its end (13). %in, allocated before the loop and read in its body, lives
// until the loop's end: [4, 13]. The body's %a and %b live over the body's
// steps of their uses: [7, 10] and [9, 11].
// CHECK-LABEL: memref liveness of @loop_body
// CHECK-NEXT: buffer 0 memref.alloc memref<16xf32> 64 bytes live [4, 13]
// CHECK-NEXT: buffer 1 memref.alloc memref<16xf32> 64 bytes live [7, 10]
// CHECK-NEXT: buffer 2 memref.alloc memref<16xf32> 64 bytes live [9, 11]
// CHECK: step 6 scf.for 64 bytes
// CHECK-NEXT: step 7 memref.alloc 128 bytes
// CHECK-NEXT: step 8 linalg.copy 128 bytes
// CHECK-NEXT: step 9 memref.alloc 192 bytes
// CHECK-NEXT: step 10 linalg.copy 192 bytes
// CHECK-NEXT: step 11 linalg.copy 128 bytes
// CHECK-NEXT: step 12 scf.yield 64 bytes
// CHECK-NEXT: step 13 scf.for 64 bytes
// CHECK-NEXT: step 14 func.return 0 bytes
// CHECK-NEXT: peak 192 bytes at step 9
func.func @loop_body(%out: memref<16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %cst = arith.constant 1.0 : f32
  %in = memref.alloc() : memref<16xf32>
  linalg.fill ins(%cst : f32) outs(%in : memref<16xf32>)
  scf.for %i = %c0 to %c2 step %c1 {
    %a = memref.alloc() : memref<16xf32>
    linalg.copy ins(%in : memref<16xf32>) outs(%a : memref<16xf32>)
    %b = memref.alloc() : memref<16xf32>
    linalg.copy ins(%a : memref<16xf32>) outs(%b : memref<16xf32>)
    linalg.copy ins(%b : memref<16xf32>) outs(%out : memref<16xf32>)
  }
  return
}
