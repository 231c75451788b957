// TFLite's int8 ADD rescales an operand in two steps when one rescale cannot
// give TFLite's values (docs/Importers.md): i8 -> i32 by 2^20, then an
// i32 -> i32 rescale with double rounding. The whole chain is computed per
// element inside the add's narrowing rescale (isFusedIntoConsumer): no int32
// tensor in the model nor in the lowering.
// RUN: mem-opt %s --split-input-file --cortex-m-pipeline="stop-after=linalg io=arena" | FileCheck %s --check-prefix=LINALG
// RUN: mem-opt %s --split-input-file --cortex-m-pipeline="stop-after=plan io=arena" | FileCheck %s --check-prefix=ARENA
// RUN: mem-opt %s --split-input-file --cortex-m-pipeline="stop-after=plan io=caller" | FileCheck %s --check-prefix=CALLER

// One generic from the two int8 operands to the int8 sum.
// LINALG-LABEL: func.func @chain
// LINALG-NOT: xi32>
// LINALG: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<1x4x4x8xi8>, tensor<1x4x4x8xi8>) outs(%{{.*}} : tensor<1x4x4x8xi8>)
// LINALG-NOT: linalg.generic
// LINALG: return
// By hand (16-byte alignment, io=arena): a, b and the sum, 128 B each, are
// live together (a graph input is never overwritten): 384. Unfused, each
// operand's two int32 steps would take 512 B each. io=caller: all three are
// the caller's (384 B), the arena is empty.
// ARENA-LABEL: func.func @chain
// ARENA-SAME: memopt.peak_bytes = 384 : i64
// ARENA-SAME: memplan.lower_bound = 384 : i64
// ARENA: memplan.arena align 16 : memref<384xi8>
// CALLER-LABEL: func.func @chain
// CALLER-SAME: memopt.peak_bytes = 384 : i64
// CALLER-SAME: memplan.lower_bound = 0 : i64
module attributes {tosa.target_env = #tosa.target_env<specification_version = "1.0", level = "8k", profiles = [pro_int, pro_fp], extensions = [doubleround]>} {
func.func @chain(%a: tensor<1x4x4x8xi8>, %b: tensor<1x4x4x8xi8>) -> tensor<1x4x4x8xi8> {
  %zp8 = "tosa.const"() <{values = dense<3> : tensor<1xi8>}> : () -> tensor<1xi8>
  %zp0 = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %zp32 = "tosa.const"() <{values = dense<0> : tensor<1xi32>}> : () -> tensor<1xi32>
  %m20 = "tosa.const"() <{values = dense<1073741824> : tensor<1xi32>}> : () -> tensor<1xi32>
  %s10 = "tosa.const"() <{values = dense<10> : tensor<1xi8>}> : () -> tensor<1xi8>
  %m = "tosa.const"() <{values = dense<1518500250> : tensor<1xi32>}> : () -> tensor<1xi32>
  %s31 = "tosa.const"() <{values = dense<32> : tensor<1xi8>}> : () -> tensor<1xi8>
  %s41 = "tosa.const"() <{values = dense<41> : tensor<1xi8>}> : () -> tensor<1xi8>
  %wa = tosa.rescale %a, %m20, %s10, %zp8, %zp32 {input_unsigned = false, output_unsigned = false, per_channel = false, rounding_mode = SINGLE_ROUND, scale32 = true} : (tensor<1x4x4x8xi8>, tensor<1xi32>, tensor<1xi8>, tensor<1xi8>, tensor<1xi32>) -> tensor<1x4x4x8xi32>
  %ra = tosa.rescale %wa, %m, %s31, %zp32, %zp32 {input_unsigned = false, output_unsigned = false, per_channel = false, rounding_mode = DOUBLE_ROUND, scale32 = true} : (tensor<1x4x4x8xi32>, tensor<1xi32>, tensor<1xi8>, tensor<1xi32>, tensor<1xi32>) -> tensor<1x4x4x8xi32>
  %wb = tosa.rescale %b, %m20, %s10, %zp0, %zp32 {input_unsigned = false, output_unsigned = false, per_channel = false, rounding_mode = SINGLE_ROUND, scale32 = true} : (tensor<1x4x4x8xi8>, tensor<1xi32>, tensor<1xi8>, tensor<1xi8>, tensor<1xi32>) -> tensor<1x4x4x8xi32>
  %rb = tosa.rescale %wb, %m, %s31, %zp32, %zp32 {input_unsigned = false, output_unsigned = false, per_channel = false, rounding_mode = DOUBLE_ROUND, scale32 = true} : (tensor<1x4x4x8xi32>, tensor<1xi32>, tensor<1xi8>, tensor<1xi32>, tensor<1xi32>) -> tensor<1x4x4x8xi32>
  %sum = tosa.add %ra, %rb : (tensor<1x4x4x8xi32>, tensor<1x4x4x8xi32>) -> tensor<1x4x4x8xi32>
  %out = tosa.rescale %sum, %m20, %s41, %zp32, %zp0 {input_unsigned = false, output_unsigned = false, per_channel = false, rounding_mode = DOUBLE_ROUND, scale32 = true} : (tensor<1x4x4x8xi32>, tensor<1xi32>, tensor<1xi8>, tensor<1xi32>, tensor<1xi8>) -> tensor<1x4x4x8xi8>
  return %out : tensor<1x4x4x8xi8>
}
}

