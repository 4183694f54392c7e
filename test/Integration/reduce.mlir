// kiln.reduce_sum and kiln.reduce_max over leading, trailing, interior,
// several and all dims, compiled for the CPU and compared with the reference
// interpreter (which sums in double). Sums of thousands of f32 values get an
// absolute tolerance (--atol) on the scale of f32 rounding of their partial
// sums, so that a different summation order does not fail a sum near zero.

// RUN: kiln-run %s --entry reduce_2d --random-inputs 51 --check-reference --atol 1e-3 | FileCheck %s --check-prefix=R2D
// Repeated runs start every accumulator afresh.
// RUN: kiln-run %s --entry reduce_2d --random-inputs 51 --repeat 3 --check-reference --atol 1e-3 | FileCheck %s --check-prefix=R2D
// RUN: kiln-run %s --entry reduce_3d --random-inputs 52 --check-reference --atol 1e-3 | FileCheck %s --check-prefix=R3D
// RUN: kiln-run %s --entry reduce_small --random-inputs 53 --check-reference | FileCheck %s --check-prefix=SMALL
// RUN: kiln-run %s --entry reduce_epilogue --random-inputs 54 --check-reference | FileCheck %s --check-prefix=EPI
// RUN: kiln-run %s --entry softmax --random-inputs 55 --check-reference | FileCheck %s --check-prefix=SOFTMAX
// RUN: kiln-run %s --entry reduce_f64 --random-inputs 56 --check-reference | FileCheck %s --check-prefix=F64
// RUN: kiln-run %s --entry reduce_f16 --random-inputs 57 --check-reference | FileCheck %s --check-prefix=F16
// RUN: kiln-run %s --entry reduce_bf16 --random-inputs 58 --check-reference | FileCheck %s --check-prefix=BF16
// RUN: kiln-run %s --entry reduce_generic --random-inputs 59 --check-reference | FileCheck %s --check-prefix=GENERIC
// Known values on constants (no randomness).
// RUN: kiln-run %s --entry reduce_known --print --check-reference | FileCheck %s --check-prefix=KNOWN

// R2D: reference: out0 tensor<1000xf32> matches
// R2D: reference: out1 tensor<64xf32> matches
// R2D: reference: out2 tensor<f32> matches
// R2D: reference: out3 tensor<1000xf32> matches, max abs error 0
// R2D: reference: out4 tensor<64xf32> matches, max abs error 0
// R2D: reference: out5 tensor<f32> matches, max abs error 0
// R2D-NOT: matches
func.func @reduce_2d(%x: tensor<64x1000xf32>)
    -> (tensor<1000xf32>, tensor<64xf32>, tensor<f32>, tensor<1000xf32>,
        tensor<64xf32>, tensor<f32>) {
  %0 = kiln.reduce_sum %x, dims = [0] : tensor<64x1000xf32> -> tensor<1000xf32>
  %1 = kiln.reduce_sum %x, dims = [1] : tensor<64x1000xf32> -> tensor<64xf32>
  %2 = kiln.reduce_sum %x, dims = [0, 1] : tensor<64x1000xf32> -> tensor<f32>
  %3 = kiln.reduce_max %x, dims = [0] : tensor<64x1000xf32> -> tensor<1000xf32>
  %4 = kiln.reduce_max %x, dims = [1] : tensor<64x1000xf32> -> tensor<64xf32>
  %5 = kiln.reduce_max %x, dims = [0, 1] : tensor<64x1000xf32> -> tensor<f32>
  return %0, %1, %2, %3, %4, %5 : tensor<1000xf32>, tensor<64xf32>,
      tensor<f32>, tensor<1000xf32>, tensor<64xf32>, tensor<f32>
}

