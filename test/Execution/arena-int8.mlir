// An int8 model (conv2d with i32 accumulators, rescale, clamp, padded 3x3
// conv, concat) computes bit-identical outputs with its activations in the
// planned arena, where i8 and i32 buffers share bytes (method: see
// arena-host.mlir; substitutions: lit.local.cfg). apply_scale needs
// --tosa-to-arith=include-apply-rescale, which %bufferize passes.
//
// RUN: cat %s | %bufferize -o %t.buf.mlir
// RUN: %python %S/Inputs/add-main.py %t.buf.mlir --function=qmodel --inputs=1 | %lower_host | %run_host > %t.ref.out
// RUN: mem-opt %t.buf.mlir --memplan-plan-arena --memplan-lower -o %t.plan.mlir
// RUN: FileCheck %s --check-prefix=PLAN < %t.plan.mlir
// RUN: %lower_host %t.plan.mlir | FileCheck %s --check-prefix=NOMALLOC
// RUN: %python %S/Inputs/add-main.py %t.plan.mlir --function=qmodel --inputs=1 | %lower_host | %run_host > %t.plan.out
// RUN: grep -v -e "base@" -e "^[0-9][0-9]*$" %t.ref.out > %t.ref.data
// RUN: grep -v -e "base@" -e "^[0-9][0-9]*$" %t.plan.out > %t.plan.data
// RUN: diff %t.ref.data %t.plan.data
// RUN: FileCheck %s --check-prefix=DATA < %t.ref.data
// RUN: FileCheck %s --check-prefix=GUARD < %t.plan.out

// PLAN:      func.func @qmodel(
// PLAN-SAME: memref<[[N:[0-9]+]]xi8> {llvm.noalias})
// PLAN-SAME: memplan.arena_size = [[N]] : i64
// PLAN-NOT:  memref.alloc
// PLAN-NOT:  memref.dealloc
// PLAN:      return

// NOMALLOC:     llvm.func @qmodel(
// NOMALLOC-NOT: llvm.call @malloc
// NOMALLOC:     llvm.return

// 1x8x8x8 values: 64 rows of 8 integers, not all zero.
// DATA-COUNT-64: {{^ *\[+(-?[0-9]+, +){7}-?[0-9]+\]+,? *$}}
// DATA-NOT: {{^.*base@}}
// GUARD: {{^}}0{{$}}
// RUN: FileCheck %s --check-prefix=NONZERO < %t.ref.data
// NONZERO: {{[1-9]}}

func.func @qmodel(%x: tensor<1x8x8x4xi8>) -> tensor<1x8x8x8xi8> {
  %zp8 = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %zp32 = "tosa.const"() <{values = dense<0> : tensor<1xi32>}> : () -> tensor<1xi32>
  %w1 = "tosa.const"() <{values = dense<[[[[1, -1, 2, 1]]], [[[2, 1, -1, 0]]], [[[1, 1, 1, 1]]], [[[-2, 1, 0, 3]]]]> : tensor<4x1x1x4xi8>}> : () -> tensor<4x1x1x4xi8>
  %b1 = "tosa.const"() <{values = dense<[8, -16, 24, 0]> : tensor<4xi32>}> : () -> tensor<4xi32>
  %w3 = "tosa.const"() <{values = dense<1> : tensor<4x3x3x4xi8>}> : () -> tensor<4x3x3x4xi8>
  %b3 = "tosa.const"() <{values = dense<[0, 4, -4, 8]> : tensor<4xi32>}> : () -> tensor<4xi32>
  // multiplier 2^30 and shift 33: a scale of 1/8.
  %mul = "tosa.const"() <{values = dense<1073741824> : tensor<1xi32>}> : () -> tensor<1xi32>
  %shift = "tosa.const"() <{values = dense<33> : tensor<1xi8>}> : () -> tensor<1xi8>
  %0 = tosa.conv2d %x, %w1, %b1, %zp8, %zp8 {acc_type = i32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x8x8x4xi8>, tensor<4x1x1x4xi8>, tensor<4xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x8x8x4xi32>
  %1 = tosa.rescale %0, %mul, %shift, %zp32, %zp8 {input_unsigned = false, output_unsigned = false, per_channel = false, rounding_mode = SINGLE_ROUND, scale32 = true} : (tensor<1x8x8x4xi32>, tensor<1xi32>, tensor<1xi8>, tensor<1xi32>, tensor<1xi8>) -> tensor<1x8x8x4xi8>
  %2 = tosa.clamp %1 {max_val = 127 : i8, min_val = 0 : i8} : (tensor<1x8x8x4xi8>) -> tensor<1x8x8x4xi8>
  %3 = tosa.conv2d %2, %w3, %b3, %zp8, %zp8 {acc_type = i32, dilation = array<i64: 1, 1>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>} : (tensor<1x8x8x4xi8>, tensor<4x3x3x4xi8>, tensor<4xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x8x8x4xi32>
  %4 = tosa.rescale %3, %mul, %shift, %zp32, %zp8 {input_unsigned = false, output_unsigned = false, per_channel = false, rounding_mode = SINGLE_ROUND, scale32 = true} : (tensor<1x8x8x4xi32>, tensor<1xi32>, tensor<1xi8>, tensor<1xi32>, tensor<1xi8>) -> tensor<1x8x8x4xi8>
  %5 = tosa.concat %1, %4 {axis = 3 : i32} : (tensor<1x8x8x4xi8>, tensor<1x8x8x4xi8>) -> tensor<1x8x8x8xi8>
  return %5 : tensor<1x8x8x8xi8>
}
