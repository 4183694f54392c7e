// The VJP rule of kiln.matmul in all four transpose combinations, 2-D and
// batched, in f64, against the reference interpreter's central finite
// differences. M, K, N = 3, 4, 5 (all distinct, so a misplaced transpose
// cannot type-check by accident) and B = 2. Each entry takes the vjp with
// respect to both operands and then to each alone (the other adjoint
// pruned). Tolerances as in rules_f64.mlir.

// RUN: kiln-run %s --entry vjp_matmul_nn --random-inputs 401 --check-reference --rtol 1e-7 --atol 1e-9 | FileCheck %s --check-prefix=MM_NN
// RUN: kiln-run %s --entry vjp_matmul_nt --random-inputs 402 --check-reference --rtol 1e-7 --atol 1e-9 | FileCheck %s --check-prefix=MM_NT
// RUN: kiln-run %s --entry vjp_matmul_tn --random-inputs 403 --check-reference --rtol 1e-7 --atol 1e-9 | FileCheck %s --check-prefix=MM_TN
// RUN: kiln-run %s --entry vjp_matmul_tt --random-inputs 404 --check-reference --rtol 1e-7 --atol 1e-9 | FileCheck %s --check-prefix=MM_TT
// RUN: kiln-run %s --entry vjp_matmul_batched_nn --random-inputs 405 --check-reference --rtol 1e-7 --atol 1e-9 | FileCheck %s --check-prefix=MM_BATCHED_NN
// RUN: kiln-run %s --entry vjp_matmul_batched_nt --random-inputs 406 --check-reference --rtol 1e-7 --atol 1e-9 | FileCheck %s --check-prefix=MM_BATCHED_NT
// RUN: kiln-run %s --entry vjp_matmul_batched_tn --random-inputs 407 --check-reference --rtol 1e-7 --atol 1e-9 | FileCheck %s --check-prefix=MM_BATCHED_TN
// RUN: kiln-run %s --entry vjp_matmul_batched_tt --random-inputs 408 --check-reference --rtol 1e-7 --atol 1e-9 | FileCheck %s --check-prefix=MM_BATCHED_TT
// RUN: kiln-run %s --entry vjp_matmul_same --random-inputs 409 --check-reference --rtol 1e-7 --atol 1e-9 | FileCheck %s --check-prefix=MM_SAME
// RUN: kiln-run %s --entry vjp_matmul_shapes --random-inputs 410 --check-reference --rtol 1e-7 --atol 1e-9 | FileCheck %s --check-prefix=MM_SHAPES
// RUN: kiln-run %s --entry vjp_matmul_chain --random-inputs 411 --check-reference --rtol 1e-7 --atol 1e-9 | FileCheck %s --check-prefix=MM_CHAIN

// MM_NN:      reference: out0 tensor<3x4xf64> matches
// MM_NN-NEXT: reference: out1 tensor<4x5xf64> matches
// MM_NN-NEXT: reference: out2 tensor<3x4xf64> matches
// MM_NN-NEXT: reference: out3 tensor<4x5xf64> matches
// MM_NN-NOT:  matches
func.func @matmul_nn(%a: tensor<3x4xf64>, %b: tensor<4x5xf64>) -> tensor<3x5xf64> {
  %c = kiln.matmul %a, %b : tensor<3x4xf64>, tensor<4x5xf64> -> tensor<3x5xf64>
  return %c : tensor<3x5xf64>
}
func.func @vjp_matmul_nn(%a: tensor<3x4xf64>, %b: tensor<4x5xf64>, %ct: tensor<3x5xf64>)
    -> (tensor<3x4xf64>, tensor<4x5xf64>, tensor<3x4xf64>, tensor<4x5xf64>) {
  %g:2 = kiln.vjp @matmul_nn(%a, %b, %ct) wrt [0, 1] : (tensor<3x4xf64>, tensor<4x5xf64>, tensor<3x5xf64>) -> (tensor<3x4xf64>, tensor<4x5xf64>)
  %ga = kiln.vjp @matmul_nn(%a, %b, %ct) wrt [0] : (tensor<3x4xf64>, tensor<4x5xf64>, tensor<3x5xf64>) -> tensor<3x4xf64>
  %gb = kiln.vjp @matmul_nn(%a, %b, %ct) wrt [1] : (tensor<3x4xf64>, tensor<4x5xf64>, tensor<3x5xf64>) -> tensor<4x5xf64>
  return %g#0, %g#1, %ga, %gb : tensor<3x4xf64>, tensor<4x5xf64>, tensor<3x4xf64>, tensor<4x5xf64>
}