// Every non-empty set of dims of a rank-3 tensor.
// R3D: reference: out0 tensor<16x32xf32> matches
// R3D: reference: out1 tensor<8x32xf32> matches
// R3D: reference: out2 tensor<8x16xf32> matches
// R3D: reference: out3 tensor<32xf32> matches
// R3D: reference: out4 tensor<16xf32> matches
// R3D: reference: out5 tensor<8xf32> matches
// R3D: reference: out6 tensor<f32> matches
// R3D: reference: out7 tensor<16x32xf32> matches, max abs error 0
// R3D: reference: out8 tensor<8x32xf32> matches, max abs error 0
// R3D: reference: out9 tensor<8x16xf32> matches, max abs error 0
// R3D: reference: out10 tensor<32xf32> matches, max abs error 0
// R3D: reference: out11 tensor<16xf32> matches, max abs error 0
// R3D: reference: out12 tensor<8xf32> matches, max abs error 0
// R3D: reference: out13 tensor<f32> matches, max abs error 0
// R3D-NOT: matches
func.func @reduce_3d(%x: tensor<8x16x32xf32>)
    -> (tensor<16x32xf32>, tensor<8x32xf32>, tensor<8x16xf32>,
        tensor<32xf32>, tensor<16xf32>, tensor<8xf32>, tensor<f32>,
        tensor<16x32xf32>, tensor<8x32xf32>, tensor<8x16xf32>,
        tensor<32xf32>, tensor<16xf32>, tensor<8xf32>, tensor<f32>) {
  %0 = kiln.reduce_sum %x, dims = [0] : tensor<8x16x32xf32> -> tensor<16x32xf32>
  %1 = kiln.reduce_sum %x, dims = [1] : tensor<8x16x32xf32> -> tensor<8x32xf32>
  %2 = kiln.reduce_sum %x, dims = [2] : tensor<8x16x32xf32> -> tensor<8x16xf32>
  %3 = kiln.reduce_sum %x, dims = [0, 1] : tensor<8x16x32xf32> -> tensor<32xf32>
  %4 = kiln.reduce_sum %x, dims = [0, 2] : tensor<8x16x32xf32> -> tensor<16xf32>
  %5 = kiln.reduce_sum %x, dims = [1, 2] : tensor<8x16x32xf32> -> tensor<8xf32>
  %6 = kiln.reduce_sum %x, dims = [0, 1, 2] : tensor<8x16x32xf32> -> tensor<f32>
  %7 = kiln.reduce_max %x, dims = [0] : tensor<8x16x32xf32> -> tensor<16x32xf32>
  %8 = kiln.reduce_max %x, dims = [1] : tensor<8x16x32xf32> -> tensor<8x32xf32>
  %9 = kiln.reduce_max %x, dims = [2] : tensor<8x16x32xf32> -> tensor<8x16xf32>
  %10 = kiln.reduce_max %x, dims = [0, 1] : tensor<8x16x32xf32> -> tensor<32xf32>
  %11 = kiln.reduce_max %x, dims = [0, 2] : tensor<8x16x32xf32> -> tensor<16xf32>
  %12 = kiln.reduce_max %x, dims = [1, 2] : tensor<8x16x32xf32> -> tensor<8xf32>
  %13 = kiln.reduce_max %x, dims = [0, 1, 2] : tensor<8x16x32xf32> -> tensor<f32>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13
      : tensor<16x32xf32>, tensor<8x32xf32>, tensor<8x16xf32>,
        tensor<32xf32>, tensor<16xf32>, tensor<8xf32>, tensor<f32>,
        tensor<16x32xf32>, tensor<8x32xf32>, tensor<8x16xf32>,
        tensor<32xf32>, tensor<16xf32>, tensor<8xf32>, tensor<f32>
}

