// RUN: mem-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(reuse-dying-inputs))" | FileCheck %s

#id = affine_map<(d0) -> (d0)>

// A chain of three marked ops, each input dying at its op: all three write
// over the first buffer (%a), whose allocation is the only one left; the
// marks are gone.
// CHECK-LABEL: func.func @chain
// CHECK: %[[A:.*]] = memref.alloc() : memref<4xf32>
// CHECK-NOT: memref.alloc
// CHECK-NOT: memopt.overwrite_input
// CHECK: linalg.generic {{.*}} ins(%[[A]] : memref<4xf32>) outs(%[[A]] : memref<4xf32>)
// CHECK: linalg.generic {{.*}} ins(%[[A]] : memref<4xf32>) outs(%[[A]] : memref<4xf32>)
// CHECK: linalg.generic {{.*}} ins(%[[A]] : memref<4xf32>) outs(%[[A]] : memref<4xf32>)
// CHECK: memref.copy %[[A]], %arg1
func.func @chain(%x: memref<4xf32>, %out: memref<4xf32>) {
  %a = memref.alloc() : memref<4xf32>
  linalg.copy ins(%x : memref<4xf32>) outs(%a : memref<4xf32>)
  %b = memref.alloc() : memref<4xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%a : memref<4xf32>) outs(%b : memref<4xf32>) attrs = {memopt.overwrite_input = 0 : i64} {
  ^bb0(%p: f32, %o: f32):
    %n = arith.negf %p : f32
    linalg.yield %n : f32
  }
  %c = memref.alloc() : memref<4xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%b : memref<4xf32>) outs(%c : memref<4xf32>) attrs = {memopt.overwrite_input = 0 : i64} {
  ^bb0(%p: f32, %o: f32):
    %n = arith.negf %p : f32
    linalg.yield %n : f32
  }
  %d = memref.alloc() : memref<4xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%c : memref<4xf32>) outs(%d : memref<4xf32>) attrs = {memopt.overwrite_input = 0 : i64} {
  ^bb0(%p: f32, %o: f32):
    %n = arith.negf %p : f32
    linalg.yield %n : f32
  }
  memref.copy %d, %out : memref<4xf32> to memref<4xf32>
  return
}

// -----

#id = affine_map<(d0) -> (d0)>

// The marked input is read again after the op (through a view of its
// buffer), so the op keeps its own buffer.
// CHECK-LABEL: func.func @used_after
// CHECK: %[[A:.*]] = memref.alloc() : memref<2x2xf32>
// CHECK: %[[V:.*]] = memref.collapse_shape %[[A]]
// CHECK: %[[B:.*]] = memref.alloc() : memref<4xf32>
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[V]] : memref<4xf32>) outs(%[[B]] : memref<4xf32>)
// CHECK-NOT: memopt.overwrite_input
// CHECK: memref.copy %[[A]]
func.func @used_after(%x: memref<2x2xf32>, %out: memref<4xf32>, %out2: memref<2x2xf32>) {
  %a = memref.alloc() : memref<2x2xf32>
  linalg.copy ins(%x : memref<2x2xf32>) outs(%a : memref<2x2xf32>)
  %v = memref.collapse_shape %a [[0, 1]] : memref<2x2xf32> into memref<4xf32>
  %b = memref.alloc() : memref<4xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%v : memref<4xf32>) outs(%b : memref<4xf32>) attrs = {memopt.overwrite_input = 0 : i64} {
  ^bb0(%p: f32, %o: f32):
    %n = arith.negf %p : f32
    linalg.yield %n : f32
  }
  memref.copy %a, %out2 : memref<2x2xf32> to memref<2x2xf32>
  memref.copy %b, %out : memref<4xf32> to memref<4xf32>
  return
}

// -----

#id = affine_map<(d0) -> (d0)>

