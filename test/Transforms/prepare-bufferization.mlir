// RUN: mem-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(prepare-bufferization))" | FileCheck %s
// RUN: mem-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(prepare-bufferization{in-place-elementwise=false}))" | FileCheck %s --check-prefix=OFF
// RUN: mem-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(prepare-bufferization{decompose-pads=true}))" | FileCheck %s --check-prefix=PAD

#id = affine_map<(d0) -> (d0)>

// Inputs become read-only; an elementwise op writes over an input that dies
// there (%a, used only here), never over a function argument.
// CHECK-LABEL: func.func @elementwise
// CHECK-SAME: %[[X:.*]]: tensor<4xf32> {bufferization.writable = false}
// CHECK: %[[A:.*]] = linalg.generic {{.*}} ins(%[[X]], %[[X]] : {{.*}}) outs(%{{.*}} : tensor<4xf32>)
// CHECK: linalg.generic {{.*}} ins(%[[A]], %[[X]] : {{.*}}) outs(%[[A]] : tensor<4xf32>)
// OFF-LABEL: func.func @elementwise
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
// CHECK: %[[A:.*]] = linalg.generic
// CHECK: %[[E:.*]] = tensor.empty
// CHECK: linalg.generic {{.*}} ins(%[[A]] : tensor<4xf32>) outs(%[[E]] : tensor<4xf32>)
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

// A lowered concat whose second operand is produced first: the destination
// moves before the first producer and the inserts follow production order.
// CHECK-LABEL: func.func @concat_order
// CHECK: %[[D:.*]] = tensor.empty() : tensor<8xf32>
// CHECK: %[[B:.*]] = tensor.empty() : tensor<4xf32>
// CHECK: %[[FB:.*]] = linalg.fill {{.*}} outs(%[[B]]
// CHECK: %[[I0:.*]] = tensor.insert_slice %[[FB]] into %[[D]][4] [4] [1]
// CHECK: %[[FA:.*]] = linalg.fill
// CHECK: %[[I1:.*]] = tensor.insert_slice %[[FA]] into %[[I0]][0] [4] [1]
// CHECK: return %[[I1]]
func.func @concat_order() -> tensor<8xf32> {
  %c1 = arith.constant 1.0 : f32
  %c2 = arith.constant 2.0 : f32
  %eb = tensor.empty() : tensor<4xf32>
  %fb = linalg.fill ins(%c2 : f32) outs(%eb : tensor<4xf32>) -> tensor<4xf32>
  %ea = tensor.empty() : tensor<4xf32>
  %fa = linalg.fill ins(%c1 : f32) outs(%ea : tensor<4xf32>) -> tensor<4xf32>
  %d = tensor.empty() : tensor<8xf32>
  %i0 = tensor.insert_slice %fa into %d[0] [4] [1] : tensor<4xf32> into tensor<8xf32>
  %i1 = tensor.insert_slice %fb into %i0[4] [4] [1] : tensor<4xf32> into tensor<8xf32>
  return %i1 : tensor<8xf32>
}

// -----

// Overlapping slices are not a concat: left alone.
// CHECK-LABEL: func.func @overlap
// CHECK: tensor.insert_slice %{{.*}} into %{{.*}}[0] [4] [1]
// CHECK: tensor.insert_slice %{{.*}} into %{{.*}}[2] [4] [1]
func.func @overlap(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<8xf32> {
  %d = tensor.empty() : tensor<8xf32>
  %i0 = tensor.insert_slice %a into %d[0] [4] [1] : tensor<4xf32> into tensor<8xf32>
  %i1 = tensor.insert_slice %b into %i0[2] [4] [1] : tensor<4xf32> into tensor<8xf32>
  return %i1 : tensor<8xf32>
}

// -----

// With decompose-pads, a pad of a value used only there becomes an empty
// tensor, a fill and an insert_slice (a subset that empty-tensor elimination
// lets the producer write into); a pad of an argument stays.
// CHECK-LABEL: func.func @pad
// CHECK-COUNT-2: tensor.pad
// PAD-LABEL: func.func @pad
// PAD: tensor.pad %arg0
// PAD: linalg.fill
// PAD: tensor.insert_slice %{{.*}} into %{{.*}}[1] [4] [1] : tensor<4xf32> into tensor<6xf32>
// PAD-NOT: tensor.pad
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
