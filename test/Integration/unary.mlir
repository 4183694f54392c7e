// Every elementwise unary kiln op, compiled for the CPU and compared with the
// reference interpreter. Random inputs are uniform in [-1, 1); log, sqrt,
// rsqrt and reciprocal see |x| + 0.5 so that they stay in their domain.

// A large shape (parallel outer loop, vectorized inner loop) and small odd
// shapes (vector remainders).
// RUN: kiln-run %s --entry unary_f32 --random-inputs 3 --check-reference | FileCheck %s --check-prefix=UNARY
// RUN: kiln-run %s --entry unary_f32_small --random-inputs 4 --check-reference | FileCheck %s --check-prefix=SMALL
// RUN: kiln-run %s --entry unary_f32_rank3 --random-inputs 5 --check-reference | FileCheck %s --check-prefix=RANK3
// RUN: kiln-run %s --entry unary_chain --random-inputs 6 --check-reference | FileCheck %s --check-prefix=CHAIN
// RUN: kiln-run %s --entry unary_f64 --random-inputs 7 --check-reference | FileCheck %s --check-prefix=F64
// RUN: kiln-run %s --entry unary_f16 --random-inputs 8 --check-reference | FileCheck %s --check-prefix=F16
// RUN: kiln-run %s --entry unary_bf16 --random-inputs 9 --check-reference | FileCheck %s --check-prefix=BF16
// RUN: kiln-run %s --entry unary_generic --random-inputs 10 --check-reference | FileCheck %s --check-prefix=GENERIC
// Known values on constants (no randomness).
// RUN: kiln-run %s --entry unary_known --print --check-reference | FileCheck %s --check-prefix=KNOWN

// UNARY-COUNT-12: matches
// UNARY-NOT: matches
func.func @unary_f32(%x: tensor<64x1000xf32>)
    -> (tensor<64x1000xf32>, tensor<64x1000xf32>, tensor<64x1000xf32>,
        tensor<64x1000xf32>, tensor<64x1000xf32>, tensor<64x1000xf32>,
        tensor<64x1000xf32>, tensor<64x1000xf32>, tensor<64x1000xf32>,
        tensor<64x1000xf32>, tensor<64x1000xf32>, tensor<64x1000xf32>) {
  %half = kiln.constant dense<0.5> : tensor<64x1000xf32>
  %a = kiln.abs %x : tensor<64x1000xf32>
  %p = kiln.add %a, %half : tensor<64x1000xf32>
  %0 = kiln.neg %x : tensor<64x1000xf32>
  %1 = kiln.exp %x : tensor<64x1000xf32>
  %2 = kiln.log %p : tensor<64x1000xf32>
  %3 = kiln.tanh %x : tensor<64x1000xf32>
  %4 = kiln.sigmoid %x : tensor<64x1000xf32>
  %5 = kiln.relu %x : tensor<64x1000xf32>
  %6 = kiln.sqrt %p : tensor<64x1000xf32>
  %7 = kiln.rsqrt %p : tensor<64x1000xf32>
  %8 = kiln.abs %x : tensor<64x1000xf32>
  %9 = kiln.sin %x : tensor<64x1000xf32>
  %10 = kiln.cos %x : tensor<64x1000xf32>
  %11 = kiln.reciprocal %p : tensor<64x1000xf32>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11
      : tensor<64x1000xf32>, tensor<64x1000xf32>, tensor<64x1000xf32>,
        tensor<64x1000xf32>, tensor<64x1000xf32>, tensor<64x1000xf32>,
        tensor<64x1000xf32>, tensor<64x1000xf32>, tensor<64x1000xf32>,
        tensor<64x1000xf32>, tensor<64x1000xf32>, tensor<64x1000xf32>
}