// MM_NT:      reference: out0 tensor<3x4xf64> matches
// MM_NT-NEXT: reference: out1 tensor<5x4xf64> matches
// MM_NT-NEXT: reference: out2 tensor<3x4xf64> matches
// MM_NT-NEXT: reference: out3 tensor<5x4xf64> matches
// MM_NT-NOT:  matches
func.func @matmul_nt(%a: tensor<3x4xf64>, %b: tensor<5x4xf64>) -> tensor<3x5xf64> {
  %c = kiln.matmul %a, %b {transpose_b = true} : tensor<3x4xf64>, tensor<5x4xf64> -> tensor<3x5xf64>
  return %c : tensor<3x5xf64>
}
func.func @vjp_matmul_nt(%a: tensor<3x4xf64>, %b: tensor<5x4xf64>, %ct: tensor<3x5xf64>)
    -> (tensor<3x4xf64>, tensor<5x4xf64>, tensor<3x4xf64>, tensor<5x4xf64>) {
  %g:2 = kiln.vjp @matmul_nt(%a, %b, %ct) wrt [0, 1] : (tensor<3x4xf64>, tensor<5x4xf64>, tensor<3x5xf64>) -> (tensor<3x4xf64>, tensor<5x4xf64>)
  %ga = kiln.vjp @matmul_nt(%a, %b, %ct) wrt [0] : (tensor<3x4xf64>, tensor<5x4xf64>, tensor<3x5xf64>) -> tensor<3x4xf64>
  %gb = kiln.vjp @matmul_nt(%a, %b, %ct) wrt [1] : (tensor<3x4xf64>, tensor<5x4xf64>, tensor<3x5xf64>) -> tensor<5x4xf64>
  return %g#0, %g#1, %ga, %gb : tensor<3x4xf64>, tensor<5x4xf64>, tensor<3x4xf64>, tensor<5x4xf64>
}

// MM_TN:      reference: out0 tensor<4x3xf64> matches
// MM_TN-NEXT: reference: out1 tensor<4x5xf64> matches
// MM_TN-NEXT: reference: out2 tensor<4x3xf64> matches
// MM_TN-NEXT: reference: out3 tensor<4x5xf64> matches
// MM_TN-NOT:  matches
func.func @matmul_tn(%a: tensor<4x3xf64>, %b: tensor<4x5xf64>) -> tensor<3x5xf64> {
  %c = kiln.matmul %a, %b {transpose_a = true} : tensor<4x3xf64>, tensor<4x5xf64> -> tensor<3x5xf64>
  return %c : tensor<3x5xf64>
}
func.func @vjp_matmul_tn(%a: tensor<4x3xf64>, %b: tensor<4x5xf64>, %ct: tensor<3x5xf64>)
    -> (tensor<4x3xf64>, tensor<4x5xf64>, tensor<4x3xf64>, tensor<4x5xf64>) {
  %g:2 = kiln.vjp @matmul_tn(%a, %b, %ct) wrt [0, 1] : (tensor<4x3xf64>, tensor<4x5xf64>, tensor<3x5xf64>) -> (tensor<4x3xf64>, tensor<4x5xf64>)
  %ga = kiln.vjp @matmul_tn(%a, %b, %ct) wrt [0] : (tensor<4x3xf64>, tensor<4x5xf64>, tensor<3x5xf64>) -> tensor<4x3xf64>
  %gb = kiln.vjp @matmul_tn(%a, %b, %ct) wrt [1] : (tensor<4x3xf64>, tensor<4x5xf64>, tensor<3x5xf64>) -> tensor<4x5xf64>
  return %g#0, %g#1, %ga, %gb : tensor<4x3xf64>, tensor<4x5xf64>, tensor<4x3xf64>, tensor<4x5xf64>
}

