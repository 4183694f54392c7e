func.func @slice_negative_offset(%a: tensor<4x32xf32>) -> tensor<4x8xf32> {
  %0 = kiln.slice %a, offsets = [0, -1], sizes = [4, 8] : tensor<4x32xf32> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}
