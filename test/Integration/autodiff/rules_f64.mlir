// The VJP rule of every elementwise kiln op, in f64: @f_OP is the function,
// @vjp_OP(args..., ct) its kiln.vjp. kiln-run expands the vjp with
// -kiln-autodiff and compiles it; --check-reference compares the gradients
// with the reference interpreter, which evaluates the same kiln.vjp by
// central finite differences of @f_OP in double.
//
// Tolerances: the finite differences are accurate to about 1e-10 absolute
// (truncation ~h^2 f''' / 6 plus rounding ~1e-16 |<ct, f>| / h), so gradient
// elements close to zero cannot meet the default f64 atol of 1e-12. Every
// first-order check here uses --rtol 1e-7 --atol 1e-9, still four orders
// of magnitude below any wrong rule (which is off by O(1)).
//
// Domains: log, sqrt and rsqrt see x + 1.5 in [0.5, 2.5); reciprocal sees
// x - 2 in [-3, -1) (the negative branch); pow gets a base |x| + 0.5 and an
// exponent 3y; div divides by y + 2. relu, abs, max and min have kinks, but
// the random inputs (uniform in [-1, 1)) never land on them; the tie rules
// are checked with exact inputs in closed_forms.mlir.

// RUN: kiln-run %s --entry vjp_neg --random-inputs 101 --check-reference --rtol 1e-7 --atol 1e-9 | FileCheck %s --check-prefix=NEG
// RUN: kiln-run %s --entry vjp_exp --random-inputs 102 --check-reference --rtol 1e-7 --atol 1e-9 | FileCheck %s --check-prefix=EXP
// RUN: kiln-run %s --entry vjp_log --random-inputs 103 --check-reference --rtol 1e-7 --atol 1e-9 | FileCheck %s --check-prefix=LOG
// RUN: kiln-run %s --entry vjp_tanh --random-inputs 104 --check-reference --rtol 1e-7 --atol 1e-9 | FileCheck %s --check-prefix=TANH
// RUN: kiln-run %s --entry vjp_sigmoid --random-inputs 105 --check-reference --rtol 1e-7 --atol 1e-9 | FileCheck %s --check-prefix=SIGMOID
// RUN: kiln-run %s --entry vjp_relu --random-inputs 106 --check-reference --rtol 1e-7 --atol 1e-9 | FileCheck %s --check-prefix=RELU
// RUN: kiln-run %s --entry vjp_sqrt --random-inputs 107 --check-reference --rtol 1e-7 --atol 1e-9 | FileCheck %s --check-prefix=SQRT
// RUN: kiln-run %s --entry vjp_rsqrt --random-inputs 108 --check-reference --rtol 1e-7 --atol 1e-9 | FileCheck %s --check-prefix=RSQRT
// RUN: kiln-run %s --entry vjp_abs --random-inputs 109 --check-reference --rtol 1e-7 --atol 1e-9 | FileCheck %s --check-prefix=ABS
// RUN: kiln-run %s --entry vjp_sin --random-inputs 110 --check-reference --rtol 1e-7 --atol 1e-9 | FileCheck %s --check-prefix=SIN
// RUN: kiln-run %s --entry vjp_cos --random-inputs 111 --check-reference --rtol 1e-7 --atol 1e-9 | FileCheck %s --check-prefix=COS
// RUN: kiln-run %s --entry vjp_reciprocal --random-inputs 112 --check-reference --rtol 1e-7 --atol 1e-9 | FileCheck %s --check-prefix=RECIPROCAL
// RUN: kiln-run %s --entry vjp_add --random-inputs 201 --check-reference --rtol 1e-7 --atol 1e-9 | FileCheck %s --check-prefix=ADD
// RUN: kiln-run %s --entry vjp_sub --random-inputs 202 --check-reference --rtol 1e-7 --atol 1e-9 | FileCheck %s --check-prefix=SUB
// RUN: kiln-run %s --entry vjp_mul --random-inputs 203 --check-reference --rtol 1e-7 --atol 1e-9 | FileCheck %s --check-prefix=MUL
// RUN: kiln-run %s --entry vjp_div --random-inputs 204 --check-reference --rtol 1e-7 --atol 1e-9 | FileCheck %s --check-prefix=DIV
// RUN: kiln-run %s --entry vjp_max --random-inputs 205 --check-reference --rtol 1e-7 --atol 1e-9 | FileCheck %s --check-prefix=MAX
// RUN: kiln-run %s --entry vjp_min --random-inputs 206 --check-reference --rtol 1e-7 --atol 1e-9 | FileCheck %s --check-prefix=MIN
// RUN: kiln-run %s --entry vjp_pow --random-inputs 207 --check-reference --rtol 1e-7 --atol 1e-9 | FileCheck %s --check-prefix=POW
// RUN: kiln-run %s --entry vjp_pow_x --random-inputs 208 --check-reference --rtol 1e-7 --atol 1e-9 | FileCheck %s --check-prefix=POWX
// RUN: kiln-run %s --entry vjp_pow_y --random-inputs 209 --check-reference --rtol 1e-7 --atol 1e-9 | FileCheck %s --check-prefix=POWY
// RUN: kiln-run %s --entry vjp_mul_same --random-inputs 210 --check-reference --rtol 1e-7 --atol 1e-9 | FileCheck %s --check-prefix=MULSAME
// RUN: kiln-run %s --entry vjp_select --random-inputs 211 --check-reference --rtol 1e-7 --atol 1e-9 | FileCheck %s --check-prefix=SELECT
// RUN: kiln-run %s --entry vjp_select_cmp --random-inputs 212 --check-reference --rtol 1e-7 --atol 1e-9 | FileCheck %s --check-prefix=SELCMP
// The f32 round trip loses precision in the compiled code (the reference's
// finite differences do not round), so the convert checks allow f32 error.
// RUN: kiln-run %s --entry vjp_convert --random-inputs 213 --check-reference --rtol 1e-6 --atol 1e-7 | FileCheck %s --check-prefix=CONVERT
// RUN: kiln-run %s --entry vjp_convert_tanh --random-inputs 214 --check-reference --rtol 1e-5 --atol 1e-6 | FileCheck %s --check-prefix=CVTANH

