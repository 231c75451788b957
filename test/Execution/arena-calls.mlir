// A model that calls a planned helper twice: memplan-lower hands @block a
// range at the end of @model's arena (3072 bytes of its own, then @block's
// 1024: 4096), and the outputs equal those of the malloc'd run (method: see
// arena-host.mlir; substitutions: lit.local.cfg).
//
// RUN: cat %s | %bufferize -o %t.buf.mlir
// RUN: %python %S/Inputs/add-main.py %t.buf.mlir --function=model --inputs=1 | %lower_host | %run_host > %t.ref.out
// RUN: mem-opt %t.buf.mlir --memplan-plan-arena --memplan-lower -o %t.plan.mlir
// RUN: FileCheck %s --check-prefix=PLAN < %t.plan.mlir
// RUN: %lower_host %t.plan.mlir | FileCheck %s --check-prefix=NOMALLOC
// RUN: %python %S/Inputs/add-main.py %t.plan.mlir --function=model --inputs=1 | %lower_host | %run_host > %t.plan.out
// RUN: grep -v -e "base@" -e "^[0-9][0-9]*$" %t.ref.out > %t.ref.data
// RUN: grep -v -e "base@" -e "^[0-9][0-9]*$" %t.plan.out > %t.plan.data
// RUN: diff %t.ref.data %t.plan.data
// RUN: FileCheck %s --check-prefix=DATA < %t.ref.data
// RUN: FileCheck %s --check-prefix=GUARD < %t.plan.out

// @block keeps one 1x8x8x4xf32 temporary (1024 bytes). @model keeps three
// (its two call results and the clamp), all alive together at the second
// call: 3072 bytes, then @block's 1024 at offset 3072.
// PLAN:      func.func private @block({{.*}}, %{{.*}}: memref<1024xi8> {llvm.noalias})
// PLAN-SAME: memplan.arena_size = 1024
// PLAN:      func.func @model({{.*}}, %[[ARENA:.*]]: memref<4096xi8> {llvm.noalias})
// PLAN-SAME: memplan.arena_size = 4096 : i64, memplan.lower_bound = 3072 : i64
// PLAN:      %[[C3072:.*]] = arith.constant 3072 : index
// PLAN-NEXT: %[[SUB:.*]] = memref.view %[[ARENA]][%[[C3072]]][] : memref<4096xi8> to memref<1024xi8>
// PLAN-NEXT: call @block(%{{.*}}, %{{.*}}, %[[SUB]])

// NOMALLOC-NOT: llvm.call @malloc

// DATA-COUNT-64: {{^ *\[+(-?[0-9.e+-]+, +){7}-?[0-9.e+-]+\]+,? *$}}
// GUARD: {{^}}0{{$}}

func.func private @block(%x: tensor<1x8x8x4xf32>) -> tensor<1x8x8x4xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %w = "tosa.const"() <{values = dense<[[[[0.5, -0.25, 0.125, 1.0]]], [[[-1.0, 0.5, 0.25, 0.75]]], [[[0.3, 0.2, -0.1, 0.4]]], [[[1.5, -0.5, 0.0, 0.25]]]]> : tensor<4x1x1x4xf32>}> : () -> tensor<4x1x1x4xf32>
  %b = "tosa.const"() <{values = dense<[0.1, -0.2, 0.3, 0.0]> : tensor<4xf32>}> : () -> tensor<4xf32>
  %0 = tosa.conv2d %x, %w, %b, %zp, %zp {acc_type = f32, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>} : (tensor<1x8x8x4xf32>, tensor<4x1x1x4xf32>, tensor<4xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x8x4xf32>
  %1 = tosa.sigmoid %0 : (tensor<1x8x8x4xf32>) -> tensor<1x8x8x4xf32>
  %2 = tosa.add %1, %x : (tensor<1x8x8x4xf32>, tensor<1x8x8x4xf32>) -> tensor<1x8x8x4xf32>
  return %2 : tensor<1x8x8x4xf32>
}
func.func @model(%x: tensor<1x8x8x4xf32>) -> tensor<1x8x8x8xf32> {
  %0 = func.call @block(%x) : (tensor<1x8x8x4xf32>) -> tensor<1x8x8x4xf32>
  %1 = tosa.clamp %0 {min_val = 0.0 : f32, max_val = 6.0 : f32} : (tensor<1x8x8x4xf32>) -> tensor<1x8x8x4xf32>
  %2 = func.call @block(%1) : (tensor<1x8x8x4xf32>) -> tensor<1x8x8x4xf32>
  %3 = tosa.concat %0, %2 {axis = 3 : i32} : (tensor<1x8x8x4xf32>, tensor<1x8x8x4xf32>) -> tensor<1x8x8x8xf32>
  return %3 : tensor<1x8x8x8xf32>
}
