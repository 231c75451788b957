// RUN: mem-opt %s --partition-concat=mode=sometimes --verify-diagnostics

// expected-error @+1 {{partition-concat: unknown mode 'sometimes'; expected 'auto' or 'always'}}
func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  return %a : tensor<4xf32>
}