// MM_TT:      reference: out0 tensor<4x3xf64> matches
// MM_TT-NEXT: reference: out1 tensor<5x4xf64> matches
// MM_TT-NEXT: reference: out2 tensor<4x3xf64> matches
// MM_TT-NEXT: reference: out3 tensor<5x4xf64> matches
// MM_TT-NOT:  matches
func.func @matmul_tt(%a: tensor<4x3xf64>, %b: tensor<5x4xf64>) -> tensor<3x5xf64> {
  %c = kiln.matmul %a, %b {transpose_a = true, transpose_b = true} : tensor<4x3xf64>, tensor<5x4xf64> -> tensor<3x5xf64>
  return %c : tensor<3x5xf64>
}
func.func @vjp_matmul_tt(%a: tensor<4x3xf64>, %b: tensor<5x4xf64>, %ct: tensor<3x5xf64>)
    -> (tensor<4x3xf64>, tensor<5x4xf64>, tensor<4x3xf64>, tensor<5x4xf64>) {
  %g:2 = kiln.vjp @matmul_tt(%a, %b, %ct) wrt [0, 1] : (tensor<4x3xf64>, tensor<5x4xf64>, tensor<3x5xf64>) -> (tensor<4x3xf64>, tensor<5x4xf64>)
  %ga = kiln.vjp @matmul_tt(%a, %b, %ct) wrt [0] : (tensor<4x3xf64>, tensor<5x4xf64>, tensor<3x5xf64>) -> tensor<4x3xf64>
  %gb = kiln.vjp @matmul_tt(%a, %b, %ct) wrt [1] : (tensor<4x3xf64>, tensor<5x4xf64>, tensor<3x5xf64>) -> tensor<5x4xf64>
  return %g#0, %g#1, %ga, %gb : tensor<4x3xf64>, tensor<5x4xf64>, tensor<4x3xf64>, tensor<5x4xf64>
}

// MM_BATCHED_NN:      reference: out0 tensor<2x3x4xf64> matches
// MM_BATCHED_NN-NEXT: reference: out1 tensor<2x4x5xf64> matches
// MM_BATCHED_NN-NEXT: reference: out2 tensor<2x3x4xf64> matches
// MM_BATCHED_NN-NEXT: reference: out3 tensor<2x4x5xf64> matches
// MM_BATCHED_NN-NOT:  matches
func.func @matmul_batched_nn(%a: tensor<2x3x4xf64>, %b: tensor<2x4x5xf64>) -> tensor<2x3x5xf64> {
  %c = kiln.matmul %a, %b : tensor<2x3x4xf64>, tensor<2x4x5xf64> -> tensor<2x3x5xf64>
  return %c : tensor<2x3x5xf64>
}
func.func @vjp_matmul_batched_nn(%a: tensor<2x3x4xf64>, %b: tensor<2x4x5xf64>, %ct: tensor<2x3x5xf64>)
    -> (tensor<2x3x4xf64>, tensor<2x4x5xf64>, tensor<2x3x4xf64>, tensor<2x4x5xf64>) {
  %g:2 = kiln.vjp @matmul_batched_nn(%a, %b, %ct) wrt [0, 1] : (tensor<2x3x4xf64>, tensor<2x4x5xf64>, tensor<2x3x5xf64>) -> (tensor<2x3x4xf64>, tensor<2x4x5xf64>)
  %ga = kiln.vjp @matmul_batched_nn(%a, %b, %ct) wrt [0] : (tensor<2x3x4xf64>, tensor<2x4x5xf64>, tensor<2x3x5xf64>) -> tensor<2x3x4xf64>
  %gb = kiln.vjp @matmul_batched_nn(%a, %b, %ct) wrt [1] : (tensor<2x3x4xf64>, tensor<2x4x5xf64>, tensor<2x3x5xf64>) -> tensor<2x4x5xf64>
  return %g#0, %g#1, %ga, %gb : tensor<2x3x4xf64>, tensor<2x4x5xf64>, tensor<2x3x4xf64>, tensor<2x4x5xf64>
}

