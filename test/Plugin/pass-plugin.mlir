// Debian's mlir-opt-22 loads MemOptPlugin.so and runs mem-opt's passes through
// --pass-pipeline; the plugin must not register options twice (a second copy
// of LLVM would abort at load time).
// RUN: mlir-opt %s --load-pass-plugin=%mem_opt_plugin --pass-pipeline="builtin.module(memory-report{model=canonical})" 2>&1 >/dev/null | FileCheck %s --check-prefix=TEXT
// RUN: mlir-opt %S/../Inputs/liberis.mlir --load-pass-plugin=%mem_opt_plugin --pass-pipeline="builtin.module(memory-report{model=canonical format=json})" -o /dev/null 2>&1 | FileCheck %s --check-prefix=JSON
// RUN: mlir-opt --load-pass-plugin=%mem_opt_plugin --help | FileCheck %s --check-prefix=HELP

// 16xf32 = 64 B. %arg0 is returned, so it lives over both steps.
// step 0: arg0 + a = 128; step 1: arg0 + a + b = 192.
// TEXT:      memory report for @plugin: 2 steps, peak 192 bytes at step 1 (b)
// TEXT-NEXT: step  op        location    live bytes
// TEXT-NEXT:    0  tosa.abs  a                  128
// TEXT-NEXT:    1  tosa.exp  b                  192  <- peak
// JSON: "peak_bytes": 5216,
// JSON-NEXT: "peak_op": "op3",
// HELP: memory-report
func.func @plugin(%arg0: tensor<16xf32>) -> (tensor<16xf32>, tensor<16xf32>) {
  %0 = tosa.abs %arg0 : (tensor<16xf32>) -> tensor<16xf32> loc("a")
  %1 = tosa.exp %0 : (tensor<16xf32>) -> tensor<16xf32> loc("b")
  return %arg0, %1 : tensor<16xf32>, tensor<16xf32>
}
