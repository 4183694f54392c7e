// Unusual callees and call sites of kiln.vjp, in f64 unless stated, against
// the reference interpreter's finite differences (first-order tolerances as
// in rules_f64.mlir): a callee returning its argument, unused arguments,
// duplicate and non-differentiable (i1, constant) results, one value passed
// for two arguments, value-and-grad with wrt [], a vjp inside a function
// reached through func.call, i1 -> float converts, mixed f32/f64, rank 0,
// empty tensors, degenerate shape ops, hand-written fusion groups, a callee
// holding two vjps, and f16/bf16.

// RUN: rm -rf %t && mkdir -p %t
// RUN: kiln-run %s --entry e_identity --random-inputs 1101 --check-reference --rtol 1e-7 --atol 1e-9 | FileCheck %s --check-prefix=IDENTITY
// RUN: kiln-run %s --entry e_unused --random-inputs 1102 --print --check-reference --rtol 1e-7 --atol 1e-9 | FileCheck %s --check-prefix=UNUSED
// RUN: kiln-run %s --entry e_dup --random-inputs 1103 --check-reference --rtol 1e-7 --atol 1e-9 | FileCheck %s --check-prefix=DUP
// RUN: kiln-run %s --entry e_withmask --random-inputs 1104 --check-reference --rtol 1e-7 --atol 1e-9 | FileCheck %s --check-prefix=MASKRES
// RUN: kiln-run %s --entry e_same_arg --random-inputs 1105 --check-reference --rtol 1e-7 --atol 1e-9 | FileCheck %s --check-prefix=SAMEARG
// RUN: kiln-run %s --entry e_value_and_grad --random-inputs 1106 --check-reference --rtol 1e-7 --atol 1e-9 | FileCheck %s --check-prefix=VALGRAD
// RUN: kiln-run %s --entry e_call_grad --random-inputs 1107 --check-reference --rtol 1e-7 --atol 1e-9 | FileCheck %s --check-prefix=CALLGRAD
// RUN: kiln-run %s --entry e_mask --random-inputs 1108 --check-reference --rtol 1e-7 --atol 1e-9 | FileCheck %s --check-prefix=MASK
// RUN: kiln-run %s --entry e_mixed --random-inputs 1109 --check-reference --rtol 1e-7 --atol 1e-9 | FileCheck %s --check-prefix=MIXED
// RUN: kiln-run %s --entry e_scalar --random-inputs 1110 --check-reference --rtol 1e-7 --atol 1e-9 | FileCheck %s --check-prefix=SCALAR
// RUN: kiln-run %s --entry e_empty --random-inputs 1111 --check-reference --rtol 1e-7 --atol 1e-9 | FileCheck %s --check-prefix=EMPTY
// RUN: kiln-run %s --entry e_degenerate --random-inputs 1112 --check-reference --rtol 1e-7 --atol 1e-9 | FileCheck %s --check-prefix=DEGENERATE
// RUN: kiln-run %s --entry e_select_same --random-inputs 1113 --check-reference --rtol 1e-7 --atol 1e-9 | FileCheck %s --check-prefix=SELSAME
// RUN: kiln-run %s --entry e_fused --random-inputs 1114 --check-reference --rtol 1e-7 --atol 1e-9 | FileCheck %s --check-prefix=FUSED
// RUN: kiln-run %s --entry e_two_vjps --random-inputs 1115 --check-reference --rtol 1e-4 --atol 2e-5 | FileCheck %s --check-prefix=TWOVJPS
// RUN: kiln-run %s --entry e_only_pred --random-inputs 1118 --print --check-reference --rtol 1e-7 --atol 1e-9 | FileCheck %s --check-prefix=ONLYPRED
// RUN: kiln-run %s --entry e_only_mask --random-inputs 1119 --print --check-reference --rtol 1e-7 --atol 1e-9 | FileCheck %s --check-prefix=ONLYMASK
// f16 and bf16 (storage types computed in f32), default tolerances.
// RUN: kiln-run %s --entry e_f16 --random-inputs 1116 --check-reference | FileCheck %s --check-prefix=F16
// RUN: kiln-run %s --entry e_bf16 --random-inputs 1117 --check-reference | FileCheck %s --check-prefix=BF16
// A dynamic callee: x = 0.25 (5 rows), b = ct = 1: the row sums of dx are
// 5 (1 - tanh^2 0.25) and db = 5 tanh 0.25.
// RUN: %host_python %S/Inputs/npy.py %t/dx.npy f64 5x4 0.25
// RUN: %host_python %S/Inputs/npy.py %t/d4.npy f64 4 1
// RUN: kiln-run %S/Inputs/dynamic.mlir --entry grad_dynamic --input %t/dx.npy --input %t/d4.npy --input %t/d4.npy --print --check-reference 2>&1 | FileCheck %s --check-prefix=DYNAMIC

