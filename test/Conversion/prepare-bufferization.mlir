// RUN: mem-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(prepare-bufferization))" | FileCheck %s
// RUN: mem-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(prepare-bufferization{in-place-elementwise=false}))" | FileCheck %s --check-prefix=OFF
// RUN: mem-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(prepare-bufferization{copy-duplicate-results=true}))" | FileCheck %s --check-prefix=DUP

#id = affine_map<(d0) -> (d0)>

// Inputs become read-only; an elementwise op is marked to write over an input
// that dies there (%a, used only here: input 0), never over a function
// argument. The init stays the tensor.empty; reuse-dying-inputs carries the
// mark out on buffers.
// CHECK-LABEL: func.func @elementwise
// CHECK-SAME: %[[X:.*]]: tensor<4xf32> {bufferization.writable = false}
// CHECK: %[[A:.*]] = linalg.generic
// CHECK-NOT: memopt.overwrite_input
// CHECK-SAME: ins(%[[X]], %[[X]] : {{.*}}) outs(%{{.*}} : tensor<4xf32>)
// CHECK: %[[E1:.*]] = tensor.empty
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[A]], %[[X]] : {{.*}}) outs(%[[E1]] : tensor<4xf32>) attrs = {memopt.overwrite_input = 0 : i64}
// OFF-LABEL: func.func @elementwise
// OFF-NOT: memopt.overwrite_input
// OFF: linalg.generic
// OFF: %[[E1:.*]] = tensor.empty
// OFF: linalg.generic {{.*}} outs(%[[E1]] : tensor<4xf32>)
func.func @elementwise(%x: tensor<4xf32>) -> tensor<4xf32> {
  %e0 = tensor.empty() : tensor<4xf32>
  %a = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]} ins(%x, %x : tensor<4xf32>, tensor<4xf32>) outs(%e0 : tensor<4xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %s = arith.addf %p, %q : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  %e1 = tensor.empty() : tensor<4xf32>
  %b = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]} ins(%a, %x : tensor<4xf32>, tensor<4xf32>) outs(%e1 : tensor<4xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %s = arith.mulf %p, %q : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  return %b : tensor<4xf32>
}

// -----

#id = affine_map<(d0) -> (d0)>

// An input with another user is not overwritten.
// CHECK-LABEL: func.func @other_user
// CHECK-NOT: memopt.overwrite_input
// CHECK: %[[A:.*]] = linalg.generic
// CHECK: %[[E:.*]] = tensor.empty
// CHECK: linalg.generic {{.*}} ins(%[[A]] : tensor<4xf32>) outs(%[[E]] : tensor<4xf32>)
// CHECK-NOT: memopt.overwrite_input
// CHECK: return
func.func @other_user(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %e0 = tensor.empty() : tensor<4xf32>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%x : tensor<4xf32>) outs(%e0 : tensor<4xf32>) {
  ^bb0(%p: f32, %o: f32):
    %s = arith.negf %p : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  %e1 = tensor.empty() : tensor<4xf32>
  %b = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%a : tensor<4xf32>) outs(%e1 : tensor<4xf32>) {
  ^bb0(%p: f32, %o: f32):
    %s = arith.negf %p : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  return %a, %b : tensor<4xf32>, tensor<4xf32>
}

// -----

#id = affine_map<(d0) -> (d0)>

