func.func @main(%table: tensor<7x4xf32>, %ids: tensor<2x3xi64>, %logits: tensor<3x5xf32>, %key: tensor<2xi64>)
    -> (tensor<2x3x4xf32>, tensor<3xi64>, tensor<2x3xi32>, tensor<4x6xf32>) {
  %e = "kiln.take"(%table, %ids) <{dim = 0 : i64}> : (tensor<7x4xf32>, tensor<2x3xi64>) -> tensor<2x3x4xf32>
  %a = "kiln.argmax"(%logits) <{dim = 1 : i64}> : (tensor<3x5xf32>) -> tensor<3xi64>
  %p = "kiln.iota"() <{dim = 1 : i64}> : () -> tensor<2x3xi32>
  %u = "kiln.rng_uniform"(%key) : (tensor<2xi64>) -> tensor<4x6xf32>
  return %e, %a, %p, %u : tensor<2x3x4xf32>, tensor<3xi64>, tensor<2x3xi32>, tensor<4x6xf32>
}
