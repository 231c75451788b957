// RUN: mem-opt %s --fuse-rescale-accumulators=require-marks=true | FileCheck %s
// RUN: mem-opt %s --fuse-rescale-accumulators | FileCheck %s --check-prefix=ALL

// With require-marks, only the chain whose accumulator carries the mark of
// mark-fused-elementwise (the memory model's isFusedAccumulator) is fused;
// the identical unmarked chain keeps its whole 1x4x4x16 i32 accumulator.
// The fused copy of the conv loses the mark (its fusion is done).
// Without the option both chains match and both are fused.
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func.func @marked
// CHECK-NOT: tensor<1x4x4x16xi32>
// CHECK: scf.for
// CHECK: linalg.conv_2d_nhwc_fhwc {{.*}} outs(%{{.*}} : tensor<1x1x1x16xi32>)
// CHECK-NOT: memopt.fused_accumulator
// CHECK-LABEL: func.func @unmarked
// CHECK-NOT: scf.for
// CHECK: linalg.conv_2d_nhwc_fhwc {{.*}} outs(%{{.*}} : tensor<1x4x4x16xi32>)
// CHECK-NOT: scf.for
// CHECK: return
// ALL-LABEL: func.func @marked
// ALL: scf.for
// ALL-LABEL: func.func @unmarked
// ALL-NOT: tensor<1x4x4x16xi32>
// ALL: scf.for
// ALL: linalg.conv_2d_nhwc_fhwc {{.*}} outs(%{{.*}} : tensor<1x1x1x16xi32>)
func.func @marked(%x: tensor<1x4x4x8xi8>) -> tensor<1x4x4x16xi8> {
  %w = arith.constant dense<3> : tensor<16x1x1x8xi8>
  %zero = arith.constant 0 : i32
  %e = tensor.empty() : tensor<1x4x4x16xi32>
  %init = linalg.fill ins(%zero : i32) outs(%e : tensor<1x4x4x16xi32>) -> tensor<1x4x4x16xi32> loc(fused<"memopt.fused_accumulator">["acc"])
  %acc = linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x4x4x8xi8>, tensor<16x1x1x8xi8>) outs(%init : tensor<1x4x4x16xi32>) -> tensor<1x4x4x16xi32> loc(fused<"memopt.fused_accumulator">["acc"])
  %e8 = tensor.empty() : tensor<1x4x4x16xi8>
  %out = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%acc : tensor<1x4x4x16xi32>) outs(%e8 : tensor<1x4x4x16xi8>) {
  ^bb0(%in: i32, %o: i8):
    %t = arith.trunci %in : i32 to i8
    linalg.yield %t : i8
  } -> tensor<1x4x4x16xi8>
  return %out : tensor<1x4x4x16xi8>
}

func.func @unmarked(%x: tensor<1x4x4x8xi8>) -> tensor<1x4x4x16xi8> {
  %w = arith.constant dense<3> : tensor<16x1x1x8xi8>
  %zero = arith.constant 0 : i32
  %e = tensor.empty() : tensor<1x4x4x16xi32>
  %init = linalg.fill ins(%zero : i32) outs(%e : tensor<1x4x4x16xi32>) -> tensor<1x4x4x16xi32>
  %acc = linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x4x4x8xi8>, tensor<16x1x1x8xi8>) outs(%init : tensor<1x4x4x16xi32>) -> tensor<1x4x4x16xi32>
  %e8 = tensor.empty() : tensor<1x4x4x16xi8>
  %out = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%acc : tensor<1x4x4x16xi32>) outs(%e8 : tensor<1x4x4x16xi8>) {
  ^bb0(%in: i32, %o: i8):
    %t = arith.trunci %in : i32 to i8
    linalg.yield %t : i8
  } -> tensor<1x4x4x16xi8>
  return %out : tensor<1x4x4x16xi8>
}
