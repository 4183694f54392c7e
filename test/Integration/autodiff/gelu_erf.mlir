// The VJP rules of kiln.erf and kiln.gelu (both forms), first and second
// order, in f64 as rules_f64.mlir and second_order_rules.mlir check the
// other ops: kiln-run expands the vjps with -kiln-autodiff, and
// --check-reference compares them with the reference interpreter's central
// finite differences of the same functions (tolerances as there). Inputs are
// uniform in [-1, 1), scaled by 3 so that the tails are covered. Then f32,
// and the gradients of a small GELU network through the fusion pipeline.

// RUN: kiln-run %s --entry vjp_erf --random-inputs 901 --check-reference --rtol 1e-7 --atol 1e-9 | FileCheck %s --check-prefix=ERF
// RUN: kiln-run %s --entry d2_erf --random-inputs 902 --check-reference --rtol 1e-4 --atol 2e-5 | FileCheck %s --check-prefix=SO_ERF
// RUN: kiln-run %s --entry vjp_gelu --random-inputs 903 --check-reference --rtol 1e-7 --atol 1e-9 | FileCheck %s --check-prefix=GELU
// RUN: kiln-run %s --entry d2_gelu --random-inputs 904 --check-reference --rtol 1e-4 --atol 2e-5 | FileCheck %s --check-prefix=SO_GELU
// RUN: kiln-run %s --entry vjp_gelu_tanh --random-inputs 905 --check-reference --rtol 1e-7 --atol 1e-9 | FileCheck %s --check-prefix=GELU_TANH
// RUN: kiln-run %s --entry d2_gelu_tanh --random-inputs 906 --check-reference --rtol 1e-4 --atol 2e-5 | FileCheck %s --check-prefix=SO_GELU_TANH
// RUN: kiln-run %s --entry vjp_f32 --random-inputs 911 --check-reference | FileCheck %s --check-prefix=F32
// RUN: kiln-run %s --entry vjp_mlp --random-inputs 912 --check-reference | FileCheck %s --check-prefix=MLP

// ERF: reference: out0 tensor<3x4xf64> matches
// ERF-NOT: matches
func.func @f_erf(%x: tensor<3x4xf64>) -> tensor<3x4xf64> {
  %c = kiln.constant dense<3.0> : tensor<3x4xf64>
  %s = kiln.mul %x, %c : tensor<3x4xf64>
  %y = kiln.erf %s : tensor<3x4xf64>
  return %y : tensor<3x4xf64>
}
func.func @vjp_erf(%x: tensor<3x4xf64>, %ct: tensor<3x4xf64>) -> tensor<3x4xf64> {
  %g = kiln.vjp @f_erf(%x, %ct) wrt [0] : (tensor<3x4xf64>, tensor<3x4xf64>) -> tensor<3x4xf64>
  return %g : tensor<3x4xf64>
}
// SO_ERF:      reference: out0 tensor<3x4xf64> matches
// SO_ERF-NEXT: reference: out1 tensor<3x4xf64> matches
// SO_ERF-NOT:  matches
func.func @d2_erf(%x: tensor<3x4xf64>, %ct: tensor<3x4xf64>, %vx: tensor<3x4xf64>) -> (tensor<3x4xf64>, tensor<3x4xf64>) {
  %h:2 = kiln.vjp @vjp_erf(%x, %ct, %vx) wrt [0, 1] : (tensor<3x4xf64>, tensor<3x4xf64>, tensor<3x4xf64>) -> (tensor<3x4xf64>, tensor<3x4xf64>)
  return %h#0, %h#1 : tensor<3x4xf64>, tensor<3x4xf64>
}

// GELU: reference: out0 tensor<3x4xf64> matches
// GELU-NOT: matches
func.func @f_gelu(%x: tensor<3x4xf64>) -> tensor<3x4xf64> {
  %c = kiln.constant dense<3.0> : tensor<3x4xf64>
  %s = kiln.mul %x, %c : tensor<3x4xf64>
  %y = kiln.gelu %s : tensor<3x4xf64>
  return %y : tensor<3x4xf64>
}
func.func @vjp_gelu(%x: tensor<3x4xf64>, %ct: tensor<3x4xf64>) -> tensor<3x4xf64> {
  %g = kiln.vjp @f_gelu(%x, %ct) wrt [0] : (tensor<3x4xf64>, tensor<3x4xf64>) -> tensor<3x4xf64>
  return %g : tensor<3x4xf64>
}
// SO_GELU:      reference: out0 tensor<3x4xf64> matches
// SO_GELU-NEXT: reference: out1 tensor<3x4xf64> matches
// SO_GELU-NOT:  matches
func.func @d2_gelu(%x: tensor<3x4xf64>, %ct: tensor<3x4xf64>, %vx: tensor<3x4xf64>) -> (tensor<3x4xf64>, tensor<3x4xf64>) {
  %h:2 = kiln.vjp @vjp_gelu(%x, %ct, %vx) wrt [0, 1] : (tensor<3x4xf64>, tensor<3x4xf64>, tensor<3x4xf64>) -> (tensor<3x4xf64>, tensor<3x4xf64>)
  return %h#0, %h#1 : tensor<3x4xf64>, tensor<3x4xf64>
}

