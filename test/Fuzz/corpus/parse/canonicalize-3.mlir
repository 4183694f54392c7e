func.func @fold_relu() -> tensor<3xf32> {
  %c = kiln.constant dense<[-2.0, -0.0, 3.0]> : tensor<3xf32>
  %r = kiln.relu %c : tensor<3xf32>
  return %r : tensor<3xf32>
}
