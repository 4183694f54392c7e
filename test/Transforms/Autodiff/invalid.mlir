// RUN: kiln-opt %s -kiln-autodiff -split-input-file -verify-diagnostics

func.func @f(%x: tensor<2xf32>, %ct: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{'kiln.vjp' op cannot differentiate recursive function @f}}
  %g = kiln.vjp @f(%x, %ct, %ct) wrt [0] : (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  return %g : tensor<2xf32>
}

// -----

func.func private @external(%x: tensor<2xf32>) -> tensor<2xf32>
func.func @calls_external(%x: tensor<2xf32>) -> tensor<2xf32> {
  %y = func.call @external(%x) : (tensor<2xf32>) -> tensor<2xf32>
  return %y : tensor<2xf32>
}
func.func @main(%x: tensor<2xf32>, %ct: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{'kiln.vjp' op cannot differentiate through @external, which has no body}}
  %g = kiln.vjp @calls_external(%x, %ct) wrt [0] : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  return %g : tensor<2xf32>
}

// -----

func.func @a(%x: tensor<2xf32>) -> tensor<2xf32> {
  %y = func.call @b(%x) : (tensor<2xf32>) -> tensor<2xf32>
  return %y : tensor<2xf32>
}
func.func @b(%x: tensor<2xf32>) -> tensor<2xf32> {
  %y = func.call @a(%x) : (tensor<2xf32>) -> tensor<2xf32>
  return %y : tensor<2xf32>
}
func.func @main(%x: tensor<2xf32>, %ct: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{'kiln.vjp' op cannot differentiate recursive function @a}}
  %g = kiln.vjp @a(%x, %ct) wrt [0] : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  return %g : tensor<2xf32>
}

// -----

func.func @uses_arith(%x: tensor<2xf32>) -> tensor<2xf32> {
  %y = arith.addf %x, %x : tensor<2xf32>
  return %y : tensor<2xf32>
}
func.func @main(%x: tensor<2xf32>, %ct: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{'kiln.vjp' op cannot differentiate 'arith.addf': it has no derivative rule}}
  %g = kiln.vjp @uses_arith(%x, %ct) wrt [0] : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  return %g : tensor<2xf32>
}

// -----

// Dynamic dims are differentiated (dynamic.mlir), but not cut: a concat
// along one, or a slice of part of one, would place adjoints at offsets
// that are not static.
func.func @concat_dynamic(%x: tensor<?xf32>, %y: tensor<?xf32>) -> tensor<?xf32> {
  %c = kiln.concat %x, %y dim = 0 : tensor<?xf32>, tensor<?xf32> -> tensor<?xf32>
  return %c : tensor<?xf32>
}
func.func @main(%x: tensor<?xf32>, %y: tensor<?xf32>, %ct: tensor<?xf32>) -> tensor<?xf32> {
  // expected-error @+1 {{'kiln.vjp' op cannot differentiate 'kiln.concat' along a dynamic dim: its parts' offsets are not static}}
  %g = kiln.vjp @concat_dynamic(%x, %y, %ct) wrt [0] : (tensor<?xf32>, tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
  return %g : tensor<?xf32>
}

// -----

func.func @two_blocks(%x: tensor<2xf32>) -> tensor<2xf32> {
  cf.br ^bb1
^bb1:
  return %x : tensor<2xf32>
}
func.func @main(%x: tensor<2xf32>, %ct: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{'kiln.vjp' op callee @two_blocks must have a single block}}
  %g = kiln.vjp @two_blocks(%x, %ct) wrt [0] : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  return %g : tensor<2xf32>
}

// -----

// An indirect call: its callee is not known.
func.func @indirect(%x: tensor<4xf32>) -> tensor<4xf32> {
  %f = func.constant @id : (tensor<4xf32>) -> tensor<4xf32>
  // expected-error @+1 {{is a call that -kiln-autodiff cannot follow}}
  %y = func.call_indirect %f(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}
func.func @id(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
func.func @grad_indirect(%x: tensor<4xf32>, %ct: tensor<4xf32>) -> tensor<4xf32> {
  %g = kiln.vjp @indirect(%x, %ct) wrt [0] : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %g : tensor<4xf32>
}

// -----

// A callee of the callee with more than one block cannot be inlined into
// the flattened function.
func.func @two_blocks(%x: tensor<2xf32>) -> tensor<2xf32> {
  cf.br ^bb1
^bb1:
  return %x : tensor<2xf32>
}
func.func @calls_two_blocks(%x: tensor<2xf32>) -> tensor<2xf32> {
  %y = func.call @two_blocks(%x) : (tensor<2xf32>) -> tensor<2xf32>
  return %y : tensor<2xf32>
}
func.func @main(%x: tensor<2xf32>, %ct: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{'kiln.vjp' op cannot inline call to @two_blocks}}
  %g = kiln.vjp @calls_two_blocks(%x, %ct) wrt [0] : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  return %g : tensor<2xf32>
}
