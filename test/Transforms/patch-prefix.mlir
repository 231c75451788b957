// RUN: mem-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(patch-prefix{patches=2x1}))' | FileCheck %s
// RUN: mem-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(patch-prefix{patches=3x1}))' | FileCheck %s --check-prefix=UNEVEN

// The planned arena of the 2x1 patches through cortex-m-pipeline (io=caller:
// the input and output are the caller's), computed by hand; every buffer is
// f32 and rounded up to 16 bytes.
// @stride2_chain: per patch A (conv1, 1x3x4x4 = 192) with its padded window
// (3x3x2 x4 = 72 -> 80), R = clamp in place over A, B (conv2, 1x2x4x4 =
// 128) with its window (3x3x4 x4 = 144), then B is inserted into the cut
// value (1x4x4x4 = 256, allocated at the first insert). The second patch's
// conv2 step holds R 192 + B 128 + 144 plus the first patch's result, at
// least its B (128): 592, reached by inserting both patches after the second
// conv2 (then B0 + B1 + the cut 512, conv1 steps 128 + 192 + 80 = 400).
// Arena 592; peak 592 + 512 (x) + 64 (y) = 1168.
// @residual (cut after the max pool, 1x2x2x4 = 64, the caller's output):
// per patch C (clamp of a view, 1x3x4x4 = 192), D (depthwise, 1x2x4x4 =
// 128) with its window (3x3x4 x4 = 144), the add in place over D, the pool
// (1x1x2x4 = 32, 2x2 window 16) inserted into the caller's output. The dw
// step holds 192 + 128 + 144 = 464 (the other patch can be done by then).
// Arena 464; peak 464 + 256 + 64 = 784.
// RUN: mem-opt %s --split-input-file --cortex-m-pipeline="stop-after=plan io=caller patches=2x1" | FileCheck %s --check-prefix=PLAN
// PLAN-LABEL: func.func @stride2_chain
// PLAN-SAME: memopt.peak_bytes = 1168
// PLAN-SAME: memplan.arena_size = 592
// PLAN-LABEL: func.func @residual
// PLAN-SAME: memopt.peak_bytes = 784
// PLAN-SAME: memplan.arena_size = 464
// The uneven 3x1 grid on @residual (the pool has only 2 rows, so the cut is
// the add, 1x4x4x4 = 256, rows [0,1), [1,2), [2,4)): patch i needs clamp
// rows [0,2), [0,3), [1,4) (128, 192, 192) and gives D of 1, 1, 2 rows (64,
// 64, 128), each with the 144-byte window. Patches run one at a time in grid
// order (their inserts may wait), so patch 2 runs last, holding the results
// of patches 0 and 1: its dw step holds 192 + 128 + 144 + 64 + 64 = 592
// (inserting earlier would hold the 256-byte cut instead; running patch 0
// last would need 528, but that is not the grid's order). The pool then
// holds the cut 256 + its window 16 = 272. Arena 592; peak 592 + 256 + 64 =
// 912.
// RUN: mem-opt %s --split-input-file --cortex-m-pipeline="stop-after=plan io=caller patches=3x1" | FileCheck %s --check-prefix=PLAN3
// PLAN3-LABEL: func.func @residual
// PLAN3-SAME: memopt.peak_bytes = 912
// PLAN3-SAME: memplan.arena_size = 592