// Through a reshape read only once, the result overwrites the reshaped
// buffer (a reshape keeps every byte); through a slice it does not: the
// slice's buffer is larger and would outlive the op.
// CHECK-LABEL: func.func @views
// CHECK: %[[F:.*]] = linalg.fill
// CHECK: %[[R:.*]] = tensor.collapse_shape %[[F]]
// CHECK: linalg.generic {{.*}} ins(%[[R]] : tensor<4xf32>) outs(%{{.*}} : tensor<4xf32>) attrs = {memopt.overwrite_input = 0 : i64}
// CHECK: %[[S:.*]] = tensor.extract_slice
// CHECK: %[[E:.*]] = tensor.empty() : tensor<4xf32>
// CHECK: linalg.generic
// CHECK-NOT: memopt.overwrite_input
// CHECK-SAME: ins(%[[S]] : tensor<4xf32>) outs(%[[E]] : tensor<4xf32>)
func.func @views() -> (tensor<4xf32>, tensor<4xf32>) {
  %z = arith.constant 1.0 : f32
  %e = tensor.empty() : tensor<2x2xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<2x2xf32>) -> tensor<2x2xf32>
  %r = tensor.collapse_shape %f [[0, 1]] : tensor<2x2xf32> into tensor<4xf32>
  %e1 = tensor.empty() : tensor<4xf32>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%r : tensor<4xf32>) outs(%e1 : tensor<4xf32>) {
  ^bb0(%p: f32, %o: f32):
    %n = arith.negf %p : f32
    linalg.yield %n : f32
  } -> tensor<4xf32>
  %e2 = tensor.empty() : tensor<8xf32>
  %g = linalg.fill ins(%z : f32) outs(%e2 : tensor<8xf32>) -> tensor<8xf32>
  %s = tensor.extract_slice %g[0] [4] [1] : tensor<8xf32> to tensor<4xf32>
  %e3 = tensor.empty() : tensor<4xf32>
  %b = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%s : tensor<4xf32>) outs(%e3 : tensor<4xf32>) {
  ^bb0(%p: f32, %o: f32):
    %n = arith.negf %p : f32
    linalg.yield %n : f32
  } -> tensor<4xf32>
  return %a, %b : tensor<4xf32>, tensor<4xf32>
}

// -----

#id = affine_map<(d0) -> (d0)>

// Inside a loop, where reuse-dying-inputs does not look, the init is tied to
// the dying input on tensors (%a, computed in the iteration and used only
// by the second generic), and one-shot bufferization writes in place.
// CHECK-LABEL: func.func @in_loop
// CHECK: scf.for
// CHECK: %[[A:.*]] = linalg.generic
// CHECK-NOT: memopt.overwrite_input
// CHECK: linalg.generic {{.*}} ins(%[[A]] : tensor<4xf32>) outs(%[[A]] : tensor<4xf32>)
func.func @in_loop(%x: tensor<4xf32>) -> tensor<4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %r = scf.for %i = %c0 to %c3 step %c1 iter_args(%t = %x) -> (tensor<4xf32>) {
    %e0 = tensor.empty() : tensor<4xf32>
    %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%t : tensor<4xf32>) outs(%e0 : tensor<4xf32>) {
    ^bb0(%p: f32, %o: f32):
      %n = arith.negf %p : f32
      linalg.yield %n : f32
    } -> tensor<4xf32>
    %e1 = tensor.empty() : tensor<4xf32>
    %b = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%a : tensor<4xf32>) outs(%e1 : tensor<4xf32>) {
    ^bb0(%p: f32, %o: f32):
      %n = arith.negf %p : f32
      linalg.yield %n : f32
    } -> tensor<4xf32>
    scf.yield %b : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

// With copy-duplicate-results (io=caller), a value returned twice gets a copy
// for its second result, so that each result can become a caller's buffer.
// DUP-LABEL: func.func @twice
// DUP: %[[A:.*]] = tosa.abs
// DUP: %[[E:.*]] = tensor.empty() : tensor<4xf32>
// DUP: %[[C:.*]] = linalg.copy ins(%[[A]] : tensor<4xf32>) outs(%[[E]] : tensor<4xf32>)
// DUP: return %[[A]], %[[C]]
// CHECK-LABEL: func.func @twice
// CHECK: return %[[A:.*]], %[[A]]
func.func @twice(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %a = tosa.abs %x : (tensor<4xf32>) -> tensor<4xf32>
  return %a, %a : tensor<4xf32>, tensor<4xf32>
}

// -----

