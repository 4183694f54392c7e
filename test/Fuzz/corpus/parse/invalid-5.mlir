func.func @convert_i8(%a: tensor<4xf32>) -> tensor<4xi8> {
  %0 = kiln.convert %a : tensor<4xf32> -> tensor<4xi8>
  return %0 : tensor<4xi8>
}
