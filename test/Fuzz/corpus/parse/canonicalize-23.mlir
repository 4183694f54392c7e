func.func @broadcast_broadcast_dynamic(%b: tensor<8xf32>, %n: index) -> tensor<?x8xf32> {
  %a = kiln.broadcast_in_dim %b, dims = [1] : tensor<8xf32> -> tensor<5x8xf32>
  %c = kiln.broadcast_in_dim %a sizes(%n), dims = [0, 1] : tensor<5x8xf32> -> tensor<?x8xf32>
  return %c : tensor<?x8xf32>
}
