// RUN: not mem-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(prepare-bufferization))" 2>&1 | FileCheck %s
//
// (The marked ops carry the mark in a fused location, which has no line for
// --verify-diagnostics; the errors name the op by its NameLoc.)

// The memory model (getInPlaceConcat, marked by mark-fused-elementwise)
// computes an op into its slice of a concat; prepare-bufferization redirects
// the op's init to that slice. Where it cannot, the lowering would copy the
// operand and allocate bytes the model does not count: an error at the op.

#id = affine_map<(d0) -> (d0)>
// The marked op writes into a function argument, not a tensor.empty: there
// is no init to redirect into the slice.
// CHECK: op: error: 'linalg.generic' op is computed into its slice of a concat by the memory model (getInPlaceConcat), but its lowering has no init to redirect into the slice
func.func @no_init(%a: tensor<4xf32>, %b: tensor<4xf32>, %init: tensor<4xf32>) -> tensor<8xf32> {
  %0 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%a : tensor<4xf32>) outs(%init : tensor<4xf32>) {
  ^bb0(%x: f32, %o: f32):
    %n = arith.negf %x : f32
    linalg.yield %n : f32
  } -> tensor<4xf32> loc(fused<"memopt.into_concat_slice">["op"])
  %e = tensor.empty() : tensor<8xf32>
  %1 = tensor.insert_slice %0 into %e[0] [4] [1] : tensor<4xf32> into tensor<8xf32>
  %2 = tensor.insert_slice %b into %1[4] [4] [1] : tensor<4xf32> into tensor<8xf32>
  return %2 : tensor<8xf32>
}

// -----

#id = affine_map<(d0) -> (d0)>
// The marked op is inserted into a tensor that is not a concat's insert
// chain from a tensor.empty.
// CHECK: op: error: 'linalg.generic' op is computed into its slice of a concat by the memory model (getInPlaceConcat), but its concat was lowered otherwise
func.func @not_a_concat(%a: tensor<4xf32>, %big: tensor<8xf32>) -> tensor<8xf32> {
  %e = tensor.empty() : tensor<4xf32>
  %0 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%a : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%x: f32, %o: f32):
    %n = arith.negf %x : f32
    linalg.yield %n : f32
  } -> tensor<4xf32> loc(fused<"memopt.into_concat_slice">["op"])
  %1 = tensor.insert_slice %0 into %big[2] [4] [1] : tensor<4xf32> into tensor<8xf32>
  return %1 : tensor<8xf32>
}
