// The int32 steps of int8 residual adds and mean poolings through
// cortex-m-pipeline: the widening rescales and the int32 add are fused into
// the narrowing rescale, the widening of the pooling into its first
// reduce_sum (isFusedIntoConsumer, fuse-elementwise-groups); no int32 tensor
// of 7x7x32 (6,272 B) is left. Execution on QEMU: qemu-int8-residual-head.mlir.

// RUN: mem-opt %S/Inputs/int8_residual_head.mlir --cortex-m-pipeline="stop-after=linalg io=caller" | FileCheck %s
// CHECK-LABEL: func.func @residual_head
// CHECK-NOT: tensor<1x7x7x32xi32>
// The residual add: one generic from the two int8 branches to int8, which
// widens, adds in i32 and narrows per element.
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<1x7x7x32xi8>, tensor<1x7x7x32xi8>) outs(%{{.*}} : tensor<1x7x7x32xi8>)
// CHECK: arith.extsi {{.*}} : i8 to i32
// CHECK: arith.extsi {{.*}} : i8 to i64
// CHECK: arith.addi {{.*}} : i32
// CHECK: arith.trunci {{.*}} : i32 to i8
// The pooling: the widening inside the first sum, a generic with a
// reduction iterator from int8 to 1x7x32 i32; the second sum stays.
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "reduction", "parallel", "parallel"]} ins(%{{.*}} : tensor<1x7x7x32xi8>) outs(%{{.*}} : tensor<1x7x32xi32>)
// CHECK: arith.extsi {{.*}} : i8 to i32
// CHECK: linalg.reduce
// CHECK-NOT: tensor<1x7x7x32xi32>

// The planned arena, by hand (x and out are the caller's under io=caller;
// every size is a multiple of the 16-byte alignment): a and b (1,568 B each)
// are live together when the residual add runs, whose result takes over a
// (a dies at it): 3,136; then res + the first sum (896) = 2,464, the two
// sums 896 + 128 = 1,024. Peak 3,136. Unfused, the two widened branches
// alone would take 2 x 6,272 B.
// RUN: mem-opt %S/Inputs/int8_residual_head.mlir --cortex-m-pipeline="stop-after=plan io=caller" | FileCheck %s --check-prefix=CALLER
// CALLER: memplan.arena_size = 3136
// CALLER-NOT: memref<1x7x7x32xi32>
// CALLER-COUNT-2: memplan.place {{.*}} to memref<1x7x7x32xi8>
// CALLER: memplan.place {{.*}} to memref<1x7x32xi32>
// CALLER: memplan.place {{.*}} to memref<1x1x32xi32>
// CALLER-NOT: memplan.place
// With io=arena, x (1,568) is live until b is computed: x + a + b = 4,704.
// RUN: mem-opt %S/Inputs/int8_residual_head.mlir --cortex-m-pipeline="stop-after=plan io=arena" | FileCheck %s --check-prefix=ARENA
// ARENA: memplan.arena_size = 4704

// The rule is conservative. An int32 value read twice, or returned, stays a
// tensor: @two_users keeps %wa (its add then reads it and the int8 %b, the
// widening of %b fused into it) and the narrowing rescale stays separate;
// @returned keeps the int32 sum, into which both widenings are fused.
// RUN: mem-opt %s --cortex-m-pipeline="stop-after=linalg io=caller" | FileCheck %s --check-prefix=KEEP
// KEEP-LABEL: func.func @two_users
// KEEP: linalg.generic {{.*}} ins(%{{.*}} : tensor<1x4x4x8xi8>) outs(%{{.*}} : tensor<1x4x4x8xi32>)
// KEEP: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<1x4x4x8xi32>, tensor<1x4x4x8xi8>) outs(%{{.*}} : tensor<1x4x4x8xi32>)
// KEEP: linalg.generic {{.*}} ins(%{{.*}} : tensor<1x4x4x8xi32>) outs(%{{.*}} : tensor<1x4x4x8xi8>)
// KEEP-LABEL: func.func @returned
// KEEP: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<1x4x4x8xi8>, tensor<1x4x4x8xi8>) outs(%{{.*}} : tensor<1x4x4x8xi32>)
// KEEP: linalg.generic {{.*}} ins(%{{.*}} : tensor<1x4x4x8xi32>) outs(%{{.*}} : tensor<1x4x4x8xi8>)
// KEEP: return

