// A function with no op to schedule (it returns its argument): memory-schedule
// under the lowering's model (which then looks for a convolution at the
// peak to write over its input) has no peak op and leaves the function as
// it is. io=arena: the 16-byte argument is the only buffer; io=caller: the
// caller's (16 bytes in and 16 out, none in the arena).
// RUN: mem-opt %s --memory-schedule="model=lowering record-time=false" | FileCheck %s
// RUN: mem-opt %s --memory-schedule="model=lowering io=caller record-time=false" | FileCheck %s --check-prefix=CALLER
// CHECK: func.func @f(%{{.*}}: tensor<4xf32>) -> tensor<4xf32> attributes {memopt.lower_bound = 16 : i64, memopt.optimal = true, memopt.peak_bytes = 16 : i64}
// CHECK-NEXT: return
// CALLER: memopt.peak_bytes = 32 : i64
func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  return %a : tensor<4xf32>
}