//===----------------------------------------------------------------------===//
// Unary
//===----------------------------------------------------------------------===//

// NEG: reference: out0 tensor<3x4xf64> matches
// NEG-NOT: matches
func.func @f_neg(%x: tensor<3x4xf64>) -> tensor<3x4xf64> {
  %y = kiln.neg %x : tensor<3x4xf64>
  return %y : tensor<3x4xf64>
}
func.func @vjp_neg(%x: tensor<3x4xf64>, %ct: tensor<3x4xf64>) -> tensor<3x4xf64> {
  %g = kiln.vjp @f_neg(%x, %ct) wrt [0] : (tensor<3x4xf64>, tensor<3x4xf64>) -> tensor<3x4xf64>
  return %g : tensor<3x4xf64>
}

// EXP: reference: out0 tensor<3x4xf64> matches
// EXP-NOT: matches
func.func @f_exp(%x: tensor<3x4xf64>) -> tensor<3x4xf64> {
  %y = kiln.exp %x : tensor<3x4xf64>
  return %y : tensor<3x4xf64>
}
func.func @vjp_exp(%x: tensor<3x4xf64>, %ct: tensor<3x4xf64>) -> tensor<3x4xf64> {
  %g = kiln.vjp @f_exp(%x, %ct) wrt [0] : (tensor<3x4xf64>, tensor<3x4xf64>) -> tensor<3x4xf64>
  return %g : tensor<3x4xf64>
}

// x + 1.5 in [0.5, 2.5)
// LOG: reference: out0 tensor<3x4xf64> matches
// LOG-NOT: matches
func.func @f_log(%x: tensor<3x4xf64>) -> tensor<3x4xf64> {
  %c = kiln.constant dense<1.5> : tensor<3x4xf64>
  %d = kiln.add %x, %c : tensor<3x4xf64>
  %y = kiln.log %d : tensor<3x4xf64>
  return %y : tensor<3x4xf64>
}
func.func @vjp_log(%x: tensor<3x4xf64>, %ct: tensor<3x4xf64>) -> tensor<3x4xf64> {
  %g = kiln.vjp @f_log(%x, %ct) wrt [0] : (tensor<3x4xf64>, tensor<3x4xf64>) -> tensor<3x4xf64>
  return %g : tensor<3x4xf64>
}

