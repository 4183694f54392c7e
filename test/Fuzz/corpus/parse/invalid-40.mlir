func.func @slice_out_of_bounds_overflow(%a: tensor<4xf32>) -> tensor<1xf32> {
  %0 = kiln.slice %a, offsets = [9223372036854775807], sizes = [1] : tensor<4xf32> -> tensor<1xf32>
  return %0 : tensor<1xf32>
}