// DYNAMIC:      out0: tensor<4xf64>
// DYNAMIC-NEXT: [4.70007424403, 4.70007424403, 4.70007424403, 4.70007424403]
// DYNAMIC-NEXT: out1: tensor<4xf64>
// DYNAMIC-NEXT: [1.22459331202, 1.22459331202, 1.22459331202, 1.22459331202]
// DYNAMIC-NEXT: reference: out0 tensor<4xf64> matches
// DYNAMIC-NEXT: reference: out1 tensor<4xf64> matches

// The callee returns its argument: the gradient is ct.
// IDENTITY:     reference: out0 tensor<3x4xf64> matches
// IDENTITY-NOT: matches
func.func @identity(%x: tensor<3x4xf64>) -> tensor<3x4xf64> {
  return %x : tensor<3x4xf64>
}
func.func @e_identity(%x: tensor<3x4xf64>, %ct: tensor<3x4xf64>) -> tensor<3x4xf64> {
  %g = kiln.vjp @identity(%x, %ct) wrt [0] : (tensor<3x4xf64>, tensor<3x4xf64>) -> tensor<3x4xf64>
  return %g : tensor<3x4xf64>
}

// y is not used: its gradient is exactly zero.
// UNUSED:      out1: tensor<3x4xf64>
// UNUSED-NEXT: {{\[\[}}0, 0, 0, 0],
// UNUSED-NEXT: [0, 0, 0, 0],
// UNUSED-NEXT: [0, 0, 0, 0]]
// UNUSED-NEXT: reference: out0 tensor<3x4xf64> matches
// UNUSED-NEXT: reference: out1 tensor<3x4xf64> matches
func.func @unused(%x: tensor<3x4xf64>, %y: tensor<3x4xf64>) -> tensor<3x4xf64> {
  %z = kiln.mul %x, %x : tensor<3x4xf64>
  return %z : tensor<3x4xf64>
}
func.func @e_unused(%x: tensor<3x4xf64>, %y: tensor<3x4xf64>, %ct: tensor<3x4xf64>) -> (tensor<3x4xf64>, tensor<3x4xf64>) {
  %g:2 = kiln.vjp @unused(%x, %y, %ct) wrt [0, 1] : (tensor<3x4xf64>, tensor<3x4xf64>, tensor<3x4xf64>) -> (tensor<3x4xf64>, tensor<3x4xf64>)
  return %g#0, %g#1 : tensor<3x4xf64>, tensor<3x4xf64>
}

// One value returned twice and the argument returned too: three
// cotangents add up.
// DUP:     reference: out0 tensor<3x4xf64> matches
// DUP-NOT: matches
func.func @dup(%x: tensor<3x4xf64>) -> (tensor<3x4xf64>, tensor<3x4xf64>, tensor<3x4xf64>) {
  %t = kiln.tanh %x : tensor<3x4xf64>
  return %t, %t, %x : tensor<3x4xf64>, tensor<3x4xf64>, tensor<3x4xf64>
}
func.func @e_dup(%x: tensor<3x4xf64>, %c0: tensor<3x4xf64>, %c1: tensor<3x4xf64>, %c2: tensor<3x4xf64>) -> tensor<3x4xf64> {
  %g = kiln.vjp @dup(%x, %c0, %c1, %c2) wrt [0] : (tensor<3x4xf64>, tensor<3x4xf64>, tensor<3x4xf64>, tensor<3x4xf64>) -> tensor<3x4xf64>
  return %g : tensor<3x4xf64>
}

