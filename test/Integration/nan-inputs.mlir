// NaN and infinities through every float unary op: an out-of-range take
// gives NaN, and a division by zero gives infinities. The CPU's polynomial
// forms (sin and cos reduce their range through an integer conversion)
// must give what the reference gives (test/GPU's runners run this line
// on the emulated and the real GPU too).
// RUN: kiln-run %s --check-reference | FileCheck %s
// CHECK-COUNT-13: matches
func.func @main() -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) {
  %table = kiln.constant dense<[[1.0, -2.0, 0.0, 3.5, -0.5, 10.0, -30.0, 0.25], [2.0, 0.0, -1.0, 0.5, 7.0, -7.0, 1.0e-3, -1.0e-3]]> : tensor<2x8xf32>
  %ids = kiln.constant dense<[0, 5, -1, 1]> : tensor<4xi64>
  %g = "kiln.take"(%table, %ids) <{dim = 0 : i64}> : (tensor<2x8xf32>, tensor<4xi64>) -> tensor<4x8xf32>
  // x / 0: +-inf (and NaN for 0 / 0) beside the NaN rows.
  %zero = kiln.constant dense<0.0> : tensor<4x8xf32>
  %inf = kiln.div %g, %zero : tensor<4x8xf32>
  %row = kiln.constant dense<[[false], [false], [false], [true]]> : tensor<4x1xi1>
  %mask = kiln.broadcast_in_dim %row, dims = [0, 1] : tensor<4x1xi1> -> tensor<4x8xi1>
  %s = kiln.select %mask, %inf, %g : tensor<4x8xi1>, tensor<4x8xf32>
  %0 = kiln.sin %s : tensor<4x8xf32>
  %1 = kiln.cos %s : tensor<4x8xf32>
  %2 = kiln.tanh %s : tensor<4x8xf32>
  %3 = kiln.exp %s : tensor<4x8xf32>
  %4 = kiln.sigmoid %s : tensor<4x8xf32>
  %5 = kiln.erf %s : tensor<4x8xf32>
  %6 = kiln.gelu %s : tensor<4x8xf32>
  %7 = kiln.abs %s : tensor<4x8xf32>
  %8 = kiln.relu %s : tensor<4x8xf32>
  %a = kiln.abs %s : tensor<4x8xf32>
  %9 = kiln.log %a : tensor<4x8xf32>
  %10 = kiln.sqrt %a : tensor<4x8xf32>
  %11 = kiln.rsqrt %a : tensor<4x8xf32>
  %12 = kiln.neg %s : tensor<4x8xf32>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12 : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>
}
