func.func @f_erf(%x: tensor<3x4xf64>) -> tensor<3x4xf64> {
  %c = kiln.constant dense<3.0> : tensor<3x4xf64>
  %s = kiln.mul %x, %c : tensor<3x4xf64>
  %y = kiln.erf %s : tensor<3x4xf64>
  return %y : tensor<3x4xf64>
}
func.func @vjp_erf(%x: tensor<3x4xf64>, %ct: tensor<3x4xf64>) -> tensor<3x4xf64> {
  %g = kiln.vjp @f_erf(%x, %ct) wrt [0] : (tensor<3x4xf64>, tensor<3x4xf64>) -> tensor<3x4xf64>
  return %g : tensor<3x4xf64>
}
func.func @d2_erf(%x: tensor<3x4xf64>, %ct: tensor<3x4xf64>, %vx: tensor<3x4xf64>) -> (tensor<3x4xf64>, tensor<3x4xf64>) {
  %h:2 = kiln.vjp @vjp_erf(%x, %ct, %vx) wrt [0, 1] : (tensor<3x4xf64>, tensor<3x4xf64>, tensor<3x4xf64>) -> (tensor<3x4xf64>, tensor<3x4xf64>)
  return %h#0, %h#1 : tensor<3x4xf64>, tensor<3x4xf64>
}

func.func @f_gelu(%x: tensor<3x4xf64>) -> tensor<3x4xf64> {
  %c = kiln.constant dense<3.0> : tensor<3x4xf64>
  %s = kiln.mul %x, %c : tensor<3x4xf64>
  %y = kiln.gelu %s : tensor<3x4xf64>
  return %y : tensor<3x4xf64>
}
func.func @vjp_gelu(%x: tensor<3x4xf64>, %ct: tensor<3x4xf64>) -> tensor<3x4xf64> {
  %g = kiln.vjp @f_gelu(%x, %ct) wrt [0] : (tensor<3x4xf64>, tensor<3x4xf64>) -> tensor<3x4xf64>
  return %g : tensor<3x4xf64>
}
func.func @d2_gelu(%x: tensor<3x4xf64>, %ct: tensor<3x4xf64>, %vx: tensor<3x4xf64>) -> (tensor<3x4xf64>, tensor<3x4xf64>) {
  %h:2 = kiln.vjp @vjp_gelu(%x, %ct, %vx) wrt [0, 1] : (tensor<3x4xf64>, tensor<3x4xf64>, tensor<3x4xf64>) -> (tensor<3x4xf64>, tensor<3x4xf64>)
  return %h#0, %h#1 : tensor<3x4xf64>, tensor<3x4xf64>
}

func.func @f_gelu_tanh(%x: tensor<3x4xf64>) -> tensor<3x4xf64> {
  %c = kiln.constant dense<3.0> : tensor<3x4xf64>
  %s = kiln.mul %x, %c : tensor<3x4xf64>
  %y = kiln.gelu %s {approximate = true} : tensor<3x4xf64>
  return %y : tensor<3x4xf64>
}
func.func @vjp_gelu_tanh(%x: tensor<3x4xf64>, %ct: tensor<3x4xf64>) -> tensor<3x4xf64> {
  %g = kiln.vjp @f_gelu_tanh(%x, %ct) wrt [0] : (tensor<3x4xf64>, tensor<3x4xf64>) -> tensor<3x4xf64>
  return %g : tensor<3x4xf64>
}
func.func @d2_gelu_tanh(%x: tensor<3x4xf64>, %ct: tensor<3x4xf64>, %vx: tensor<3x4xf64>) -> (tensor<3x4xf64>, tensor<3x4xf64>) {
  %h:2 = kiln.vjp @vjp_gelu_tanh(%x, %ct, %vx) wrt [0, 1] : (tensor<3x4xf64>, tensor<3x4xf64>, tensor<3x4xf64>) -> (tensor<3x4xf64>, tensor<3x4xf64>)
  return %h#0, %h#1 : tensor<3x4xf64>, tensor<3x4xf64>
}

func.func @f_f32(%x: tensor<16x33xf32>) -> (tensor<16x33xf32>, tensor<16x33xf32>, tensor<16x33xf32>) {
  %c = kiln.constant dense<3.0> : tensor<16x33xf32>
  %s = kiln.mul %x, %c : tensor<16x33xf32>
  %0 = kiln.erf %s : tensor<16x33xf32>
  %1 = kiln.gelu %s : tensor<16x33xf32>
  %2 = kiln.gelu %s {approximate = true} : tensor<16x33xf32>
  return %0, %1, %2 : tensor<16x33xf32>, tensor<16x33xf32>, tensor<16x33xf32>
}
func.func @vjp_f32(%x: tensor<16x33xf32>, %c0: tensor<16x33xf32>, %c1: tensor<16x33xf32>, %c2: tensor<16x33xf32>) -> tensor<16x33xf32> {
  %g = kiln.vjp @f_f32(%x, %c0, %c1, %c2) wrt [0] : (tensor<16x33xf32>, tensor<16x33xf32>, tensor<16x33xf32>, tensor<16x33xf32>) -> tensor<16x33xf32>
  return %g : tensor<16x33xf32>
}

func.func @mlp(%x: tensor<8x16xf32>, %w1: tensor<16x32xf32>, %w2: tensor<32x4xf32>) -> tensor<f32> {
  %h = kiln.matmul %x, %w1 : tensor<8x16xf32>, tensor<16x32xf32> -> tensor<8x32xf32>
  %a = kiln.gelu %h : tensor<8x32xf32>
  %o = kiln.matmul %a, %w2 : tensor<8x32xf32>, tensor<32x4xf32> -> tensor<8x4xf32>
  %t = kiln.gelu %o {approximate = true} : tensor<8x4xf32>
  %l = kiln.reduce_sum %t, dims = [0, 1] : tensor<8x4xf32> -> tensor<f32>
  return %l : tensor<f32>
}
func.func @vjp_mlp(%x: tensor<8x16xf32>, %w1: tensor<16x32xf32>, %w2: tensor<32x4xf32>, %ct: tensor<f32>)
    -> (tensor<16x32xf32>, tensor<32x4xf32>) {
  %g:2 = kiln.vjp @mlp(%x, %w1, %w2, %ct) wrt [1, 2] : (tensor<8x16xf32>, tensor<16x32xf32>, tensor<32x4xf32>, tensor<f32>) -> (tensor<16x32xf32>, tensor<32x4xf32>)
  return %g#0, %g#1 : tensor<16x32xf32>, tensor<32x4xf32>
}