// Pads are left alone: the lowering's model counts the padded copy.
// CHECK-LABEL: func.func @pad
// CHECK-COUNT-2: tensor.pad
func.func @pad(%a: tensor<4xf32>) -> (tensor<6xf32>, tensor<6xf32>) {
  %z = arith.constant 0.0 : f32
  %q = tensor.pad %a low[1] high[1] {
  ^bb0(%i: index):
    tensor.yield %z : f32
  } : tensor<4xf32> to tensor<6xf32>
  %e = tensor.empty() : tensor<4xf32>
  %b = linalg.fill ins(%z : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %p = tensor.pad %b low[1] high[1] {
  ^bb0(%i: index):
    tensor.yield %z : f32
  } : tensor<4xf32> to tensor<6xf32>
  return %q, %p : tensor<6xf32>, tensor<6xf32>
}

// -----

// The lowering of a concat (slices inserted one after another into a new
// tensor, tiling it along one dimension, here in the order 2, 0, 1) becomes
// one tensor.concat of the sources in the order of their offsets.
// CHECK-LABEL: func.func @concat
// CHECK-NOT: tensor.insert_slice
// CHECK: %[[C:.*]] = tensor.concat dim(1) %arg1, %arg2, %arg0 : (tensor<2x1xf32>, tensor<2x2xf32>, tensor<2x3xf32>) -> tensor<2x6xf32>
// CHECK-NEXT: return %[[C]]
func.func @concat(%a: tensor<2x3xf32>, %b: tensor<2x1xf32>, %c: tensor<2x2xf32>) -> tensor<2x6xf32> {
  %e = tensor.empty() : tensor<2x6xf32>
  %0 = tensor.insert_slice %a into %e[0, 3] [2, 3] [1, 1] : tensor<2x3xf32> into tensor<2x6xf32>
  %1 = tensor.insert_slice %b into %0[0, 0] [2, 1] [1, 1] : tensor<2x1xf32> into tensor<2x6xf32>
  %2 = tensor.insert_slice %c into %1[0, 1] [2, 2] [1, 1] : tensor<2x2xf32> into tensor<2x6xf32>
  return %2 : tensor<2x6xf32>
}

// -----

// Chains that are not a concat stay: a gap (columns 1 and 2 are never
// written), slices along two dimensions, an op between the inserts (the
// inserted tensors would live longer), and an intermediate result with
// another user.
// CHECK-LABEL: func.func @not_concat
// CHECK-NOT: tensor.concat
// CHECK-COUNT-8: tensor.insert_slice
// CHECK-NOT: tensor.concat
func.func @not_concat(%a: tensor<2x1xf32>, %q: tensor<1x1xf32>) -> (tensor<2x4xf32>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>) {
  %e = tensor.empty() : tensor<2x4xf32>
  %0 = tensor.insert_slice %a into %e[0, 0] [2, 1] [1, 1] : tensor<2x1xf32> into tensor<2x4xf32>
  %1 = tensor.insert_slice %a into %0[0, 3] [2, 1] [1, 1] : tensor<2x1xf32> into tensor<2x4xf32>
  %f = tensor.empty() : tensor<2x2xf32>
  %2 = tensor.insert_slice %q into %f[0, 0] [1, 1] [1, 1] : tensor<1x1xf32> into tensor<2x2xf32>
  %3 = tensor.insert_slice %q into %2[1, 1] [1, 1] [1, 1] : tensor<1x1xf32> into tensor<2x2xf32>
  %g = tensor.empty() : tensor<2x2xf32>
  %4 = tensor.insert_slice %a into %g[0, 0] [2, 1] [1, 1] : tensor<2x1xf32> into tensor<2x2xf32>
  %n = tosa.abs %a : (tensor<2x1xf32>) -> tensor<2x1xf32>
  %5 = tensor.insert_slice %n into %4[0, 1] [2, 1] [1, 1] : tensor<2x1xf32> into tensor<2x2xf32>
  %h = tensor.empty() : tensor<2x2xf32>
  %6 = tensor.insert_slice %a into %h[0, 0] [2, 1] [1, 1] : tensor<2x1xf32> into tensor<2x2xf32>
  %7 = tensor.insert_slice %a into %6[0, 1] [2, 1] [1, 1] : tensor<2x1xf32> into tensor<2x2xf32>
  return %1, %3, %5, %7, %6 : tensor<2x4xf32>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>
}
