// RUN: not mem-opt %s --pass-pipeline='builtin.module(func.func(patch-prefix{patches=0x2}))' 2>&1 | FileCheck %s --check-prefix=GRID
// RUN: not mem-opt %s --pass-pipeline='builtin.module(func.func(patch-prefix{patches=4by4}))' 2>&1 | FileCheck %s --check-prefix=GRID
// RUN: not mem-opt %s --pass-pipeline='builtin.module(func.func(patch-prefix{patches=2x2+block}))' 2>&1 | FileCheck %s --check-prefix=GRID
// RUN: not mem-opt %s --pass-pipeline='builtin.module(func.func(patch-prefix{max-mac-overhead=-1}))' 2>&1 | FileCheck %s --check-prefix=MACS
// RUN: mem-opt %s --pass-pipeline='builtin.module(func.func(patch-prefix{patches=2x2}))' 2>&1 | FileCheck %s --check-prefix=NOCUT
// RUN: mem-opt %s --pass-pipeline='builtin.module(func.func(patch-prefix{patches=auto}))' 2>&1 | FileCheck %s --check-prefix=AUTO
// GRID: error: patch-prefix: patches must be 'auto', 'off', <rows>x<cols> or <rows>x<cols>@<cut> with positive counts
// MACS: error: patch-prefix: max-mac-overhead must be a percentage >= 0
// Only elementwise ops: no prefix has a convolution or pooling to patch.
// NOCUT: warning: patch-prefix: no prefix of convolutions, poolings and elementwise ops ends in a single value; nothing patched
// AUTO-NOT: warning
// AUTO-NOT: memopt.patches
func.func @elementwise(%x: tensor<1x8x8x4xf32>) -> tensor<1x8x8x4xf32> {
  %c = tosa.clamp %x {min_val = 0.0 : f32, max_val = 6.0 : f32} : (tensor<1x8x8x4xf32>) -> tensor<1x8x8x4xf32>
  return %c : tensor<1x8x8x4xf32>
}
