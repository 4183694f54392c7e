// Every elementwise binary kiln op, compiled for the CPU and compared with the
// reference interpreter. pow gets a positive base (|x| + 0.1) and an exponent
// in [-3, 3).

// RUN: kiln-run %s --entry binary_f32 --random-inputs 11 --check-reference | FileCheck %s --check-prefix=BINARY
// RUN: kiln-run %s --entry binary_f32_small --random-inputs 12 --check-reference | FileCheck %s --check-prefix=SMALL
// RUN: kiln-run %s --entry binary_f32_rank0 --random-inputs 13 --check-reference | FileCheck %s --check-prefix=RANK0
// RUN: kiln-run %s --entry binary_chain --random-inputs 14 --check-reference | FileCheck %s --check-prefix=CHAIN
// RUN: kiln-run %s --entry binary_f64 --random-inputs 15 --check-reference | FileCheck %s --check-prefix=F64
// RUN: kiln-run %s --entry binary_f16 --random-inputs 16 --check-reference | FileCheck %s --check-prefix=F16
// RUN: kiln-run %s --entry binary_bf16 --random-inputs 17 --check-reference | FileCheck %s --check-prefix=BF16
// RUN: kiln-run %s --entry binary_generic --random-inputs 18 --check-reference | FileCheck %s --check-prefix=GENERIC
// Known values on constants (no randomness).
// RUN: kiln-run %s --entry binary_known --print --check-reference | FileCheck %s --check-prefix=KNOWN

// BINARY-COUNT-7: tensor<64x1000xf32> matches
// BINARY-NOT: matches
func.func @binary_f32(%x: tensor<64x1000xf32>, %y: tensor<64x1000xf32>)
    -> (tensor<64x1000xf32>, tensor<64x1000xf32>, tensor<64x1000xf32>,
        tensor<64x1000xf32>, tensor<64x1000xf32>, tensor<64x1000xf32>,
        tensor<64x1000xf32>) {
  %c01 = kiln.constant dense<0.1> : tensor<64x1000xf32>
  %c3 = kiln.constant dense<3.0> : tensor<64x1000xf32>
  %c2 = kiln.constant dense<2.0> : tensor<64x1000xf32>
  %ax = kiln.abs %x : tensor<64x1000xf32>
  %base = kiln.add %ax, %c01 : tensor<64x1000xf32>
  %expo = kiln.mul %y, %c3 : tensor<64x1000xf32>
  // A divisor in [1, 3) or (-3, -1]... keep it away from zero: y + 2 in [1, 3).
  %den = kiln.add %y, %c2 : tensor<64x1000xf32>
  %0 = kiln.add %x, %y : tensor<64x1000xf32>
  %1 = kiln.sub %x, %y : tensor<64x1000xf32>
  %2 = kiln.mul %x, %y : tensor<64x1000xf32>
  %3 = kiln.div %x, %den : tensor<64x1000xf32>
  %4 = kiln.max %x, %y : tensor<64x1000xf32>
  %5 = kiln.min %x, %y : tensor<64x1000xf32>
  %6 = kiln.pow %base, %expo : tensor<64x1000xf32>
  return %0, %1, %2, %3, %4, %5, %6
      : tensor<64x1000xf32>, tensor<64x1000xf32>, tensor<64x1000xf32>,
        tensor<64x1000xf32>, tensor<64x1000xf32>, tensor<64x1000xf32>,
        tensor<64x1000xf32>
}

// SMALL-COUNT-7: tensor<7x3xf32> matches
// SMALL-NOT: matches
func.func @binary_f32_small(%x: tensor<7x3xf32>, %y: tensor<7x3xf32>)
    -> (tensor<7x3xf32>, tensor<7x3xf32>, tensor<7x3xf32>, tensor<7x3xf32>,
        tensor<7x3xf32>, tensor<7x3xf32>, tensor<7x3xf32>) {
  %c01 = kiln.constant dense<0.1> : tensor<7x3xf32>
  %c2 = kiln.constant dense<2.0> : tensor<7x3xf32>
  %ax = kiln.abs %x : tensor<7x3xf32>
  %base = kiln.add %ax, %c01 : tensor<7x3xf32>
  %den = kiln.add %y, %c2 : tensor<7x3xf32>
  %0 = kiln.add %x, %y : tensor<7x3xf32>
  %1 = kiln.sub %x, %y : tensor<7x3xf32>
  %2 = kiln.mul %x, %y : tensor<7x3xf32>
  %3 = kiln.div %x, %den : tensor<7x3xf32>
  %4 = kiln.max %x, %y : tensor<7x3xf32>
  %5 = kiln.min %x, %y : tensor<7x3xf32>
  %6 = kiln.pow %base, %y : tensor<7x3xf32>
  return %0, %1, %2, %3, %4, %5, %6
      : tensor<7x3xf32>, tensor<7x3xf32>, tensor<7x3xf32>, tensor<7x3xf32>,
        tensor<7x3xf32>, tensor<7x3xf32>, tensor<7x3xf32>
}

