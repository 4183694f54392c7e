// Used by edges.mlir: a callee with a dynamic batch dim, differentiated.
func.func @dyn(%x: tensor<?x4xf64>, %b: tensor<4xf64>) -> tensor<4xf64> {
  %t = kiln.tanh %x : tensor<?x4xf64>
  %s = kiln.reduce_sum %t, dims = [0] : tensor<?x4xf64> -> tensor<4xf64>
  %m = kiln.mul %s, %b : tensor<4xf64>
  return %m : tensor<4xf64>
}
func.func @grad_dynamic(%x: tensor<?x4xf64>, %b: tensor<4xf64>, %ct: tensor<4xf64>) -> (tensor<4xf64>, tensor<4xf64>) {
  %g:2 = kiln.vjp @dyn(%x, %b, %ct) wrt [0, 1] : (tensor<?x4xf64>, tensor<4xf64>, tensor<4xf64>) -> (tensor<?x4xf64>, tensor<4xf64>)
  %r = kiln.reduce_sum %g#0, dims = [0] : tensor<?x4xf64> -> tensor<4xf64>
  return %r, %g#1 : tensor<4xf64>, tensor<4xf64>
}
