func.func @first(%x: tensor<16xf32>) -> tensor<16xf32> {
  %0 = tosa.abs %x : (tensor<16xf32>) -> tensor<16xf32>
  return %0 : tensor<16xf32>
}
func.func @second(%x: tensor<16xf32>) -> tensor<16xf32> {
  %0 = tosa.ceil %x : (tensor<16xf32>) -> tensor<16xf32>
  return %0 : tensor<16xf32>
}
