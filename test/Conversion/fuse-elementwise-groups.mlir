// RUN: mem-opt %s --fuse-elementwise-groups | FileCheck %s

// Only the marked generics fuse, into their unmarked root: the marked
// widening %wa and the marked add fuse into the narrowing generic; the
// unmarked widening %wb stays a tensor of its own.
#map = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @marked_only
// CHECK: %[[WB:.*]] = linalg.generic {{.*}} ins(%{{.*}} : tensor<4x8xi8>) outs(%{{.*}} : tensor<4x8xi32>)
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %[[WB]] : tensor<4x8xi8>, tensor<4x8xi32>) outs(%{{.*}} : tensor<4x8xi8>)
// CHECK: arith.extsi
// CHECK: arith.addi
// CHECK: arith.trunci
// CHECK-NOT: linalg.generic
func.func @marked_only(%a: tensor<4x8xi8>, %b: tensor<4x8xi8>) -> tensor<4x8xi8> {
  %e = tensor.empty() : tensor<4x8xi32>
  %wa = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%a : tensor<4x8xi8>) outs(%e : tensor<4x8xi32>) {
  ^bb0(%in: i8, %out: i32):
    %v = arith.extsi %in : i8 to i32
    linalg.yield %v : i32
  } -> tensor<4x8xi32> loc(fused<"memopt.fused_into_consumer">["wa"])
  %wb = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%b : tensor<4x8xi8>) outs(%e : tensor<4x8xi32>) {
  ^bb0(%in: i8, %out: i32):
    %v = arith.extsi %in : i8 to i32
    linalg.yield %v : i32
  } -> tensor<4x8xi32>
  %sum = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%wa, %wb : tensor<4x8xi32>, tensor<4x8xi32>) outs(%e : tensor<4x8xi32>) {
  ^bb0(%x: i32, %y: i32, %out: i32):
    %v = arith.addi %x, %y : i32
    linalg.yield %v : i32
  } -> tensor<4x8xi32> loc(fused<"memopt.fused_into_consumer">["sum"])
  %e8 = tensor.empty() : tensor<4x8xi8>
  %out = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%sum : tensor<4x8xi32>) outs(%e8 : tensor<4x8xi8>) {
  ^bb0(%in: i32, %o: i8):
    %v = arith.trunci %in : i32 to i8
    linalg.yield %v : i8
  } -> tensor<4x8xi8>
  return %out : tensor<4x8xi8>
}
