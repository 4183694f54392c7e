func.func @slice_offsets(%a: tensor<4x32xf32>) -> tensor<4x8xf32> {
  %0 = kiln.slice %a, offsets = [0], sizes = [4, 8] : tensor<4x32xf32> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}
