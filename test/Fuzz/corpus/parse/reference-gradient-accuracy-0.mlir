func.func private @f(%x: tensor<6xf64>) -> tensor<f64> {
  %t = kiln.tanh %x : tensor<6xf64>
  %e = kiln.exp %t : tensor<6xf64>
  %m = kiln.mul %e, %x : tensor<6xf64>
  %s = kiln.reduce_sum %m, dims = [0] : tensor<6xf64> -> tensor<f64>
  return %s : tensor<f64>
}

func.func @grads(%x: tensor<6xf64>, %ct: tensor<f64>) -> (tensor<6xf64>, tensor<6xf64>) {
  %d = kiln.vjp @f(%x, %ct) wrt [0] : (tensor<6xf64>, tensor<f64>) -> tensor<6xf64>
  %d2 = kiln.mul %d, %x : tensor<6xf64>
  return %d, %d2 : tensor<6xf64>, tensor<6xf64>
}

func.func @main(%x: tensor<6xf64>, %ct: tensor<f64>, %y: tensor<6xf32>) -> (tensor<6xf64>, tensor<6xf64>, tensor<6xf32>) {
  %d = kiln.vjp @f(%x, %ct) wrt [0] : (tensor<6xf64>, tensor<f64>) -> tensor<6xf64>
  %d2 = kiln.mul %d, %x : tensor<6xf64>
  %t = kiln.tanh %y : tensor<6xf32>
  %u = kiln.exp %t : tensor<6xf32>
  return %d, %d2, %u : tensor<6xf64>, tensor<6xf64>, tensor<6xf32>
}