// memory-report shows what patch-prefix chose: the grid, the cut and the
// MACs before and after, by hand for @stride2_chain: conv1 has 4x4x4 = 64
// outputs of 3x3x2 = 18 MACs (1152), conv2 64 outputs of 3x3x4 = 36 (2304):
// 3456. Patched, each patch computes 3 rows of conv1 (48 outputs, 864) and
// 2 rows of conv2 (32 outputs, 1152): 2 x 2016 = 4032, 576 more (16.7%).
// The predicted peak after is the one memory-report finds on the patched
// function.
// RUN: mem-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(patch-prefix{patches=2x1}),memory-report)' -o /dev/null 2>&1 | FileCheck %s --check-prefix=REPORT
// REPORT: memory report for @stride2_chain: {{[0-9]+}} steps, peak [[PEAK:[0-9]+]] bytes
// REPORT-NEXT: 2x1 patches up to tosa.conv2d at {{.*}}: MACs 3456 -> 4032 (+16.7%), predicted peak {{[0-9]+}} -> [[PEAK]] bytes
// RUN: mem-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(patch-prefix{patches=2x1}),memory-report{format=json})' -o /dev/null 2>&1 | FileCheck %s --check-prefix=JSON
// JSON: "name": "stride2_chain",
// JSON: "patches": {
// JSON-NEXT: "cols": 1,
// JSON-NEXT: "cut": "tosa.conv2d at {{.*}}",
// JSON-NEXT: "macs_after": 4032,
// JSON-NEXT: "macs_before": 3456,
// JSON-NEXT: "peak_after": [[PEAK:[0-9]+]],
// JSON-NEXT: "peak_before": {{[0-9]+}},
// JSON-NEXT: "rows": 2
// JSON: "peak_bytes": [[PEAK]],
// mem-opt-compile's --report says the same.
// RUN: rm -rf %t && mkdir -p %t
// RUN: sed -n '/^func.func @stride2_chain/,/^}/p' %s > %t/chain.mlir
// RUN: mem-opt-compile %t/chain.mlir --patches=2x1 --io=caller --quiet --report | FileCheck %s --check-prefix=COMPILE
// COMPILE: Patches {{ *}}2x1 patches up to tosa.conv2d at {{.*}}: MACs 3456 -> 4032 (+16.7%)

