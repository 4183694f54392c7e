func.func @fold_binary() -> (tensor<2xf64>, tensor<2xf64>, tensor<2xf64>, tensor<2xf64>, tensor<2xf64>) {
  %a = kiln.constant dense<3.0> : tensor<2xf64>
  %b = kiln.constant dense<2.0> : tensor<2xf64>
  %s = kiln.sub %a, %b : tensor<2xf64>
  %d = kiln.div %a, %b : tensor<2xf64>
  %mx = kiln.max %a, %b : tensor<2xf64>
  %mn = kiln.min %a, %b : tensor<2xf64>
  %p = kiln.pow %a, %b : tensor<2xf64>
  return %s, %d, %mx, %mn, %p : tensor<2xf64>, tensor<2xf64>, tensor<2xf64>, tensor<2xf64>, tensor<2xf64>
}