// MM_BATCHED_NT:      reference: out0 tensor<2x3x4xf64> matches
// MM_BATCHED_NT-NEXT: reference: out1 tensor<2x5x4xf64> matches
// MM_BATCHED_NT-NEXT: reference: out2 tensor<2x3x4xf64> matches
// MM_BATCHED_NT-NEXT: reference: out3 tensor<2x5x4xf64> matches
// MM_BATCHED_NT-NOT:  matches
func.func @matmul_batched_nt(%a: tensor<2x3x4xf64>, %b: tensor<2x5x4xf64>) -> tensor<2x3x5xf64> {
  %c = kiln.matmul %a, %b {transpose_b = true} : tensor<2x3x4xf64>, tensor<2x5x4xf64> -> tensor<2x3x5xf64>
  return %c : tensor<2x3x5xf64>
}
func.func @vjp_matmul_batched_nt(%a: tensor<2x3x4xf64>, %b: tensor<2x5x4xf64>, %ct: tensor<2x3x5xf64>)
    -> (tensor<2x3x4xf64>, tensor<2x5x4xf64>, tensor<2x3x4xf64>, tensor<2x5x4xf64>) {
  %g:2 = kiln.vjp @matmul_batched_nt(%a, %b, %ct) wrt [0, 1] : (tensor<2x3x4xf64>, tensor<2x5x4xf64>, tensor<2x3x5xf64>) -> (tensor<2x3x4xf64>, tensor<2x5x4xf64>)
  %ga = kiln.vjp @matmul_batched_nt(%a, %b, %ct) wrt [0] : (tensor<2x3x4xf64>, tensor<2x5x4xf64>, tensor<2x3x5xf64>) -> tensor<2x3x4xf64>
  %gb = kiln.vjp @matmul_batched_nt(%a, %b, %ct) wrt [1] : (tensor<2x3x4xf64>, tensor<2x5x4xf64>, tensor<2x3x5xf64>) -> tensor<2x5x4xf64>
  return %g#0, %g#1, %ga, %gb : tensor<2x3x4xf64>, tensor<2x5x4xf64>, tensor<2x3x4xf64>, tensor<2x5x4xf64>
}

// MM_BATCHED_TN:      reference: out0 tensor<2x4x3xf64> matches
// MM_BATCHED_TN-NEXT: reference: out1 tensor<2x4x5xf64> matches
// MM_BATCHED_TN-NEXT: reference: out2 tensor<2x4x3xf64> matches
// MM_BATCHED_TN-NEXT: reference: out3 tensor<2x4x5xf64> matches
// MM_BATCHED_TN-NOT:  matches
func.func @matmul_batched_tn(%a: tensor<2x4x3xf64>, %b: tensor<2x4x5xf64>) -> tensor<2x3x5xf64> {
  %c = kiln.matmul %a, %b {transpose_a = true} : tensor<2x4x3xf64>, tensor<2x4x5xf64> -> tensor<2x3x5xf64>
  return %c : tensor<2x3x5xf64>
}
func.func @vjp_matmul_batched_tn(%a: tensor<2x4x3xf64>, %b: tensor<2x4x5xf64>, %ct: tensor<2x3x5xf64>)
    -> (tensor<2x4x3xf64>, tensor<2x4x5xf64>, tensor<2x4x3xf64>, tensor<2x4x5xf64>) {
  %g:2 = kiln.vjp @matmul_batched_tn(%a, %b, %ct) wrt [0, 1] : (tensor<2x4x3xf64>, tensor<2x4x5xf64>, tensor<2x3x5xf64>) -> (tensor<2x4x3xf64>, tensor<2x4x5xf64>)
  %ga = kiln.vjp @matmul_batched_tn(%a, %b, %ct) wrt [0] : (tensor<2x4x3xf64>, tensor<2x4x5xf64>, tensor<2x3x5xf64>) -> tensor<2x4x3xf64>
  %gb = kiln.vjp @matmul_batched_tn(%a, %b, %ct) wrt [1] : (tensor<2x4x3xf64>, tensor<2x4x5xf64>, tensor<2x3x5xf64>) -> tensor<2x4x5xf64>
  return %g#0, %g#1, %ga, %gb : tensor<2x4x3xf64>, tensor<2x4x5xf64>, tensor<2x4x3xf64>, tensor<2x4x5xf64>
}

