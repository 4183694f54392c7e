func.func @unary_f32(%a: tensor<3x4xf32>, %b: tensor<3x4xf32>, %c: tensor<3x4xf32>, %d: tensor<3x4xf32>) -> tensor<3x4xf32> {
  %c15 = kiln.constant dense<1.5> : tensor<3x4xf32>
  %t = kiln.tanh %a : tensor<3x4xf32>
  %s = kiln.sigmoid %b : tensor<3x4xf32>
  %e = kiln.exp %c : tensor<3x4xf32>
  %d1 = kiln.add %d, %c15 : tensor<3x4xf32>
  %l = kiln.log %d1 : tensor<3x4xf32>
  %0 = kiln.add %t, %s : tensor<3x4xf32>
  %1 = kiln.add %0, %e : tensor<3x4xf32>
  %2 = kiln.add %1, %l : tensor<3x4xf32>
  return %2 : tensor<3x4xf32>
}
func.func @vjp_unary_f32(%a: tensor<3x4xf32>, %b: tensor<3x4xf32>, %c: tensor<3x4xf32>, %d: tensor<3x4xf32>, %ct: tensor<3x4xf32>)
    -> (tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>) {
  %g:4 = kiln.vjp @unary_f32(%a, %b, %c, %d, %ct) wrt [0, 1, 2, 3]
      : (tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>)
      -> (tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>)
  return %g#0, %g#1, %g#2, %g#3 : tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>
}

func.func @binary_f32(%x: tensor<3x4xf32>, %y: tensor<3x4xf32>) -> tensor<3x4xf32> {
  %c2 = kiln.constant dense<2.0> : tensor<3x4xf32>
  %m = kiln.mul %x, %y : tensor<3x4xf32>
  %d = kiln.add %y, %c2 : tensor<3x4xf32>
  %q = kiln.div %x, %d : tensor<3x4xf32>
  %z = kiln.max %m, %q : tensor<3x4xf32>
  return %z : tensor<3x4xf32>
}
func.func @vjp_binary_f32(%x: tensor<3x4xf32>, %y: tensor<3x4xf32>, %ct: tensor<3x4xf32>)
    -> (tensor<3x4xf32>, tensor<3x4xf32>) {
  %g:2 = kiln.vjp @binary_f32(%x, %y, %ct) wrt [0, 1] : (tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>) -> (tensor<3x4xf32>, tensor<3x4xf32>)
  return %g#0, %g#1 : tensor<3x4xf32>, tensor<3x4xf32>
}

func.func @matmul_f32(%a: tensor<6x8xf32>, %b: tensor<5x8xf32>) -> tensor<6x5xf32> {
  %c = kiln.matmul %a, %b {transpose_b = true} : tensor<6x8xf32>, tensor<5x8xf32> -> tensor<6x5xf32>
  return %c : tensor<6x5xf32>
}
func.func @vjp_matmul_f32(%a: tensor<6x8xf32>, %b: tensor<5x8xf32>, %ct: tensor<6x5xf32>)
    -> (tensor<6x8xf32>, tensor<5x8xf32>) {
  %g:2 = kiln.vjp @matmul_f32(%a, %b, %ct) wrt [0, 1] : (tensor<6x8xf32>, tensor<5x8xf32>, tensor<6x5xf32>) -> (tensor<6x8xf32>, tensor<5x8xf32>)
  return %g#0, %g#1 : tensor<6x8xf32>, tensor<5x8xf32>
}

func.func @shape_f32(%x: tensor<3x4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %bb = kiln.broadcast_in_dim %b, dims = [1] : tensor<4xf32> -> tensor<3x4xf32>
  %s = kiln.add %x, %bb : tensor<3x4xf32>
  %l = kiln.slice %s, offsets = [0, 0], sizes = [3, 1] : tensor<3x4xf32> -> tensor<3x1xf32>
  %r = kiln.slice %s, offsets = [0, 1], sizes = [3, 3] : tensor<3x4xf32> -> tensor<3x3xf32>
  %tr = kiln.tanh %r : tensor<3x3xf32>
  %k = kiln.concat %tr, %l dim = 1 : tensor<3x3xf32>, tensor<3x1xf32> -> tensor<3x4xf32>
  %p = kiln.mul %k, %s : tensor<3x4xf32>
  %t = kiln.transpose %p, perm = [1, 0] : tensor<3x4xf32> -> tensor<4x3xf32>
  %y = kiln.reduce_sum %t, dims = [1] : tensor<4x3xf32> -> tensor<4xf32>
  return %y : tensor<4xf32>
}
func.func @vjp_shape_f32(%x: tensor<3x4xf32>, %b: tensor<4xf32>, %ct: tensor<4xf32>)
    -> (tensor<3x4xf32>, tensor<4xf32>) {
  %g:2 = kiln.vjp @shape_f32(%x, %b, %ct) wrt [0, 1] : (tensor<3x4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<3x4xf32>, tensor<4xf32>)
  return %g#0, %g#1 : tensor<3x4xf32>, tensor<4xf32>
}

