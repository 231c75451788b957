// A running sum over the branches of one input (the fan-out of
// benchmarks/scale-gen.py): every add writes over the sum so far, which dies
// at it, so the whole sum lives in the first branch's buffer. The decision is
// a mark on tensors (prepare-bufferization) carried out on buffers
// (reuse-dying-inputs), so one-shot bufferization never sees the chain as one
// alias set (whose analysis grows as n^3 with the chain).
// RUN: mem-opt %s --cortex-m-pipeline=stop-after=bufferize | FileCheck %s
// RUN: mem-opt %s --cortex-m-pipeline=stop-after=plan | FileCheck %s --check-prefix=PLAN

// Four branch buffers, no buffer for any add.
// CHECK-LABEL: func.func @fanout
// CHECK-NOT: memopt.overwrite_input
// CHECK: %[[S:.*]] = memref.alloc() {{.*}} : memref<1x4x4x4xf32>
// CHECK: ins(%arg0 : {{.*}}) outs(%[[S]] :
// CHECK: %[[B1:.*]] = memref.alloc() {{.*}} : memref<1x4x4x4xf32>
// CHECK: ins(%arg0 : {{.*}}) outs(%[[B1]] :
// CHECK: ins(%[[S]], %[[B1]] : {{.*}}) outs(%[[S]] :
// CHECK: %[[B2:.*]] = memref.alloc() {{.*}} : memref<1x4x4x4xf32>
// CHECK: ins(%arg0 : {{.*}}) outs(%[[B2]] :
// CHECK: ins(%[[S]], %[[B2]] : {{.*}}) outs(%[[S]] :
// CHECK: %[[B3:.*]] = memref.alloc() {{.*}} : memref<1x4x4x4xf32>
// CHECK: ins(%arg0 : {{.*}}) outs(%[[B3]] :
// CHECK: ins(%[[S]], %[[B3]] : {{.*}}) outs(%[[S]] :
// CHECK-NOT: memref.alloc
// CHECK: return %[[S]]

// Hand count (io=arena, 256-byte tensors): at each add the input, the sum
// and one branch are live: 3 x 256 = 768 bytes, the schedule's peak and the
// liveness bound of the buffers.
// PLAN: memopt.peak_bytes = 768
// PLAN-SAME: memplan.arena_size = 768
// PLAN-SAME: memplan.lower_bound = 768
func.func @fanout(%arg0: tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32> {
  %b0 = tosa.clamp %arg0 {max_val = 1.015625 : f32, min_val = 0.0 : f32} : (tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  %b1 = tosa.clamp %arg0 {max_val = 1.03125 : f32, min_val = 0.0 : f32} : (tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  %b2 = tosa.clamp %arg0 {max_val = 1.046875 : f32, min_val = 0.0 : f32} : (tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  %b3 = tosa.clamp %arg0 {max_val = 1.0625 : f32, min_val = 0.0 : f32} : (tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  %s1 = tosa.add %b0, %b1 : (tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  %s2 = tosa.add %s1, %b2 : (tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  %s3 = tosa.add %s2, %b3 : (tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  return %s3 : tensor<1x4x4x4xf32>
}
