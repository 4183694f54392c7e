// Found by kiln-fuzz-diff (--seed 300000, program 301386), shrunk: a row
// group whose reduction sums a broadcast along the broadcast dims. Its
// phase nest had no operand spanning the reduced dim, so linalg could not
// derive the loop bounds ("invalid indexing maps are non-invertible"); the
// row lowering now declines such a group and the general lowering takes it.
// RUN: kiln-run %s --random-inputs 301386 --check-reference | FileCheck %s
// RUN: kiln-run %s --random-inputs 301386 --check-reference --emulate-gpu | FileCheck %s
// CHECK: reference: out0 tensor<6xf64> matches
func.func @main(%arg0: tensor<1xf64>, %arg1: tensor<1xf64>, %arg2: tensor<1xf64>) -> (tensor<6xf64>) {
  %0 = "kiln.broadcast_in_dim"(%arg0) <{dims = array<i64: 0>}> : (tensor<1xf64>) -> tensor<4x3xf64>
  %1 = "kiln.reduce_sum"(%0) <{dims = array<i64: 1>}> : (tensor<4x3xf64>) -> tensor<4xf64>
  %2 = "kiln.relu"(%1) : (tensor<4xf64>) -> tensor<4xf64>
  %3 = "kiln.concat"(%arg2, %arg1, %2) <{dim = 0 : i64}> : (tensor<1xf64>, tensor<1xf64>, tensor<4xf64>) -> tensor<6xf64>
  "func.return"(%3) : (tensor<6xf64>) -> ()
}
