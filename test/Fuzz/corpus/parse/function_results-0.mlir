func.func @const_only() -> tensor<2x3xf32> {
  %c = kiln.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  return %c : tensor<2x3xf32>
}

func.func @reshape_arg(%a: tensor<4x6xf32>) -> (tensor<24xf32>, tensor<4x6xf32>) {
  %r = kiln.reshape %a : tensor<4x6xf32> -> tensor<24xf32>
  return %r, %a : tensor<24xf32>, tensor<4x6xf32>
}

func.func @transpose_arg(%a: tensor<4x6xf32>) -> (tensor<6x4xf32>, tensor<4x6xf32>) {
  %r = kiln.transpose %a, perm = [1, 0] : tensor<4x6xf32> -> tensor<6x4xf32>
  return %r, %a : tensor<6x4xf32>, tensor<4x6xf32>
}

func.func @slice_arg(%a: tensor<4x6xf32>) -> tensor<4x2xf32> {
  %r = kiln.slice %a, offsets = [0, 2], sizes = [4, 2] : tensor<4x6xf32> -> tensor<4x2xf32>
  return %r : tensor<4x2xf32>
}

func.func @broadcast_arg(%a: tensor<4xf32>) -> tensor<3x4xf32> {
  %b = kiln.broadcast_in_dim %a, dims = [1] : tensor<4xf32> -> tensor<3x4xf32>
  return %b : tensor<3x4xf32>
}

func.func @arg_twice(%a: tensor<3x5xf32>) -> (tensor<3x5xf32>, tensor<3x5xf32>) {
  return %a, %a : tensor<3x5xf32>, tensor<3x5xf32>
}

func.func @view_twice(%a: tensor<4x6xf32>) -> (tensor<24xf32>, tensor<24xf32>) {
  %r = kiln.reshape %a : tensor<4x6xf32> -> tensor<24xf32>
  return %r, %r : tensor<24xf32>, tensor<24xf32>
}

func.func @const_twice() -> (tensor<2xf32>, tensor<2xf32>) {
  %c = kiln.constant dense<[1.0, 2.0]> : tensor<2xf32>
  return %c, %c : tensor<2xf32>, tensor<2xf32>
}

func.func @no_outputs(%a: tensor<2xf32>) {
  return
}
