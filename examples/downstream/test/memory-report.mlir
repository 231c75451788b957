// RUN: my-opt %s --memory-report -o /dev/null 2>&1 | FileCheck %s

// Two f32 tensors of 16x16 (1024 B each). While tosa.add runs, its input %a
// (1024 B) and its result (1024 B) are live: peak 2048 B by hand. The negate
// second add then needs %0 (1024 B) and its result (1024 B): 2048 B again.
// CHECK: memory report for @f: 2 steps, peak 2048 bytes
func.func @f(%a: tensor<16x16xf32>) -> tensor<16x16xf32> {
  %0 = tosa.add %a, %a : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
  %1 = tosa.add %0, %0 : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
  return %1 : tensor<16x16xf32>
}
