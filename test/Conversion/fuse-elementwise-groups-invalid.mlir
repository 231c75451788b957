// RUN: not mem-opt %s --fuse-elementwise-groups 2>&1 | FileCheck %s

// A marked op (mark-fused-elementwise: the memory model counts no buffer for
// it) whose user is no generic cannot be fused: an error at the op, never a
// lowering that allocates what the model did not count.
#map = affine_map<(d0, d1) -> (d0, d1)>
func.func @not_fusable(%x: tensor<4x8xi8>) -> tensor<32xi32> {
  %e = tensor.empty() : tensor<4x8xi32>
  // The error is at the op's own location (its name here), inside the mark.
  // CHECK: {{.*}}:w: error: 'linalg.generic' op is computed inside its consumer by the memory model (isFusedIntoConsumer), but could not be fused into it
  %w = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<4x8xi8>) outs(%e : tensor<4x8xi32>) {
  ^bb0(%in: i8, %out: i32):
    %v = arith.extsi %in : i8 to i32
    linalg.yield %v : i32
  } -> tensor<4x8xi32> loc(fused<"memopt.fused_into_consumer">["w"])
  %c = tensor.collapse_shape %w [[0, 1]] : tensor<4x8xi32> into tensor<32xi32>
  return %c : tensor<32xi32>
}
