func.func @reshape_reshape(%x: tensor<4x6xf32>) -> (tensor<3x8xf32>, tensor<4x6xf32>) {
  %a = kiln.reshape %x : tensor<4x6xf32> -> tensor<24xf32>
  %b = kiln.reshape %a : tensor<24xf32> -> tensor<3x8xf32>
  %c = kiln.reshape %x : tensor<4x6xf32> -> tensor<4x6xf32>
  return %b, %c : tensor<3x8xf32>, tensor<4x6xf32>
}