// An i1 result (its cotangent is i1 and ignored) and a constant result.
// MASKRES:     reference: out0 tensor<3x4xf64> matches
// MASKRES-NOT: matches
func.func @withmask(%x: tensor<3x4xf64>) -> (tensor<3x4xf64>, tensor<3x4xi1>, tensor<3x4xf64>) {
  %z = kiln.constant dense<0.0> : tensor<3x4xf64>
  %p = kiln.cmp gt, %x, %z : tensor<3x4xf64>
  %s = kiln.sin %x : tensor<3x4xf64>
  %k = kiln.constant dense<2.5> : tensor<3x4xf64>
  return %s, %p, %k : tensor<3x4xf64>, tensor<3x4xi1>, tensor<3x4xf64>
}
func.func @e_withmask(%x: tensor<3x4xf64>, %c0: tensor<3x4xf64>, %c1: tensor<3x4xi1>, %c2: tensor<3x4xf64>) -> tensor<3x4xf64> {
  %g = kiln.vjp @withmask(%x, %c0, %c1, %c2) wrt [0] : (tensor<3x4xf64>, tensor<3x4xf64>, tensor<3x4xi1>, tensor<3x4xf64>) -> tensor<3x4xf64>
  return %g : tensor<3x4xf64>
}

// One value passed for both arguments, gradients w.r.t. each.
// SAMEARG:      reference: out0 tensor<3x4xf64> matches
// SAMEARG-NEXT: reference: out1 tensor<3x4xf64> matches
// SAMEARG-NOT:  matches
func.func @sin_mul(%x: tensor<3x4xf64>, %y: tensor<3x4xf64>) -> tensor<3x4xf64> {
  %z = kiln.mul %x, %y : tensor<3x4xf64>
  %s = kiln.sin %z : tensor<3x4xf64>
  return %s : tensor<3x4xf64>
}
func.func @e_same_arg(%x: tensor<3x4xf64>, %ct: tensor<3x4xf64>) -> (tensor<3x4xf64>, tensor<3x4xf64>) {
  %g:2 = kiln.vjp @sin_mul(%x, %x, %ct) wrt [0, 1] : (tensor<3x4xf64>, tensor<3x4xf64>, tensor<3x4xf64>) -> (tensor<3x4xf64>, tensor<3x4xf64>)
  return %g#0, %g#1 : tensor<3x4xf64>, tensor<3x4xf64>
}

