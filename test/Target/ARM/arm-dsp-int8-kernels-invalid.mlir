// RUN: mem-opt %s --pass-pipeline='builtin.module(func.func(arm-dsp-int8-kernels{oc-block=0}))' -verify-diagnostics

// expected-error @+1 {{arm-dsp-int8-kernels: oc-block must be in [1, 8], got 0}}
func.func @block_zero() {
  return
}
