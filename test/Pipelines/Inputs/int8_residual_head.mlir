// The int32 steps of an int8 residual add and of a mean pooling, as TFLite
// models import them: rescale i8 -> i32, tosa.add (tosa.reduce_sum) in i32,
// rescale i32 -> i8. The memory model computes them inside their consumer
// (isFusedIntoConsumer) and the lowering fuses them (fuse-elementwise-groups).
// Checked by cortex-m-fuse-elementwise.mlir (IR and arenas), one-number.test
// (model against lowering) and qemu-int8-residual-head.mlir (numerics).
func.func @residual_head(%x: tensor<1x7x7x32xi8>) -> tensor<1x1x1x32xi8> {
  %zp8 = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %zp8b = "tosa.const"() <{values = dense<3> : tensor<1xi8>}> : () -> tensor<1xi8>
  %zp8c = "tosa.const"() <{values = dense<-5> : tensor<1xi8>}> : () -> tensor<1xi8>
  %zp32 = "tosa.const"() <{values = dense<0> : tensor<1xi32>}> : () -> tensor<1xi32>
  %ma = "tosa.const"() <{values = dense<1073741824> : tensor<1xi32>}> : () -> tensor<1xi32>
  %mb = "tosa.const"() <{values = dense<1518500250> : tensor<1xi32>}> : () -> tensor<1xi32>
  %mo = "tosa.const"() <{values = dense<1395864371> : tensor<1xi32>}> : () -> tensor<1xi32>
  %m49 = "tosa.const"() <{values = dense<1402438301> : tensor<1xi32>}> : () -> tensor<1xi32>
  %s20 = "tosa.const"() <{values = dense<20> : tensor<1xi8>}> : () -> tensor<1xi8>
  %s21 = "tosa.const"() <{values = dense<21> : tensor<1xi8>}> : () -> tensor<1xi8>
  %s30 = "tosa.const"() <{values = dense<30> : tensor<1xi8>}> : () -> tensor<1xi8>
  %s36 = "tosa.const"() <{values = dense<36> : tensor<1xi8>}> : () -> tensor<1xi8>
  %s41 = "tosa.const"() <{values = dense<41> : tensor<1xi8>}> : () -> tensor<1xi8>
  // Residual add: out1 = rescale(widen(a) + widen(b)), a and b two branches.
  %a = tosa.clamp %x {max_val = 100 : i8, min_val = -20 : i8} : (tensor<1x7x7x32xi8>) -> tensor<1x7x7x32xi8> loc("a")
  %b = tosa.clamp %x {max_val = 127 : i8, min_val = 0 : i8} : (tensor<1x7x7x32xi8>) -> tensor<1x7x7x32xi8> loc("b")
  %wa = tosa.rescale %a, %ma, %s20, %zp8, %zp32 {input_unsigned = false, output_unsigned = false, per_channel = false, rounding_mode = SINGLE_ROUND, scale32 = true} : (tensor<1x7x7x32xi8>, tensor<1xi32>, tensor<1xi8>, tensor<1xi8>, tensor<1xi32>) -> tensor<1x7x7x32xi32> loc("wa")
  %wb = tosa.rescale %b, %mb, %s21, %zp8b, %zp32 {input_unsigned = false, output_unsigned = false, per_channel = false, rounding_mode = SINGLE_ROUND, scale32 = true} : (tensor<1x7x7x32xi8>, tensor<1xi32>, tensor<1xi8>, tensor<1xi8>, tensor<1xi32>) -> tensor<1x7x7x32xi32> loc("wb")
  %sum = tosa.add %wa, %wb : (tensor<1x7x7x32xi32>, tensor<1x7x7x32xi32>) -> tensor<1x7x7x32xi32> loc("sum")
  %res = tosa.rescale %sum, %mo, %s41, %zp32, %zp8c {input_unsigned = false, output_unsigned = false, per_channel = false, rounding_mode = SINGLE_ROUND, scale32 = true} : (tensor<1x7x7x32xi32>, tensor<1xi32>, tensor<1xi8>, tensor<1xi32>, tensor<1xi8>) -> tensor<1x7x7x32xi8> loc("res")
  // Mean pooling: widen, sum over H then W, rescale by about 1/49.
  %w = tosa.rescale %res, %ma, %s30, %zp8c, %zp32 {input_unsigned = false, output_unsigned = false, per_channel = false, rounding_mode = SINGLE_ROUND, scale32 = true} : (tensor<1x7x7x32xi8>, tensor<1xi32>, tensor<1xi8>, tensor<1xi8>, tensor<1xi32>) -> tensor<1x7x7x32xi32> loc("w")
  %r1 = tosa.reduce_sum %w {axis = 1 : i32} : (tensor<1x7x7x32xi32>) -> tensor<1x1x7x32xi32> loc("r1")
  %r2 = tosa.reduce_sum %r1 {axis = 2 : i32} : (tensor<1x1x7x32xi32>) -> tensor<1x1x1x32xi32> loc("r2")
  %out = tosa.rescale %r2, %m49, %s36, %zp32, %zp8b {input_unsigned = false, output_unsigned = false, per_channel = false, rounding_mode = SINGLE_ROUND, scale32 = true} : (tensor<1x1x1x32xi32>, tensor<1xi32>, tensor<1xi8>, tensor<1xi32>, tensor<1xi8>) -> tensor<1x1x1x32xi8> loc("out")
  return %out : tensor<1x1x1x32xi8>
}
