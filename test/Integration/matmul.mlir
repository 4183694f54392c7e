// kiln.matmul: 2-D with every combination of transpose_a / transpose_b and
// batched 3-D, compiled for the CPU and compared with the reference
// interpreter (which accumulates in double). Products with K >= 64 get
// --atol 1e-4 (their elements are of order 1-10) so that a different
// accumulation order (blocking, FMA, a BLAS) does not fail an element near 0.

// RUN: kiln-run %s --entry matmul_2d --random-inputs 61 --check-reference --atol 1e-4 | FileCheck %s --check-prefix=M2D
// RUN: kiln-run %s --entry matmul_small --random-inputs 62 --check-reference | FileCheck %s --check-prefix=SMALL
// RUN: kiln-run %s --entry matmul_batched --random-inputs 63 --check-reference --atol 1e-4 | FileCheck %s --check-prefix=BATCHED
// Repeated runs start every accumulator afresh.
// RUN: kiln-run %s --entry matmul_batched --random-inputs 63 --repeat 3 --check-reference --atol 1e-4 | FileCheck %s --check-prefix=BATCHED
// RUN: kiln-run %s --entry matmul_epilogue --random-inputs 64 --check-reference --atol 1e-4 | FileCheck %s --check-prefix=EPI
// RUN: kiln-run %s --entry matmul_f64 --random-inputs 65 --check-reference | FileCheck %s --check-prefix=F64
// RUN: kiln-run %s --entry matmul_f16 --random-inputs 66 --check-reference | FileCheck %s --check-prefix=F16
// RUN: kiln-run %s --entry split_heads_bf16 --random-inputs 68 --check-reference | FileCheck %s --check-prefix=HEADS
// RUN: kiln-run %s --entry matmul_generic --random-inputs 67 --check-reference | FileCheck %s --check-prefix=GENERIC
// Known values on constants (no randomness).
// RUN: kiln-run %s --entry matmul_known --print --check-reference | FileCheck %s --check-prefix=KNOWN

// [64,128] x [128,96] written four ways: a, b, a^T and b^T are all
// arguments, so every variant computes the same kind of product.
// M2D: reference: out0 tensor<64x96xf32> matches
// M2D: reference: out1 tensor<64x96xf32> matches
// M2D: reference: out2 tensor<64x96xf32> matches
// M2D: reference: out3 tensor<64x96xf32> matches
// M2D-NOT: matches
func.func @matmul_2d(%a: tensor<64x128xf32>, %b: tensor<128x96xf32>,
                     %at: tensor<128x64xf32>, %bt: tensor<96x128xf32>)
    -> (tensor<64x96xf32>, tensor<64x96xf32>, tensor<64x96xf32>,
        tensor<64x96xf32>) {
  %0 = kiln.matmul %a, %b : tensor<64x128xf32>, tensor<128x96xf32> -> tensor<64x96xf32>
  %1 = kiln.matmul %at, %b {transpose_a = true} : tensor<128x64xf32>, tensor<128x96xf32> -> tensor<64x96xf32>
  %2 = kiln.matmul %a, %bt {transpose_b = true} : tensor<64x128xf32>, tensor<96x128xf32> -> tensor<64x96xf32>
  %3 = kiln.matmul %at, %bt {transpose_a = true, transpose_b = true} : tensor<128x64xf32>, tensor<96x128xf32> -> tensor<64x96xf32>
  return %0, %1, %2, %3 : tensor<64x96xf32>, tensor<64x96xf32>,
      tensor<64x96xf32>, tensor<64x96xf32>
}

