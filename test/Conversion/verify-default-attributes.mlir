// A default-valued attribute written with a value of the wrong kind: MLIR 22
// parses `nan_mode = "IGNORE"` (a string; the enum is #tosa.nan_mode<...>)
// without a diagnostic, drops the value and leaves the attribute empty. The
// op verifies, and upstream's tosa.clamp canonicalization then dereferences
// null (a crash of cortex-m-pipeline and mem-opt-compile, found by the
// upstream TOSA corpus sweep, docs/Robustness.md). verify-default-attributes
// reports it at the op instead, and cortex-m-pipeline runs it first.
//
// RUN: mem-opt %s --split-input-file --verify-default-attributes -verify-diagnostics -o /dev/null
// RUN: mem-opt %s --split-input-file --cortex-m-pipeline -verify-diagnostics -o /dev/null

func.func @string_nan_mode(%x: tensor<4xi8>) -> tensor<4xi8> {
  // expected-error@+1 {{'tosa.clamp' op has no valid 'nan_mode' attribute: the parser drops a value of the wrong kind; write it as the op prints it, e.g. nan_mode = #tosa.nan_mode<PROPAGATE> (its default)}}
  %0 = tosa.clamp %x {max_val = 4 : i8, min_val = -2 : i8, nan_mode = "IGNORE"} : (tensor<4xi8>) -> tensor<4xi8>
  %1 = tosa.clamp %0 {max_val = 2 : i8, min_val = -4 : i8} : (tensor<4xi8>) -> tensor<4xi8>
  return %1 : tensor<4xi8>
}

// -----

// The same on another op with a nan_mode: every empty one is reported.
func.func @string_nan_mode_maximum(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{'tosa.maximum' op has no valid 'nan_mode' attribute}}
  %0 = tosa.maximum %a, %b {nan_mode = "PROPAGATE"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  // expected-error@+1 {{'tosa.maximum' op has no valid 'nan_mode' attribute}}
  %1 = tosa.maximum %0, %b {nan_mode = 1 : i32} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %1 : tensor<4xf32>
}

// -----

// Absent or written in the enum's form, the attribute holds a value and the
// pass says nothing (-verify-diagnostics fails on any unexpected one), and
// the pipeline lowers the function.
func.func @valid_nan_modes(%x: tensor<4xi8>, %a: tensor<4xf32>) -> (tensor<4xi8>, tensor<4xf32>) {
  %0 = tosa.clamp %x {max_val = 4 : i8, min_val = -2 : i8} : (tensor<4xi8>) -> tensor<4xi8>
  %1 = tosa.clamp %0 {max_val = 2 : i8, min_val = -4 : i8, nan_mode = #tosa.nan_mode<IGNORE>} : (tensor<4xi8>) -> tensor<4xi8>
  %2 = tosa.maximum %a, %a {nan_mode = IGNORE} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %1, %2 : tensor<4xi8>, tensor<4xf32>
}