// SMALL-COUNT-12: matches
// SMALL-NOT: matches
func.func @unary_f32_small(%x: tensor<3x5xf32>)
    -> (tensor<3x5xf32>, tensor<3x5xf32>, tensor<3x5xf32>, tensor<3x5xf32>,
        tensor<3x5xf32>, tensor<3x5xf32>, tensor<3x5xf32>, tensor<3x5xf32>,
        tensor<3x5xf32>, tensor<3x5xf32>, tensor<3x5xf32>, tensor<3x5xf32>) {
  %half = kiln.constant dense<0.5> : tensor<3x5xf32>
  %a = kiln.abs %x : tensor<3x5xf32>
  %p = kiln.add %a, %half : tensor<3x5xf32>
  %0 = kiln.neg %x : tensor<3x5xf32>
  %1 = kiln.exp %x : tensor<3x5xf32>
  %2 = kiln.log %p : tensor<3x5xf32>
  %3 = kiln.tanh %x : tensor<3x5xf32>
  %4 = kiln.sigmoid %x : tensor<3x5xf32>
  %5 = kiln.relu %x : tensor<3x5xf32>
  %6 = kiln.sqrt %p : tensor<3x5xf32>
  %7 = kiln.rsqrt %p : tensor<3x5xf32>
  %8 = kiln.abs %x : tensor<3x5xf32>
  %9 = kiln.sin %x : tensor<3x5xf32>
  %10 = kiln.cos %x : tensor<3x5xf32>
  %11 = kiln.reciprocal %p : tensor<3x5xf32>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11
      : tensor<3x5xf32>, tensor<3x5xf32>, tensor<3x5xf32>, tensor<3x5xf32>,
        tensor<3x5xf32>, tensor<3x5xf32>, tensor<3x5xf32>, tensor<3x5xf32>,
        tensor<3x5xf32>, tensor<3x5xf32>, tensor<3x5xf32>, tensor<3x5xf32>
}

// Rank 3 and rank 1 (a single loop nest of a different depth).
// RANK3: reference: out0 tensor<4x17x33xf32> matches
// RANK3: reference: out1 tensor<4x17x33xf32> matches
// RANK3: reference: out2 tensor<1001xf32> matches
// RANK3: reference: out3 tensor<1001xf32> matches
func.func @unary_f32_rank3(%x: tensor<4x17x33xf32>, %v: tensor<1001xf32>)
    -> (tensor<4x17x33xf32>, tensor<4x17x33xf32>, tensor<1001xf32>,
        tensor<1001xf32>) {
  %0 = kiln.sigmoid %x : tensor<4x17x33xf32>
  %1 = kiln.sin %x : tensor<4x17x33xf32>
  %2 = kiln.tanh %v : tensor<1001xf32>
  %3 = kiln.exp %v : tensor<1001xf32>
  return %0, %1, %2, %3 : tensor<4x17x33xf32>, tensor<4x17x33xf32>,
      tensor<1001xf32>, tensor<1001xf32>
}

// A chain of every unary op (what a fused kernel computes in registers).
// CHAIN: reference: out0 tensor<128x257xf32> matches
// CHAIN-NOT: matches
func.func @unary_chain(%x: tensor<128x257xf32>) -> tensor<128x257xf32> {
  %two = kiln.constant dense<2.0> : tensor<128x257xf32>
  %0 = kiln.sin %x : tensor<128x257xf32>
  %1 = kiln.cos %0 : tensor<128x257xf32>
  %2 = kiln.neg %1 : tensor<128x257xf32>
  %3 = kiln.exp %2 : tensor<128x257xf32>
  %4 = kiln.add %3, %two : tensor<128x257xf32>
  %5 = kiln.log %4 : tensor<128x257xf32>
  %6 = kiln.sqrt %5 : tensor<128x257xf32>
  %7 = kiln.rsqrt %6 : tensor<128x257xf32>
  %8 = kiln.reciprocal %7 : tensor<128x257xf32>
  %9 = kiln.tanh %8 : tensor<128x257xf32>
  %10 = kiln.sub %x, %9 : tensor<128x257xf32>
  %11 = kiln.relu %10 : tensor<128x257xf32>
  %12 = kiln.sigmoid %11 : tensor<128x257xf32>
  %13 = kiln.abs %12 : tensor<128x257xf32>
  return %13 : tensor<128x257xf32>
}

// F64-COUNT-12: tensor<16x333xf64> matches
// F64-NOT: matches
func.func @unary_f64(%x: tensor<16x333xf64>)
    -> (tensor<16x333xf64>, tensor<16x333xf64>, tensor<16x333xf64>,
        tensor<16x333xf64>, tensor<16x333xf64>, tensor<16x333xf64>,
        tensor<16x333xf64>, tensor<16x333xf64>, tensor<16x333xf64>,
        tensor<16x333xf64>, tensor<16x333xf64>, tensor<16x333xf64>) {
  %half = kiln.constant dense<0.5> : tensor<16x333xf64>
  %a = kiln.abs %x : tensor<16x333xf64>
  %p = kiln.add %a, %half : tensor<16x333xf64>
  %0 = kiln.neg %x : tensor<16x333xf64>
  %1 = kiln.exp %x : tensor<16x333xf64>
  %2 = kiln.log %p : tensor<16x333xf64>
  %3 = kiln.tanh %x : tensor<16x333xf64>
  %4 = kiln.sigmoid %x : tensor<16x333xf64>
  %5 = kiln.relu %x : tensor<16x333xf64>
  %6 = kiln.sqrt %p : tensor<16x333xf64>
  %7 = kiln.rsqrt %p : tensor<16x333xf64>
  %8 = kiln.abs %x : tensor<16x333xf64>
  %9 = kiln.sin %x : tensor<16x333xf64>
  %10 = kiln.cos %x : tensor<16x333xf64>
  %11 = kiln.reciprocal %p : tensor<16x333xf64>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11
      : tensor<16x333xf64>, tensor<16x333xf64>, tensor<16x333xf64>,
        tensor<16x333xf64>, tensor<16x333xf64>, tensor<16x333xf64>,
        tensor<16x333xf64>, tensor<16x333xf64>, tensor<16x333xf64>,
        tensor<16x333xf64>, tensor<16x333xf64>, tensor<16x333xf64>
}

