// Function results that are not freshly computed tensors: constants,
// arguments, views of arguments (reshape, transpose, slice, broadcast), a
// function without results.

// RUN: kiln-run %s --entry const_only --print --check-reference | FileCheck %s --check-prefix=CONST
// RUN: kiln-run %s --entry reshape_arg --random-inputs 1 --check-reference | FileCheck %s --check-prefix=RESHAPE
// RUN: kiln-run %s --entry transpose_arg --random-inputs 2 --check-reference | FileCheck %s --check-prefix=TRANSPOSE
// RUN: kiln-run %s --entry slice_arg --random-inputs 3 --check-reference | FileCheck %s --check-prefix=SLICE
// RUN: kiln-run %s --entry broadcast_arg --random-inputs 4 --check-reference | FileCheck %s --check-prefix=BCAST
// RUN: kiln-run %s --entry arg_twice --random-inputs 5 --check-reference | FileCheck %s --check-prefix=ARG2
// RUN: kiln-run %s --entry view_twice --random-inputs 6 --check-reference | FileCheck %s --check-prefix=VIEW2
// RUN: kiln-run %s --entry const_twice --print --check-reference | FileCheck %s --check-prefix=CONST2
// RUN: kiln-run %s --entry no_outputs --random-inputs 7 --check-reference --print | FileCheck %s --check-prefix=NONE --allow-empty

// CONST:      out0: tensor<2x3xf32>
// CONST-NEXT: {{\[\[}}1, 2, 3],
// CONST-NEXT:  [4, 5, 6]]
// CONST-NEXT: reference: out0 tensor<2x3xf32> matches, max abs error 0
func.func @const_only() -> tensor<2x3xf32> {
  %c = kiln.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  return %c : tensor<2x3xf32>
}

// RESHAPE: reference: out0 tensor<24xf32> matches, max abs error 0
// RESHAPE: reference: out1 tensor<4x6xf32> matches, max abs error 0
func.func @reshape_arg(%a: tensor<4x6xf32>) -> (tensor<24xf32>, tensor<4x6xf32>) {
  %r = kiln.reshape %a : tensor<4x6xf32> -> tensor<24xf32>
  return %r, %a : tensor<24xf32>, tensor<4x6xf32>
}

// TRANSPOSE: reference: out0 tensor<6x4xf32> matches, max abs error 0
// TRANSPOSE: reference: out1 tensor<4x6xf32> matches, max abs error 0
func.func @transpose_arg(%a: tensor<4x6xf32>) -> (tensor<6x4xf32>, tensor<4x6xf32>) {
  %r = kiln.transpose %a, perm = [1, 0] : tensor<4x6xf32> -> tensor<6x4xf32>
  return %r, %a : tensor<6x4xf32>, tensor<4x6xf32>
}

// SLICE: reference: out0 tensor<4x2xf32> matches, max abs error 0
func.func @slice_arg(%a: tensor<4x6xf32>) -> tensor<4x2xf32> {
  %r = kiln.slice %a, offsets = [0, 2], sizes = [4, 2] : tensor<4x6xf32> -> tensor<4x2xf32>
  return %r : tensor<4x2xf32>
}

// BCAST: reference: out0 tensor<3x4xf32> matches, max abs error 0
func.func @broadcast_arg(%a: tensor<4xf32>) -> tensor<3x4xf32> {
  %b = kiln.broadcast_in_dim %a, dims = [1] : tensor<4xf32> -> tensor<3x4xf32>
  return %b : tensor<3x4xf32>
}

// ARG2: reference: out0 tensor<3x5xf32> matches, max abs error 0
// ARG2: reference: out1 tensor<3x5xf32> matches, max abs error 0
func.func @arg_twice(%a: tensor<3x5xf32>) -> (tensor<3x5xf32>, tensor<3x5xf32>) {
  return %a, %a : tensor<3x5xf32>, tensor<3x5xf32>
}

// VIEW2: reference: out0 tensor<24xf32> matches, max abs error 0
// VIEW2: reference: out1 tensor<24xf32> matches, max abs error 0
func.func @view_twice(%a: tensor<4x6xf32>) -> (tensor<24xf32>, tensor<24xf32>) {
  %r = kiln.reshape %a : tensor<4x6xf32> -> tensor<24xf32>
  return %r, %r : tensor<24xf32>, tensor<24xf32>
}

// CONST2:      out0: tensor<2xf32>
// CONST2-NEXT: [1, 2]
// CONST2-NEXT: out1: tensor<2xf32>
// CONST2-NEXT: [1, 2]
// CONST2-COUNT-2: matches
func.func @const_twice() -> (tensor<2xf32>, tensor<2xf32>) {
  %c = kiln.constant dense<[1.0, 2.0]> : tensor<2xf32>
  return %c, %c : tensor<2xf32>, tensor<2xf32>
}

// NONE-NOT: out0
// NONE-NOT: matches
func.func @no_outputs(%a: tensor<2xf32>) {
  return
}
