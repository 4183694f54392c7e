// An entry that calls other functions (func.call), one of them twice and one
// with two results; the default entry is @main.

// RUN: kiln-run %s --random-inputs 81 --check-reference | FileCheck %s --check-prefix=MAIN
// RUN: kiln-run %s --entry main --random-inputs 81 --check-reference | FileCheck %s --check-prefix=MAIN
// RUN: kiln-run %s --entry square --random-inputs 82 --check-reference | FileCheck %s --check-prefix=SQUARE

// MAIN:      reference: out0 tensor<64x100xf32> matches
// MAIN-NEXT: reference: out1 tensor<64x100xf32> matches
// MAIN-NOT:  matches
func.func @main(%x: tensor<64x100xf32>, %y: tensor<64x100xf32>)
    -> (tensor<64x100xf32>, tensor<64x100xf32>) {
  %p:2 = func.call @helper(%x, %y) : (tensor<64x100xf32>, tensor<64x100xf32>) -> (tensor<64x100xf32>, tensor<64x100xf32>)
  %q = func.call @square(%p#1) : (tensor<64x100xf32>) -> tensor<64x100xf32>
  %r:2 = func.call @helper(%q, %p#0) : (tensor<64x100xf32>, tensor<64x100xf32>) -> (tensor<64x100xf32>, tensor<64x100xf32>)
  return %r#0, %q : tensor<64x100xf32>, tensor<64x100xf32>
}

func.func private @helper(%a: tensor<64x100xf32>, %b: tensor<64x100xf32>)
    -> (tensor<64x100xf32>, tensor<64x100xf32>) {
  %0 = kiln.mul %a, %b : tensor<64x100xf32>
  %1 = kiln.tanh %0 : tensor<64x100xf32>
  return %0, %1 : tensor<64x100xf32>, tensor<64x100xf32>
}

// A public callee is an entry of its own too.
// SQUARE:      reference: out0 tensor<64x100xf32> matches, max abs error 0
// SQUARE-NOT:  matches
func.func @square(%a: tensor<64x100xf32>) -> tensor<64x100xf32> {
  %0 = kiln.mul %a, %a : tensor<64x100xf32>
  return %0 : tensor<64x100xf32>
}