// Rank 1 and rank 4, size-1 reduced dims, and a reduction of nothing
// (dims = []).
// SMALL: reference: out0 tensor<f32> matches
// SMALL: reference: out1 tensor<f32> matches, max abs error 0
// SMALL: reference: out2 tensor<4x6xf32> matches
// SMALL: reference: out3 tensor<5x7xf32> matches, max abs error 0
// SMALL: reference: out4 tensor<3xf32> matches, max abs error 0
// SMALL: reference: out5 tensor<1x3xf32> matches, max abs error 0
// SMALL: reference: out6 tensor<3x5xf32> matches, max abs error 0
// SMALL-NOT: matches
func.func @reduce_small(%v: tensor<13xf32>, %x: tensor<4x5x6x7xf32>,
                        %o: tensor<1x3xf32>, %p: tensor<3x5xf32>)
    -> (tensor<f32>, tensor<f32>, tensor<4x6xf32>, tensor<5x7xf32>,
        tensor<3xf32>, tensor<1x3xf32>, tensor<3x5xf32>) {
  %0 = kiln.reduce_sum %v, dims = [0] : tensor<13xf32> -> tensor<f32>
  %1 = kiln.reduce_max %v, dims = [0] : tensor<13xf32> -> tensor<f32>
  %2 = kiln.reduce_sum %x, dims = [1, 3] : tensor<4x5x6x7xf32> -> tensor<4x6xf32>
  %3 = kiln.reduce_max %x, dims = [0, 2] : tensor<4x5x6x7xf32> -> tensor<5x7xf32>
  %4 = kiln.reduce_sum %o, dims = [0] : tensor<1x3xf32> -> tensor<3xf32>
  %5 = kiln.reduce_sum %o, dims = [] : tensor<1x3xf32> -> tensor<1x3xf32>
  %6 = kiln.reduce_max %p, dims = [] : tensor<3x5xf32> -> tensor<3x5xf32>
  return %0, %1, %2, %3, %4, %5, %6 : tensor<f32>, tensor<f32>,
      tensor<4x6xf32>, tensor<5x7xf32>, tensor<3xf32>, tensor<1x3xf32>,
      tensor<3x5xf32>
}

// Elementwise producers and consumers around reductions: a mean, the sum of
// squares of a difference (an MSE loss), a max of a transposed input, and
// a row normalization.
// EPI: reference: out0 tensor<64xf32> matches
// EPI: reference: out1 tensor<f32> matches
// EPI: reference: out2 tensor<64xf32> matches
// EPI: reference: out3 tensor<64x1000xf32> matches
// EPI-NOT: matches
func.func @reduce_epilogue(%x: tensor<64x1000xf32>, %y: tensor<64x1000xf32>,
                           %w: tensor<1000x64xf32>)
    -> (tensor<64xf32>, tensor<f32>, tensor<64xf32>, tensor<64x1000xf32>) {
  %n = kiln.constant dense<1.0e-3> : tensor<64xf32>
  %s = kiln.reduce_sum %x, dims = [1] : tensor<64x1000xf32> -> tensor<64xf32>
  %0 = kiln.mul %s, %n : tensor<64xf32>
  %d = kiln.sub %x, %y : tensor<64x1000xf32>
  %sq = kiln.mul %d, %d : tensor<64x1000xf32>
  %1 = kiln.reduce_sum %sq, dims = [0, 1] : tensor<64x1000xf32> -> tensor<f32>
  %wt = kiln.transpose %w, perm = [1, 0] : tensor<1000x64xf32> -> tensor<64x1000xf32>
  %e = kiln.exp %wt : tensor<64x1000xf32>
  %2 = kiln.reduce_max %e, dims = [1] : tensor<64x1000xf32> -> tensor<64xf32>
  %a = kiln.abs %x : tensor<64x1000xf32>
  %sa = kiln.reduce_sum %a, dims = [1] : tensor<64x1000xf32> -> tensor<64xf32>
  %b = kiln.broadcast_in_dim %sa, dims = [0] : tensor<64xf32> -> tensor<64x1000xf32>
  %3 = kiln.div %x, %b : tensor<64x1000xf32>
  return %0, %1, %2, %3 : tensor<64xf32>, tensor<f32>, tensor<64xf32>,
      tensor<64x1000xf32>
}