// TANH: reference: out0 tensor<3x4xf64> matches
// TANH-NOT: matches
func.func @f_tanh(%x: tensor<3x4xf64>) -> tensor<3x4xf64> {
  %y = kiln.tanh %x : tensor<3x4xf64>
  return %y : tensor<3x4xf64>
}
func.func @vjp_tanh(%x: tensor<3x4xf64>, %ct: tensor<3x4xf64>) -> tensor<3x4xf64> {
  %g = kiln.vjp @f_tanh(%x, %ct) wrt [0] : (tensor<3x4xf64>, tensor<3x4xf64>) -> tensor<3x4xf64>
  return %g : tensor<3x4xf64>
}

// SIGMOID: reference: out0 tensor<3x4xf64> matches
// SIGMOID-NOT: matches
func.func @f_sigmoid(%x: tensor<3x4xf64>) -> tensor<3x4xf64> {
  %y = kiln.sigmoid %x : tensor<3x4xf64>
  return %y : tensor<3x4xf64>
}
func.func @vjp_sigmoid(%x: tensor<3x4xf64>, %ct: tensor<3x4xf64>) -> tensor<3x4xf64> {
  %g = kiln.vjp @f_sigmoid(%x, %ct) wrt [0] : (tensor<3x4xf64>, tensor<3x4xf64>) -> tensor<3x4xf64>
  return %g : tensor<3x4xf64>
}

// random inputs are never exactly 0
// RELU: reference: out0 tensor<3x4xf64> matches
// RELU-NOT: matches
func.func @f_relu(%x: tensor<3x4xf64>) -> tensor<3x4xf64> {
  %y = kiln.relu %x : tensor<3x4xf64>
  return %y : tensor<3x4xf64>
}
func.func @vjp_relu(%x: tensor<3x4xf64>, %ct: tensor<3x4xf64>) -> tensor<3x4xf64> {
  %g = kiln.vjp @f_relu(%x, %ct) wrt [0] : (tensor<3x4xf64>, tensor<3x4xf64>) -> tensor<3x4xf64>
  return %g : tensor<3x4xf64>
}

// x + 1.5 in [0.5, 2.5)
// SQRT: reference: out0 tensor<3x4xf64> matches
// SQRT-NOT: matches
func.func @f_sqrt(%x: tensor<3x4xf64>) -> tensor<3x4xf64> {
  %c = kiln.constant dense<1.5> : tensor<3x4xf64>
  %d = kiln.add %x, %c : tensor<3x4xf64>
  %y = kiln.sqrt %d : tensor<3x4xf64>
  return %y : tensor<3x4xf64>
}
func.func @vjp_sqrt(%x: tensor<3x4xf64>, %ct: tensor<3x4xf64>) -> tensor<3x4xf64> {
  %g = kiln.vjp @f_sqrt(%x, %ct) wrt [0] : (tensor<3x4xf64>, tensor<3x4xf64>) -> tensor<3x4xf64>
  return %g : tensor<3x4xf64>
}

// x + 1.5 in [0.5, 2.5)
// RSQRT: reference: out0 tensor<3x4xf64> matches
// RSQRT-NOT: matches
func.func @f_rsqrt(%x: tensor<3x4xf64>) -> tensor<3x4xf64> {
  %c = kiln.constant dense<1.5> : tensor<3x4xf64>
  %d = kiln.add %x, %c : tensor<3x4xf64>
  %y = kiln.rsqrt %d : tensor<3x4xf64>
  return %y : tensor<3x4xf64>
}
func.func @vjp_rsqrt(%x: tensor<3x4xf64>, %ct: tensor<3x4xf64>) -> tensor<3x4xf64> {
  %g = kiln.vjp @f_rsqrt(%x, %ct) wrt [0] : (tensor<3x4xf64>, tensor<3x4xf64>) -> tensor<3x4xf64>
  return %g : tensor<3x4xf64>
}

// random inputs are never exactly 0
// ABS: reference: out0 tensor<3x4xf64> matches
// ABS-NOT: matches
func.func @f_abs(%x: tensor<3x4xf64>) -> tensor<3x4xf64> {
  %y = kiln.abs %x : tensor<3x4xf64>
  return %y : tensor<3x4xf64>
}
func.func @vjp_abs(%x: tensor<3x4xf64>, %ct: tensor<3x4xf64>) -> tensor<3x4xf64> {
  %g = kiln.vjp @f_abs(%x, %ct) wrt [0] : (tensor<3x4xf64>, tensor<3x4xf64>) -> tensor<3x4xf64>
  return %g : tensor<3x4xf64>
}

