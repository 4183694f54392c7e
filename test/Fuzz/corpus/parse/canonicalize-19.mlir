func.func @slice_slice(%x: tensor<8x8xf32>) -> tensor<2x2xf32> {
  %a = kiln.slice %x, offsets = [2, 4], sizes = [4, 4] : tensor<8x8xf32> -> tensor<4x4xf32>
  %b = kiln.slice %a, offsets = [1, 1], sizes = [2, 2] : tensor<4x4xf32> -> tensor<2x2xf32>
  return %b : tensor<2x2xf32>
}
