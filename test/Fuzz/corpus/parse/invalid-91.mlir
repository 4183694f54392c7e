func.func @slice_whole_dim_offset(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = kiln.slice %x, offsets = [1], sizes = [-1] : tensor<4xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
