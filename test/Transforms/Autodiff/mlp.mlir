// The seed's case: grad(y, x) of an MLP needs no weight-gradient matmul.
// Right after -kiln-autodiff, with prune on, the gradient w.r.t. x holds the
// forward matmuls it needs plus one input-gradient matmul per layer; w.r.t.
// every weight it adds one weight-gradient matmul per layer. The naive
// derivation (prune=false) builds the weight gradients even for grad(y, x).
// RUN: kiln-opt %s -kiln-autodiff | FileCheck %s --check-prefix=PRUNED
// RUN: kiln-opt %s -kiln-autodiff=prune=false | FileCheck %s --check-prefix=NAIVE
// RUN: kiln-opt %s -kiln-autodiff -canonicalize -cse -symbol-dce | FileCheck %s --check-prefix=CLEAN

func.func private @mlp(%x: tensor<8x4xf32>, %w1: tensor<16x4xf32>, %w2: tensor<16x16xf32>, %w3: tensor<1x16xf32>) -> tensor<8x1xf32> {
  %z1 = kiln.matmul %x, %w1 {transpose_b = true} : tensor<8x4xf32>, tensor<16x4xf32> -> tensor<8x16xf32>
  %h1 = kiln.tanh %z1 : tensor<8x16xf32>
  %z2 = kiln.matmul %h1, %w2 {transpose_b = true} : tensor<8x16xf32>, tensor<16x16xf32> -> tensor<8x16xf32>
  %h2 = kiln.tanh %z2 : tensor<8x16xf32>
  %y = kiln.matmul %h2, %w3 {transpose_b = true} : tensor<8x16xf32>, tensor<1x16xf32> -> tensor<8x1xf32>
  return %y : tensor<8x1xf32>
}

// Forward: z1, z2 (y itself is not needed). Backward: one matmul per layer
// for the input gradient.
// PRUNED-LABEL: func @grad_x
// PRUNED-COUNT-5: kiln.matmul
// PRUNED-NOT: kiln.matmul
// PRUNED: return
// NAIVE-LABEL: func @grad_x
// NAIVE-COUNT-9: kiln.matmul
// NAIVE-NOT: kiln.matmul
// NAIVE: return
// CLEAN-LABEL: func @grad_x
// CLEAN-COUNT-5: kiln.matmul
// CLEAN-NOT: kiln.matmul
// CLEAN: return
func.func @grad_x(%x: tensor<8x4xf32>, %w1: tensor<16x4xf32>, %w2: tensor<16x16xf32>, %w3: tensor<1x16xf32>, %ct: tensor<8x1xf32>) -> tensor<8x4xf32> {
  %g = kiln.vjp @mlp(%x, %w1, %w2, %w3, %ct) wrt [0] : (tensor<8x4xf32>, tensor<16x4xf32>, tensor<16x16xf32>, tensor<1x16xf32>, tensor<8x1xf32>) -> tensor<8x4xf32>
  return %g : tensor<8x4xf32>
}

// Every weight: 3 weight-gradient matmuls and 2 input-gradient matmuls
// (h2 and h1) on top of the 2 forward ones; x's own gradient is not asked.
// PRUNED-LABEL: func @grad_weights
// PRUNED-COUNT-7: kiln.matmul
// PRUNED-NOT: kiln.matmul
// PRUNED: return
// NAIVE-LABEL: func @grad_weights
// NAIVE-COUNT-9: kiln.matmul
// NAIVE-NOT: kiln.matmul
// NAIVE: return
func.func @grad_weights(%x: tensor<8x4xf32>, %w1: tensor<16x4xf32>, %w2: tensor<16x16xf32>, %w3: tensor<1x16xf32>, %ct: tensor<8x1xf32>) -> (tensor<16x4xf32>, tensor<16x16xf32>, tensor<1x16xf32>) {
  %g:3 = kiln.vjp @mlp(%x, %w1, %w2, %w3, %ct) wrt [1, 2, 3] : (tensor<8x4xf32>, tensor<16x4xf32>, tensor<16x16xf32>, tensor<1x16xf32>, tensor<8x1xf32>) -> (tensor<16x4xf32>, tensor<16x16xf32>, tensor<1x16xf32>)
  return %g#0, %g#1, %g#2 : tensor<16x4xf32>, tensor<16x16xf32>, tensor<1x16xf32>
}

// The input gradient takes transpose flags, never a transpose op: dz @ W.
// PRUNED-LABEL: func @input_gradient_flags
// PRUNED-NOT: kiln.transpose
// PRUNED: kiln.matmul %{{.*}}, %arg1 : tensor<8x16xf32>, tensor<16x4xf32> -> tensor<8x4xf32>
func.func @input_gradient_flags(%x: tensor<8x4xf32>, %w1: tensor<16x4xf32>, %w2: tensor<16x16xf32>, %w3: tensor<1x16xf32>, %ct: tensor<8x1xf32>) -> tensor<8x4xf32> {
  %g = kiln.vjp @mlp(%x, %w1, %w2, %w3, %ct) wrt [0] : (tensor<8x4xf32>, tensor<16x4xf32>, tensor<16x16xf32>, tensor<1x16xf32>, tensor<8x1xf32>) -> tensor<8x4xf32>
  return %g : tensor<8x4xf32>
}
