// RUN: kiln-opt %s -kiln-outline-kernels -verify-diagnostics

// Kernels are outlined from buffers: linalg on tensors is refused.
#id = affine_map<(d0) -> (d0)>
func.func @on_tensors(%x: tensor<8xf32>, %y: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{on tensors: outline kernels after bufferization}}
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%x : tensor<8xf32>) outs(%y : tensor<8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %e = math.exp %in : f32
    linalg.yield %e : f32
  } -> tensor<8xf32>
  return %r : tensor<8xf32>
}
