// kiln.convert between every pair the contract names, compiled for the CPU
// and compared with the reference interpreter.

// RUN: kiln-run %s --entry f32_f64 --random-inputs 31 --check-reference | FileCheck %s --check-prefix=F32F64
// RUN: kiln-run %s --entry f64_f32 --random-inputs 32 --check-reference | FileCheck %s --check-prefix=F64F32
// RUN: kiln-run %s --entry f16_roundtrip --random-inputs 33 --check-reference | FileCheck %s --check-prefix=F16
// RUN: kiln-run %s --entry bf16 --random-inputs 34 --check-reference | FileCheck %s --check-prefix=BF16
// RUN: kiln-run %s --entry i1_to_float --random-inputs 35 --check-reference | FileCheck %s --check-prefix=I1F
// RUN: kiln-run %s --entry float_to_i1 --random-inputs 36 --check-reference | FileCheck %s --check-prefix=FI1
// RUN: kiln-run %s --entry mixed_precision --random-inputs 37 --check-reference | FileCheck %s --check-prefix=MIXED
// RUN: kiln-run %s --entry convert_generic --random-inputs 38 --check-reference | FileCheck %s --check-prefix=GENERIC
// Known values on constants (no randomness): rounding to nearest even.
// RUN: kiln-run %s --entry convert_known --print --check-reference | FileCheck %s --check-prefix=KNOWN

// F32F64: reference: out0 tensor<64x1000xf64> matches
// F32F64: reference: out1 tensor<64x1000xf32> matches
// F32F64: reference: out2 tensor<64x1000xf64> matches
// F32F64-NOT: matches
func.func @f32_f64(%x: tensor<64x1000xf32>)
    -> (tensor<64x1000xf64>, tensor<64x1000xf32>, tensor<64x1000xf64>) {
  %0 = kiln.convert %x : tensor<64x1000xf32> -> tensor<64x1000xf64>
  %e = kiln.exp %0 : tensor<64x1000xf64>
  %1 = kiln.convert %e : tensor<64x1000xf64> -> tensor<64x1000xf32>
  %2 = kiln.mul %0, %e : tensor<64x1000xf64>
  return %0, %1, %2 : tensor<64x1000xf64>, tensor<64x1000xf32>,
      tensor<64x1000xf64>
}

// f64 inputs use all 53 bits, so the conversion to f32 rounds.
// F64F32: reference: out0 tensor<13x77xf32> matches, max abs error 0
// F64F32: reference: out1 tensor<13x77xf32> matches
// F64F32-NOT: matches
func.func @f64_f32(%x: tensor<13x77xf64>) -> (tensor<13x77xf32>, tensor<13x77xf32>) {
  %0 = kiln.convert %x : tensor<13x77xf64> -> tensor<13x77xf32>
  %1 = kiln.tanh %0 : tensor<13x77xf32>
  return %0, %1 : tensor<13x77xf32>, tensor<13x77xf32>
}

// f32 -> f16 -> f32 rounds to 11 significant bits; the results agree exactly.
// F16: reference: out0 tensor<64x1000xf16> matches, max abs error 0
// F16: reference: out1 tensor<64x1000xf32> matches, max abs error 0
// F16: reference: out2 tensor<64x1000xf32> matches
// F16-NOT: matches
func.func @f16_roundtrip(%x: tensor<64x1000xf32>)
    -> (tensor<64x1000xf16>, tensor<64x1000xf32>, tensor<64x1000xf32>) {
  %h = kiln.convert %x : tensor<64x1000xf32> -> tensor<64x1000xf16>
  %f = kiln.convert %h : tensor<64x1000xf16> -> tensor<64x1000xf32>
  %d = kiln.sub %x, %f : tensor<64x1000xf32>
  return %h, %f, %d : tensor<64x1000xf16>, tensor<64x1000xf32>,
      tensor<64x1000xf32>
}

