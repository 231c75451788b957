// Every user-facing error of mem-opt-run gets a clear message.
// RUN: not mem-opt-run %s --entry=nosuch 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// UNKNOWN: mem-opt-run: error: no function @nosuch with a body in {{.*}}errors.mlir

// RUN: not mem-opt-run %s --entry=dynamic 2>&1 | FileCheck %s --check-prefix=DYN
// DYN: mem-opt-run: error: argument #0 of @dynamic has dynamic shape tensor<?x4xf32>: only static shapes are supported
func.func @dynamic(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  return %x : tensor<?x4xf32>
}

// RUN: not mem-opt-run %s --entry=half 2>&1 | FileCheck %s --check-prefix=HALF
// HALF: mem-opt-run: error: result #0 of @half has unsupported element type f16 (supported: f32, f64, i1, i8, i16, i32, i64)
func.func @half(%x: tensor<4xf32>) -> tensor<4xf16> {
  %0 = tosa.cast %x : (tensor<4xf32>) -> tensor<4xf16>
  return %0 : tensor<4xf16>
}

// RUN: not mem-opt-run %s --entry=unranked 2>&1 | FileCheck %s --check-prefix=UNRANKED
// UNRANKED: mem-opt-run: error: argument #0 of @unranked has type tensor<*xf32>: only ranked tensors are supported
func.func @unranked(%x: tensor<*xf32>) -> tensor<*xf32> {
  return %x : tensor<*xf32>
}

// @sum takes 2 * 3 * 4 = 24 bytes of f32 and 8 bytes of i8: 32 in all.
// RUN: printf '0123456789' > %t.short
// RUN: not mem-opt-run %s --entry=sum --inputs=%t.short 2>&1 | FileCheck %s --check-prefix=SIZE
// SIZE: mem-opt-run: error: {{.*}} holds 10 bytes but the arguments of @sum take 32 bytes (tensor<2x3xf32>: 24, tensor<8xi8>: 8)
// RUN: not mem-opt-run %s --entry=sum --inputs=%t.missing 2>&1 | FileCheck %s --check-prefix=MISSING
// MISSING: mem-opt-run: error: cannot read {{.*}}missing:
func.func @sum(%x: tensor<2x3xf32>, %y: tensor<8xi8>) -> tensor<2x3xf32> {
  return %x : tensor<2x3xf32>
}

// RUN: not mem-opt-run %s 2>&1 | FileCheck %s --check-prefix=NOENTRY
// NOENTRY: mem-opt-run: error: expected exactly one --entry=NAME
// RUN: not mem-opt-run %s --entry=sum,dynamic 2>&1 | FileCheck %s --check-prefix=NOENTRY
// RUN: not mem-opt-run %s %s --entry=sum 2>&1 | FileCheck %s --check-prefix=TWO
// TWO: mem-opt-run: error: expected one model file (use --compare for two)
// RUN: not mem-opt-run --compare %s --entry=sum 2>&1 | FileCheck %s --check-prefix=ONE
// ONE: mem-opt-run: error: --compare expects two model files
// RUN: not mem-opt-run --compare %s %S/Inputs/compare-a.mlir --entry=sum 2>&1 | FileCheck %s --check-prefix=MISSINGB
// MISSINGB: mem-opt-run: error: no function @sum with a body in {{.*}}compare-a.mlir
// RUN: not mem-opt-run --compare %s %S/Inputs/signature.mlir --entry=sum 2>&1 | FileCheck %s --check-prefix=SIG
// SIG: mem-opt-run: error: @sum has different signatures in {{.*}}errors.mlir and {{.*}}signature.mlir
// RUN: not mem-opt-run --compare %s %s --entry=sum --seeds=0 2>&1 | FileCheck %s --check-prefix=SEEDS
// SEEDS: mem-opt-run: error: --seeds must be at least 1

// A syntax error is reported at its location.
// RUN: not mem-opt-run %S/Inputs/broken.mlir --entry=f 2>&1 | FileCheck %s --check-prefix=PARSE
// PARSE: broken.mlir:2:{{[0-9]+}}: error:
// PARSE: mem-opt-run: error: cannot parse {{.*}}broken.mlir

// A module the host flow cannot lower (tosa.add has no i8 profile) names the
// failing op, then the file.
// RUN: not mem-opt-run %s --entry=i8add 2>&1 | FileCheck %s --check-prefix=LOWER
// LOWER: error: 'tosa.add' op illegal
// LOWER: mem-opt-run: error: lowering {{.*}}errors.mlir to the LLVM dialect failed
func.func @i8add(%x: tensor<4xi8>) -> tensor<4xi8> {
  %0 = tosa.add %x, %x : (tensor<4xi8>, tensor<4xi8>) -> tensor<4xi8>
  return %0 : tensor<4xi8>
}

// An op of an imported model (a NameLoc, no source position) that the host
// flow cannot lower: the error names the model (this file's stem) and the
// node, `errors:Custom_1:`, not `<unknown>:0: error: loc("Custom_1")`.
// RUN: not mem-opt-run %s --entry=custom 2>&1 | FileCheck %s --check-prefix=NAMED
// NAMED: {{^}}errors:Custom_1: error: failed to legalize operation 'tosa.custom'
// NAMED: mem-opt-run: error: lowering {{.*}}errors.mlir to the LLVM dialect failed
func.func @custom(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tosa.custom %x {domain_name = "d", operator_name = "op", implementation_attrs = ""} : (tensor<4xf32>) -> tensor<4xf32> loc("Custom_1")
  return %0 : tensor<4xf32>
}
