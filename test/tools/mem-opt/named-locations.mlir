// Diagnostics at ops that carry a model's node names and no source position
// (NameLocs, as mem-opt-import writes them) print as `<model>:<node>:`.
// <model> is the input file's stem, or the stem of the position-less file
// location inside the NameLoc (the ONNX importer's form). Ops at a source
// position keep `file:line:col:` and the source line. Upstream MLIR prints
// the first two as `<unknown>:0: error: loc("Conv2d_1"): ...`.
//
// Hand computation (canonical model, f32): every tensor<4xf32> is 16 bytes;
// each function holds its argument and its first op's result at once, so
// every order peaks at 32 bytes, over budget=1.
// RUN: rm -rf %t && mkdir -p %t && cp %s %t/person_detect.mlir
// RUN: not mem-opt %t/person_detect.mlir --memory-schedule="model=canonical budget=1 print-statistics=true" -o /dev/null 2>&1 | FileCheck %s
// CHECK: person_detect:tflite_fn: remark: memory-schedule statistics of @tflite: peak before 32 bytes
// CHECK: person_detect:Conv2d_1: error: the optimal order peaks at 32 bytes, over the budget of 1 bytes; live at this op: '%arg0' (16 bytes), 'Conv2d_1' (16 bytes)
// CHECK-NEXT: person_detect:Conv2d_1: note: see current operation: %0 = "tosa.clamp"
// CHECK: mobilenet:relu: error: the optimal order peaks at 32 bytes
// CHECK: person_detect.mlir:[[# @LINE + 32]]:8: error: the optimal order peaks at 32 bytes
// CHECK-NEXT: %b = tosa.clamp
// CHECK-NEXT: ^
// RUN: not mem-opt %t/person_detect.mlir --memory-schedule="model=canonical budget=1" -o /dev/null 2>&1 | not grep -e "<unknown>" -e "loc("

// --mlir-diagnostic-verbosity-level=errors drops the remarks at names too.
// RUN: not mem-opt %t/person_detect.mlir --memory-schedule="model=canonical budget=1 print-statistics=true" --mlir-diagnostic-verbosity-level=errors -o /dev/null 2>&1 | FileCheck %s --check-prefix=ERRORS
// ERRORS-NOT: remark
// ERRORS: person_detect:Conv2d_1: error:
// ERRORS-NOT: remark

// Under -verify-diagnostics every diagnostic still reaches the verifier,
// which rejects those it cannot place on a line.
// RUN: not mem-opt %t/person_detect.mlir --memory-schedule="model=canonical budget=1" -verify-diagnostics -o /dev/null 2>&1 | FileCheck %s --check-prefix=VERIFY
// VERIFY: error: loc("Conv2d_1"): unexpected error: the optimal order peaks at 32 bytes

// Standard input has no stem: just the node name.
// RUN: not mem-opt --memory-schedule="model=canonical budget=1" -o /dev/null < %s 2>&1 | FileCheck %s --check-prefix=STDIN
// STDIN: {{^}}Conv2d_1: error: the optimal order peaks at 32 bytes

func.func @tflite(%a: tensor<4xf32>) -> tensor<4xf32> {
  %b = tosa.clamp %a {min_val = 0.0 : f32, max_val = 6.0 : f32} : (tensor<4xf32>) -> tensor<4xf32> loc("Conv2d_1")
  %c = tosa.clamp %b {min_val = 0.0 : f32, max_val = 6.0 : f32} : (tensor<4xf32>) -> tensor<4xf32> loc("Relu_1")
  return %c : tensor<4xf32>
} loc("tflite_fn")

func.func @onnx(%a: tensor<4xf32>) -> tensor<4xf32> {
  %b = tosa.clamp %a {min_val = 0.0 : f32, max_val = 6.0 : f32} : (tensor<4xf32>) -> tensor<4xf32> loc("relu"("mobilenet.onnx":0:0))
  return %b : tensor<4xf32>
}

func.func @source(%a: tensor<4xf32>) -> tensor<4xf32> {
  %b = tosa.clamp %a {min_val = 0.0 : f32, max_val = 6.0 : f32} : (tensor<4xf32>) -> tensor<4xf32>
  return %b : tensor<4xf32>
}