// BF16: reference: out0 tensor<32x333xbf16> matches, max abs error 0
// BF16: reference: out1 tensor<32x333xf32> matches, max abs error 0
// BF16: reference: out2 tensor<32x333xf16> matches, max abs error 0
// BF16: reference: out3 tensor<32x333xf64> matches, max abs error 0
// BF16-NOT: matches
func.func @bf16(%x: tensor<32x333xf32>)
    -> (tensor<32x333xbf16>, tensor<32x333xf32>, tensor<32x333xf16>,
        tensor<32x333xf64>) {
  %b = kiln.convert %x : tensor<32x333xf32> -> tensor<32x333xbf16>
  %f = kiln.convert %b : tensor<32x333xbf16> -> tensor<32x333xf32>
  %h = kiln.convert %b : tensor<32x333xbf16> -> tensor<32x333xf16>
  %d = kiln.convert %b : tensor<32x333xbf16> -> tensor<32x333xf64>
  return %b, %f, %h, %d : tensor<32x333xbf16>, tensor<32x333xf32>,
      tensor<32x333xf16>, tensor<32x333xf64>
}

// i1 -> 0.0 / 1.0, from an argument and from a comparison (a mask).
// I1F: reference: out0 tensor<50x70xf32> matches, max abs error 0
// I1F: reference: out1 tensor<50x70xf64> matches, max abs error 0
// I1F: reference: out2 tensor<50x70xf16> matches, max abs error 0
// I1F: reference: out3 tensor<50x70xf32> matches
// I1F-NOT: matches
func.func @i1_to_float(%p: tensor<50x70xi1>, %x: tensor<50x70xf32>)
    -> (tensor<50x70xf32>, tensor<50x70xf64>, tensor<50x70xf16>,
        tensor<50x70xf32>) {
  %0 = kiln.convert %p : tensor<50x70xi1> -> tensor<50x70xf32>
  %1 = kiln.convert %p : tensor<50x70xi1> -> tensor<50x70xf64>
  %2 = kiln.convert %p : tensor<50x70xi1> -> tensor<50x70xf16>
  %zero = kiln.constant dense<0.0> : tensor<50x70xf32>
  %pos = kiln.cmp gt, %x, %zero : tensor<50x70xf32>
  %mask = kiln.convert %pos : tensor<50x70xi1> -> tensor<50x70xf32>
  %3 = kiln.mul %mask, %x : tensor<50x70xf32>
  return %0, %1, %2, %3 : tensor<50x70xf32>, tensor<50x70xf64>,
      tensor<50x70xf16>, tensor<50x70xf32>
}

// float -> i1 is x != 0; relu makes about half of the elements zero.
// FI1: reference: out0 tensor<64x1000xi1> matches, max abs error 0
// FI1: reference: out1 tensor<64x1000xi1> matches, max abs error 0
// FI1: reference: out2 tensor<64x1000xf32> matches
// FI1-NOT: matches
func.func @float_to_i1(%x: tensor<64x1000xf32>, %y: tensor<64x1000xf64>)
    -> (tensor<64x1000xi1>, tensor<64x1000xi1>, tensor<64x1000xf32>) {
  %r = kiln.relu %x : tensor<64x1000xf32>
  %0 = kiln.convert %r : tensor<64x1000xf32> -> tensor<64x1000xi1>
  %ry = kiln.relu %y : tensor<64x1000xf64>
  %1 = kiln.convert %ry : tensor<64x1000xf64> -> tensor<64x1000xi1>
  %2 = kiln.select %0, %x, %r : tensor<64x1000xi1>, tensor<64x1000xf32>
  return %0, %1, %2 : tensor<64x1000xi1>, tensor<64x1000xi1>,
      tensor<64x1000xf32>
}

// A bf16/f16 storage pipeline around f32 math.
// MIXED: reference: out0 tensor<128x96xbf16> matches
// MIXED: reference: out1 tensor<128x96xf32> matches
// MIXED-NOT: matches
func.func @mixed_precision(%x: tensor<128x96xbf16>, %y: tensor<128x96xf16>)
    -> (tensor<128x96xbf16>, tensor<128x96xf32>) {
  %xf = kiln.convert %x : tensor<128x96xbf16> -> tensor<128x96xf32>
  %yf = kiln.convert %y : tensor<128x96xf16> -> tensor<128x96xf32>
  %s = kiln.mul %xf, %yf : tensor<128x96xf32>
  %t = kiln.tanh %s : tensor<128x96xf32>
  %0 = kiln.convert %t : tensor<128x96xf32> -> tensor<128x96xbf16>
  %1 = kiln.add %t, %yf : tensor<128x96xf32>
  return %0, %1 : tensor<128x96xbf16>, tensor<128x96xf32>
}

