func.func @fold_unary() -> (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) {
  %c = kiln.constant dense<4.0> : tensor<2xf32>
  %n = kiln.neg %c : tensor<2xf32>
  %e = kiln.exp %c : tensor<2xf32>
  %l = kiln.log %c : tensor<2xf32>
  %t = kiln.tanh %c : tensor<2xf32>
  %r = kiln.relu %c : tensor<2xf32>
  %s = kiln.sqrt %c : tensor<2xf32>
  %rs = kiln.rsqrt %c : tensor<2xf32>
  %a = kiln.abs %n : tensor<2xf32>
  %sn = kiln.sin %c : tensor<2xf32>
  %cs = kiln.cos %c : tensor<2xf32>
  %rc = kiln.reciprocal %c : tensor<2xf32>
  return %n, %e, %l, %t, %r, %s, %rs, %a, %sn, %cs, %rc : tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>
}