// SIN: reference: out0 tensor<3x4xf64> matches
// SIN-NOT: matches
func.func @f_sin(%x: tensor<3x4xf64>) -> tensor<3x4xf64> {
  %y = kiln.sin %x : tensor<3x4xf64>
  return %y : tensor<3x4xf64>
}
func.func @vjp_sin(%x: tensor<3x4xf64>, %ct: tensor<3x4xf64>) -> tensor<3x4xf64> {
  %g = kiln.vjp @f_sin(%x, %ct) wrt [0] : (tensor<3x4xf64>, tensor<3x4xf64>) -> tensor<3x4xf64>
  return %g : tensor<3x4xf64>
}

// COS: reference: out0 tensor<3x4xf64> matches
// COS-NOT: matches
func.func @f_cos(%x: tensor<3x4xf64>) -> tensor<3x4xf64> {
  %y = kiln.cos %x : tensor<3x4xf64>
  return %y : tensor<3x4xf64>
}
func.func @vjp_cos(%x: tensor<3x4xf64>, %ct: tensor<3x4xf64>) -> tensor<3x4xf64> {
  %g = kiln.vjp @f_cos(%x, %ct) wrt [0] : (tensor<3x4xf64>, tensor<3x4xf64>) -> tensor<3x4xf64>
  return %g : tensor<3x4xf64>
}

// x - 2 in [-3, -1): the negative branch
// RECIPROCAL: reference: out0 tensor<3x4xf64> matches
// RECIPROCAL-NOT: matches
func.func @f_reciprocal(%x: tensor<3x4xf64>) -> tensor<3x4xf64> {
  %c = kiln.constant dense<-2.0> : tensor<3x4xf64>
  %d = kiln.add %x, %c : tensor<3x4xf64>
  %y = kiln.reciprocal %d : tensor<3x4xf64>
  return %y : tensor<3x4xf64>
}
func.func @vjp_reciprocal(%x: tensor<3x4xf64>, %ct: tensor<3x4xf64>) -> tensor<3x4xf64> {
  %g = kiln.vjp @f_reciprocal(%x, %ct) wrt [0] : (tensor<3x4xf64>, tensor<3x4xf64>) -> tensor<3x4xf64>
  return %g : tensor<3x4xf64>
}

//===----------------------------------------------------------------------===//
// Binary: gradients with respect to both operands
//===----------------------------------------------------------------------===//

// ADD:      reference: out0 tensor<3x4xf64> matches
// ADD-NEXT: reference: out1 tensor<3x4xf64> matches
// ADD-NOT:  matches
func.func @f_add(%x: tensor<3x4xf64>, %y: tensor<3x4xf64>) -> tensor<3x4xf64> {
  %z = kiln.add %x, %y : tensor<3x4xf64>
  return %z : tensor<3x4xf64>
}
func.func @vjp_add(%x: tensor<3x4xf64>, %y: tensor<3x4xf64>, %ct: tensor<3x4xf64>)
    -> (tensor<3x4xf64>, tensor<3x4xf64>) {
  %g:2 = kiln.vjp @f_add(%x, %y, %ct) wrt [0, 1] : (tensor<3x4xf64>, tensor<3x4xf64>, tensor<3x4xf64>) -> (tensor<3x4xf64>, tensor<3x4xf64>)
  return %g#0, %g#1 : tensor<3x4xf64>, tensor<3x4xf64>
}

// SUB:      reference: out0 tensor<3x4xf64> matches
// SUB-NEXT: reference: out1 tensor<3x4xf64> matches
// SUB-NOT:  matches
func.func @f_sub(%x: tensor<3x4xf64>, %y: tensor<3x4xf64>) -> tensor<3x4xf64> {
  %z = kiln.sub %x, %y : tensor<3x4xf64>
  return %z : tensor<3x4xf64>
}
func.func @vjp_sub(%x: tensor<3x4xf64>, %y: tensor<3x4xf64>, %ct: tensor<3x4xf64>)
    -> (tensor<3x4xf64>, tensor<3x4xf64>) {
  %g:2 = kiln.vjp @f_sub(%x, %y, %ct) wrt [0, 1] : (tensor<3x4xf64>, tensor<3x4xf64>, tensor<3x4xf64>) -> (tensor<3x4xf64>, tensor<3x4xf64>)
  return %g#0, %g#1 : tensor<3x4xf64>, tensor<3x4xf64>
}

