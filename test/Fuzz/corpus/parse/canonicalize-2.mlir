func.func @fold_erf_gelu() -> (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<3xf64>, tensor<2xbf16>) {
  %c = kiln.constant dense<1.0> : tensor<2xf32>
  %e = kiln.erf %c : tensor<2xf32>
  %g = kiln.gelu %c : tensor<2xf32>
  %t = kiln.gelu %c {approximate = true} : tensor<2xf32>
  %d = kiln.constant dense<[0.0, 1.0, -1.0]> : tensor<3xf64>
  %gd = kiln.gelu %d : tensor<3xf64>
  %b = kiln.constant dense<1.0> : tensor<2xbf16>
  %gb = kiln.gelu %b : tensor<2xbf16>
  return %e, %g, %t, %gd, %gb : tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<3xf64>, tensor<2xbf16>
}
