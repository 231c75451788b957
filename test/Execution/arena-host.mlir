// The planned arena computes what the upstream allocations compute. A small
// TOSA model (1x1 conv, clamp, padded 3x3 conv, sigmoid, mul, add, concat) is
// bufferized with the host flow of ../shared/docs/TOOLCHAIN.md, then run on
// the host with mlir-runner twice: as bufferized (malloc'd activations), and
// after memplan-plan-arena + memplan-lower with an arena that a generated
// harness (Inputs/add-main.py) allocates with 64 canary bytes on each side.
// The printed outputs must be equal, the canaries intact, and the planned
// @model must not allocate. (Substitutions: lit.local.cfg.)
//
// RUN: cat %s | %bufferize -o %t.buf.mlir
// RUN: %python %S/Inputs/add-main.py %t.buf.mlir --function=model --inputs=1 | %lower_host | %run_host > %t.ref.out
// RUN: mem-opt %t.buf.mlir --memplan-plan-arena --memplan-lower -o %t.plan.mlir
// RUN: FileCheck %s --check-prefix=PLAN < %t.plan.mlir
// RUN: %lower_host %t.plan.mlir | FileCheck %s --check-prefix=NOMALLOC
// RUN: %python %S/Inputs/add-main.py %t.plan.mlir --function=model --inputs=1 | %lower_host | %run_host > %t.plan.out
//
// Same numbers (the base address line differs; the last line of the planned
// run counts changed canary bytes), and no canary byte changed.
// RUN: grep -v -e "base@" -e "^[0-9][0-9]*$" %t.ref.out > %t.ref.data
// RUN: grep -v -e "base@" -e "^[0-9][0-9]*$" %t.plan.out > %t.plan.data
// RUN: diff %t.ref.data %t.plan.data
// RUN: FileCheck %s --check-prefix=DATA < %t.ref.data
// RUN: FileCheck %s --check-prefix=GUARD < %t.plan.out
// PLAN:      func.func @model(%{{.*}}: memref<1x8x8x4xf32>, %{{.*}}: memref<1x8x8x8xf32>, %[[ARENA:.*]]: memref<[[N:[0-9]+]]xi8> {llvm.noalias})
// PLAN-SAME: memplan.arena_alignment = 16 : i64, memplan.arena_size = [[N]] : i64
// PLAN-NOT:  memref.alloc
// PLAN-NOT:  memref.dealloc
// PLAN-NOT:  memplan.place
// PLAN-NOT:  memplan.arena 
// PLAN:      return

// NOMALLOC:     llvm.func @model(
// NOMALLOC-NOT: llvm.call @malloc
// NOMALLOC-NOT: llvm.call @free
// NOMALLOC:     llvm.return

// 1x8x8x8 values: 64 rows of 8 numbers.
// DATA-COUNT-64: {{^ *\[+(-?[0-9.e+-]+, +){7}-?[0-9.e+-]+\]+,? *$}}
// GUARD: {{^}}0{{$}}

func.func @model(%x: tensor<1x8x8x4xf32>) -> tensor<1x8x8x8xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %w1 = "tosa.const"() <{values = dense<[[[[0.5, -0.25, 0.125, 1.0]]], [[[-1.0, 0.5, 0.25, 0.75]]], [[[0.3, 0.2, -0.1, 0.4]]], [[[1.5, -0.5, 0.0, 0.25]]]]> : tensor<4x1x1x4xf32>}> : () -> tensor<4x1x1x4xf32>
  %b1 = "tosa.const"() <{values = dense<[0.1, -0.2, 0.3, 0.0]> : tensor<4xf32>}> : () -> tensor<4xf32>
  %w3 = "tosa.const"() <{values = dense<0.0625> : tensor<4x3x3x4xf32>}> : () -> tensor<4x3x3x4xf32>
  %b3 = "tosa.const"() <{values = dense<[0.0, 0.5, -0.5, 1.0]> : tensor<4xf32>}> : () -> tensor<4xf32>
  %zp8 = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %0 = tosa.conv2d %x, %w1, %b1, %zp, %zp {acc_type = f32, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>} : (tensor<1x8x8x4xf32>, tensor<4x1x1x4xf32>, tensor<4xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x8x4xf32>
  %1 = tosa.clamp %0 {min_val = 0.0 : f32, max_val = 6.0 : f32} : (tensor<1x8x8x4xf32>) -> tensor<1x8x8x4xf32>
  %2 = tosa.conv2d %1, %w3, %b3, %zp, %zp {acc_type = f32, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>} : (tensor<1x8x8x4xf32>, tensor<4x3x3x4xf32>, tensor<4xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x8x4xf32>
  %3 = tosa.sigmoid %2 : (tensor<1x8x8x4xf32>) -> tensor<1x8x8x4xf32>
  %4 = tosa.mul %3, %x, %zp8 : (tensor<1x8x8x4xf32>, tensor<1x8x8x4xf32>, tensor<1xi8>) -> tensor<1x8x8x4xf32>
  %5 = tosa.conv2d %4, %w1, %b1, %zp, %zp {acc_type = f32, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>} : (tensor<1x8x8x4xf32>, tensor<4x1x1x4xf32>, tensor<4xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x8x4xf32>
  %6 = tosa.add %5, %1 : (tensor<1x8x8x4xf32>, tensor<1x8x8x4xf32>) -> tensor<1x8x8x4xf32>
  %7 = tosa.concat %6, %2 {axis = 3 : i32} : (tensor<1x8x8x4xf32>, tensor<1x8x8x4xf32>) -> tensor<1x8x8x8xf32>
  return %7 : tensor<1x8x8x8xf32>
}
