func.func @slice_result(%a: tensor<4x32xf32>) -> tensor<4x16xf32> {
  %0 = kiln.slice %a, offsets = [0, 8], sizes = [4, 8] : tensor<4x32xf32> -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}
