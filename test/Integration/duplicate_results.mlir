// A computed tensor returned twice (written so, or after CSE merges two
// identical ops) gives two equal outputs. (This used to segfault in
// promoteBufferResultsToOutParams.)

// RUN: kiln-run %s --entry same_value_twice --random-inputs 1 --check-reference | FileCheck %s --check-prefix=SAME
// RUN: kiln-run %s --entry cse_merged --random-inputs 2 --check-reference | FileCheck %s --check-prefix=CSE
// RUN: kiln-run %s --entry cse_merged --random-inputs 2 --repeat 3 --check-reference | FileCheck %s --check-prefix=CSE
// RUN: kiln-run %s --entry matmul_twice --random-inputs 3 --check-reference | FileCheck %s --check-prefix=MATMUL

// SAME: reference: out0 tensor<3x5xf32> matches
// SAME: reference: out1 tensor<3x5xf32> matches
// SAME-NOT: matches
func.func @same_value_twice(%a: tensor<3x5xf32>) -> (tensor<3x5xf32>, tensor<3x5xf32>) {
  %0 = kiln.exp %a : tensor<3x5xf32>
  return %0, %0 : tensor<3x5xf32>, tensor<3x5xf32>
}

// CSE: reference: out0 tensor<64x1000xf32> matches
// CSE: reference: out1 tensor<64x1000xf32> matches
// CSE: reference: out2 tensor<64x1000xf32> matches
// CSE-NOT: matches
func.func @cse_merged(%a: tensor<64x1000xf32>, %b: tensor<64x1000xf32>)
    -> (tensor<64x1000xf32>, tensor<64x1000xf32>, tensor<64x1000xf32>) {
  %0 = kiln.add %a, %b : tensor<64x1000xf32>
  %1 = kiln.add %a, %b : tensor<64x1000xf32>
  %2 = kiln.mul %0, %1 : tensor<64x1000xf32>
  return %0, %1, %2 : tensor<64x1000xf32>, tensor<64x1000xf32>, tensor<64x1000xf32>
}

// MATMUL: reference: out0 tensor<3x2xf32> matches
// MATMUL: reference: out1 tensor<3x2xf32> matches
// MATMUL-NOT: matches
func.func @matmul_twice(%a: tensor<3x5xf32>, %b: tensor<5x2xf32>)
    -> (tensor<3x2xf32>, tensor<3x2xf32>) {
  %0 = kiln.matmul %a, %b : tensor<3x5xf32>, tensor<5x2xf32> -> tensor<3x2xf32>
  %1 = kiln.matmul %a, %b {transpose_a = false, transpose_b = false} : tensor<3x5xf32>, tensor<5x2xf32> -> tensor<3x2xf32>
  return %0, %1 : tensor<3x2xf32>, tensor<3x2xf32>
}
