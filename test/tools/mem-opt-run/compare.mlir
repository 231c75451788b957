// mem-opt-run --compare runs two modules on the same seeded inputs.
// Equal functions pass (floats within tolerance, integers bit-exact):
// RUN: mem-opt-run --compare %S/Inputs/compare-a.mlir %S/Inputs/compare-b.mlir --entry=conv,iadd --seeds=20 | FileCheck %s --check-prefix=OK
// OK: @conv result #0 (tensor<1x4x4x2xf32>): 20 seeds, max abs err
// OK: @iadd result #0 (tensor<2x3xi32>): 20 seeds, bit-exact
// OK: OK: 2 function(s), 20 seed(s) each

// Without --entry every public function is compared; 1e-3 exceeds the
// default tolerance (atol 1e-5, rtol 1e-4) and fails ...
// RUN: not mem-opt-run --compare %S/Inputs/compare-a.mlir %S/Inputs/compare-b.mlir --seeds=3 > %t.all
// RUN: FileCheck %s --check-prefix=SHIFT < %t.all
// SHIFT: MISMATCH @shift result #0 (tensor<8xf32>), seed 0, first differing element [0]
// SHIFT-SAME: (|diff| 0.001 > atol 1e-05 + rtol 0.0001 * |b|)
// SHIFT: FAIL: 3 function(s), 3 seed(s) each
// ... and passes with a looser stated tolerance.
// RUN: mem-opt-run --compare %S/Inputs/compare-a.mlir %S/Inputs/compare-b.mlir --entry=shift --atol=2e-3 --seeds=3 | FileCheck %s --check-prefix=LOOSE
// LOOSE: @shift result #0 (tensor<8xf32>): 3 seeds, max abs err 0.001

// A deliberately wrong weight and an off-by-one integer are caught, naming
// the output and the first differing element.
// RUN: not mem-opt-run --compare %S/Inputs/compare-a.mlir %S/Inputs/compare-bad.mlir --entry=conv,iadd --seeds=4 | FileCheck %s --check-prefix=BAD
// BAD: MISMATCH @conv result #0 (tensor<1x4x4x2xf32>), seed 0, first differing element [0, 0, 0, 0]:
// BAD: MISMATCH @iadd result #0 (tensor<2x3xi32>), seed 0, first differing element [1, 2]:
// BAD-SAME: (integers must be bit-exact)
// BAD: FAIL: 2 function(s), 4 seed(s) each