// Through a reshape that dies here the op writes over the reshaped buffer.
// CHECK-LABEL: func.func @through_view
// CHECK: %[[A:.*]] = memref.alloc() : memref<2x2xf32>
// CHECK: %[[V:.*]] = memref.collapse_shape %[[A]]
// CHECK-NOT: memref.alloc
// CHECK: linalg.generic {{.*}} ins(%[[V]] : memref<4xf32>) outs(%[[V]] : memref<4xf32>)
// CHECK: memref.copy %[[V]], %arg1
func.func @through_view(%x: memref<2x2xf32>, %out: memref<4xf32>) {
  %a = memref.alloc() : memref<2x2xf32>
  linalg.copy ins(%x : memref<2x2xf32>) outs(%a : memref<2x2xf32>)
  %v = memref.collapse_shape %a [[0, 1]] : memref<2x2xf32> into memref<4xf32>
  %b = memref.alloc() : memref<4xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%v : memref<4xf32>) outs(%b : memref<4xf32>) attrs = {memopt.overwrite_input = 0 : i64} {
  ^bb0(%p: f32, %o: f32):
    %n = arith.negf %p : f32
    linalg.yield %n : f32
  }
  memref.copy %b, %out : memref<4xf32> to memref<4xf32>
  return
}

// -----

#id = affine_map<(d0) -> (d0)>
#rev = affine_map<(d0) -> (3 - d0)>

// Another operand reads the same buffer (reversed): writing over it would
// change what that operand reads, so the op keeps its buffer.
// CHECK-LABEL: func.func @other_operand
// CHECK: memref.cast
// CHECK: %[[B:.*]] = memref.alloc() : memref<4xf32>
// CHECK: linalg.generic {{.*}} outs(%[[B]] : memref<4xf32>)
func.func @other_operand(%x: memref<4xf32>, %out: memref<4xf32>) {
  %a = memref.alloc() : memref<4xf32>
  linalg.copy ins(%x : memref<4xf32>) outs(%a : memref<4xf32>)
  %v = memref.cast %a : memref<4xf32> to memref<?xf32>
  %b = memref.alloc() : memref<4xf32>
  linalg.generic {indexing_maps = [#id, #rev, #id], iterator_types = ["parallel"]} ins(%a, %v : memref<4xf32>, memref<?xf32>) outs(%b : memref<4xf32>) attrs = {memopt.overwrite_input = 0 : i64} {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %s = arith.addf %p, %q : f32
    linalg.yield %s : f32
  }
  memref.copy %b, %out : memref<4xf32> to memref<4xf32>
  return
}

// -----

#id = affine_map<(d0) -> (d0)>

// The output buffer is written before the op, or the types differ, or the
// mark names no input: the op keeps its buffer, and the mark is dropped.
// CHECK-LABEL: func.func @kept
// CHECK-COUNT-6: memref.alloc
// CHECK-NOT: memopt.overwrite_input
func.func @kept(%x: memref<4xf32>, %out: memref<4xf32>, %out2: memref<4xi32>, %out3: memref<4xf32>) {
  %z = arith.constant 0.0 : f32
  %a = memref.alloc() : memref<4xf32>
  linalg.copy ins(%x : memref<4xf32>) outs(%a : memref<4xf32>)
  %b = memref.alloc() : memref<4xf32>
  linalg.fill ins(%z : f32) outs(%b : memref<4xf32>)
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%a : memref<4xf32>) outs(%b : memref<4xf32>) attrs = {memopt.overwrite_input = 0 : i64} {
  ^bb0(%p: f32, %o: f32):
    %s = arith.addf %p, %o : f32
    linalg.yield %s : f32
  }
  memref.copy %b, %out : memref<4xf32> to memref<4xf32>
  %c = memref.alloc() : memref<4xf32>
  linalg.copy ins(%x : memref<4xf32>) outs(%c : memref<4xf32>)
  %d = memref.alloc() : memref<4xi32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%c : memref<4xf32>) outs(%d : memref<4xi32>) attrs = {memopt.overwrite_input = 0 : i64} {
  ^bb0(%p: f32, %o: i32):
    %i = arith.fptosi %p : f32 to i32
    linalg.yield %i : i32
  }
  memref.copy %d, %out2 : memref<4xi32> to memref<4xi32>
  %e = memref.alloc() : memref<4xf32>
  linalg.copy ins(%x : memref<4xf32>) outs(%e : memref<4xf32>)
  %f = memref.alloc() : memref<4xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%e : memref<4xf32>) outs(%f : memref<4xf32>) attrs = {memopt.overwrite_input = 1 : i64} {
  ^bb0(%p: f32, %o: f32):
    %n = arith.negf %p : f32
    linalg.yield %n : f32
  }
  memref.copy %f, %out3 : memref<4xf32> to memref<4xf32>
  return
}