// GENERIC: reference: out0 tensor<4x8xf16> matches
// GENERIC: reference: out1 tensor<4x8xf64> matches
func.func @convert_generic(%x: tensor<4x8xf32>) -> (tensor<4x8xf16>, tensor<4x8xf64>) {
  %h = "kiln.convert"(%x) : (tensor<4x8xf32>) -> tensor<4x8xf16>
  %d = "kiln.convert"(%h) : (tensor<4x8xf16>) -> tensor<4x8xf64>
  return %h, %d : tensor<4x8xf16>, tensor<4x8xf64>
}

// Hand-computed values.
// bf16 has 8 significant bits: 1 + 2^-8 is a tie and rounds to even (1),
// 1 + 3 * 2^-8 is a tie and rounds to even (1 + 2^-6), 1 + 2^-8 + 2^-20
// rounds up.
// f16: 1/3 -> 0.333251953125, 65504 is the largest finite value, 65520 rounds
// to inf, 1e-8 underflows to 0, 2049 (a tie) -> 2048, 2051 (a tie) -> 2052.
// KNOWN:      out0: tensor<4xbf16>
// KNOWN-NEXT: [1, 1.01562, 1.00781, -2]
// KNOWN-NEXT: out1: tensor<6xf32>
// KNOWN-NEXT: [0.333252, 65504, inf, 0, 2048, 2052]
// KNOWN-NEXT: out2: tensor<4xf32>
// KNOWN-NEXT: [1, 0, 0, 1]
// KNOWN-NEXT: out3: tensor<5xi1>
// KNOWN-NEXT: [false, false, true, true, true]
// KNOWN-NEXT: out4: tensor<2xf64>
// KNOWN-NEXT: [0.10000000149, 16777216]
// KNOWN-NEXT: out5: tensor<2xf32>
// KNOWN-NEXT: [0.1, 1.67772e+07]
// KNOWN-NEXT: out6: tensor<2xf64>
// KNOWN-NEXT: [0.10000000149, 16777216]
// KNOWN-COUNT-7: matches
func.func @convert_known()
    -> (tensor<4xbf16>, tensor<6xf32>, tensor<4xf32>, tensor<5xi1>,
        tensor<2xf64>, tensor<2xf32>, tensor<2xf64>) {
  %b = kiln.constant dense<[1.00390625, 1.01171875, 1.0039072036743164, -2.0]> : tensor<4xf32>
  %0 = kiln.convert %b : tensor<4xf32> -> tensor<4xbf16>
  %h = kiln.constant dense<[0.3333333432674408, 65504.0, 65520.0, 1.0e-8, 2049.0, 2051.0]> : tensor<6xf32>
  %h16 = kiln.convert %h : tensor<6xf32> -> tensor<6xf16>
  %1 = kiln.convert %h16 : tensor<6xf16> -> tensor<6xf32>
  %p = kiln.constant dense<[true, false, false, true]> : tensor<4xi1>
  %2 = kiln.convert %p : tensor<4xi1> -> tensor<4xf32>
  %z = kiln.constant dense<[0.0, -0.0, 1.5, 0x7FC00000, -2.0]> : tensor<5xf32>
  %3 = kiln.convert %z : tensor<5xf32> -> tensor<5xi1>
  %s = kiln.constant dense<[0.1, 16777217.0]> : tensor<2xf32>
  %4 = kiln.convert %s : tensor<2xf32> -> tensor<2xf64>
  %d = kiln.constant dense<[0.1, 16777217.0]> : tensor<2xf64>
  %5 = kiln.convert %d : tensor<2xf64> -> tensor<2xf32>
  %6 = kiln.convert %5 : tensor<2xf32> -> tensor<2xf64>
  return %0, %1, %2, %3, %4, %5, %6 : tensor<4xbf16>, tensor<6xf32>,
      tensor<4xf32>, tensor<5xi1>, tensor<2xf64>, tensor<2xf32>, tensor<2xf64>
}
