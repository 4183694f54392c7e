func.func @f(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>) -> tensor<4x8xf32> {
  %y = kiln.matmul %x, %w : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

func.func @constant() -> tensor<4x8xf32> {
  %c = "kiln.constant"() <{value = dense<1.0> : tensor<4x8xf32>}> : () -> tensor<4x8xf32>
  return %c : tensor<4x8xf32>
}

func.func @add(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %s = "kiln.add"(%a, %b) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return %s : tensor<4x8xf32>
}

func.func @broadcast_in_dim(%bias: tensor<8xf32>) -> tensor<4x8xf32> {
  %b = "kiln.broadcast_in_dim"(%bias) <{dims = array<i64: 1>}> : (tensor<8xf32>) -> tensor<4x8xf32>
  return %b : tensor<4x8xf32>
}

func.func @slice(%g: tensor<4x32xf32>) -> tensor<4x8xf32> {
  %i = "kiln.slice"(%g) <{offsets = array<i64: 0, 8>, sizes = array<i64: 4, 8>}> : (tensor<4x32xf32>) -> tensor<4x8xf32>
  return %i : tensor<4x8xf32>
}

func.func @concat(%x: tensor<4x8xf32>, %y: tensor<4x3xf32>) -> tensor<4x11xf32> {
  %k = "kiln.concat"(%x, %y) <{dim = 1 : i64}> : (tensor<4x8xf32>, tensor<4x3xf32>) -> tensor<4x11xf32>
  return %k : tensor<4x11xf32>
}

func.func @reduce_sum(%x: tensor<4x8xf32>) -> tensor<8xf32> {
  %r = "kiln.reduce_sum"(%x) <{dims = array<i64: 0>}> : (tensor<4x8xf32>) -> tensor<8xf32>
  return %r : tensor<8xf32>
}

func.func @matmul(%x: tensor<4x8xf32>, %w: tensor<16x8xf32>) -> tensor<4x16xf32> {
  %m = "kiln.matmul"(%x, %w) <{transpose_b = true}> : (tensor<4x8xf32>, tensor<16x8xf32>) -> tensor<4x16xf32>
  return %m : tensor<4x16xf32>
}

func.func @vjp(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>, %ct: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %g = "kiln.vjp"(%x, %w, %ct) <{callee = @f, wrt = array<i64: 0>}> : (tensor<4x8xf32>, tensor<8x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return %g : tensor<4x8xf32>
}
