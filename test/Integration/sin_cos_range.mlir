// f32 sin and cos over |x| < 12000 (positional encodings' arguments) stay
// within 2e-7 of the reference: kiln reduces x by pi/2 in three parts
// (ExpandMath's Cephes form). Upstream's reduction, with pi/2 as one f32,
// was 1e-6 off at x = 30 and 1e-4 at x = 4096. Inputs are uniform in
// [-1, 1), times 12000 and times 3 (the error is absolute: sin is near 0
// there too). test/GPU's harness runs the same command on the emulated
// GPU.

// RUN: kiln-run %s --random-inputs 41 --check-reference --rtol 0 --atol 2e-7 | FileCheck %s
// CHECK-COUNT-4: matches
// CHECK-NOT: differs
func.func @main(%x: tensor<64x1000xf32>) -> (tensor<64x1000xf32>, tensor<64x1000xf32>, tensor<64x1000xf32>, tensor<64x1000xf32>) {
  %far = kiln.constant dense<12000.0> : tensor<64x1000xf32>
  %near = kiln.constant dense<3.0> : tensor<64x1000xf32>
  %a = kiln.mul %x, %far : tensor<64x1000xf32>
  %b = kiln.mul %x, %near : tensor<64x1000xf32>
  %sa = kiln.sin %a : tensor<64x1000xf32>
  %ca = kiln.cos %a : tensor<64x1000xf32>
  %sb = kiln.sin %b : tensor<64x1000xf32>
  %cb = kiln.cos %b : tensor<64x1000xf32>
  return %sa, %ca, %sb, %cb : tensor<64x1000xf32>, tensor<64x1000xf32>, tensor<64x1000xf32>, tensor<64x1000xf32>
}