// GELU_TANH: reference: out0 tensor<3x4xf64> matches
// GELU_TANH-NOT: matches
func.func @f_gelu_tanh(%x: tensor<3x4xf64>) -> tensor<3x4xf64> {
  %c = kiln.constant dense<3.0> : tensor<3x4xf64>
  %s = kiln.mul %x, %c : tensor<3x4xf64>
  %y = kiln.gelu %s {approximate = true} : tensor<3x4xf64>
  return %y : tensor<3x4xf64>
}
func.func @vjp_gelu_tanh(%x: tensor<3x4xf64>, %ct: tensor<3x4xf64>) -> tensor<3x4xf64> {
  %g = kiln.vjp @f_gelu_tanh(%x, %ct) wrt [0] : (tensor<3x4xf64>, tensor<3x4xf64>) -> tensor<3x4xf64>
  return %g : tensor<3x4xf64>
}
// SO_GELU_TANH:      reference: out0 tensor<3x4xf64> matches
// SO_GELU_TANH-NEXT: reference: out1 tensor<3x4xf64> matches
// SO_GELU_TANH-NOT:  matches
func.func @d2_gelu_tanh(%x: tensor<3x4xf64>, %ct: tensor<3x4xf64>, %vx: tensor<3x4xf64>) -> (tensor<3x4xf64>, tensor<3x4xf64>) {
  %h:2 = kiln.vjp @vjp_gelu_tanh(%x, %ct, %vx) wrt [0, 1] : (tensor<3x4xf64>, tensor<3x4xf64>, tensor<3x4xf64>) -> (tensor<3x4xf64>, tensor<3x4xf64>)
  return %h#0, %h#1 : tensor<3x4xf64>, tensor<3x4xf64>
}

// The gradient of erf + gelu + gelu_tanh (one cotangent each).
// F32: reference: out0 tensor<16x33xf32> matches
// F32-NOT: matches
func.func @f_f32(%x: tensor<16x33xf32>) -> (tensor<16x33xf32>, tensor<16x33xf32>, tensor<16x33xf32>) {
  %c = kiln.constant dense<3.0> : tensor<16x33xf32>
  %s = kiln.mul %x, %c : tensor<16x33xf32>
  %0 = kiln.erf %s : tensor<16x33xf32>
  %1 = kiln.gelu %s : tensor<16x33xf32>
  %2 = kiln.gelu %s {approximate = true} : tensor<16x33xf32>
  return %0, %1, %2 : tensor<16x33xf32>, tensor<16x33xf32>, tensor<16x33xf32>
}
func.func @vjp_f32(%x: tensor<16x33xf32>, %c0: tensor<16x33xf32>, %c1: tensor<16x33xf32>, %c2: tensor<16x33xf32>) -> tensor<16x33xf32> {
  %g = kiln.vjp @f_f32(%x, %c0, %c1, %c2) wrt [0] : (tensor<16x33xf32>, tensor<16x33xf32>, tensor<16x33xf32>, tensor<16x33xf32>) -> tensor<16x33xf32>
  return %g : tensor<16x33xf32>
}

// A two-layer GELU network's loss and its gradients w.r.t. both weights.
// MLP-COUNT-2: matches
// MLP-NOT: matches
func.func @mlp(%x: tensor<8x16xf32>, %w1: tensor<16x32xf32>, %w2: tensor<32x4xf32>) -> tensor<f32> {
  %h = kiln.matmul %x, %w1 : tensor<8x16xf32>, tensor<16x32xf32> -> tensor<8x32xf32>
  %a = kiln.gelu %h : tensor<8x32xf32>
  %o = kiln.matmul %a, %w2 : tensor<8x32xf32>, tensor<32x4xf32> -> tensor<8x4xf32>
  %t = kiln.gelu %o {approximate = true} : tensor<8x4xf32>
  %l = kiln.reduce_sum %t, dims = [0, 1] : tensor<8x4xf32> -> tensor<f32>
  return %l : tensor<f32>
}
func.func @vjp_mlp(%x: tensor<8x16xf32>, %w1: tensor<16x32xf32>, %w2: tensor<32x4xf32>, %ct: tensor<f32>)
    -> (tensor<16x32xf32>, tensor<32x4xf32>) {
  %g:2 = kiln.vjp @mlp(%x, %w1, %w2, %ct) wrt [1, 2] : (tensor<8x16xf32>, tensor<16x32xf32>, tensor<32x4xf32>, tensor<f32>) -> (tensor<16x32xf32>, tensor<32x4xf32>)
  return %g#0, %g#1 : tensor<16x32xf32>, tensor<32x4xf32>
}
