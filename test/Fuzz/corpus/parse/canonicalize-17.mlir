func.func @slice_empty(%x: tensor<4x8xf32>) -> tensor<0x8xf32> {
  %s = kiln.slice %x, offsets = [4, 0], sizes = [0, 8] : tensor<4x8xf32> -> tensor<0x8xf32>
  return %s : tensor<0x8xf32>
}
