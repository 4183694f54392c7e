func.func @main(%x: tensor<4x16xf32>, %h: tensor<4x8xf32>, %c: tensor<4x8xf32>,
                %wx: tensor<32x16xf32>, %wh: tensor<32x8xf32>,
                %b: tensor<32xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %xw = kiln.matmul %x, %wx {transpose_b = true} : tensor<4x16xf32>, tensor<32x16xf32> -> tensor<4x32xf32>
  %hw = kiln.matmul %h, %wh {transpose_b = true} : tensor<4x8xf32>, tensor<32x8xf32> -> tensor<4x32xf32>
  %sum = kiln.add %xw, %hw : tensor<4x32xf32>
  %bias = kiln.broadcast_in_dim %b, dims = [1] : tensor<32xf32> -> tensor<4x32xf32>
  %gates = kiln.add %sum, %bias : tensor<4x32xf32>
  %i0 = kiln.slice %gates, offsets = [0, 0], sizes = [4, 8] : tensor<4x32xf32> -> tensor<4x8xf32>
  %f0 = kiln.slice %gates, offsets = [0, 8], sizes = [4, 8] : tensor<4x32xf32> -> tensor<4x8xf32>
  %g0 = kiln.slice %gates, offsets = [0, 16], sizes = [4, 8] : tensor<4x32xf32> -> tensor<4x8xf32>
  %o0 = kiln.slice %gates, offsets = [0, 24], sizes = [4, 8] : tensor<4x32xf32> -> tensor<4x8xf32>
  %i = kiln.sigmoid %i0 : tensor<4x8xf32>
  %f = kiln.sigmoid %f0 : tensor<4x8xf32>
  %g = kiln.tanh %g0 : tensor<4x8xf32>
  %o = kiln.sigmoid %o0 : tensor<4x8xf32>
  %fc = kiln.mul %f, %c : tensor<4x8xf32>
  %ig = kiln.mul %i, %g : tensor<4x8xf32>
  %c2 = kiln.add %fc, %ig : tensor<4x8xf32>
  %tc = kiln.tanh %c2 : tensor<4x8xf32>
  %h2 = kiln.mul %o, %tc : tensor<4x8xf32>
  return %h2, %c2 : tensor<4x8xf32>, tensor<4x8xf32>
}
