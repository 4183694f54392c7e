func.func @max_min_select(%x: tensor<4xf32>, %y: tensor<4xf32>, %p: tensor<4xi1>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %a = kiln.max %x, %x : tensor<4xf32>
  %b = kiln.min %x, %x : tensor<4xf32>
  %c = kiln.select %p, %x, %x : tensor<4xi1>, tensor<4xf32>
  %t = kiln.constant dense<true> : tensor<4xi1>
  %f = kiln.constant dense<false> : tensor<4xi1>
  %d = kiln.select %t, %x, %y : tensor<4xi1>, tensor<4xf32>
  %e = kiln.select %f, %x, %y : tensor<4xi1>, tensor<4xf32>
  return %a, %b, %c, %d, %e : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}