// Odd sizes, vectors as matrices, K = 1, and the transposes on non-square
// operands; explicit transpose_* = false is the default.
// SMALL: reference: out0 tensor<3x2xf32> matches
// SMALL: reference: out1 tensor<1x7xf32> matches
// SMALL: reference: out2 tensor<7x1xf32> matches
// SMALL: reference: out3 tensor<5x6xf32> matches
// SMALL: reference: out4 tensor<2x2xf32> matches
// SMALL: reference: out5 tensor<2x3xf32> matches
// SMALL: reference: out6 tensor<3x3xf32> matches
// SMALL-NOT: matches
func.func @matmul_small(%a: tensor<3x5xf32>, %b: tensor<5x2xf32>,
                        %r: tensor<1x9xf32>, %w: tensor<9x7xf32>,
                        %c: tensor<7x9xf32>, %v: tensor<9x1xf32>,
                        %p: tensor<5x1xf32>, %q: tensor<1x6xf32>,
                        %e: tensor<2x5xf32>)
    -> (tensor<3x2xf32>, tensor<1x7xf32>, tensor<7x1xf32>, tensor<5x6xf32>,
        tensor<2x2xf32>, tensor<2x3xf32>, tensor<3x3xf32>) {
  %0 = kiln.matmul %a, %b : tensor<3x5xf32>, tensor<5x2xf32> -> tensor<3x2xf32>
  %1 = kiln.matmul %r, %w : tensor<1x9xf32>, tensor<9x7xf32> -> tensor<1x7xf32>
  %2 = kiln.matmul %c, %v : tensor<7x9xf32>, tensor<9x1xf32> -> tensor<7x1xf32>
  %3 = kiln.matmul %p, %q : tensor<5x1xf32>, tensor<1x6xf32> -> tensor<5x6xf32>
  %4 = kiln.matmul %e, %b {transpose_a = false, transpose_b = false} : tensor<2x5xf32>, tensor<5x2xf32> -> tensor<2x2xf32>
  // (a b)^T = b^T a^T
  %5 = kiln.matmul %b, %a {transpose_a = true, transpose_b = true} : tensor<5x2xf32>, tensor<3x5xf32> -> tensor<2x3xf32>
  // a a^T
  %6 = kiln.matmul %a, %a {transpose_b = true} : tensor<3x5xf32>, tensor<3x5xf32> -> tensor<3x3xf32>
  return %0, %1, %2, %3, %4, %5, %6 : tensor<3x2xf32>, tensor<1x7xf32>,
      tensor<7x1xf32>, tensor<5x6xf32>, tensor<2x2xf32>, tensor<2x3xf32>,
      tensor<3x3xf32>
}

// Batched [B,M,K] x [B,K,N] with every transpose combination, and the
// attention pattern softmax-free: scores = q k^T, out = scores v.
// BATCHED: reference: out0 tensor<8x32x48xf32> matches
// BATCHED: reference: out1 tensor<8x32x48xf32> matches
// BATCHED: reference: out2 tensor<8x32x48xf32> matches
// BATCHED: reference: out3 tensor<8x32x48xf32> matches
// BATCHED: reference: out4 tensor<3x5x4xf32> matches
// BATCHED-NOT: matches
func.func @matmul_batched(%a: tensor<8x32x64xf32>, %b: tensor<8x64x48xf32>,
                          %at: tensor<8x64x32xf32>, %bt: tensor<8x48x64xf32>,
                          %q: tensor<3x5x7xf32>, %k: tensor<3x6x7xf32>,
                          %v: tensor<3x6x4xf32>)
    -> (tensor<8x32x48xf32>, tensor<8x32x48xf32>, tensor<8x32x48xf32>,
        tensor<8x32x48xf32>, tensor<3x5x4xf32>) {
  %0 = kiln.matmul %a, %b : tensor<8x32x64xf32>, tensor<8x64x48xf32> -> tensor<8x32x48xf32>
  %1 = kiln.matmul %at, %b {transpose_a = true} : tensor<8x64x32xf32>, tensor<8x64x48xf32> -> tensor<8x32x48xf32>
  %2 = kiln.matmul %a, %bt {transpose_b = true} : tensor<8x32x64xf32>, tensor<8x48x64xf32> -> tensor<8x32x48xf32>
  %3 = kiln.matmul %at, %bt {transpose_a = true, transpose_b = true} : tensor<8x64x32xf32>, tensor<8x48x64xf32> -> tensor<8x32x48xf32>
  %s = kiln.matmul %q, %k {transpose_b = true} : tensor<3x5x7xf32>, tensor<3x6x7xf32> -> tensor<3x5x6xf32>
  %4 = kiln.matmul %s, %v : tensor<3x5x6xf32>, tensor<3x6x4xf32> -> tensor<3x5x4xf32>
  return %0, %1, %2, %3, %4 : tensor<8x32x48xf32>, tensor<8x32x48xf32>,
      tensor<8x32x48xf32>, tensor<8x32x48xf32>, tensor<3x5x4xf32>
}

