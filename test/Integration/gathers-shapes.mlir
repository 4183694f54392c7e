// take and argmax along an inner dim, with 2-D indices (repeated, out of
// range, negative); against the reference, and in the GPU runners' lists.
// RUN: kiln-run %s --random-inputs 3 --check-reference | FileCheck %s
// CHECK-COUNT-2: matches

func.func @main(%t: tensor<2x5x3xf32>) -> (tensor<2x2x2x3xf32>, tensor<2x3xi64>) {
  %ids = kiln.constant dense<[[1, 4], [1, -2]]> : tensor<2x2xi64>
  %tk = kiln.take %t, %ids dim = 1 : tensor<2x5x3xf32>, tensor<2x2xi64> -> tensor<2x2x2x3xf32>
  %am = kiln.argmax %t dim = 1 : tensor<2x5x3xf32> -> tensor<2x3xi64>
  return %tk, %am : tensor<2x2x2x3xf32>, tensor<2x3xi64>
}