// MM_BATCHED_TT:      reference: out0 tensor<2x4x3xf64> matches
// MM_BATCHED_TT-NEXT: reference: out1 tensor<2x5x4xf64> matches
// MM_BATCHED_TT-NEXT: reference: out2 tensor<2x4x3xf64> matches
// MM_BATCHED_TT-NEXT: reference: out3 tensor<2x5x4xf64> matches
// MM_BATCHED_TT-NOT:  matches
func.func @matmul_batched_tt(%a: tensor<2x4x3xf64>, %b: tensor<2x5x4xf64>) -> tensor<2x3x5xf64> {
  %c = kiln.matmul %a, %b {transpose_a = true, transpose_b = true} : tensor<2x4x3xf64>, tensor<2x5x4xf64> -> tensor<2x3x5xf64>
  return %c : tensor<2x3x5xf64>
}
func.func @vjp_matmul_batched_tt(%a: tensor<2x4x3xf64>, %b: tensor<2x5x4xf64>, %ct: tensor<2x3x5xf64>)
    -> (tensor<2x4x3xf64>, tensor<2x5x4xf64>, tensor<2x4x3xf64>, tensor<2x5x4xf64>) {
  %g:2 = kiln.vjp @matmul_batched_tt(%a, %b, %ct) wrt [0, 1] : (tensor<2x4x3xf64>, tensor<2x5x4xf64>, tensor<2x3x5xf64>) -> (tensor<2x4x3xf64>, tensor<2x5x4xf64>)
  %ga = kiln.vjp @matmul_batched_tt(%a, %b, %ct) wrt [0] : (tensor<2x4x3xf64>, tensor<2x5x4xf64>, tensor<2x3x5xf64>) -> tensor<2x4x3xf64>
  %gb = kiln.vjp @matmul_batched_tt(%a, %b, %ct) wrt [1] : (tensor<2x4x3xf64>, tensor<2x5x4xf64>, tensor<2x3x5xf64>) -> tensor<2x5x4xf64>
  return %g#0, %g#1, %ga, %gb : tensor<2x4x3xf64>, tensor<2x5x4xf64>, tensor<2x4x3xf64>, tensor<2x5x4xf64>
}

