func.func @concat_single(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %k = kiln.concat %x dim = 0 : tensor<4x8xf32> -> tensor<4x8xf32>
  return %k : tensor<4x8xf32>
}