// f16 and bf16 are storage types (computed in f32).
// F16-COUNT-12: tensor<32x200xf16> matches
// F16-NOT: matches
func.func @unary_f16(%x: tensor<32x200xf16>)
    -> (tensor<32x200xf16>, tensor<32x200xf16>, tensor<32x200xf16>,
        tensor<32x200xf16>, tensor<32x200xf16>, tensor<32x200xf16>,
        tensor<32x200xf16>, tensor<32x200xf16>, tensor<32x200xf16>,
        tensor<32x200xf16>, tensor<32x200xf16>, tensor<32x200xf16>) {
  %half = kiln.constant dense<0.5> : tensor<32x200xf16>
  %a = kiln.abs %x : tensor<32x200xf16>
  %p = kiln.add %a, %half : tensor<32x200xf16>
  %0 = kiln.neg %x : tensor<32x200xf16>
  %1 = kiln.exp %x : tensor<32x200xf16>
  %2 = kiln.log %p : tensor<32x200xf16>
  %3 = kiln.tanh %x : tensor<32x200xf16>
  %4 = kiln.sigmoid %x : tensor<32x200xf16>
  %5 = kiln.relu %x : tensor<32x200xf16>
  %6 = kiln.sqrt %p : tensor<32x200xf16>
  %7 = kiln.rsqrt %p : tensor<32x200xf16>
  %8 = kiln.abs %x : tensor<32x200xf16>
  %9 = kiln.sin %x : tensor<32x200xf16>
  %10 = kiln.cos %x : tensor<32x200xf16>
  %11 = kiln.reciprocal %p : tensor<32x200xf16>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11
      : tensor<32x200xf16>, tensor<32x200xf16>, tensor<32x200xf16>,
        tensor<32x200xf16>, tensor<32x200xf16>, tensor<32x200xf16>,
        tensor<32x200xf16>, tensor<32x200xf16>, tensor<32x200xf16>,
        tensor<32x200xf16>, tensor<32x200xf16>, tensor<32x200xf16>
}

// BF16: reference: out0 tensor<32x200xbf16> matches
// BF16: reference: out1 tensor<32x200xbf16> matches
// BF16: reference: out2 tensor<32x200xbf16> matches
// BF16: reference: out3 tensor<32x200xbf16> matches
// BF16: reference: out4 tensor<32x200xbf16> matches
// BF16: reference: out5 tensor<32x200xbf16> matches
// BF16-NOT: matches
func.func @unary_bf16(%x: tensor<32x200xbf16>)
    -> (tensor<32x200xbf16>, tensor<32x200xbf16>, tensor<32x200xbf16>,
        tensor<32x200xbf16>, tensor<32x200xbf16>, tensor<32x200xbf16>) {
  %one = kiln.constant dense<1.0> : tensor<32x200xbf16>
  %a = kiln.abs %x : tensor<32x200xbf16>
  %p = kiln.add %a, %one : tensor<32x200xbf16>
  %0 = kiln.exp %x : tensor<32x200xbf16>
  %1 = kiln.tanh %x : tensor<32x200xbf16>
  %2 = kiln.sigmoid %x : tensor<32x200xbf16>
  %3 = kiln.relu %x : tensor<32x200xbf16>
  %4 = kiln.log %p : tensor<32x200xbf16>
  %5 = kiln.rsqrt %p : tensor<32x200xbf16>
  return %0, %1, %2, %3, %4, %5 : tensor<32x200xbf16>, tensor<32x200xbf16>,
      tensor<32x200xbf16>, tensor<32x200xbf16>, tensor<32x200xbf16>,
      tensor<32x200xbf16>
}