// A linear layer: relu(x w^T + b), and a matmul fed by elementwise ops and
// a transpose.
// EPI: reference: out0 tensor<64x256xf32> matches
// EPI: reference: out1 tensor<256x256xf32> matches
// EPI-NOT: matches
func.func @matmul_epilogue(%x: tensor<64x100xf32>, %w: tensor<256x100xf32>,
                           %b: tensor<256xf32>)
    -> (tensor<64x256xf32>, tensor<256x256xf32>) {
  %m = kiln.matmul %x, %w {transpose_b = true} : tensor<64x100xf32>, tensor<256x100xf32> -> tensor<64x256xf32>
  %bb = kiln.broadcast_in_dim %b, dims = [1] : tensor<256xf32> -> tensor<64x256xf32>
  %s = kiln.add %m, %bb : tensor<64x256xf32>
  %0 = kiln.relu %s : tensor<64x256xf32>
  %t = kiln.tanh %w : tensor<256x100xf32>
  %tt = kiln.transpose %t, perm = [1, 0] : tensor<256x100xf32> -> tensor<100x256xf32>
  %1 = kiln.matmul %t, %tt : tensor<256x100xf32>, tensor<100x256xf32> -> tensor<256x256xf32>
  return %0, %1 : tensor<64x256xf32>, tensor<256x256xf32>
}

// F64: reference: out0 tensor<33x65xf64> matches
// F64: reference: out1 tensor<33x65xf64> matches
// F64: reference: out2 tensor<4x33x65xf64> matches
// F64-NOT: matches
func.func @matmul_f64(%a: tensor<33x47xf64>, %b: tensor<47x65xf64>,
                      %bt: tensor<65x47xf64>, %c: tensor<4x47x33xf64>,
                      %d: tensor<4x47x65xf64>)
    -> (tensor<33x65xf64>, tensor<33x65xf64>, tensor<4x33x65xf64>) {
  %0 = kiln.matmul %a, %b : tensor<33x47xf64>, tensor<47x65xf64> -> tensor<33x65xf64>
  %1 = kiln.matmul %a, %bt {transpose_b = true} : tensor<33x47xf64>, tensor<65x47xf64> -> tensor<33x65xf64>
  %2 = kiln.matmul %c, %d {transpose_a = true} : tensor<4x47x33xf64>, tensor<4x47x65xf64> -> tensor<4x33x65xf64>
  return %0, %1, %2 : tensor<33x65xf64>, tensor<33x65xf64>, tensor<4x33x65xf64>
}

// f16 / bf16 storage, computed in f32.
// F16: reference: out0 tensor<16x24xf16> matches
// F16: reference: out1 tensor<2x16x24xbf16> matches
// F16: reference: out2 tensor<16x24xbf16> matches
// F16-NOT: matches
func.func @matmul_f16(%a: tensor<16x32xf16>, %b: tensor<32x24xf16>,
                      %c: tensor<2x16x32xbf16>, %d: tensor<2x24x32xbf16>,
                      %e: tensor<32x16xbf16>, %f: tensor<24x32xbf16>)
    -> (tensor<16x24xf16>, tensor<2x16x24xbf16>, tensor<16x24xbf16>) {
  %0 = kiln.matmul %a, %b : tensor<16x32xf16>, tensor<32x24xf16> -> tensor<16x24xf16>
  %1 = kiln.matmul %c, %d {transpose_b = true} : tensor<2x16x32xbf16>, tensor<2x24x32xbf16> -> tensor<2x16x24xbf16>
  %2 = kiln.matmul %e, %f {transpose_a = true, transpose_b = true} : tensor<32x16xbf16>, tensor<24x32xbf16> -> tensor<16x24xbf16>
  return %0, %1, %2 : tensor<16x24xf16>, tensor<2x16x24xbf16>, tensor<16x24xbf16>
}

// Attention's head split in bf16: the batched product reads both operands
// through strided 4-D views (two batch loops, the head interleaved in each
// row), which the CPU's BLAS path widens to f32.
// HEADS: reference: out0 tensor<4x4x4xbf16> matches
// HEADS-NOT: matches
func.func @split_heads_bf16(%q: tensor<8x8xbf16>, %k: tensor<8x8xbf16>) -> tensor<4x4x4xbf16> {
  %q4 = kiln.reshape %q : tensor<8x8xbf16> -> tensor<2x4x2x4xbf16>
  %qt = kiln.transpose %q4, perm = [0, 2, 1, 3] : tensor<2x4x2x4xbf16> -> tensor<2x2x4x4xbf16>
  %q3 = kiln.reshape %qt : tensor<2x2x4x4xbf16> -> tensor<4x4x4xbf16>
  %k4 = kiln.reshape %k : tensor<8x8xbf16> -> tensor<2x4x2x4xbf16>
  %kt = kiln.transpose %k4, perm = [0, 2, 1, 3] : tensor<2x4x2x4xbf16> -> tensor<2x2x4x4xbf16>
  %k3 = kiln.reshape %kt : tensor<2x2x4x4xbf16> -> tensor<4x4x4xbf16>
  %s = kiln.matmul %q3, %k3 {transpose_b = true} : tensor<4x4x4xbf16>, tensor<4x4x4xbf16> -> tensor<4x4x4xbf16>
  return %s : tensor<4x4x4xbf16>
}

