func.func @slice_out_of_bounds(%a: tensor<4x32xf32>) -> tensor<4x16xf32> {
  %0 = kiln.slice %a, offsets = [0, 24], sizes = [4, 16] : tensor<4x32xf32> -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}