func.func @two_users(%a: tensor<1x4x4x8xi8>, %b: tensor<1x4x4x8xi8>) -> (tensor<1x4x4x8xi8>, tensor<1x4x4x8xi32>) {
  %zp8 = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %zp32 = "tosa.const"() <{values = dense<0> : tensor<1xi32>}> : () -> tensor<1xi32>
  %m = "tosa.const"() <{values = dense<1073741824> : tensor<1xi32>}> : () -> tensor<1xi32>
  %s20 = "tosa.const"() <{values = dense<20> : tensor<1xi8>}> : () -> tensor<1xi8>
  %s41 = "tosa.const"() <{values = dense<41> : tensor<1xi8>}> : () -> tensor<1xi8>
  %wa = tosa.rescale %a, %m, %s20, %zp8, %zp32 {input_unsigned = false, output_unsigned = false, per_channel = false, rounding_mode = SINGLE_ROUND, scale32 = true} : (tensor<1x4x4x8xi8>, tensor<1xi32>, tensor<1xi8>, tensor<1xi8>, tensor<1xi32>) -> tensor<1x4x4x8xi32>
  %wb = tosa.rescale %b, %m, %s20, %zp8, %zp32 {input_unsigned = false, output_unsigned = false, per_channel = false, rounding_mode = SINGLE_ROUND, scale32 = true} : (tensor<1x4x4x8xi8>, tensor<1xi32>, tensor<1xi8>, tensor<1xi8>, tensor<1xi32>) -> tensor<1x4x4x8xi32>
  %sum = tosa.add %wa, %wb : (tensor<1x4x4x8xi32>, tensor<1x4x4x8xi32>) -> tensor<1x4x4x8xi32>
  %out = tosa.rescale %sum, %m, %s41, %zp32, %zp8 {input_unsigned = false, output_unsigned = false, per_channel = false, rounding_mode = SINGLE_ROUND, scale32 = true} : (tensor<1x4x4x8xi32>, tensor<1xi32>, tensor<1xi8>, tensor<1xi32>, tensor<1xi8>) -> tensor<1x4x4x8xi8>
  return %out, %wa : tensor<1x4x4x8xi8>, tensor<1x4x4x8xi32>
}

func.func @returned(%a: tensor<1x4x4x8xi8>, %b: tensor<1x4x4x8xi8>) -> (tensor<1x4x4x8xi8>, tensor<1x4x4x8xi32>) {
  %zp8 = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %zp32 = "tosa.const"() <{values = dense<0> : tensor<1xi32>}> : () -> tensor<1xi32>
  %m = "tosa.const"() <{values = dense<1073741824> : tensor<1xi32>}> : () -> tensor<1xi32>
  %s20 = "tosa.const"() <{values = dense<20> : tensor<1xi8>}> : () -> tensor<1xi8>
  %s41 = "tosa.const"() <{values = dense<41> : tensor<1xi8>}> : () -> tensor<1xi8>
  %wa = tosa.rescale %a, %m, %s20, %zp8, %zp32 {input_unsigned = false, output_unsigned = false, per_channel = false, rounding_mode = SINGLE_ROUND, scale32 = true} : (tensor<1x4x4x8xi8>, tensor<1xi32>, tensor<1xi8>, tensor<1xi8>, tensor<1xi32>) -> tensor<1x4x4x8xi32>
  %wb = tosa.rescale %b, %m, %s20, %zp8, %zp32 {input_unsigned = false, output_unsigned = false, per_channel = false, rounding_mode = SINGLE_ROUND, scale32 = true} : (tensor<1x4x4x8xi8>, tensor<1xi32>, tensor<1xi8>, tensor<1xi8>, tensor<1xi32>) -> tensor<1x4x4x8xi32>
  %sum = tosa.add %wa, %wb : (tensor<1x4x4x8xi32>, tensor<1x4x4x8xi32>) -> tensor<1x4x4x8xi32>
  %out = tosa.rescale %sum, %m, %s41, %zp32, %zp8 {input_unsigned = false, output_unsigned = false, per_channel = false, rounding_mode = SINGLE_ROUND, scale32 = true} : (tensor<1x4x4x8xi32>, tensor<1xi32>, tensor<1xi8>, tensor<1xi32>, tensor<1xi8>) -> tensor<1x4x4x8xi8>
  return %out, %sum : tensor<1x4x4x8xi8>, tensor<1x4x4x8xi32>
}
