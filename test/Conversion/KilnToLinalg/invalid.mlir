// RUN: kiln-opt %s -kiln-lower-to-linalg -split-input-file -verify-diagnostics

func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
func.func @unexpanded_vjp(%x: tensor<4xf32>, %ct: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'kiln.vjp' op must be expanded by -kiln-autodiff before lowering}}
  %g = kiln.vjp @f(%x, %ct) wrt [0] : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %g : tensor<4xf32>
}

// -----

func.func @ambiguous_reshape(%x: tensor<?x4xf32>) -> tensor<?x?xf32> {
  // expected-error @+1 {{'kiln.reshape' op with more than one dynamic result dim cannot be lowered: their sizes are ambiguous}}
  %r = kiln.reshape %x : tensor<?x4xf32> -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}
