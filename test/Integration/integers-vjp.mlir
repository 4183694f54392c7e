// Gradients flow through floats only (issue 38): a callee with an integer
// argument and an integer result; the integer path carries no gradient,
// its cotangent is ignored, and the compiled gradient matches the
// reference's finite differences.
// REQUIRES: numpy
// RUN: rm -rf %t && mkdir -p %t
// RUN: %host_python -c "import numpy as np; np.save('%t/x.npy', np.array([0.5, -1.2, 0.3], np.float32)); np.save('%t/n.npy', np.array([2, -3, 5], np.int64)); np.save('%t/ct.npy', np.ones(3, np.float32)); np.save('%t/cn.npy', np.full(3, 7, np.int64))"
// RUN: kiln-run %s --input %t/x.npy --input %t/n.npy --input %t/ct.npy --input %t/cn.npy --check-reference | FileCheck %s
// CHECK: reference: out0 tensor<3xf32> matches
// CHECK: reference: out1 tensor<3xi64> matches
// RUN: kiln-opt %s -kiln-autodiff -canonicalize -cse | FileCheck %s --check-prefix=IR
// The backward reads neither the integer cotangent nor the integer path.
// IR-LABEL: func.func @main({{.*}}%arg3: tensor<3xi64>) ->
// IR-NOT: %arg3
// IR: return

func.func private @f(%x: tensor<3xf32>, %n: tensor<3xi64>) -> (tensor<3xf32>, tensor<3xi64>) {
  %f = "kiln.convert"(%n) : (tensor<3xi64>) -> tensor<3xf32>
  %y = "kiln.mul"(%x, %f) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %z = "kiln.tanh"(%y) : (tensor<3xf32>) -> tensor<3xf32>
  %m = "kiln.add"(%n, %n) : (tensor<3xi64>, tensor<3xi64>) -> tensor<3xi64>
  %c = "kiln.convert"(%z) : (tensor<3xf32>) -> tensor<3xi64>
  %k = "kiln.mul"(%m, %c) : (tensor<3xi64>, tensor<3xi64>) -> tensor<3xi64>
  return %z, %k : tensor<3xf32>, tensor<3xi64>
}
func.func @main(%x: tensor<3xf32>, %n: tensor<3xi64>, %ct: tensor<3xf32>, %cn: tensor<3xi64>) -> (tensor<3xf32>, tensor<3xi64>) {
  %g = "kiln.vjp"(%x, %n, %ct, %cn) <{callee = @f, wrt = array<i64: 0>}> : (tensor<3xf32>, tensor<3xi64>, tensor<3xf32>, tensor<3xi64>) -> tensor<3xf32>
  %z:2 = func.call @f(%x, %n) : (tensor<3xf32>, tensor<3xi64>) -> (tensor<3xf32>, tensor<3xi64>)
  return %g, %z#1 : tensor<3xf32>, tensor<3xi64>
}
