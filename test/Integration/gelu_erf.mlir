// kiln.erf and kiln.gelu (the erf form, and the tanh form under
// approximate = true), compiled for the CPU and compared with the reference
// interpreter, in every float type. Inputs are uniform in [-1, 1), scaled by
// 4 so that the tails (erf near +-1, gelu near 0 and near x) are covered.
// f32 erf is upstream's polynomial (ExpandMath), f64 erf calls libm
// (cpu-pipeline-libm.mlir).

// RUN: kiln-run %s --entry f32 --random-inputs 31 --check-reference | FileCheck %s --check-prefix=F32
// RUN: kiln-run %s --entry f32_small --random-inputs 32 --check-reference | FileCheck %s --check-prefix=SMALL
// RUN: kiln-run %s --entry f64 --random-inputs 33 --check-reference | FileCheck %s --check-prefix=F64
// RUN: kiln-run %s --entry f16 --random-inputs 34 --check-reference | FileCheck %s --check-prefix=F16
// RUN: kiln-run %s --entry bf16 --random-inputs 35 --check-reference | FileCheck %s --check-prefix=BF16
// Known values: erf(0) = 0, erf(1) = 0.8427007929, gelu(1) = 0.8413447461
// (erf form) and 0.8411919906 (tanh form), gelu(-3) = -0.0040496998 and
// -0.0036373920, and both forms are x far out.
// RUN: kiln-run %s --entry known --print --check-reference | FileCheck %s --check-prefix=KNOWN

// F32-COUNT-3: matches
// F32-NOT: matches
func.func @f32(%x: tensor<64x1000xf32>)
    -> (tensor<64x1000xf32>, tensor<64x1000xf32>, tensor<64x1000xf32>) {
  %four = kiln.constant dense<4.0> : tensor<64x1000xf32>
  %s = kiln.mul %x, %four : tensor<64x1000xf32>
  %0 = kiln.erf %s : tensor<64x1000xf32>
  %1 = kiln.gelu %s : tensor<64x1000xf32>
  %2 = kiln.gelu %s {approximate = true} : tensor<64x1000xf32>
  return %0, %1, %2 : tensor<64x1000xf32>, tensor<64x1000xf32>, tensor<64x1000xf32>
}

// SMALL-COUNT-3: matches
// SMALL-NOT: matches
func.func @f32_small(%x: tensor<3x5xf32>)
    -> (tensor<3x5xf32>, tensor<3x5xf32>, tensor<3x5xf32>) {
  %four = kiln.constant dense<4.0> : tensor<3x5xf32>
  %s = kiln.mul %x, %four : tensor<3x5xf32>
  %0 = kiln.erf %s : tensor<3x5xf32>
  %1 = kiln.gelu %s : tensor<3x5xf32>
  %2 = kiln.gelu %s {approximate = true} : tensor<3x5xf32>
  return %0, %1, %2 : tensor<3x5xf32>, tensor<3x5xf32>, tensor<3x5xf32>
}

// F64-COUNT-3: matches
// F64-NOT: matches
func.func @f64(%x: tensor<17x33xf64>)
    -> (tensor<17x33xf64>, tensor<17x33xf64>, tensor<17x33xf64>) {
  %four = kiln.constant dense<4.0> : tensor<17x33xf64>
  %s = kiln.mul %x, %four : tensor<17x33xf64>
  %0 = kiln.erf %s : tensor<17x33xf64>
  %1 = kiln.gelu %s : tensor<17x33xf64>
  %2 = kiln.gelu %s {approximate = true} : tensor<17x33xf64>
  return %0, %1, %2 : tensor<17x33xf64>, tensor<17x33xf64>, tensor<17x33xf64>
}

// F16-COUNT-3: matches
// F16-NOT: matches
func.func @f16(%x: tensor<8x129xf16>)
    -> (tensor<8x129xf16>, tensor<8x129xf16>, tensor<8x129xf16>) {
  %four = kiln.constant dense<4.0> : tensor<8x129xf16>
  %s = kiln.mul %x, %four : tensor<8x129xf16>
  %0 = kiln.erf %s : tensor<8x129xf16>
  %1 = kiln.gelu %s : tensor<8x129xf16>
  %2 = kiln.gelu %s {approximate = true} : tensor<8x129xf16>
  return %0, %1, %2 : tensor<8x129xf16>, tensor<8x129xf16>, tensor<8x129xf16>
}

// BF16-COUNT-3: matches
// BF16-NOT: matches
func.func @bf16(%x: tensor<8x129xbf16>)
    -> (tensor<8x129xbf16>, tensor<8x129xbf16>, tensor<8x129xbf16>) {
  %four = kiln.constant dense<4.0> : tensor<8x129xbf16>
  %s = kiln.mul %x, %four : tensor<8x129xbf16>
  %0 = kiln.erf %s : tensor<8x129xbf16>
  %1 = kiln.gelu %s : tensor<8x129xbf16>
  %2 = kiln.gelu %s {approximate = true} : tensor<8x129xbf16>
  return %0, %1, %2 : tensor<8x129xbf16>, tensor<8x129xbf16>, tensor<8x129xbf16>
}

// KNOWN-LABEL: out0: tensor<5xf32>
// KNOWN-NEXT: [0, 0.842701, -0.842701, 1, -1]
// KNOWN-LABEL: out1: tensor<5xf32>
// KNOWN-NEXT: [0, 0.841345, -0.00404969, 10, -0]
// KNOWN-LABEL: out2: tensor<5xf32>
// KNOWN-NEXT: [0, 0.841192, -0.00363739, 10, -0]
// KNOWN-COUNT-3: matches
// KNOWN-NOT: matches
func.func @known() -> (tensor<5xf32>, tensor<5xf32>, tensor<5xf32>) {
  %e = kiln.constant dense<[0.0, 1.0, -1.0, 10.0, -10.0]> : tensor<5xf32>
  %g = kiln.constant dense<[0.0, 1.0, -3.0, 10.0, -10.0]> : tensor<5xf32>
  %0 = kiln.erf %e : tensor<5xf32>
  %1 = kiln.gelu %g : tensor<5xf32>
  %2 = kiln.gelu %g {approximate = true} : tensor<5xf32>
  return %0, %1, %2 : tensor<5xf32>, tensor<5xf32>, tensor<5xf32>
}