// -----

// The first step read twice (by its i32 -> i32 rescale and by the add)
// stays a tensor, and so does that rescale, whose input is read by another
// op; b's chain is fused into the first add. By hand (io=arena): a dies
// once widened; b (128), %wa (512) and %ra (512, which may not overwrite
// %wa, read later) are live when %ra is computed: 1152. The first add
// then writes over %ra, the second over its sum.
// LINALG-LABEL: func.func @shared_step
// LINALG: linalg.generic {{.*}} ins(%{{.*}} : tensor<1x4x4x8xi8>) outs(%{{.*}} : tensor<1x4x4x8xi32>)
// LINALG: linalg.generic {{.*}} ins(%{{.*}} : tensor<1x4x4x8xi32>) outs(%{{.*}} : tensor<1x4x4x8xi32>)
// ARENA-LABEL: func.func @shared_step
// ARENA-SAME: memopt.peak_bytes = 1152 : i64
// ARENA-SAME: memplan.lower_bound = 1152 : i64
module attributes {tosa.target_env = #tosa.target_env<specification_version = "1.0", level = "8k", profiles = [pro_int, pro_fp], extensions = [doubleround]>} {
func.func @shared_step(%a: tensor<1x4x4x8xi8>, %b: tensor<1x4x4x8xi8>) -> tensor<1x4x4x8xi8> {
  %zp0 = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %zp32 = "tosa.const"() <{values = dense<0> : tensor<1xi32>}> : () -> tensor<1xi32>
  %m20 = "tosa.const"() <{values = dense<1073741824> : tensor<1xi32>}> : () -> tensor<1xi32>
  %s10 = "tosa.const"() <{values = dense<10> : tensor<1xi8>}> : () -> tensor<1xi8>
  %m = "tosa.const"() <{values = dense<1518500250> : tensor<1xi32>}> : () -> tensor<1xi32>
  %s31 = "tosa.const"() <{values = dense<32> : tensor<1xi8>}> : () -> tensor<1xi8>
  %s41 = "tosa.const"() <{values = dense<41> : tensor<1xi8>}> : () -> tensor<1xi8>
  %wa = tosa.rescale %a, %m20, %s10, %zp0, %zp32 {input_unsigned = false, output_unsigned = false, per_channel = false, rounding_mode = SINGLE_ROUND, scale32 = true} : (tensor<1x4x4x8xi8>, tensor<1xi32>, tensor<1xi8>, tensor<1xi8>, tensor<1xi32>) -> tensor<1x4x4x8xi32>
  %ra = tosa.rescale %wa, %m, %s31, %zp32, %zp32 {input_unsigned = false, output_unsigned = false, per_channel = false, rounding_mode = DOUBLE_ROUND, scale32 = true} : (tensor<1x4x4x8xi32>, tensor<1xi32>, tensor<1xi8>, tensor<1xi32>, tensor<1xi32>) -> tensor<1x4x4x8xi32>
  %wb = tosa.rescale %b, %m20, %s10, %zp0, %zp32 {input_unsigned = false, output_unsigned = false, per_channel = false, rounding_mode = SINGLE_ROUND, scale32 = true} : (tensor<1x4x4x8xi8>, tensor<1xi32>, tensor<1xi8>, tensor<1xi8>, tensor<1xi32>) -> tensor<1x4x4x8xi32>
  %rb = tosa.rescale %wb, %m, %s31, %zp32, %zp32 {input_unsigned = false, output_unsigned = false, per_channel = false, rounding_mode = DOUBLE_ROUND, scale32 = true} : (tensor<1x4x4x8xi32>, tensor<1xi32>, tensor<1xi8>, tensor<1xi32>, tensor<1xi32>) -> tensor<1x4x4x8xi32>
  %s1 = tosa.add %ra, %rb : (tensor<1x4x4x8xi32>, tensor<1x4x4x8xi32>) -> tensor<1x4x4x8xi32>
  %sum = tosa.add %s1, %wa : (tensor<1x4x4x8xi32>, tensor<1x4x4x8xi32>) -> tensor<1x4x4x8xi32>
  %out = tosa.rescale %sum, %m20, %s41, %zp32, %zp0 {input_unsigned = false, output_unsigned = false, per_channel = false, rounding_mode = DOUBLE_ROUND, scale32 = true} : (tensor<1x4x4x8xi32>, tensor<1xi32>, tensor<1xi8>, tensor<1xi32>, tensor<1xi8>) -> tensor<1x4x4x8xi8>
  return %out : tensor<1x4x4x8xi8>
}
}