// MUL:      reference: out0 tensor<3x4xf64> matches
// MUL-NEXT: reference: out1 tensor<3x4xf64> matches
// MUL-NOT:  matches
func.func @f_mul(%x: tensor<3x4xf64>, %y: tensor<3x4xf64>) -> tensor<3x4xf64> {
  %z = kiln.mul %x, %y : tensor<3x4xf64>
  return %z : tensor<3x4xf64>
}
func.func @vjp_mul(%x: tensor<3x4xf64>, %y: tensor<3x4xf64>, %ct: tensor<3x4xf64>)
    -> (tensor<3x4xf64>, tensor<3x4xf64>) {
  %g:2 = kiln.vjp @f_mul(%x, %y, %ct) wrt [0, 1] : (tensor<3x4xf64>, tensor<3x4xf64>, tensor<3x4xf64>) -> (tensor<3x4xf64>, tensor<3x4xf64>)
  return %g#0, %g#1 : tensor<3x4xf64>, tensor<3x4xf64>
}

// x / (y + 2), y + 2 in [1, 3).
// DIV:      reference: out0 tensor<3x4xf64> matches
// DIV-NEXT: reference: out1 tensor<3x4xf64> matches
// DIV-NOT:  matches
func.func @f_div(%x: tensor<3x4xf64>, %y: tensor<3x4xf64>) -> tensor<3x4xf64> {
  %c2 = kiln.constant dense<2.0> : tensor<3x4xf64>
  %d = kiln.add %y, %c2 : tensor<3x4xf64>
  %z = kiln.div %x, %d : tensor<3x4xf64>
  return %z : tensor<3x4xf64>
}
func.func @vjp_div(%x: tensor<3x4xf64>, %y: tensor<3x4xf64>, %ct: tensor<3x4xf64>)
    -> (tensor<3x4xf64>, tensor<3x4xf64>) {
  %g:2 = kiln.vjp @f_div(%x, %y, %ct) wrt [0, 1] : (tensor<3x4xf64>, tensor<3x4xf64>, tensor<3x4xf64>) -> (tensor<3x4xf64>, tensor<3x4xf64>)
  return %g#0, %g#1 : tensor<3x4xf64>, tensor<3x4xf64>
}

// MAX:      reference: out0 tensor<3x4xf64> matches
// MAX-NEXT: reference: out1 tensor<3x4xf64> matches
// MAX-NOT:  matches
func.func @f_max(%x: tensor<3x4xf64>, %y: tensor<3x4xf64>) -> tensor<3x4xf64> {
  %z = kiln.max %x, %y : tensor<3x4xf64>
  return %z : tensor<3x4xf64>
}
func.func @vjp_max(%x: tensor<3x4xf64>, %y: tensor<3x4xf64>, %ct: tensor<3x4xf64>)
    -> (tensor<3x4xf64>, tensor<3x4xf64>) {
  %g:2 = kiln.vjp @f_max(%x, %y, %ct) wrt [0, 1] : (tensor<3x4xf64>, tensor<3x4xf64>, tensor<3x4xf64>) -> (tensor<3x4xf64>, tensor<3x4xf64>)
  return %g#0, %g#1 : tensor<3x4xf64>, tensor<3x4xf64>
}

// MIN:      reference: out0 tensor<3x4xf64> matches
// MIN-NEXT: reference: out1 tensor<3x4xf64> matches
// MIN-NOT:  matches
func.func @f_min(%x: tensor<3x4xf64>, %y: tensor<3x4xf64>) -> tensor<3x4xf64> {
  %z = kiln.min %x, %y : tensor<3x4xf64>
  return %z : tensor<3x4xf64>
}
func.func @vjp_min(%x: tensor<3x4xf64>, %y: tensor<3x4xf64>, %ct: tensor<3x4xf64>)
    -> (tensor<3x4xf64>, tensor<3x4xf64>) {
  %g:2 = kiln.vjp @f_min(%x, %y, %ct) wrt [0, 1] : (tensor<3x4xf64>, tensor<3x4xf64>, tensor<3x4xf64>) -> (tensor<3x4xf64>, tensor<3x4xf64>)
  return %g#0, %g#1 : tensor<3x4xf64>, tensor<3x4xf64>
}