// -----

#id = affine_map<(d0) -> (d0)>

// A loop that carries its iteration argument through (as the in-place
// depthwise convolution does) returns its init's buffer, which dies at the
// marked op: the op writes over it. A loop that yields another buffer
// (%other) may return either, so the op after it keeps its own.
// CHECK-LABEL: func.func @loops
// CHECK: %[[A:.*]] = memref.alloc() : memref<4xf32>
// CHECK: %[[L:.*]] = scf.for
// CHECK-NOT: memref.alloc() : memref<4xf32>
// CHECK: linalg.generic {{.*}} ins(%[[L]] : memref<4xf32>) outs(%[[L]] : memref<4xf32>)
// CHECK: %[[C:.*]] = memref.alloc() : memref<4xf32>
// CHECK: %[[O:.*]] = memref.alloc() : memref<4xf32>
// CHECK: %[[M:.*]] = scf.for
// CHECK: %[[D:.*]] = memref.alloc() : memref<4xf32>
// CHECK: linalg.generic {{.*}} ins(%[[M]] : memref<4xf32>) outs(%[[D]] : memref<4xf32>)
func.func @loops(%x: memref<4xf32>, %out: memref<4xf32>, %out2: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %a = memref.alloc() : memref<4xf32>
  linalg.copy ins(%x : memref<4xf32>) outs(%a : memref<4xf32>)
  %l = scf.for %i = %c0 to %c2 step %c1 iter_args(%t = %a) -> (memref<4xf32>) {
    %m = scf.for %j = %c0 to %c2 step %c1 iter_args(%u = %t) -> (memref<4xf32>) {
      linalg.copy ins(%x : memref<4xf32>) outs(%u : memref<4xf32>)
      scf.yield %u : memref<4xf32>
    }
    scf.yield %m : memref<4xf32>
  }
  %b = memref.alloc() : memref<4xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%l : memref<4xf32>) outs(%b : memref<4xf32>) attrs = {memopt.overwrite_input = 0 : i64} {
  ^bb0(%p: f32, %o: f32):
    %n = arith.negf %p : f32
    linalg.yield %n : f32
  }
  memref.copy %b, %out : memref<4xf32> to memref<4xf32>
  %c = memref.alloc() : memref<4xf32>
  linalg.copy ins(%x : memref<4xf32>) outs(%c : memref<4xf32>)
  %other = memref.alloc() : memref<4xf32>
  %k = scf.for %i = %c0 to %c2 step %c1 iter_args(%t = %c) -> (memref<4xf32>) {
    scf.yield %other : memref<4xf32>
  }
  %d = memref.alloc() : memref<4xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%k : memref<4xf32>) outs(%d : memref<4xf32>) attrs = {memopt.overwrite_input = 0 : i64} {
  ^bb0(%p: f32, %o: f32):
    %n = arith.negf %p : f32
    linalg.yield %n : f32
  }
  memref.copy %d, %out2 : memref<4xf32> to memref<4xf32>
  return
}

// -----

#id = affine_map<(d0) -> (d0)>

// A marked op inside a loop is left alone (its mark is dropped): the loop
// runs it more than once.
// CHECK-LABEL: func.func @nested
// CHECK: scf.for
// CHECK: memref.alloc
// CHECK: %[[B:.*]] = memref.alloc() : memref<4xf32>
// CHECK: linalg.generic
// CHECK-SAME: outs(%[[B]] : memref<4xf32>)
// CHECK-NOT: memopt.overwrite_input
func.func @nested(%x: memref<4xf32>, %out: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  scf.for %i = %c0 to %c2 step %c1 {
    %a = memref.alloc() : memref<4xf32>
    linalg.copy ins(%x : memref<4xf32>) outs(%a : memref<4xf32>)
    %b = memref.alloc() : memref<4xf32>
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%a : memref<4xf32>) outs(%b : memref<4xf32>) attrs = {memopt.overwrite_input = 0 : i64} {
    ^bb0(%p: f32, %o: f32):
      %n = arith.negf %p : f32
      linalg.yield %n : f32
    }
    memref.copy %b, %out : memref<4xf32> to memref<4xf32>
  }
  return
}
