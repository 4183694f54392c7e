func.func @bcast_element_type(%a: tensor<8xf32>) -> tensor<4x8xf16> {
  %0 = kiln.broadcast_in_dim %a, dims = [1] : tensor<8xf32> -> tensor<4x8xf16>
  return %0 : tensor<4x8xf16>
}