// The generic form of the contract parses and runs.
// GENERIC: reference: out0 tensor<8x16xf32> matches
// GENERIC: reference: out1 tensor<8x16xf32> matches
func.func @unary_generic(%x: tensor<8x16xf32>)
    -> (tensor<8x16xf32>, tensor<8x16xf32>) {
  %c = "kiln.constant"() <{value = dense<1.0> : tensor<8x16xf32>}> : () -> tensor<8x16xf32>
  %e = "kiln.exp"(%x) : (tensor<8x16xf32>) -> tensor<8x16xf32>
  %s = "kiln.add"(%e, %c) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
  %l = "kiln.log"(%s) : (tensor<8x16xf32>) -> tensor<8x16xf32>
  %r = "kiln.reciprocal"(%s) : (tensor<8x16xf32>) -> tensor<8x16xf32>
  return %l, %r : tensor<8x16xf32>, tensor<8x16xf32>
}

// Hand-computed values.
// KNOWN:      out0: tensor<3xf32>
// KNOWN-NEXT: [0, 0, 2]
// KNOWN-NEXT: out1: tensor<3xf32>
// KNOWN-NEXT: [0.5, 0.731059, 0.268941]
// KNOWN-NEXT: out2: tensor<3xf32>
// KNOWN-NEXT: [2, 3, 0.5]
// KNOWN-NEXT: out3: tensor<3xf32>
// KNOWN-NEXT: [0.5, 0.333333, 2]
// KNOWN-NEXT: out4: tensor<3xf32>
// KNOWN-NEXT: [1, 2.71828, 0.367879]
// KNOWN-NEXT: out5: tensor<3xf32>
// KNOWN-NEXT: [0, 1, -0.693147]
// KNOWN-NEXT: out6: tensor<3xf32>
// KNOWN-NEXT: [0, 0.761594, -0.761594]
// KNOWN-NEXT: out7: tensor<3xf32>
// KNOWN-NEXT: [1, 0, 2]
// KNOWN-NEXT: out8: tensor<3xf32>
// KNOWN-NEXT: [1, -0, -2]
// KNOWN-NEXT: out9: tensor<3xf64>
// KNOWN-NEXT: [0, 1, 0.841470984808]
// KNOWN-NEXT: out10: tensor<3xf64>
// KNOWN-NEXT: [1, -1, 0.540302305868]
// KNOWN-NEXT: out11: tensor<3xf32>
// KNOWN-NEXT: [4, -0.25, 0.5]
// KNOWN-COUNT-12: matches
func.func @unary_known()
    -> (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>,
        tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>,
        tensor<3xf32>, tensor<3xf64>, tensor<3xf64>, tensor<3xf32>) {
  %r = kiln.constant dense<[-1.0, 0.0, 2.0]> : tensor<3xf32>
  %s = kiln.constant dense<[0.0, 1.0, -1.0]> : tensor<3xf32>
  %q = kiln.constant dense<[4.0, 9.0, 0.25]> : tensor<3xf32>
  %l = kiln.constant dense<[1.0, 2.718281828, 0.5]> : tensor<3xf32>
  %t = kiln.constant dense<[-1.0, 0.0, 2.0]> : tensor<3xf32>
  %n = kiln.constant dense<[-1.0, 0.0, 2.0]> : tensor<3xf32>
  %p = kiln.constant dense<[0.0, 1.5707963267948966, 1.0]> : tensor<3xf64>
  %z = kiln.constant dense<[0.0, 3.141592653589793, 1.0]> : tensor<3xf64>
  %c = kiln.constant dense<[0.25, -4.0, 2.0]> : tensor<3xf32>
  %0 = kiln.relu %r : tensor<3xf32>
  %1 = kiln.sigmoid %s : tensor<3xf32>
  %2 = kiln.sqrt %q : tensor<3xf32>
  %3 = kiln.rsqrt %q : tensor<3xf32>
  %4 = kiln.exp %s : tensor<3xf32>
  %5 = kiln.log %l : tensor<3xf32>
  %6 = kiln.tanh %s : tensor<3xf32>
  %7 = kiln.abs %t : tensor<3xf32>
  %8 = kiln.neg %n : tensor<3xf32>
  %9 = kiln.sin %p : tensor<3xf64>
  %10 = kiln.cos %z : tensor<3xf64>
  %11 = kiln.reciprocal %c : tensor<3xf32>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11
      : tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>,
        tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>,
        tensor<3xf32>, tensor<3xf64>, tensor<3xf64>, tensor<3xf32>
}