// The forward value (func.call), a vjp with nothing to return (wrt []),
// a gradient, and a vjp whose arguments are a forward value and a gradient.
// VALGRAD:      reference: out0 tensor<3x4xf64> matches
// VALGRAD-NEXT: reference: out1 tensor<3x4xf64> matches
// VALGRAD-NEXT: reference: out2 tensor<3x4xf64> matches
// VALGRAD-NOT:  matches
func.func @e_value_and_grad(%x: tensor<3x4xf64>, %ct: tensor<3x4xf64>) -> (tensor<3x4xf64>, tensor<3x4xf64>, tensor<3x4xf64>) {
  %y:3 = func.call @dup(%x) : (tensor<3x4xf64>) -> (tensor<3x4xf64>, tensor<3x4xf64>, tensor<3x4xf64>)
  kiln.vjp @dup(%x, %ct, %ct, %ct) wrt [] : (tensor<3x4xf64>, tensor<3x4xf64>, tensor<3x4xf64>, tensor<3x4xf64>) -> ()
  %g = kiln.vjp @dup(%x, %ct, %ct, %ct) wrt [0] : (tensor<3x4xf64>, tensor<3x4xf64>, tensor<3x4xf64>, tensor<3x4xf64>) -> tensor<3x4xf64>
  %g2 = kiln.vjp @dup(%y#0, %g, %ct, %y#1) wrt [0] : (tensor<3x4xf64>, tensor<3x4xf64>, tensor<3x4xf64>, tensor<3x4xf64>) -> tensor<3x4xf64>
  return %y#0, %g, %g2 : tensor<3x4xf64>, tensor<3x4xf64>, tensor<3x4xf64>
}

// The vjps sit in a private function that the entry calls.
// CALLGRAD:     reference: out0 tensor<3x4xf64> matches
// CALLGRAD-NOT: matches
func.func private @grad_helper(%x: tensor<3x4xf64>, %ct: tensor<3x4xf64>) -> tensor<3x4xf64> {
  %g = kiln.vjp @sin_mul(%x, %ct, %ct) wrt [0] : (tensor<3x4xf64>, tensor<3x4xf64>, tensor<3x4xf64>) -> tensor<3x4xf64>
  %h = kiln.vjp @unused(%g, %x, %ct) wrt [0] : (tensor<3x4xf64>, tensor<3x4xf64>, tensor<3x4xf64>) -> tensor<3x4xf64>
  return %h : tensor<3x4xf64>
}
func.func @e_call_grad(%x: tensor<3x4xf64>, %ct: tensor<3x4xf64>) -> tensor<3x4xf64> {
  %g = func.call @grad_helper(%x, %ct) : (tensor<3x4xf64>, tensor<3x4xf64>) -> tensor<3x4xf64>
  return %g : tensor<3x4xf64>
}

// A hand-made relu: x * convert(x > 0) (the convert of an i1 has no
// adjoint), then exp.
// MASK:     reference: out0 tensor<3x4xf64> matches
// MASK-NOT: matches
func.func @mask_mul(%x: tensor<3x4xf64>) -> tensor<3x4xf64> {
  %z = kiln.constant dense<0.0> : tensor<3x4xf64>
  %p = kiln.cmp gt, %x, %z : tensor<3x4xf64>
  %m = kiln.convert %p : tensor<3x4xi1> -> tensor<3x4xf64>
  %y = kiln.mul %x, %m : tensor<3x4xf64>
  %e = kiln.exp %y : tensor<3x4xf64>
  return %e : tensor<3x4xf64>
}
func.func @e_mask(%x: tensor<3x4xf64>, %ct: tensor<3x4xf64>) -> tensor<3x4xf64> {
  %g = kiln.vjp @mask_mul(%x, %ct) wrt [0] : (tensor<3x4xf64>, tensor<3x4xf64>) -> tensor<3x4xf64>
  return %g : tensor<3x4xf64>
}

// An f32 argument widened to f64: its gradient comes back as f32.
// MIXED:      reference: out0 tensor<3x4xf32> matches
// MIXED-NEXT: reference: out1 tensor<3x4xf64> matches
// MIXED-NOT:  matches
func.func @mixed(%x: tensor<3x4xf32>, %y: tensor<3x4xf64>) -> tensor<3x4xf64> {
  %d = kiln.convert %x : tensor<3x4xf32> -> tensor<3x4xf64>
  %m = kiln.mul %d, %y : tensor<3x4xf64>
  %s = kiln.sin %m : tensor<3x4xf64>
  return %s : tensor<3x4xf64>
}
func.func @e_mixed(%x: tensor<3x4xf32>, %y: tensor<3x4xf64>, %ct: tensor<3x4xf64>) -> (tensor<3x4xf32>, tensor<3x4xf64>) {
  %g:2 = kiln.vjp @mixed(%x, %y, %ct) wrt [0, 1] : (tensor<3x4xf32>, tensor<3x4xf64>, tensor<3x4xf64>) -> (tensor<3x4xf32>, tensor<3x4xf64>)
  return %g#0, %g#1 : tensor<3x4xf32>, tensor<3x4xf64>
}

// Rank 0 throughout: exp(x y) / (y + 2).
// SCALAR:      reference: out0 tensor<f64> matches
// SCALAR-NEXT: reference: out1 tensor<f64> matches
// SCALAR-NOT:  matches
func.func @scalar(%x: tensor<f64>, %y: tensor<f64>) -> tensor<f64> {
  %m = kiln.mul %x, %y : tensor<f64>
  %e = kiln.exp %m : tensor<f64>
  %c2 = kiln.constant dense<2.0> : tensor<f64>
  %y2 = kiln.add %y, %c2 : tensor<f64>
  %d = kiln.div %e, %y2 : tensor<f64>
  return %d : tensor<f64>
}
func.func @e_scalar(%x: tensor<f64>, %y: tensor<f64>, %ct: tensor<f64>) -> (tensor<f64>, tensor<f64>) {
  %g:2 = kiln.vjp @scalar(%x, %y, %ct) wrt [0, 1] : (tensor<f64>, tensor<f64>, tensor<f64>) -> (tensor<f64>, tensor<f64>)
  return %g#0, %g#1 : tensor<f64>, tensor<f64>
}

// An empty tensor (0 x 4) reduced into the result.
// EMPTY:      reference: out0 tensor<0x4xf64> matches
// EMPTY-NEXT: reference: out1 tensor<4xf64> matches
// EMPTY-NOT:  matches
func.func @empty(%x: tensor<0x4xf64>, %y: tensor<4xf64>) -> tensor<4xf64> {
  %s = kiln.reduce_sum %x, dims = [0] : tensor<0x4xf64> -> tensor<4xf64>
  %m = kiln.mul %s, %y : tensor<4xf64>
  %t = kiln.tanh %y : tensor<4xf64>
  %a = kiln.add %m, %t : tensor<4xf64>
  return %a : tensor<4xf64>
}
func.func @e_empty(%x: tensor<0x4xf64>, %y: tensor<4xf64>, %ct: tensor<4xf64>) -> (tensor<0x4xf64>, tensor<4xf64>) {
  %g:2 = kiln.vjp @empty(%x, %y, %ct) wrt [0, 1] : (tensor<0x4xf64>, tensor<4xf64>, tensor<4xf64>) -> (tensor<0x4xf64>, tensor<4xf64>)
  return %g#0, %g#1 : tensor<0x4xf64>, tensor<4xf64>
}

// Shape ops that do nothing: reduce over no dims, concat of one operand,
// the identity transpose, an empty slice concatenated in.
// DEGENERATE:     reference: out0 tensor<3x4xf64> matches
// DEGENERATE-NOT: matches
func.func @degenerate(%x: tensor<3x4xf64>) -> (tensor<3x4xf64>, tensor<3x4xf64>, tensor<3x4xf64>, tensor<3x4xf64>) {
  %a = kiln.reduce_sum %x, dims = [] : tensor<3x4xf64> -> tensor<3x4xf64>
  %b = kiln.reduce_max %x, dims = [] : tensor<3x4xf64> -> tensor<3x4xf64>
  %c = kiln.concat %x dim = 0 : tensor<3x4xf64> -> tensor<3x4xf64>
  %d = kiln.transpose %x, perm = [0, 1] : tensor<3x4xf64> -> tensor<3x4xf64>
  %s0 = kiln.slice %x, offsets = [0, 2], sizes = [3, 0] : tensor<3x4xf64> -> tensor<3x0xf64>
  %e = kiln.concat %s0, %d dim = 1 : tensor<3x0xf64>, tensor<3x4xf64> -> tensor<3x4xf64>
  %sa = kiln.sin %a : tensor<3x4xf64>
  %sb = kiln.mul %b, %b : tensor<3x4xf64>
  %sc = kiln.exp %c : tensor<3x4xf64>
  %sd = kiln.tanh %e : tensor<3x4xf64>
  return %sa, %sb, %sc, %sd : tensor<3x4xf64>, tensor<3x4xf64>, tensor<3x4xf64>, tensor<3x4xf64>
}
func.func @e_degenerate(%x: tensor<3x4xf64>, %c0: tensor<3x4xf64>, %c1: tensor<3x4xf64>, %c2: tensor<3x4xf64>, %c3: tensor<3x4xf64>) -> tensor<3x4xf64> {
  %g = kiln.vjp @degenerate(%x, %c0, %c1, %c2, %c3) wrt [0] : (tensor<3x4xf64>, tensor<3x4xf64>, tensor<3x4xf64>, tensor<3x4xf64>, tensor<3x4xf64>) -> tensor<3x4xf64>
  return %g : tensor<3x4xf64>
}

// select with one value on both sides (random i1 predicate), then a pow
// with a constant integer exponent on a possibly negative base.
// SELSAME:     reference: out0 tensor<3x4xf64> matches
// SELSAME-NOT: matches
func.func @select_same(%x: tensor<3x4xf64>, %p: tensor<3x4xi1>) -> tensor<3x4xf64> {
  %s = kiln.select %p, %x, %x : tensor<3x4xi1>, tensor<3x4xf64>
  %c3 = kiln.constant dense<3.0> : tensor<3x4xf64>
  %q = kiln.pow %s, %c3 : tensor<3x4xf64>
  return %q : tensor<3x4xf64>
}
func.func @e_select_same(%x: tensor<3x4xf64>, %p: tensor<3x4xi1>, %ct: tensor<3x4xf64>) -> tensor<3x4xf64> {
  %g = kiln.vjp @select_same(%x, %p, %ct) wrt [0] : (tensor<3x4xf64>, tensor<3x4xi1>, tensor<3x4xf64>) -> tensor<3x4xf64>
  return %g : tensor<3x4xf64>
}

// A callee that already holds a kiln.fusion_group (inlined by -kiln-autodiff).
// FUSED:      reference: out0 tensor<3x4xf64> matches
// FUSED-NEXT: reference: out1 tensor<3x4xf64> matches
// FUSED-NOT:  matches
func.func @fused(%x: tensor<3x4xf64>, %y: tensor<3x4xf64>) -> tensor<3x4xf64> {
  %r, %q = kiln.fusion_group %x, %y : (tensor<3x4xf64>, tensor<3x4xf64>) -> (tensor<3x4xf64>, tensor<3x4xf64>) {
  ^bb0(%a: tensor<3x4xf64>, %b: tensor<3x4xf64>):
    %m = kiln.mul %a, %b : tensor<3x4xf64>
    %t = kiln.tanh %m : tensor<3x4xf64>
    %e = kiln.exp %b : tensor<3x4xf64>
    kiln.yield %t, %e : tensor<3x4xf64>, tensor<3x4xf64>
  }
  %o = kiln.add %r, %x : tensor<3x4xf64>
  %z = kiln.mul %o, %q : tensor<3x4xf64>
  return %z : tensor<3x4xf64>
}
func.func @e_fused(%x: tensor<3x4xf64>, %y: tensor<3x4xf64>, %ct: tensor<3x4xf64>) -> (tensor<3x4xf64>, tensor<3x4xf64>) {
  %g:2 = kiln.vjp @fused(%x, %y, %ct) wrt [0, 1] : (tensor<3x4xf64>, tensor<3x4xf64>, tensor<3x4xf64>) -> (tensor<3x4xf64>, tensor<3x4xf64>)
  return %g#0, %g#1 : tensor<3x4xf64>, tensor<3x4xf64>
}

// The outer callee holds two vjps of one function (one of them on the
// other's gradient) and calls a function holding a third: second order,
// hence second-order tolerances.
// TWOVJPS:      reference: out0 tensor<3xf64> matches
// TWOVJPS-NEXT: reference: out1 tensor<3xf64> matches
// TWOVJPS-NOT:  matches
func.func @sin_sq(%x: tensor<3xf64>) -> tensor<3xf64> {
  %m = kiln.mul %x, %x : tensor<3xf64>
  %s = kiln.sin %m : tensor<3xf64>
  return %s : tensor<3xf64>
}
func.func @sin_sq_grad(%x: tensor<3xf64>, %c: tensor<3xf64>) -> tensor<3xf64> {
  %g = kiln.vjp @sin_sq(%x, %c) wrt [0] : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64>
  return %g : tensor<3xf64>
}
func.func @two_vjps(%x: tensor<3xf64>, %c: tensor<3xf64>) -> tensor<3xf64> {
  %a = kiln.vjp @sin_sq(%x, %c) wrt [0] : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64>
  %b = kiln.vjp @sin_sq(%a, %x) wrt [0] : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64>
  %d = func.call @sin_sq_grad(%b, %a) : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64>
  %e = kiln.mul %d, %x : tensor<3xf64>
  return %e : tensor<3xf64>
}
func.func @e_two_vjps(%x: tensor<3xf64>, %c: tensor<3xf64>, %v: tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>) {
  %g:2 = kiln.vjp @two_vjps(%x, %c, %v) wrt [0, 1] : (tensor<3xf64>, tensor<3xf64>, tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>)
  return %g#0, %g#1 : tensor<3xf64>, tensor<3xf64>
}

// x reaches the result only through a predicate: its gradient is zero.
// ONLYPRED:      out0: tensor<3xf64>
// ONLYPRED-NEXT: [0, 0, 0]
// ONLYPRED:      reference: out0 tensor<3xf64> matches
// ONLYPRED-NEXT: reference: out1 tensor<3xf64> matches
// ONLYPRED-NOT:  matches
func.func @only_pred(%x: tensor<3xf64>, %y: tensor<3xf64>) -> (tensor<3xf64>, tensor<3xi1>) {
  %z = kiln.constant dense<0.0> : tensor<3xf64>
  %p = kiln.cmp gt, %x, %z : tensor<3xf64>
  %n = kiln.neg %y : tensor<3xf64>
  %s = kiln.select %p, %y, %n : tensor<3xi1>, tensor<3xf64>
  return %s, %p : tensor<3xf64>, tensor<3xi1>
}
func.func @e_only_pred(%x: tensor<3xf64>, %y: tensor<3xf64>, %ct: tensor<3xf64>, %cp: tensor<3xi1>) -> (tensor<3xf64>, tensor<3xf64>) {
  %g:2 = kiln.vjp @only_pred(%x, %y, %ct, %cp) wrt [0, 1] : (tensor<3xf64>, tensor<3xf64>, tensor<3xf64>, tensor<3xi1>) -> (tensor<3xf64>, tensor<3xf64>)
  return %g#0, %g#1 : tensor<3xf64>, tensor<3xf64>
}

// No float result at all: a zero gradient.
// ONLYMASK:      out0: tensor<3xf64>
// ONLYMASK-NEXT: [0, 0, 0]
// ONLYMASK-NEXT: reference: out0 tensor<3xf64> matches
func.func @only_mask(%x: tensor<3xf64>) -> tensor<3xi1> {
  %z = kiln.constant dense<0.0> : tensor<3xf64>
  %p = kiln.cmp gt, %x, %z : tensor<3xf64>
  return %p : tensor<3xi1>
}
func.func @e_only_mask(%x: tensor<3xf64>, %cp: tensor<3xi1>) -> tensor<3xf64> {
  %g = kiln.vjp @only_mask(%x, %cp) wrt [0] : (tensor<3xf64>, tensor<3xi1>) -> tensor<3xf64>
  return %g : tensor<3xf64>
}

// F16:     reference: out0 tensor<3x4xf16> matches
// F16-NOT: matches
func.func @tanh_mul_f16(%x: tensor<3x4xf16>) -> tensor<3x4xf16> {
  %t = kiln.tanh %x : tensor<3x4xf16>
  %m = kiln.mul %t, %x : tensor<3x4xf16>
  return %m : tensor<3x4xf16>
}
func.func @e_f16(%x: tensor<3x4xf16>, %ct: tensor<3x4xf16>) -> tensor<3x4xf16> {
  %g = kiln.vjp @tanh_mul_f16(%x, %ct) wrt [0] : (tensor<3x4xf16>, tensor<3x4xf16>) -> tensor<3x4xf16>
  return %g : tensor<3x4xf16>
}

// BF16:     reference: out0 tensor<3x4xbf16> matches
// BF16-NOT: matches
func.func @sigmoid_mul_bf16(%x: tensor<3x4xbf16>) -> tensor<3x4xbf16> {
  %t = kiln.sigmoid %x : tensor<3x4xbf16>
  %m = kiln.mul %t, %x : tensor<3x4xbf16>
  return %m : tensor<3x4xbf16>
}
func.func @e_bf16(%x: tensor<3x4xbf16>, %ct: tensor<3x4xbf16>) -> tensor<3x4xbf16> {
  %g = kiln.vjp @sigmoid_mul_bf16(%x, %ct) wrt [0] : (tensor<3x4xbf16>, tensor<3x4xbf16>) -> tensor<3x4xbf16>
  return %g : tensor<3x4xbf16>
}
