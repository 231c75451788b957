// RUN: mem-opt %s --pass-pipeline='builtin.module(func.func(arm-mve-int8-kernels{oc-block=9}))' -verify-diagnostics

// expected-error @+1 {{arm-mve-int8-kernels: oc-block must be in [1, 8], got 9}}
func.func @block_nine() {
  return
}