// The generic-form example of docs/Dialect.md.
// GENERIC: reference: out0 tensor<4x16xf32> matches
// GENERIC: reference: out1 tensor<8x8xf32> matches
// GENERIC-NOT: matches
func.func @matmul_generic(%x: tensor<4x8xf32>, %w: tensor<16x8xf32>)
    -> (tensor<4x16xf32>, tensor<8x8xf32>) {
  %m = "kiln.matmul"(%x, %w) <{transpose_b = true}> : (tensor<4x8xf32>, tensor<16x8xf32>) -> tensor<4x16xf32>
  %g = "kiln.matmul"(%x, %x) <{transpose_a = true, transpose_b = false}> : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<8x8xf32>
  return %m, %g : tensor<4x16xf32>, tensor<8x8xf32>
}

// Hand-computed values: A = [[1, 2], [3, 4]], B = [[5, 6], [7, 8]].
// A B = [[19, 22], [43, 50]], A^T B = [[26, 30], [38, 44]],
// A B^T = [[17, 23], [39, 53]], A^T B^T = [[23, 31], [34, 46]].
// KNOWN:      out0: tensor<2x2xf32>
// KNOWN-NEXT: {{\[\[}}19, 22],
// KNOWN-NEXT:  [43, 50]]
// KNOWN-NEXT: out1: tensor<2x2xf32>
// KNOWN-NEXT: {{\[\[}}26, 30],
// KNOWN-NEXT:  [38, 44]]
// KNOWN-NEXT: out2: tensor<2x2xf32>
// KNOWN-NEXT: {{\[\[}}17, 23],
// KNOWN-NEXT:  [39, 53]]
// KNOWN-NEXT: out3: tensor<2x2xf32>
// KNOWN-NEXT: {{\[\[}}23, 31],
// KNOWN-NEXT:  [34, 46]]
// KNOWN-NEXT: out4: tensor<2x1x1xf32>
// KNOWN-NEXT: {{\[\[\[}}11]],
// KNOWN-NEXT:  {{\[\[}}-1]]]
// KNOWN-NEXT: out5: tensor<2x3xf64>
// KNOWN-NEXT: {{\[\[}}0.5, 1, 1.5],
// KNOWN-NEXT:  [1, 2, 3]]
// KNOWN-COUNT-6: matches
func.func @matmul_known()
    -> (tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>,
        tensor<2x1x1xf32>, tensor<2x3xf64>) {
  %a = kiln.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %b = kiln.constant dense<[[5.0, 6.0], [7.0, 8.0]]> : tensor<2x2xf32>
  %0 = kiln.matmul %a, %b : tensor<2x2xf32>, tensor<2x2xf32> -> tensor<2x2xf32>
  %1 = kiln.matmul %a, %b {transpose_a = true} : tensor<2x2xf32>, tensor<2x2xf32> -> tensor<2x2xf32>
  %2 = kiln.matmul %a, %b {transpose_b = true} : tensor<2x2xf32>, tensor<2x2xf32> -> tensor<2x2xf32>
  %3 = kiln.matmul %a, %b {transpose_a = true, transpose_b = true} : tensor<2x2xf32>, tensor<2x2xf32> -> tensor<2x2xf32>
  // Batch 0: [1 2] . [3 4] = 11; batch 1: [1 -1] . [2 3] = -1.
  %p = kiln.constant dense<[[[1.0, 2.0]], [[1.0, -1.0]]]> : tensor<2x1x2xf32>
  %q = kiln.constant dense<[[[3.0], [4.0]], [[2.0], [3.0]]]> : tensor<2x2x1xf32>
  %4 = kiln.matmul %p, %q : tensor<2x1x2xf32>, tensor<2x2x1xf32> -> tensor<2x1x1xf32>
  // An outer product in f64.
  %u = kiln.constant dense<[[0.5], [1.0]]> : tensor<2x1xf64>
  %v = kiln.constant dense<[[1.0, 2.0, 3.0]]> : tensor<1x3xf64>
  %5 = kiln.matmul %u, %v : tensor<2x1xf64>, tensor<1x3xf64> -> tensor<2x3xf64>
  return %0, %1, %2, %3, %4, %5 : tensor<2x2xf32>, tensor<2x2xf32>,
      tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x1x1xf32>, tensor<2x3xf64>
}