func.func @lstm_cell_f32(%x: tensor<2x3xf32>, %h: tensor<2x4xf32>, %c: tensor<2x4xf32>,
                         %wx: tensor<16x3xf32>, %wh: tensor<16x4xf32>, %b: tensor<16xf32>)
    -> (tensor<2x4xf32>, tensor<2x4xf32>) {
  %xw = kiln.matmul %x, %wx {transpose_b = true} : tensor<2x3xf32>, tensor<16x3xf32> -> tensor<2x16xf32>
  %hw = kiln.matmul %h, %wh {transpose_b = true} : tensor<2x4xf32>, tensor<16x4xf32> -> tensor<2x16xf32>
  %bb = kiln.broadcast_in_dim %b, dims = [1] : tensor<16xf32> -> tensor<2x16xf32>
  %s = kiln.add %xw, %hw : tensor<2x16xf32>
  %gates = kiln.add %s, %bb : tensor<2x16xf32>
  %i = kiln.slice %gates, offsets = [0, 0], sizes = [2, 4] : tensor<2x16xf32> -> tensor<2x4xf32>
  %f = kiln.slice %gates, offsets = [0, 4], sizes = [2, 4] : tensor<2x16xf32> -> tensor<2x4xf32>
  %g = kiln.slice %gates, offsets = [0, 8], sizes = [2, 4] : tensor<2x16xf32> -> tensor<2x4xf32>
  %o = kiln.slice %gates, offsets = [0, 12], sizes = [2, 4] : tensor<2x16xf32> -> tensor<2x4xf32>
  %si = kiln.sigmoid %i : tensor<2x4xf32>
  %sf = kiln.sigmoid %f : tensor<2x4xf32>
  %tg = kiln.tanh %g : tensor<2x4xf32>
  %so = kiln.sigmoid %o : tensor<2x4xf32>
  %fc = kiln.mul %sf, %c : tensor<2x4xf32>
  %ig = kiln.mul %si, %tg : tensor<2x4xf32>
  %c2 = kiln.add %fc, %ig : tensor<2x4xf32>
  %tc = kiln.tanh %c2 : tensor<2x4xf32>
  %h2 = kiln.mul %so, %tc : tensor<2x4xf32>
  return %h2, %c2 : tensor<2x4xf32>, tensor<2x4xf32>
}
func.func @lstm_cell_grad_f32(%x: tensor<2x3xf32>, %h: tensor<2x4xf32>, %c: tensor<2x4xf32>,
                              %wx: tensor<16x3xf32>, %wh: tensor<16x4xf32>, %b: tensor<16xf32>,
                              %ct_h: tensor<2x4xf32>, %ct_c: tensor<2x4xf32>)
    -> (tensor<2x3xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<16x3xf32>,
        tensor<16x4xf32>, tensor<16xf32>) {
  %g:6 = kiln.vjp @lstm_cell_f32(%x, %h, %c, %wx, %wh, %b, %ct_h, %ct_c) wrt [0, 1, 2, 3, 4, 5]
      : (tensor<2x3xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<16x3xf32>,
         tensor<16x4xf32>, tensor<16xf32>, tensor<2x4xf32>, tensor<2x4xf32>)
      -> (tensor<2x3xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<16x3xf32>,
          tensor<16x4xf32>, tensor<16xf32>)
  return %g#0, %g#1, %g#2, %g#3, %g#4, %g#5
      : tensor<2x3xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<16x3xf32>,
        tensor<16x4xf32>, tensor<16xf32>
}
