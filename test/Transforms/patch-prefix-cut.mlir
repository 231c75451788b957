// patches=<rows>x<cols>@<cut> forces the grid up to the valid cut of that
// index (what mem-opt-compile --sram weighs). @residual has two cuts, found
// by hand: after the add (index 0: the clamp and the depthwise conv are read
// only up to it, so the add's result is the one value live after it) and
// after the max pool (index 1). Without @, the longest prefix within the MAC
// limit is taken (the pool, as in patch-prefix.mlir).
// RUN: mem-opt %s --pass-pipeline='builtin.module(func.func(patch-prefix{patches=2x1@0}))' | FileCheck %s --check-prefix=CUT0
// RUN: mem-opt %s --pass-pipeline='builtin.module(func.func(patch-prefix{patches=2x1@1}))' | FileCheck %s --check-prefix=CUT1
// RUN: mem-opt %s --pass-pipeline='builtin.module(func.func(patch-prefix{patches=2x1}))' | FileCheck %s --check-prefix=CUT1
// RUN: not mem-opt %s --pass-pipeline='builtin.module(func.func(patch-prefix{patches=2x1@2}))' 2>&1 | FileCheck %s --check-prefix=RANGE
// RUN: not mem-opt %s --pass-pipeline='builtin.module(func.func(patch-prefix{patches=2x1@x}))' 2>&1 | FileCheck %s --check-prefix=SYNTAX
// CUT0: memopt.patches = {cols = 1 : i64, cut = "tosa.add
// CUT0-SAME: rows = 2 : i64
// CUT0-COUNT-2: tosa.depthwise_conv2d
// CUT0-NOT: tosa.depthwise_conv2d
// CUT0: tosa.max_pool2d {{.*}} -> tensor<1x2x2x4xf32>
// CUT1: memopt.patches = {cols = 1 : i64, cut = "tosa.max_pool2d
// CUT1-COUNT-2: tosa.max_pool2d {{.*}} -> tensor<1x1x2x4xf32>
// RANGE: error: patch-prefix: cut 2 does not exist (the function has 2 cuts)
// SYNTAX: error: patch-prefix: patches must be 'auto', 'off', <rows>x<cols> or <rows>x<cols>@<cut> with positive counts, optionally followed by '+blocks', not '2x1@x'
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
