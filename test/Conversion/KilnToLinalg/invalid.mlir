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

// -----

func.func @collective_f16(%x: tensor<4xf16>) -> tensor<4xf16> {
  // expected-error @+1 {{'kiln.all_reduce' op on 'f16' cannot run: collectives take f32 or f64}}
  %0 = kiln.all_reduce sum, %x group = 0 : tensor<4xf16>
  return %0 : tensor<4xf16>
}

// -----

func.func @collective_dynamic_dim(%x: tensor<?xf32>) -> tensor<?xf32> {
  // expected-error @+1 {{'kiln.all_gather' op along dynamic dim 0 cannot run: its size over the ranks is unknown}}
  %0 = kiln.all_gather %x dim = 0 group = 0 : tensor<?xf32> -> tensor<?xf32>
  return %0 : tensor<?xf32>
}
