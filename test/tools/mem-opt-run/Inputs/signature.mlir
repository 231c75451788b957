// errors.mlir: @sum with another signature.
func.func @sum(%x: tensor<2x3xf32>, %y: tensor<8xi16>) -> tensor<2x3xf32> {
  return %x : tensor<2x3xf32>
}
