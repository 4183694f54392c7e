func.func @cell(%gates: tensor<4x32xf32>, %c: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
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
func.func @bwd(%gates: tensor<4x32xf32>, %c: tensor<4x8xf32>, %dh: tensor<4x8xf32>, %dc: tensor<4x8xf32>) -> (tensor<4x32xf32>, tensor<4x8xf32>) {
  %g:2 = kiln.vjp @cell(%gates, %c, %dh, %dc) wrt [0, 1] : (tensor<4x32xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) -> (tensor<4x32xf32>, tensor<4x8xf32>)
  return %g#0, %g#1 : tensor<4x32xf32>, tensor<4x8xf32>
}