// One operand on both sides: x x, x^T x, x x^T, x^T x^T (both adjoints
// accumulate).
// MM_SAME:      reference: out0 tensor<4x4xf64> matches
// MM_SAME-NEXT: reference: out1 tensor<3x4xf64> matches
// MM_SAME-NEXT: reference: out2 tensor<3x4xf64> matches
// MM_SAME-NEXT: reference: out3 tensor<4x4xf64> matches
// MM_SAME-NOT:  matches
func.func @matmul_square(%x: tensor<4x4xf64>) -> tensor<4x4xf64> {
  %c = kiln.matmul %x, %x : tensor<4x4xf64>, tensor<4x4xf64> -> tensor<4x4xf64>
  return %c : tensor<4x4xf64>
}
func.func @matmul_gram(%x: tensor<3x4xf64>) -> tensor<4x4xf64> {
  %c = kiln.matmul %x, %x {transpose_a = true} : tensor<3x4xf64>, tensor<3x4xf64> -> tensor<4x4xf64>
  return %c : tensor<4x4xf64>
}
func.func @matmul_outer_gram(%x: tensor<3x4xf64>) -> tensor<3x3xf64> {
  %c = kiln.matmul %x, %x {transpose_b = true} : tensor<3x4xf64>, tensor<3x4xf64> -> tensor<3x3xf64>
  return %c : tensor<3x3xf64>
}
func.func @matmul_square_tt(%x: tensor<4x4xf64>) -> tensor<4x4xf64> {
  %c = kiln.matmul %x, %x {transpose_a = true, transpose_b = true} : tensor<4x4xf64>, tensor<4x4xf64> -> tensor<4x4xf64>
  return %c : tensor<4x4xf64>
}
func.func @vjp_matmul_same(%sq: tensor<4x4xf64>, %x: tensor<3x4xf64>,
                           %c0: tensor<4x4xf64>, %c1: tensor<4x4xf64>,
                           %c2: tensor<3x3xf64>, %c3: tensor<4x4xf64>)
    -> (tensor<4x4xf64>, tensor<3x4xf64>, tensor<3x4xf64>, tensor<4x4xf64>) {
  %g0 = kiln.vjp @matmul_square(%sq, %c0) wrt [0] : (tensor<4x4xf64>, tensor<4x4xf64>) -> tensor<4x4xf64>
  %g1 = kiln.vjp @matmul_gram(%x, %c1) wrt [0] : (tensor<3x4xf64>, tensor<4x4xf64>) -> tensor<3x4xf64>
  %g2 = kiln.vjp @matmul_outer_gram(%x, %c2) wrt [0] : (tensor<3x4xf64>, tensor<3x3xf64>) -> tensor<3x4xf64>
  %g3 = kiln.vjp @matmul_square_tt(%sq, %c3) wrt [0] : (tensor<4x4xf64>, tensor<4x4xf64>) -> tensor<4x4xf64>
  return %g0, %g1, %g2, %g3 : tensor<4x4xf64>, tensor<3x4xf64>, tensor<3x4xf64>, tensor<4x4xf64>
}

// Degenerate shapes: a matrix-vector product (N = 1), an outer product
// (K = 1), a dot product to 1x1 (M = N = 1), and a batch of one.
// MM_SHAPES:      reference: out0 tensor<3x4xf64> matches
// MM_SHAPES-NEXT: reference: out1 tensor<4x1xf64> matches
// MM_SHAPES-NEXT: reference: out2 tensor<3x1xf64> matches
// MM_SHAPES-NEXT: reference: out3 tensor<1x5xf64> matches
// MM_SHAPES-NEXT: reference: out4 tensor<4x1xf64> matches
// MM_SHAPES-NEXT: reference: out5 tensor<1x4xf64> matches
// MM_SHAPES-NEXT: reference: out6 tensor<1x3x4xf64> matches
// MM_SHAPES-NEXT: reference: out7 tensor<1x5x4xf64> matches
// MM_SHAPES-NOT:  matches
func.func @matvec(%a: tensor<3x4xf64>, %v: tensor<4x1xf64>) -> tensor<3x1xf64> {
  %c = kiln.matmul %a, %v : tensor<3x4xf64>, tensor<4x1xf64> -> tensor<3x1xf64>
  return %c : tensor<3x1xf64>
}
func.func @outer(%u: tensor<3x1xf64>, %w: tensor<1x5xf64>) -> tensor<3x5xf64> {
  %c = kiln.matmul %u, %w : tensor<3x1xf64>, tensor<1x5xf64> -> tensor<3x5xf64>
  return %c : tensor<3x5xf64>
}
func.func @dot(%u: tensor<4x1xf64>, %w: tensor<1x4xf64>) -> tensor<1x1xf64> {
  %c = kiln.matmul %u, %w {transpose_a = true, transpose_b = true} : tensor<4x1xf64>, tensor<1x4xf64> -> tensor<1x1xf64>
  return %c : tensor<1x1xf64>
}
func.func @batch_of_one(%a: tensor<1x3x4xf64>, %b: tensor<1x5x4xf64>) -> tensor<1x3x5xf64> {
  %c = kiln.matmul %a, %b {transpose_b = true} : tensor<1x3x4xf64>, tensor<1x5x4xf64> -> tensor<1x3x5xf64>
  return %c : tensor<1x3x5xf64>
}
func.func @vjp_matmul_shapes(%a: tensor<3x4xf64>, %v: tensor<4x1xf64>,
                             %u: tensor<3x1xf64>, %w: tensor<1x5xf64>,
                             %r: tensor<1x4xf64>, %a3: tensor<1x3x4xf64>,
                             %b3: tensor<1x5x4xf64>, %c0: tensor<3x1xf64>,
                             %c1: tensor<3x5xf64>, %c2: tensor<1x1xf64>,
                             %c3: tensor<1x3x5xf64>)
    -> (tensor<3x4xf64>, tensor<4x1xf64>, tensor<3x1xf64>, tensor<1x5xf64>,
        tensor<4x1xf64>, tensor<1x4xf64>, tensor<1x3x4xf64>,
        tensor<1x5x4xf64>) {
  %g0:2 = kiln.vjp @matvec(%a, %v, %c0) wrt [0, 1] : (tensor<3x4xf64>, tensor<4x1xf64>, tensor<3x1xf64>) -> (tensor<3x4xf64>, tensor<4x1xf64>)
  %g1:2 = kiln.vjp @outer(%u, %w, %c1) wrt [0, 1] : (tensor<3x1xf64>, tensor<1x5xf64>, tensor<3x5xf64>) -> (tensor<3x1xf64>, tensor<1x5xf64>)
  %g2:2 = kiln.vjp @dot(%v, %r, %c2) wrt [0, 1] : (tensor<4x1xf64>, tensor<1x4xf64>, tensor<1x1xf64>) -> (tensor<4x1xf64>, tensor<1x4xf64>)
  %g3:2 = kiln.vjp @batch_of_one(%a3, %b3, %c3) wrt [0, 1] : (tensor<1x3x4xf64>, tensor<1x5x4xf64>, tensor<1x3x5xf64>) -> (tensor<1x3x4xf64>, tensor<1x5x4xf64>)
  return %g0#0, %g0#1, %g1#0, %g1#1, %g2#0, %g2#1, %g3#0, %g3#1
      : tensor<3x4xf64>, tensor<4x1xf64>, tensor<3x1xf64>, tensor<1x5xf64>,
        tensor<4x1xf64>, tensor<1x4xf64>, tensor<1x3x4xf64>,
        tensor<1x5x4xf64>
}

