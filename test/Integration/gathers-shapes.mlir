// take, scatter_add and argmax along an inner dim, with 2-D indices
// (repeated, out of range, negative), bf16 updates accumulating into one
// row, and a scatter of a transposed view; against the reference.
// RUN: kiln-run %s --random-inputs 3 --check-reference | FileCheck %s
// CHECK-COUNT-4: matches

func.func @main(%t: tensor<2x5x3xf32>, %u: tensor<2x2x2x3xf32>, %h: tensor<4x3xbf16>, %hu: tensor<2x3xbf16>) -> (tensor<2x5x3xf32>, tensor<4x3xbf16>, tensor<2x2x2x3xf32>, tensor<2x3xi64>) {
  %ids = kiln.constant dense<[[1, 4], [1, -2]]> : tensor<2x2xi64>
  %s = kiln.scatter_add %t, %ids, %u dim = 1 : tensor<2x5x3xf32>, tensor<2x2xi64>, tensor<2x2x2x3xf32> -> tensor<2x5x3xf32>
  %i1 = kiln.constant dense<[3, 3]> : tensor<2xi32>
  %b = kiln.scatter_add %h, %i1, %hu dim = 0 : tensor<4x3xbf16>, tensor<2xi32>, tensor<2x3xbf16> -> tensor<4x3xbf16>
  %tk = kiln.take %t, %ids dim = 1 : tensor<2x5x3xf32>, tensor<2x2xi64> -> tensor<2x2x2x3xf32>
  %am = kiln.argmax %t dim = 1 : tensor<2x5x3xf32> -> tensor<2x3xi64>
  return %s, %b, %tk, %am : tensor<2x5x3xf32>, tensor<4x3xbf16>, tensor<2x2x2x3xf32>, tensor<2x3xi64>
}
