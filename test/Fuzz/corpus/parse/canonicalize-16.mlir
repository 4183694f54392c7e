func.func @slice_whole(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %s = kiln.slice %x, offsets = [0, 0], sizes = [4, 8] : tensor<4x8xf32> -> tensor<4x8xf32>
  return %s : tensor<4x8xf32>
}