// Rank-0 tensors.
// RANK0-COUNT-4: tensor<f32> matches
// RANK0-NOT: matches
func.func @binary_f32_rank0(%x: tensor<f32>, %y: tensor<f32>)
    -> (tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>) {
  %0 = kiln.add %x, %y : tensor<f32>
  %1 = kiln.mul %x, %y : tensor<f32>
  %2 = kiln.max %x, %y : tensor<f32>
  %3 = kiln.min %x, %y : tensor<f32>
  return %0, %1, %2, %3 : tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>
}

// A chain of binary ops on three inputs, with shared operands.
// CHAIN: reference: out0 tensor<96x130xf32> matches
// CHAIN: reference: out1 tensor<96x130xf32> matches
// CHAIN-NOT: matches
func.func @binary_chain(%x: tensor<96x130xf32>, %y: tensor<96x130xf32>,
                        %z: tensor<96x130xf32>)
    -> (tensor<96x130xf32>, tensor<96x130xf32>) {
  %c2 = kiln.constant dense<2.0> : tensor<96x130xf32>
  %0 = kiln.mul %x, %y : tensor<96x130xf32>
  %1 = kiln.add %0, %z : tensor<96x130xf32>
  %2 = kiln.max %1, %x : tensor<96x130xf32>
  %3 = kiln.min %2, %y : tensor<96x130xf32>
  %4 = kiln.add %z, %c2 : tensor<96x130xf32>
  %5 = kiln.div %3, %4 : tensor<96x130xf32>
  %6 = kiln.sub %5, %1 : tensor<96x130xf32>
  %7 = kiln.mul %6, %6 : tensor<96x130xf32>
  %8 = kiln.pow %4, %6 : tensor<96x130xf32>
  return %7, %8 : tensor<96x130xf32>, tensor<96x130xf32>
}

// F64-COUNT-7: tensor<33x257xf64> matches
// F64-NOT: matches
func.func @binary_f64(%x: tensor<33x257xf64>, %y: tensor<33x257xf64>)
    -> (tensor<33x257xf64>, tensor<33x257xf64>, tensor<33x257xf64>,
        tensor<33x257xf64>, tensor<33x257xf64>, tensor<33x257xf64>,
        tensor<33x257xf64>) {
  %c01 = kiln.constant dense<0.1> : tensor<33x257xf64>
  %c3 = kiln.constant dense<3.0> : tensor<33x257xf64>
  %c2 = kiln.constant dense<2.0> : tensor<33x257xf64>
  %ax = kiln.abs %x : tensor<33x257xf64>
  %base = kiln.add %ax, %c01 : tensor<33x257xf64>
  %expo = kiln.mul %y, %c3 : tensor<33x257xf64>
  %den = kiln.add %y, %c2 : tensor<33x257xf64>
  %0 = kiln.add %x, %y : tensor<33x257xf64>
  %1 = kiln.sub %x, %y : tensor<33x257xf64>
  %2 = kiln.mul %x, %y : tensor<33x257xf64>
  %3 = kiln.div %x, %den : tensor<33x257xf64>
  %4 = kiln.max %x, %y : tensor<33x257xf64>
  %5 = kiln.min %x, %y : tensor<33x257xf64>
  %6 = kiln.pow %base, %expo : tensor<33x257xf64>
  return %0, %1, %2, %3, %4, %5, %6
      : tensor<33x257xf64>, tensor<33x257xf64>, tensor<33x257xf64>,
        tensor<33x257xf64>, tensor<33x257xf64>, tensor<33x257xf64>,
        tensor<33x257xf64>
}

// F16-COUNT-7: tensor<64x130xf16> matches
// F16-NOT: matches
func.func @binary_f16(%x: tensor<64x130xf16>, %y: tensor<64x130xf16>)
    -> (tensor<64x130xf16>, tensor<64x130xf16>, tensor<64x130xf16>,
        tensor<64x130xf16>, tensor<64x130xf16>, tensor<64x130xf16>,
        tensor<64x130xf16>) {
  %c01 = kiln.constant dense<0.1> : tensor<64x130xf16>
  %c2 = kiln.constant dense<2.0> : tensor<64x130xf16>
  %ax = kiln.abs %x : tensor<64x130xf16>
  %base = kiln.add %ax, %c01 : tensor<64x130xf16>
  %den = kiln.add %y, %c2 : tensor<64x130xf16>
  %0 = kiln.add %x, %y : tensor<64x130xf16>
  %1 = kiln.sub %x, %y : tensor<64x130xf16>
  %2 = kiln.mul %x, %y : tensor<64x130xf16>
  %3 = kiln.div %x, %den : tensor<64x130xf16>
  %4 = kiln.max %x, %y : tensor<64x130xf16>
  %5 = kiln.min %x, %y : tensor<64x130xf16>
  %6 = kiln.pow %base, %y : tensor<64x130xf16>
  return %0, %1, %2, %3, %4, %5, %6
      : tensor<64x130xf16>, tensor<64x130xf16>, tensor<64x130xf16>,
        tensor<64x130xf16>, tensor<64x130xf16>, tensor<64x130xf16>,
        tensor<64x130xf16>
}