// A numerically stable softmax over the last dim of a 3-D tensor.
// SOFTMAX: reference: out0 tensor<4x100x300xf32> matches
// SOFTMAX-NOT: matches
func.func @softmax(%x: tensor<4x100x300xf32>) -> tensor<4x100x300xf32> {
  %m = kiln.reduce_max %x, dims = [2] : tensor<4x100x300xf32> -> tensor<4x100xf32>
  %mb = kiln.broadcast_in_dim %m, dims = [0, 1] : tensor<4x100xf32> -> tensor<4x100x300xf32>
  %d = kiln.sub %x, %mb : tensor<4x100x300xf32>
  %e = kiln.exp %d : tensor<4x100x300xf32>
  %s = kiln.reduce_sum %e, dims = [2] : tensor<4x100x300xf32> -> tensor<4x100xf32>
  %sb = kiln.broadcast_in_dim %s, dims = [0, 1] : tensor<4x100xf32> -> tensor<4x100x300xf32>
  %r = kiln.div %e, %sb : tensor<4x100x300xf32>
  return %r : tensor<4x100x300xf32>
}

// F64: reference: out0 tensor<300xf64> matches
// F64: reference: out1 tensor<40xf64> matches
// F64: reference: out2 tensor<f64> matches
// F64: reference: out3 tensor<300xf64> matches, max abs error 0
// F64: reference: out4 tensor<f64> matches, max abs error 0
// F64-NOT: matches
func.func @reduce_f64(%x: tensor<40x300xf64>)
    -> (tensor<300xf64>, tensor<40xf64>, tensor<f64>, tensor<300xf64>,
        tensor<f64>) {
  %0 = kiln.reduce_sum %x, dims = [0] : tensor<40x300xf64> -> tensor<300xf64>
  %1 = kiln.reduce_sum %x, dims = [1] : tensor<40x300xf64> -> tensor<40xf64>
  %2 = kiln.reduce_sum %x, dims = [0, 1] : tensor<40x300xf64> -> tensor<f64>
  %3 = kiln.reduce_max %x, dims = [0] : tensor<40x300xf64> -> tensor<300xf64>
  %4 = kiln.reduce_max %x, dims = [0, 1] : tensor<40x300xf64> -> tensor<f64>
  return %0, %1, %2, %3, %4 : tensor<300xf64>, tensor<40xf64>, tensor<f64>,
      tensor<300xf64>, tensor<f64>
}

// f16 and bf16 accumulate in f32 (a sum of 1000 f16 values accumulated in
// f16 would be far off).
// F16: reference: out0 tensor<64xf16> matches
// F16: reference: out1 tensor<1000xf16> matches
// F16: reference: out2 tensor<64xf16> matches, max abs error 0
// F16: reference: out3 tensor<f16> matches
// F16-NOT: matches
func.func @reduce_f16(%x: tensor<64x1000xf16>)
    -> (tensor<64xf16>, tensor<1000xf16>, tensor<64xf16>, tensor<f16>) {
  %0 = kiln.reduce_sum %x, dims = [1] : tensor<64x1000xf16> -> tensor<64xf16>
  %1 = kiln.reduce_sum %x, dims = [0] : tensor<64x1000xf16> -> tensor<1000xf16>
  %2 = kiln.reduce_max %x, dims = [1] : tensor<64x1000xf16> -> tensor<64xf16>
  %3 = kiln.reduce_sum %x, dims = [0, 1] : tensor<64x1000xf16> -> tensor<f16>
  return %0, %1, %2, %3 : tensor<64xf16>, tensor<1000xf16>, tensor<64xf16>,
      tensor<f16>
}

// BF16: reference: out0 tensor<32xbf16> matches
// BF16: reference: out1 tensor<500xbf16> matches, max abs error 0
// BF16-NOT: matches
func.func @reduce_bf16(%x: tensor<32x500xbf16>)
    -> (tensor<32xbf16>, tensor<500xbf16>) {
  %0 = kiln.reduce_sum %x, dims = [1] : tensor<32x500xbf16> -> tensor<32xbf16>
  %1 = kiln.reduce_max %x, dims = [0] : tensor<32x500xbf16> -> tensor<500xbf16>
  return %0, %1 : tensor<32xbf16>, tensor<500xbf16>
}