// (|x| + 0.5) ^ (3y): base in [0.5, 1.5), exponent in [-3, 3). Gradients
// with respect to both operands, then to each alone (the other rule pruned).
// POW:      reference: out0 tensor<3x4xf64> matches
// POW-NEXT: reference: out1 tensor<3x4xf64> matches
// POW-NOT:  matches
// POWX:     reference: out0 tensor<3x4xf64> matches
// POWX-NOT: matches
// POWY:     reference: out0 tensor<3x4xf64> matches
// POWY-NOT: matches
func.func @f_pow(%x: tensor<3x4xf64>, %y: tensor<3x4xf64>) -> tensor<3x4xf64> {
  %c05 = kiln.constant dense<0.5> : tensor<3x4xf64>
  %c3 = kiln.constant dense<3.0> : tensor<3x4xf64>
  %ax = kiln.abs %x : tensor<3x4xf64>
  %base = kiln.add %ax, %c05 : tensor<3x4xf64>
  %expo = kiln.mul %y, %c3 : tensor<3x4xf64>
  %z = kiln.pow %base, %expo : tensor<3x4xf64>
  return %z : tensor<3x4xf64>
}
func.func @vjp_pow(%x: tensor<3x4xf64>, %y: tensor<3x4xf64>, %ct: tensor<3x4xf64>)
    -> (tensor<3x4xf64>, tensor<3x4xf64>) {
  %g:2 = kiln.vjp @f_pow(%x, %y, %ct) wrt [0, 1] : (tensor<3x4xf64>, tensor<3x4xf64>, tensor<3x4xf64>) -> (tensor<3x4xf64>, tensor<3x4xf64>)
  return %g#0, %g#1 : tensor<3x4xf64>, tensor<3x4xf64>
}
func.func @vjp_pow_x(%x: tensor<3x4xf64>, %y: tensor<3x4xf64>, %ct: tensor<3x4xf64>) -> tensor<3x4xf64> {
  %g = kiln.vjp @f_pow(%x, %y, %ct) wrt [0] : (tensor<3x4xf64>, tensor<3x4xf64>, tensor<3x4xf64>) -> tensor<3x4xf64>
  return %g : tensor<3x4xf64>
}
func.func @vjp_pow_y(%x: tensor<3x4xf64>, %y: tensor<3x4xf64>, %ct: tensor<3x4xf64>) -> tensor<3x4xf64> {
  %g = kiln.vjp @f_pow(%x, %y, %ct) wrt [1] : (tensor<3x4xf64>, tensor<3x4xf64>, tensor<3x4xf64>) -> tensor<3x4xf64>
  return %g : tensor<3x4xf64>
}

// One value used several times, on both sides of a binary op: the
// contributions add up. max(x * x, x) - x.
// MULSAME:     reference: out0 tensor<3x4xf64> matches
// MULSAME-NOT: matches
func.func @f_mul_same(%x: tensor<3x4xf64>) -> tensor<3x4xf64> {
  %sq = kiln.mul %x, %x : tensor<3x4xf64>
  %m = kiln.max %sq, %x : tensor<3x4xf64>
  %s = kiln.sub %m, %x : tensor<3x4xf64>
  return %s : tensor<3x4xf64>
}
func.func @vjp_mul_same(%x: tensor<3x4xf64>, %ct: tensor<3x4xf64>) -> tensor<3x4xf64> {
  %g = kiln.vjp @f_mul_same(%x, %ct) wrt [0] : (tensor<3x4xf64>, tensor<3x4xf64>) -> tensor<3x4xf64>
  return %g : tensor<3x4xf64>
}

//===----------------------------------------------------------------------===//
// select and convert
//===----------------------------------------------------------------------===//