// BF16-COUNT-4: tensor<64x130xbf16> matches
// BF16-NOT: matches
func.func @binary_bf16(%x: tensor<64x130xbf16>, %y: tensor<64x130xbf16>)
    -> (tensor<64x130xbf16>, tensor<64x130xbf16>, tensor<64x130xbf16>,
        tensor<64x130xbf16>) {
  %c2 = kiln.constant dense<2.0> : tensor<64x130xbf16>
  %den = kiln.add %y, %c2 : tensor<64x130xbf16>
  %0 = kiln.add %x, %y : tensor<64x130xbf16>
  %1 = kiln.mul %x, %y : tensor<64x130xbf16>
  %2 = kiln.div %x, %den : tensor<64x130xbf16>
  %3 = kiln.max %x, %y : tensor<64x130xbf16>
  return %0, %1, %2, %3 : tensor<64x130xbf16>, tensor<64x130xbf16>,
      tensor<64x130xbf16>, tensor<64x130xbf16>
}

// GENERIC-COUNT-3: tensor<4x8xf32> matches
// GENERIC-NOT: matches
func.func @binary_generic(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>)
    -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) {
  %s = "kiln.add"(%a, %b) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %d = "kiln.sub"(%a, %b) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %m = "kiln.min"(%s, %d) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return %s, %d, %m : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>
}

// Hand-computed values; max and min propagate NaN.
// KNOWN:      out0: tensor<4xf32>
// KNOWN-NEXT: [3, -1, 0.5, 0]
// KNOWN-NEXT: out1: tensor<4xf32>
// KNOWN-NEXT: [-1, 5, 1.5, 0]
// KNOWN-NEXT: out2: tensor<4xf32>
// KNOWN-NEXT: [2, -6, -0.5, -0]
// KNOWN-NEXT: out3: tensor<4xf32>
// KNOWN-NEXT: [0.5, -0.666667, -2, 0]
// KNOWN-NEXT: out4: tensor<4xf32>
// KNOWN-NEXT: [2, 2, 1, {{-?}}nan]
// KNOWN-NEXT: out5: tensor<4xf32>
// KNOWN-NEXT: [1, -3, -0.5, {{-?}}nan]
// KNOWN-NEXT: out6: tensor<4xf32>
// KNOWN-NEXT: [1, 0.125, 1, 1]
// KNOWN-NEXT: out7: tensor<4xf64>
// KNOWN-NEXT: [8, 2, 0.25, 1]
// KNOWN-NEXT: out8: tensor<4xf32>
// KNOWN-NEXT: [inf, -inf, {{-?}}nan, 0]
// KNOWN-COUNT-9: matches
func.func @binary_known()
    -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>,
        tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf64>,
        tensor<4xf32>) {
  %a = kiln.constant dense<[1.0, 2.0, 1.0, 0.0]> : tensor<4xf32>
  %b = kiln.constant dense<[2.0, -3.0, -0.5, -0.0]> : tensor<4xf32>
  %an = kiln.constant dense<[1.0, 2.0, 1.0, 0x7FC00000]> : tensor<4xf32>
  %bn = kiln.constant dense<[2.0, -3.0, -0.5, 1.0]> : tensor<4xf32>
  // pow: 1^7, 0.5^3, 4^0, 0^0
  %pb = kiln.constant dense<[1.0, 0.5, 4.0, 0.0]> : tensor<4xf32>
  %pe = kiln.constant dense<[7.0, 3.0, 0.0, 0.0]> : tensor<4xf32>
  // pow f64: 2^3, 4^0.5, 2^-2, 9^0
  %qb = kiln.constant dense<[2.0, 4.0, 2.0, 9.0]> : tensor<4xf64>
  %qe = kiln.constant dense<[3.0, 0.5, -2.0, 0.0]> : tensor<4xf64>
  // division by zero: 1/0, -1/0, 0/0, 0/2
  %dn = kiln.constant dense<[1.0, -1.0, 0.0, 0.0]> : tensor<4xf32>
  %dd = kiln.constant dense<[0.0, 0.0, 0.0, 2.0]> : tensor<4xf32>
  %0 = kiln.add %a, %b : tensor<4xf32>
  %1 = kiln.sub %a, %b : tensor<4xf32>
  %2 = kiln.mul %a, %b : tensor<4xf32>
  %3 = kiln.div %a, %bn : tensor<4xf32>
  %4 = kiln.max %an, %bn : tensor<4xf32>
  %5 = kiln.min %an, %bn : tensor<4xf32>
  %6 = kiln.pow %pb, %pe : tensor<4xf32>
  %7 = kiln.pow %qb, %qe : tensor<4xf64>
  %8 = kiln.div %dn, %dd : tensor<4xf32>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8
      : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>,
        tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf64>,
        tensor<4xf32>
}
