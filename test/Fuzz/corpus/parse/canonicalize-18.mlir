func.func @slice_of_concat(%x: tensor<4x8xf32>, %y: tensor<4x3xf32>, %z: tensor<4x5xf32>) -> (tensor<4x8xf32>, tensor<4x3xf32>, tensor<4x5xf32>, tensor<4x2xf32>) {
  %k = kiln.concat %x, %y, %z dim = 1 : tensor<4x8xf32>, tensor<4x3xf32>, tensor<4x5xf32> -> tensor<4x16xf32>
  %a = kiln.slice %k, offsets = [0, 0], sizes = [4, 8] : tensor<4x16xf32> -> tensor<4x8xf32>
  %b = kiln.slice %k, offsets = [0, 8], sizes = [4, 3] : tensor<4x16xf32> -> tensor<4x3xf32>
  %c = kiln.slice %k, offsets = [0, 11], sizes = [4, 5] : tensor<4x16xf32> -> tensor<4x5xf32>
  %d = kiln.slice %k, offsets = [0, 7], sizes = [4, 2] : tensor<4x16xf32> -> tensor<4x2xf32>
  return %a, %b, %c, %d : tensor<4x8xf32>, tensor<4x3xf32>, tensor<4x5xf32>, tensor<4x2xf32>
}