// A chain with a nonlinearity between: tanh(A B^T)^T C, transposed flags on
// both products, all three operands.
// MM_CHAIN:      reference: out0 tensor<3x4xf64> matches
// MM_CHAIN-NEXT: reference: out1 tensor<5x4xf64> matches
// MM_CHAIN-NEXT: reference: out2 tensor<3x2xf64> matches
// MM_CHAIN-NOT:  matches
func.func @matmul_chain(%a: tensor<3x4xf64>, %b: tensor<5x4xf64>, %c: tensor<3x2xf64>) -> tensor<5x2xf64> {
  %ab = kiln.matmul %a, %b {transpose_b = true} : tensor<3x4xf64>, tensor<5x4xf64> -> tensor<3x5xf64>
  %t = kiln.tanh %ab : tensor<3x5xf64>
  %y = kiln.matmul %t, %c {transpose_a = true} : tensor<3x5xf64>, tensor<3x2xf64> -> tensor<5x2xf64>
  return %y : tensor<5x2xf64>
}
func.func @vjp_matmul_chain(%a: tensor<3x4xf64>, %b: tensor<5x4xf64>, %c: tensor<3x2xf64>, %ct: tensor<5x2xf64>)
    -> (tensor<3x4xf64>, tensor<5x4xf64>, tensor<3x2xf64>) {
  %g:3 = kiln.vjp @matmul_chain(%a, %b, %c, %ct) wrt [0, 1, 2] : (tensor<3x4xf64>, tensor<5x4xf64>, tensor<3x2xf64>, tensor<5x2xf64>) -> (tensor<3x4xf64>, tensor<5x4xf64>, tensor<3x2xf64>)
  return %g#0, %g#1, %g#2 : tensor<3x4xf64>, tensor<5x4xf64>, tensor<3x2xf64>
}