// GENERIC: reference: out0 tensor<8xf32> matches
// GENERIC: reference: out1 tensor<4xf32> matches
// GENERIC-NOT: matches
func.func @reduce_generic(%x: tensor<4x8xf32>) -> (tensor<8xf32>, tensor<4xf32>) {
  %r = "kiln.reduce_sum"(%x) <{dims = array<i64: 0>}> : (tensor<4x8xf32>) -> tensor<8xf32>
  %m = "kiln.reduce_max"(%x) <{dims = array<i64: 1>}> : (tensor<4x8xf32>) -> tensor<4xf32>
  return %r, %m : tensor<8xf32>, tensor<4xf32>
}

// Hand-computed values. m = [[1, 2, 3], [4, 5, 6]]; reduce_max keeps -inf
// and propagates NaN.
// KNOWN:      out0: tensor<3xf32>
// KNOWN-NEXT: [5, 7, 9]
// KNOWN-NEXT: out1: tensor<2xf32>
// KNOWN-NEXT: [6, 15]
// KNOWN-NEXT: out2: tensor<f32>
// KNOWN-NEXT: 21
// KNOWN-NEXT: out3: tensor<3xf32>
// KNOWN-NEXT: [4, 5, 6]
// KNOWN-NEXT: out4: tensor<2xf32>
// KNOWN-NEXT: [3, 6]
// KNOWN-NEXT: out5: tensor<3xf32>
// KNOWN-NEXT: [-inf, 1, -3]
// KNOWN-NEXT: out6: tensor<2xf32>
// KNOWN-NEXT: [{{-?}}nan, 2]
// KNOWN-NEXT: out7: tensor<f64>
// KNOWN-NEXT: -inf
// KNOWN-NEXT: out8: tensor<3xf32>
// KNOWN-NEXT: [inf, -inf, {{-?}}nan]
// KNOWN-COUNT-9: matches
func.func @reduce_known()
    -> (tensor<3xf32>, tensor<2xf32>, tensor<f32>, tensor<3xf32>,
        tensor<2xf32>, tensor<3xf32>, tensor<2xf32>, tensor<f64>,
        tensor<3xf32>) {
  %m = kiln.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %0 = kiln.reduce_sum %m, dims = [0] : tensor<2x3xf32> -> tensor<3xf32>
  %1 = kiln.reduce_sum %m, dims = [1] : tensor<2x3xf32> -> tensor<2xf32>
  %2 = kiln.reduce_sum %m, dims = [0, 1] : tensor<2x3xf32> -> tensor<f32>
  %3 = kiln.reduce_max %m, dims = [0] : tensor<2x3xf32> -> tensor<3xf32>
  %4 = kiln.reduce_max %m, dims = [1] : tensor<2x3xf32> -> tensor<2xf32>
  // Columns: (-inf, -inf), (-inf, 1), (-5, -3).
  %i = kiln.constant dense<[[0xFF800000, 0xFF800000, -5.0], [0xFF800000, 1.0, -3.0]]> : tensor<2x3xf32>
  %5 = kiln.reduce_max %i, dims = [0] : tensor<2x3xf32> -> tensor<3xf32>
  // Rows: (1, NaN, 3), (-1, 2, 0).
  %n = kiln.constant dense<[[1.0, 0x7FC00000, 3.0], [-1.0, 2.0, 0.0]]> : tensor<2x3xf32>
  %6 = kiln.reduce_max %n, dims = [1] : tensor<2x3xf32> -> tensor<2xf32>
  %d = kiln.constant dense<0xFFF0000000000000> : tensor<2x2xf64>
  %7 = kiln.reduce_max %d, dims = [0, 1] : tensor<2x2xf64> -> tensor<f64>
  // Sums with infinities: (inf, 1), (-inf, -1), (inf, -inf).
  %s = kiln.constant dense<[[0x7F800000, 0xFF800000, 0x7F800000], [1.0, -1.0, 0xFF800000]]> : tensor<2x3xf32>
  %8 = kiln.reduce_sum %s, dims = [0] : tensor<2x3xf32> -> tensor<3xf32>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8
      : tensor<3xf32>, tensor<2xf32>, tensor<f32>, tensor<3xf32>,
        tensor<2xf32>, tensor<3xf32>, tensor<2xf32>, tensor<f64>,
        tensor<3xf32>
}