// A stride-2 conv, a clamp and a padded stride-1 conv, cut after the last
// conv (1x4x4x4) into 2x1 patches of rows [0,2) and [2,4). By hand, with
// lo = o0*s - padBefore and hi = (o1-1)*s - padBefore + k:
// patch 0: conv2 (k3 s1 pad 1,1) rows [0,2) reads rows [-1,3) -> [0,3) with
//   pad top 1, bottom 0; cols [0,4) read [-1,5) -> [0,4), pad 1,1.
//   conv1 (k3 s2 pad 0,1) rows [0,3) reads [0,7), no padding; cols [0,4)
//   read [0,9) -> [0,8) with pad right 1.
// patch 1: conv2 rows [2,4) reads [1,5) -> [1,4), pad bottom 1; conv1 rows
//   [1,4) reads [2,9) -> [2,8) with pad bottom 1.
// Every op of patch i carries memopt.patch = [0, i] (the grid, the patch);
// the cut value's tensor.empty and inserts carry none.
// CHECK-LABEL: func.func @stride2_chain
// CHECK: %[[IN0:.*]] = tensor.extract_slice %arg0[0, 0, 0, 0] [1, 7, 8, 2] [1, 1, 1, 1] {memopt.patch = array<i64: 0, 0>}
// CHECK: %[[A0:.*]] = tosa.conv2d %[[IN0]], {{.*}}memopt.patch = array<i64: 0, 0>, pad = array<i64: 0, 0, 0, 1>{{.*}} -> tensor<1x3x4x4xf32>
// CHECK: %[[R0:.*]] = tosa.clamp %[[A0]]{{.*}} -> tensor<1x3x4x4xf32>
// CHECK: %[[B0:.*]] = tosa.conv2d %[[R0]], {{.*}}pad = array<i64: 1, 0, 1, 1>{{.*}} -> tensor<1x2x4x4xf32>
// CHECK: %[[E:.*]] = tensor.empty() : tensor<1x4x4x4xf32>
// CHECK: %[[I0:.*]] = tensor.insert_slice %[[B0]] into %[[E]][0, 0, 0, 0] [1, 2, 4, 4] [1, 1, 1, 1] : tensor
// CHECK: %[[IN1:.*]] = tensor.extract_slice %arg0[0, 2, 0, 0] [1, 6, 8, 2] [1, 1, 1, 1]
// CHECK: %[[A1:.*]] = tosa.conv2d %[[IN1]], {{.*}}memopt.patch = array<i64: 0, 1>, pad = array<i64: 0, 1, 0, 1>{{.*}} -> tensor<1x3x4x4xf32>
// CHECK: %[[R1:.*]] = tosa.clamp %[[A1]]
// CHECK: %[[B1:.*]] = tosa.conv2d %[[R1]], {{.*}}pad = array<i64: 0, 1, 1, 1>{{.*}} -> tensor<1x2x4x4xf32>
// CHECK: %[[I1:.*]] = tensor.insert_slice %[[B1]] into %[[I0]][0, 2, 0, 0] [1, 2, 4, 4] [1, 1, 1, 1]
// CHECK: %[[Y:.*]] = tosa.reduce_sum %[[I1]]
// CHECK: return %[[Y]]
// A 3x1 grid of 4 rows: rows [0,1), [1,2), [2,4) (floor(i*4/3)).
// UNEVEN-LABEL: func.func @stride2_chain
// UNEVEN-COUNT-2: tensor.insert_slice {{.*}} [1, 1, 4, 4] [1, 1, 1, 1]
// UNEVEN: tensor.insert_slice {{.*}}[0, 2, 0, 0] [1, 2, 4, 4] [1, 1, 1, 1]
func.func @stride2_chain(%x: tensor<1x8x8x2xf32>) -> tensor<1x1x4x4xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %w1 = "tosa.const"() <{values = dense<0.25> : tensor<4x3x3x2xf32>}> : () -> tensor<4x3x3x2xf32>
  %w2 = "tosa.const"() <{values = dense<0.125> : tensor<4x3x3x4xf32>}> : () -> tensor<4x3x3x4xf32>
  %b = "tosa.const"() <{values = dense<0.5> : tensor<4xf32>}> : () -> tensor<4xf32>
  %a = tosa.conv2d %x, %w1, %b, %zp, %zp {acc_type = f32, pad = array<i64: 0, 1, 0, 1>, stride = array<i64: 2, 2>, dilation = array<i64: 1, 1>} : (tensor<1x8x8x2xf32>, tensor<4x3x3x2xf32>, tensor<4xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x4x4xf32>
  %r = tosa.clamp %a {min_val = 0.0 : f32, max_val = 6.0 : f32} : (tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  %c = tosa.conv2d %r, %w2, %b, %zp, %zp {acc_type = f32, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>} : (tensor<1x4x4x4xf32>, tensor<4x3x3x4xf32>, tensor<4xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x4x4xf32>
  %y = tosa.reduce_sum %c {axis = 1 : i32} : (tensor<1x4x4x4xf32>) -> tensor<1x1x4x4xf32>
  return %y : tensor<1x1x4x4xf32>
}

// -----

// A residual add inside the prefix: both branches are computed per patch,
// the skip branch (the clamp) over the rows the depthwise conv needs, and
// the add reads its own rows of it through a slice. Patch 0 computes rows
// [0,2) of the add; the depthwise conv (k3 s1 pad 1) needs clamp rows
// [0,3), so the add reads clamp rows [0,2) of them, offset 0.
// Patch 1: add rows [2,4), clamp rows [1,4), the add's view at offset 1.
// CHECK-LABEL: func.func @residual
// CHECK: %[[C0:.*]] = tosa.clamp {{.*}} -> tensor<1x3x4x4xf32>
// CHECK: %[[D0:.*]] = tosa.depthwise_conv2d %[[C0]], {{.*}}pad = array<i64: 1, 0, 1, 1>{{.*}} -> tensor<1x2x4x4xf32>
// CHECK: %[[S0:.*]] = tensor.extract_slice %[[C0]][0, 0, 0, 0] [1, 2, 4, 4]
// CHECK: tosa.add %[[D0]], %[[S0]]
// CHECK: %[[C1:.*]] = tosa.clamp {{.*}} -> tensor<1x3x4x4xf32>
// CHECK: %[[D1:.*]] = tosa.depthwise_conv2d %[[C1]], {{.*}}pad = array<i64: 0, 1, 1, 1>{{.*}} -> tensor<1x2x4x4xf32>
// CHECK: %[[S1:.*]] = tensor.extract_slice %[[C1]][0, 1, 0, 0] [1, 2, 4, 4]
// CHECK: tosa.add %[[D1]], %[[S1]]
func.func @residual(%x: tensor<1x4x4x4xf32>) -> tensor<1x2x2x4xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %w = "tosa.const"() <{values = dense<0.25> : tensor<3x3x4x1xf32>}> : () -> tensor<3x3x4x1xf32>
  %b = "tosa.const"() <{values = dense<0.5> : tensor<4xf32>}> : () -> tensor<4xf32>
  %c = tosa.clamp %x {min_val = 0.0 : f32, max_val = 6.0 : f32} : (tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  %d = tosa.depthwise_conv2d %c, %w, %b, %zp, %zp {acc_type = f32, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>} : (tensor<1x4x4x4xf32>, tensor<3x3x4x1xf32>, tensor<4xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x4x4xf32>
  %s = tosa.add %d, %c : (tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  %m = tosa.max_pool2d %s {kernel = array<i64: 2, 2>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 2, 2>} : (tensor<1x4x4x4xf32>) -> tensor<1x2x2x4xf32>
  return %m : tensor<1x2x2x4xf32>
}
