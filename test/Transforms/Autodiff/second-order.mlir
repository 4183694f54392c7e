// Gradients of gradients: the inner vjp expands first, then the outer one
// differentiates the inner derivative's ops.
// RUN: kiln-opt %s -kiln-autodiff -canonicalize -cse -symbol-dce -split-input-file | FileCheck %s

func.func private @mlp(%x: tensor<8x4xf32>, %w1: tensor<16x4xf32>, %w2: tensor<1x16xf32>) -> tensor<8x1xf32> {
  %z = kiln.matmul %x, %w1 {transpose_b = true} : tensor<8x4xf32>, tensor<16x4xf32> -> tensor<8x16xf32>
  %h = kiln.tanh %z : tensor<8x16xf32>
  %y = kiln.matmul %h, %w2 {transpose_b = true} : tensor<8x16xf32>, tensor<1x16xf32> -> tensor<8x1xf32>
  return %y : tensor<8x1xf32>
}
func.func private @grad(%x: tensor<8x4xf32>, %w1: tensor<16x4xf32>, %w2: tensor<1x16xf32>, %ct: tensor<8x1xf32>) -> tensor<8x4xf32> {
  %g = kiln.vjp @mlp(%x, %w1, %w2, %ct) wrt [0] : (tensor<8x4xf32>, tensor<16x4xf32>, tensor<1x16xf32>, tensor<8x1xf32>) -> tensor<8x4xf32>
  return %g : tensor<8x4xf32>
}

// No vjp is left, no helper function either, and no weight gradient is
// built at either order. Four matmuls: the forward z = x w1^T, the
// first-order dh = ct w2, and for the second order the adjoint of
// dx = dz w1 w.r.t. dz (v w1^T) and the way back to x (.. w1). The
// first-order dx itself is never computed: only its adjoint is needed.
// CHECK-LABEL: func @hessian_vector
// CHECK-NOT: kiln.vjp
// CHECK-COUNT-4: kiln.matmul
// CHECK-NOT: kiln.matmul
// CHECK: return
// CHECK-NOT: func.func
func.func @hessian_vector(%x: tensor<8x4xf32>, %w1: tensor<16x4xf32>, %w2: tensor<1x16xf32>, %ct: tensor<8x1xf32>, %v: tensor<8x4xf32>) -> tensor<8x4xf32> {
  %hv = kiln.vjp @grad(%x, %w1, %w2, %ct, %v) wrt [0] : (tensor<8x4xf32>, tensor<16x4xf32>, tensor<1x16xf32>, tensor<8x1xf32>, tensor<8x4xf32>) -> tensor<8x4xf32>
  return %hv : tensor<8x4xf32>
}

// -----

// With ReLU the first derivative depends on x only through the cmp mask,
// which has no derivative: the activity analysis proves the second
// derivative is zero, and no matmul is left.
func.func private @relu_mlp(%x: tensor<8x4xf32>, %w1: tensor<16x4xf32>, %w2: tensor<1x16xf32>) -> tensor<8x1xf32> {
  %z = kiln.matmul %x, %w1 {transpose_b = true} : tensor<8x4xf32>, tensor<16x4xf32> -> tensor<8x16xf32>
  %h = kiln.relu %z : tensor<8x16xf32>
  %y = kiln.matmul %h, %w2 {transpose_b = true} : tensor<8x16xf32>, tensor<1x16xf32> -> tensor<8x1xf32>
  return %y : tensor<8x1xf32>
}
func.func private @relu_grad(%x: tensor<8x4xf32>, %w1: tensor<16x4xf32>, %w2: tensor<1x16xf32>, %ct: tensor<8x1xf32>) -> tensor<8x4xf32> {
  %g = kiln.vjp @relu_mlp(%x, %w1, %w2, %ct) wrt [0] : (tensor<8x4xf32>, tensor<16x4xf32>, tensor<1x16xf32>, tensor<8x1xf32>) -> tensor<8x4xf32>
  return %g : tensor<8x4xf32>
}

// CHECK-LABEL: func @relu_second_derivative
// CHECK-NEXT: %[[Z:.+]] = kiln.constant dense<0.000000e+00> : tensor<8x4xf32>
// CHECK-NEXT: return %[[Z]]
func.func @relu_second_derivative(%x: tensor<8x4xf32>, %w1: tensor<16x4xf32>, %w2: tensor<1x16xf32>, %ct: tensor<8x1xf32>, %v: tensor<8x4xf32>) -> tensor<8x4xf32> {
  %hv = kiln.vjp @relu_grad(%x, %w1, %w2, %ct, %v) wrt [0] : (tensor<8x4xf32>, tensor<16x4xf32>, tensor<1x16xf32>, tensor<8x1xf32>, tensor<8x4xf32>) -> tensor<8x4xf32>
  return %hv : tensor<8x4xf32>
}

// -----

// Third order works the same way.
func.func private @cube(%x: tensor<4xf64>) -> tensor<4xf64> {
  %sq = kiln.mul %x, %x : tensor<4xf64>
  %c = kiln.mul %sq, %x : tensor<4xf64>
  return %c : tensor<4xf64>
}
func.func private @d1(%x: tensor<4xf64>, %ct: tensor<4xf64>) -> tensor<4xf64> {
  %g = kiln.vjp @cube(%x, %ct) wrt [0] : (tensor<4xf64>, tensor<4xf64>) -> tensor<4xf64>
  return %g : tensor<4xf64>
}
func.func private @d2(%x: tensor<4xf64>, %ct: tensor<4xf64>, %ct2: tensor<4xf64>) -> tensor<4xf64> {
  %g = kiln.vjp @d1(%x, %ct, %ct2) wrt [0] : (tensor<4xf64>, tensor<4xf64>, tensor<4xf64>) -> tensor<4xf64>
  return %g : tensor<4xf64>
}
// CHECK-LABEL: func @third
// CHECK-NOT: kiln.vjp
// CHECK: return
func.func @third(%x: tensor<4xf64>, %a: tensor<4xf64>, %b: tensor<4xf64>, %c: tensor<4xf64>) -> tensor<4xf64> {
  %g = kiln.vjp @d2(%x, %a, %b, %c) wrt [0] : (tensor<4xf64>, tensor<4xf64>, tensor<4xf64>, tensor<4xf64>) -> tensor<4xf64>
  return %g : tensor<4xf64>
}