// A random i1 predicate: the branches get ct where chosen, 0 elsewhere.
// SELECT:      reference: out0 tensor<3x4xf64> matches
// SELECT-NEXT: reference: out1 tensor<3x4xf64> matches
// SELECT-NOT:  matches
func.func @f_select(%p: tensor<3x4xi1>, %a: tensor<3x4xf64>, %b: tensor<3x4xf64>) -> tensor<3x4xf64> {
  %z = kiln.select %p, %a, %b : tensor<3x4xi1>, tensor<3x4xf64>
  return %z : tensor<3x4xf64>
}
func.func @vjp_select(%p: tensor<3x4xi1>, %a: tensor<3x4xf64>, %b: tensor<3x4xf64>, %ct: tensor<3x4xf64>)
    -> (tensor<3x4xf64>, tensor<3x4xf64>) {
  %g:2 = kiln.vjp @f_select(%p, %a, %b, %ct) wrt [1, 2] : (tensor<3x4xi1>, tensor<3x4xf64>, tensor<3x4xf64>, tensor<3x4xf64>) -> (tensor<3x4xf64>, tensor<3x4xf64>)
  return %g#0, %g#1 : tensor<3x4xf64>, tensor<3x4xf64>
}

// The predicate computed from the differentiated values (no gradient flows
// through kiln.cmp): x > y ? x * y : sin(y).
// SELCMP:      reference: out0 tensor<3x4xf64> matches
// SELCMP-NEXT: reference: out1 tensor<3x4xf64> matches
// SELCMP-NOT:  matches
func.func @f_select_cmp(%x: tensor<3x4xf64>, %y: tensor<3x4xf64>) -> tensor<3x4xf64> {
  %p = kiln.cmp gt, %x, %y : tensor<3x4xf64>
  %xy = kiln.mul %x, %y : tensor<3x4xf64>
  %sy = kiln.sin %y : tensor<3x4xf64>
  %z = kiln.select %p, %xy, %sy : tensor<3x4xi1>, tensor<3x4xf64>
  return %z : tensor<3x4xf64>
}
func.func @vjp_select_cmp(%x: tensor<3x4xf64>, %y: tensor<3x4xf64>, %ct: tensor<3x4xf64>)
    -> (tensor<3x4xf64>, tensor<3x4xf64>) {
  %g:2 = kiln.vjp @f_select_cmp(%x, %y, %ct) wrt [0, 1] : (tensor<3x4xf64>, tensor<3x4xf64>, tensor<3x4xf64>) -> (tensor<3x4xf64>, tensor<3x4xf64>)
  return %g#0, %g#1 : tensor<3x4xf64>, tensor<3x4xf64>
}

// f64 -> f32 -> f64: the gradient is ct rounded through f32.
// CONVERT:     reference: out0 tensor<3x4xf64> matches
// CONVERT-NOT: matches
func.func @f_convert(%x: tensor<3x4xf64>) -> tensor<3x4xf64> {
  %s = kiln.convert %x : tensor<3x4xf64> -> tensor<3x4xf32>
  %d = kiln.convert %s : tensor<3x4xf32> -> tensor<3x4xf64>
  return %d : tensor<3x4xf64>
}
func.func @vjp_convert(%x: tensor<3x4xf64>, %ct: tensor<3x4xf64>) -> tensor<3x4xf64> {
  %g = kiln.vjp @f_convert(%x, %ct) wrt [0] : (tensor<3x4xf64>, tensor<3x4xf64>) -> tensor<3x4xf64>
  return %g : tensor<3x4xf64>
}

// An f32 computation between the converts: its adjoint is computed in f32.
// CVTANH:     reference: out0 tensor<3x4xf64> matches
// CVTANH-NOT: matches
func.func @f_convert_tanh(%x: tensor<3x4xf64>) -> tensor<3x4xf64> {
  %s = kiln.convert %x : tensor<3x4xf64> -> tensor<3x4xf32>
  %t = kiln.tanh %s : tensor<3x4xf32>
  %e = kiln.mul %t, %s : tensor<3x4xf32>
  %d = kiln.convert %e : tensor<3x4xf32> -> tensor<3x4xf64>
  return %d : tensor<3x4xf64>
}
func.func @vjp_convert_tanh(%x: tensor<3x4xf64>, %ct: tensor<3x4xf64>) -> tensor<3x4xf64> {
  %g = kiln.vjp @f_convert_tanh(%x, %ct) wrt [0] : (tensor<3x4xf64>, tensor<3x4xf64>) -> tensor<3x4xf64>
  return %g : tensor<3x4xf64>
}
