// Gradients with known closed forms, checked exactly with --print (no finite
// differences): on .npy inputs (written by Inputs/npy.py, which needs no
// numpy) so that nothing constant-folds, and once on constants. Also the
// documented tie rules: relu'(0) = 0, abs'(0) = 0, max/min ties split ct
// evenly, reduce_max ties split ct evenly among the maxima, d/dy pow(x, y)
// is 0 where x <= 0. Where finite differences are meaningful (smooth points)
// the run is also compared with the reference interpreter.

// RUN: rm -rf %t && mkdir -p %t
// RUN: %host_python %S/Inputs/npy.py %t/x4.npy f64 4 1,2,3,-4
// RUN: %host_python %S/Inputs/npy.py %t/one.npy f64 scalar 1
// RUN: %host_python %S/Inputs/npy.py %t/pts.npy f64 4 0,0.5,2,4
// RUN: %host_python %S/Inputs/npy.py %t/ones4.npy f64 4 1
// RUN: %host_python %S/Inputs/npy.py %t/kinks.npy f64 4 -1,-0.0,0,2
// RUN: %host_python %S/Inputs/npy.py %t/tx.npy f64 3 1,2,3
// RUN: %host_python %S/Inputs/npy.py %t/ty.npy f64 3 1,5,0
// RUN: %host_python %S/Inputs/npy.py %t/fours.npy f64 3 4
// RUN: %host_python %S/Inputs/npy.py %t/nx.npy f64 3 nan,1,nan
// RUN: %host_python %S/Inputs/npy.py %t/ny.npy f64 3 1,nan,nan
// RUN: %host_python %S/Inputs/npy.py %t/rm.npy f64 2x4 1,3,3,2,5,5,5,0
// RUN: %host_python %S/Inputs/npy.py %t/rmct.npy f64 2 6,3
// RUN: %host_python %S/Inputs/npy.py %t/six.npy f64 scalar 6
// RUN: %host_python %S/Inputs/npy.py %t/px.npy f64 4 -2,0,2,4
// RUN: %host_python %S/Inputs/npy.py %t/py.npy f64 4 3,2,3,0.5
// RUN: %host_python %S/Inputs/npy.py %t/ma.npy f64 2x2 1,2,3,4
// RUN: %host_python %S/Inputs/npy.py %t/mb.npy f64 2x2 5,6,7,8
// RUN: %host_python %S/Inputs/npy.py %t/mct.npy f64 2x2 1,0,0,2
// RUN: %host_python %S/Inputs/npy.py %t/sx.npy f64 2 -1,2
// RUN: %host_python %S/Inputs/npy.py %t/ones2.npy f64 2 1
// RUN: %host_python %S/Inputs/npy.py %t/hx.npy f64 3 0,0.5,-1
// RUN: %host_python %S/Inputs/npy.py %t/ones3.npy f64 3 1
// RUN: %host_python %S/Inputs/npy.py %t/hu.npy f64 3 1,2,3
// RUN: %host_python %S/Inputs/npy.py %t/x4_f32.npy f32 4 1,2,3,-4
// RUN: %host_python %S/Inputs/npy.py %t/one_f32.npy f32 scalar 1
// RUN: %host_python %S/Inputs/npy.py %t/zeros3_f32.npy f32 3 0
// RUN: %host_python %S/Inputs/npy.py %t/ones3_f32.npy f32 3 1
// RUN: %host_python %S/Inputs/npy.py %t/ma_f32.npy f32 2x2 1,2,3,4
// RUN: %host_python %S/Inputs/npy.py %t/mb_f32.npy f32 2x2 5,6,7,8
// RUN: %host_python %S/Inputs/npy.py %t/mct_f32.npy f32 2x2 1,0,0,2

// RUN: kiln-run %s --entry sumsq_grad --input %t/x4.npy --input %t/one.npy --print --check-reference --rtol 1e-7 --atol 1e-9 | FileCheck %s --check-prefix=SUMSQ
// RUN: kiln-run %s --entry sumsq_grad_const --print --check-reference --rtol 1e-7 --atol 1e-9 | FileCheck %s --check-prefix=SUMSQC
// RUN: kiln-run %s --entry unary_known --input %t/pts.npy --input %t/ones4.npy --print --check-reference --rtol 1e-7 --atol 1e-9 | FileCheck %s --check-prefix=UNARY
// RUN: kiln-run %s --entry kinks --input %t/kinks.npy --input %t/ones4.npy --print | FileCheck %s --check-prefix=KINKS
// RUN: kiln-run %s --entry extremum_ties --input %t/tx.npy --input %t/ty.npy --input %t/fours.npy --print | FileCheck %s --check-prefix=TIES
// RUN: kiln-run %s --entry extremum_nan --input %t/nx.npy --input %t/ny.npy --input %t/fours.npy --print | FileCheck %s --check-prefix=NAN
// RUN: kiln-run %s --entry reduce_max_ties --input %t/rm.npy --input %t/rmct.npy --input %t/six.npy --print | FileCheck %s --check-prefix=RMAXTIES
// RUN: kiln-run %s --entry pow_known --input %t/px.npy --input %t/py.npy --input %t/ones4.npy --print | FileCheck %s --check-prefix=POW
// RUN: kiln-run %s --entry matmul_known --input %t/ma.npy --input %t/mb.npy --input %t/mct.npy --print --check-reference --rtol 1e-7 --atol 1e-9 | FileCheck %s --check-prefix=MATMUL
// RUN: kiln-run %s --entry select_known --input %t/sx.npy --input %t/ones2.npy --print --check-reference --rtol 1e-7 --atol 1e-9 | FileCheck %s --check-prefix=SELECT
// RUN: kiln-run %s --entry higher_known --input %t/hx.npy --input %t/one.npy --input %t/ones3.npy --input %t/hu.npy --print | FileCheck %s --check-prefix=HIGHER
// f32: exact values print with %.6g; default f32 tolerances.
// RUN: kiln-run %s --entry sumsq_grad_f32 --input %t/x4_f32.npy --input %t/one_f32.npy --print --check-reference | FileCheck %s --check-prefix=SUMSQ32
// RUN: kiln-run %s --entry sigmoid_at_zero_f32 --input %t/zeros3_f32.npy --input %t/ones3_f32.npy --print --check-reference | FileCheck %s --check-prefix=SIG32
// RUN: kiln-run %s --entry matmul_known_f32 --input %t/ma_f32.npy --input %t/mb_f32.npy --input %t/mct_f32.npy --print --check-reference | FileCheck %s --check-prefix=MATMUL32

//===----------------------------------------------------------------------===//
// d/dx sum(x * x) = 2 x
//===----------------------------------------------------------------------===//

func.func @sumsq(%x: tensor<4xf64>) -> tensor<f64> {
  %sq = kiln.mul %x, %x : tensor<4xf64>
  %s = kiln.reduce_sum %sq, dims = [0] : tensor<4xf64> -> tensor<f64>
  return %s : tensor<f64>
}

// SUMSQ:      out0: tensor<4xf64>
// SUMSQ-NEXT: [2, 4, 6, -8]
// SUMSQ-NEXT: reference: out0 tensor<4xf64> matches
func.func @sumsq_grad(%x: tensor<4xf64>, %ct: tensor<f64>) -> tensor<4xf64> {
  %g = kiln.vjp @sumsq(%x, %ct) wrt [0] : (tensor<4xf64>, tensor<f64>) -> tensor<4xf64>
  return %g : tensor<4xf64>
}

// On constants (may fold entirely at compile time), ct = 0.5: x itself.
// SUMSQC:      out0: tensor<4xf64>
// SUMSQC-NEXT: [1, 2, 3, -4]
// SUMSQC-NEXT: reference: out0 tensor<4xf64> matches
func.func @sumsq_grad_const() -> tensor<4xf64> {
  %x = kiln.constant dense<[1.0, 2.0, 3.0, -4.0]> : tensor<4xf64>
  %ct = kiln.constant dense<0.5> : tensor<f64>
  %g = kiln.vjp @sumsq(%x, %ct) wrt [0] : (tensor<4xf64>, tensor<f64>) -> tensor<4xf64>
  return %g : tensor<4xf64>
}

//===----------------------------------------------------------------------===//
// Unary derivatives at x = [0, 0.5, 2, 4], ct = 1
//===----------------------------------------------------------------------===//

// Ten independent arguments, so that each gradient holds one op's
// derivative (log, sqrt, rsqrt and reciprocal at x + 1).
func.func @unary_all(%a: tensor<4xf64>, %b: tensor<4xf64>, %c: tensor<4xf64>,
                     %d: tensor<4xf64>, %e: tensor<4xf64>, %f: tensor<4xf64>,
                     %g: tensor<4xf64>, %h: tensor<4xf64>, %i: tensor<4xf64>,
                     %j: tensor<4xf64>) -> tensor<4xf64> {
  %one = kiln.constant dense<1.0> : tensor<4xf64>
  %0 = kiln.neg %a : tensor<4xf64>
  %1 = kiln.exp %b : tensor<4xf64>
  %c1 = kiln.add %c, %one : tensor<4xf64>
  %2 = kiln.log %c1 : tensor<4xf64>
  %3 = kiln.tanh %d : tensor<4xf64>
  %4 = kiln.sigmoid %e : tensor<4xf64>
  %f1 = kiln.add %f, %one : tensor<4xf64>
  %5 = kiln.sqrt %f1 : tensor<4xf64>
  %g1 = kiln.add %g, %one : tensor<4xf64>
  %6 = kiln.rsqrt %g1 : tensor<4xf64>
  %7 = kiln.sin %h : tensor<4xf64>
  %8 = kiln.cos %i : tensor<4xf64>
  %j1 = kiln.add %j, %one : tensor<4xf64>
  %9 = kiln.reciprocal %j1 : tensor<4xf64>
  %s0 = kiln.add %0, %1 : tensor<4xf64>
  %s1 = kiln.add %s0, %2 : tensor<4xf64>
  %s2 = kiln.add %s1, %3 : tensor<4xf64>
  %s3 = kiln.add %s2, %4 : tensor<4xf64>
  %s4 = kiln.add %s3, %5 : tensor<4xf64>
  %s5 = kiln.add %s4, %6 : tensor<4xf64>
  %s6 = kiln.add %s5, %7 : tensor<4xf64>
  %s7 = kiln.add %s6, %8 : tensor<4xf64>
  %s8 = kiln.add %s7, %9 : tensor<4xf64>
  return %s8 : tensor<4xf64>
}

// UNARY:      out0: tensor<4xf64>
// UNARY-NEXT: [-1, -1, -1, -1]
// UNARY-NEXT: out1: tensor<4xf64>
// UNARY-NEXT: [1, 1.6487212707, 7.38905609893, 54.5981500331]
// UNARY-NEXT: out2: tensor<4xf64>
// UNARY-NEXT: [1, 0.666666666667, 0.333333333333, 0.2]
// UNARY-NEXT: out3: tensor<4xf64>
// UNARY-NEXT: [1, 0.786447732966, 0.0706508248532, 0.00134095068303]
// UNARY-NEXT: out4: tensor<4xf64>
// UNARY-NEXT: [0.25, 0.235003712202, 0.104993585404, 0.0176627062133]
// UNARY-NEXT: out5: tensor<4xf64>
// UNARY-NEXT: [0.5, 0.408248290464, 0.288675134595, 0.22360679775]
// UNARY-NEXT: out6: tensor<4xf64>
// UNARY-NEXT: [-0.5, -0.272165526976, -0.0962250448649, -0.04472135955]
// UNARY-NEXT: out7: tensor<4xf64>
// UNARY-NEXT: [1, 0.87758256189, -0.416146836547, -0.653643620864]
// UNARY-NEXT: out8: tensor<4xf64>
// UNARY-NEXT: [{{-?}}0, -0.479425538604, -0.909297426826, 0.756802495308]
// UNARY-NEXT: out9: tensor<4xf64>
// UNARY-NEXT: [-1, -0.444444444444, -0.111111111111, -0.04]
// UNARY-COUNT-10: matches
func.func @unary_known(%x: tensor<4xf64>, %ct: tensor<4xf64>)
    -> (tensor<4xf64>, tensor<4xf64>, tensor<4xf64>, tensor<4xf64>, tensor<4xf64>,
        tensor<4xf64>, tensor<4xf64>, tensor<4xf64>, tensor<4xf64>, tensor<4xf64>) {
  %g:10 = kiln.vjp @unary_all(%x, %x, %x, %x, %x, %x, %x, %x, %x, %x, %ct) wrt [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]
      : (tensor<4xf64>, tensor<4xf64>, tensor<4xf64>, tensor<4xf64>, tensor<4xf64>,
         tensor<4xf64>, tensor<4xf64>, tensor<4xf64>, tensor<4xf64>, tensor<4xf64>,
         tensor<4xf64>)
      -> (tensor<4xf64>, tensor<4xf64>, tensor<4xf64>, tensor<4xf64>, tensor<4xf64>,
          tensor<4xf64>, tensor<4xf64>, tensor<4xf64>, tensor<4xf64>, tensor<4xf64>)
  return %g#0, %g#1, %g#2, %g#3, %g#4, %g#5, %g#6, %g#7, %g#8, %g#9
      : tensor<4xf64>, tensor<4xf64>, tensor<4xf64>, tensor<4xf64>, tensor<4xf64>,
        tensor<4xf64>, tensor<4xf64>, tensor<4xf64>, tensor<4xf64>, tensor<4xf64>
}

//===----------------------------------------------------------------------===//
// Tie rules
//===----------------------------------------------------------------------===//

func.func @relu_abs(%a: tensor<4xf64>, %b: tensor<4xf64>) -> tensor<4xf64> {
  %r = kiln.relu %a : tensor<4xf64>
  %s = kiln.abs %b : tensor<4xf64>
  %y = kiln.add %r, %s : tensor<4xf64>
  return %y : tensor<4xf64>
}

// x = [-1, -0, 0, 2]: relu' = [0, 0, 0, 1], abs' = [-1, 0, 0, 1].
// KINKS:      out0: tensor<4xf64>
// KINKS-NEXT: [{{-?}}0, {{-?}}0, {{-?}}0, 1]
// KINKS-NEXT: out1: tensor<4xf64>
// KINKS-NEXT: [-1, {{-?}}0, {{-?}}0, 1]
func.func @kinks(%x: tensor<4xf64>, %ct: tensor<4xf64>) -> (tensor<4xf64>, tensor<4xf64>) {
  %g:2 = kiln.vjp @relu_abs(%x, %x, %ct) wrt [0, 1] : (tensor<4xf64>, tensor<4xf64>, tensor<4xf64>) -> (tensor<4xf64>, tensor<4xf64>)
  return %g#0, %g#1 : tensor<4xf64>, tensor<4xf64>
}

func.func @max2(%x: tensor<3xf64>, %y: tensor<3xf64>) -> tensor<3xf64> {
  %z = kiln.max %x, %y : tensor<3xf64>
  return %z : tensor<3xf64>
}
func.func @min2(%x: tensor<3xf64>, %y: tensor<3xf64>) -> tensor<3xf64> {
  %z = kiln.min %x, %y : tensor<3xf64>
  return %z : tensor<3xf64>
}
func.func @max_self(%x: tensor<3xf64>) -> tensor<3xf64> {
  %z = kiln.max %x, %x : tensor<3xf64>
  return %z : tensor<3xf64>
}

// x = [1, 2, 3], y = [1, 5, 0], ct = 4: the tie in lane 0 gives 2 to each
// side; max(x, x) gives the whole ct back to x.
// TIES:      out0: tensor<3xf64>
// TIES-NEXT: [2, 0, 4]
// TIES-NEXT: out1: tensor<3xf64>
// TIES-NEXT: [2, 4, 0]
// TIES-NEXT: out2: tensor<3xf64>
// TIES-NEXT: [2, 4, 0]
// TIES-NEXT: out3: tensor<3xf64>
// TIES-NEXT: [2, 0, 4]
// TIES-NEXT: out4: tensor<3xf64>
// TIES-NEXT: [4, 4, 4]
func.func @extremum_ties(%x: tensor<3xf64>, %y: tensor<3xf64>, %ct: tensor<3xf64>)
    -> (tensor<3xf64>, tensor<3xf64>, tensor<3xf64>, tensor<3xf64>, tensor<3xf64>) {
  %a:2 = kiln.vjp @max2(%x, %y, %ct) wrt [0, 1] : (tensor<3xf64>, tensor<3xf64>, tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>)
  %b:2 = kiln.vjp @min2(%x, %y, %ct) wrt [0, 1] : (tensor<3xf64>, tensor<3xf64>, tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>)
  %c = kiln.vjp @max_self(%x, %ct) wrt [0] : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64>
  return %a#0, %a#1, %b#0, %b#1, %c : tensor<3xf64>, tensor<3xf64>, tensor<3xf64>, tensor<3xf64>, tensor<3xf64>
}

// NaN operands get no gradient from max or min: x = [nan, 1, nan],
// y = [1, nan, nan].
// NAN:      out0: tensor<3xf64>
// NAN-NEXT: [0, 0, 0]
// NAN-NEXT: out1: tensor<3xf64>
// NAN-NEXT: [0, 0, 0]
// NAN-NEXT: out2: tensor<3xf64>
// NAN-NEXT: [0, 0, 0]
// NAN-NEXT: out3: tensor<3xf64>
// NAN-NEXT: [0, 0, 0]
func.func @extremum_nan(%x: tensor<3xf64>, %y: tensor<3xf64>, %ct: tensor<3xf64>)
    -> (tensor<3xf64>, tensor<3xf64>, tensor<3xf64>, tensor<3xf64>) {
  %a:2 = kiln.vjp @max2(%x, %y, %ct) wrt [0, 1] : (tensor<3xf64>, tensor<3xf64>, tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>)
  %b:2 = kiln.vjp @min2(%x, %y, %ct) wrt [0, 1] : (tensor<3xf64>, tensor<3xf64>, tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>)
  return %a#0, %a#1, %b#0, %b#1 : tensor<3xf64>, tensor<3xf64>, tensor<3xf64>, tensor<3xf64>
}

func.func @row_max(%x: tensor<2x4xf64>) -> tensor<2xf64> {
  %m = kiln.reduce_max %x, dims = [1] : tensor<2x4xf64> -> tensor<2xf64>
  return %m : tensor<2xf64>
}
func.func @all_max(%x: tensor<2x4xf64>) -> tensor<f64> {
  %m = kiln.reduce_max %x, dims = [0, 1] : tensor<2x4xf64> -> tensor<f64>
  return %m : tensor<f64>
}

// x = [[1, 3, 3, 2], [5, 5, 5, 0]], ct = [6, 3]: 3 each to the two 3s, 1
// each to the three 5s; the max over everything (5, three times) with ct 6
// gives 2 to each 5.
// RMAXTIES:      out0: tensor<2x4xf64>
// RMAXTIES-NEXT: {{\[\[}}0, 3, 3, 0],
// RMAXTIES-NEXT: [1, 1, 1, 0]]
// RMAXTIES-NEXT: out1: tensor<2x4xf64>
// RMAXTIES-NEXT: {{\[\[}}0, 0, 0, 0],
// RMAXTIES-NEXT: [2, 2, 2, 0]]
func.func @reduce_max_ties(%x: tensor<2x4xf64>, %ct: tensor<2xf64>, %ct_all: tensor<f64>)
    -> (tensor<2x4xf64>, tensor<2x4xf64>) {
  %a = kiln.vjp @row_max(%x, %ct) wrt [0] : (tensor<2x4xf64>, tensor<2xf64>) -> tensor<2x4xf64>
  %b = kiln.vjp @all_max(%x, %ct_all) wrt [0] : (tensor<2x4xf64>, tensor<f64>) -> tensor<2x4xf64>
  return %a, %b : tensor<2x4xf64>, tensor<2x4xf64>
}

func.func @pow2(%x: tensor<4xf64>, %y: tensor<4xf64>) -> tensor<4xf64> {
  %z = kiln.pow %x, %y : tensor<4xf64>
  return %z : tensor<4xf64>
}

// x = [-2, 0, 2, 4], y = [3, 2, 3, 0.5]: d/dx = y x^(y-1) = [12, 0, 12,
// 0.25]; d/dy = x^y log x, 0 where x == 0 and y >= 0, NaN where x < 0 (as
// PyTorch): [nan, 0, 8 log 2, 2 log 4].
// POW:      out0: tensor<4xf64>
// POW-NEXT: [12, {{-?}}0, 12, 0.25]
// POW-NEXT: out1: tensor<4xf64>
// POW-NEXT: [{{-?}}nan, {{-?}}0, 5.54517744448, 2.77258872224]
func.func @pow_known(%x: tensor<4xf64>, %y: tensor<4xf64>, %ct: tensor<4xf64>)
    -> (tensor<4xf64>, tensor<4xf64>) {
  %g:2 = kiln.vjp @pow2(%x, %y, %ct) wrt [0, 1] : (tensor<4xf64>, tensor<4xf64>, tensor<4xf64>) -> (tensor<4xf64>, tensor<4xf64>)
  return %g#0, %g#1 : tensor<4xf64>, tensor<4xf64>
}

//===----------------------------------------------------------------------===//
// matmul and select on known values
//===----------------------------------------------------------------------===//

func.func @mm(%a: tensor<2x2xf64>, %b: tensor<2x2xf64>) -> tensor<2x2xf64> {
  %c = kiln.matmul %a, %b : tensor<2x2xf64>, tensor<2x2xf64> -> tensor<2x2xf64>
  return %c : tensor<2x2xf64>
}

// A = [[1, 2], [3, 4]], B = [[5, 6], [7, 8]], ct = [[1, 0], [0, 2]]:
// dA = ct B^T = [[5, 7], [12, 16]], dB = A^T ct = [[1, 6], [2, 8]].
// MATMUL:      out0: tensor<2x2xf64>
// MATMUL-NEXT: {{\[\[}}5, 7],
// MATMUL-NEXT: [12, 16]]
// MATMUL-NEXT: out1: tensor<2x2xf64>
// MATMUL-NEXT: {{\[\[}}1, 6],
// MATMUL-NEXT: [2, 8]]
// MATMUL-NEXT: reference: out0 tensor<2x2xf64> matches
// MATMUL-NEXT: reference: out1 tensor<2x2xf64> matches
func.func @matmul_known(%a: tensor<2x2xf64>, %b: tensor<2x2xf64>, %ct: tensor<2x2xf64>)
    -> (tensor<2x2xf64>, tensor<2x2xf64>) {
  %g:2 = kiln.vjp @mm(%a, %b, %ct) wrt [0, 1] : (tensor<2x2xf64>, tensor<2x2xf64>, tensor<2x2xf64>) -> (tensor<2x2xf64>, tensor<2x2xf64>)
  return %g#0, %g#1 : tensor<2x2xf64>, tensor<2x2xf64>
}

func.func @sel(%x: tensor<2xf64>) -> tensor<2xf64> {
  %zero = kiln.constant dense<0.0> : tensor<2xf64>
  %p = kiln.cmp gt, %x, %zero : tensor<2xf64>
  %sq = kiln.mul %x, %x : tensor<2xf64>
  %n = kiln.neg %x : tensor<2xf64>
  %y = kiln.select %p, %sq, %n : tensor<2xi1>, tensor<2xf64>
  return %y : tensor<2xf64>
}

// x > 0 ? x * x : -x at x = [-1, 2]: [-1, 4].
// SELECT:      out0: tensor<2xf64>
// SELECT-NEXT: [-1, 4]
// SELECT-NEXT: reference: out0 tensor<2xf64> matches
func.func @select_known(%x: tensor<2xf64>, %ct: tensor<2xf64>) -> tensor<2xf64> {
  %g = kiln.vjp @sel(%x, %ct) wrt [0] : (tensor<2xf64>, tensor<2xf64>) -> tensor<2xf64>
  return %g : tensor<2xf64>
}

//===----------------------------------------------------------------------===//
// Second and third derivatives of f(x) = sum(sin(x) exp(x))
//===----------------------------------------------------------------------===//

// f' = e^x (sin + cos), f'' = 2 e^x cos x, f''' = 2 e^x (cos x - sin x).
func.func @sinexp(%x: tensor<3xf64>) -> tensor<f64> {
  %s = kiln.sin %x : tensor<3xf64>
  %e = kiln.exp %x : tensor<3xf64>
  %p = kiln.mul %s, %e : tensor<3xf64>
  %r = kiln.reduce_sum %p, dims = [0] : tensor<3xf64> -> tensor<f64>
  return %r : tensor<f64>
}
func.func @sinexp_d1(%x: tensor<3xf64>, %ct: tensor<f64>) -> tensor<3xf64> {
  %g = kiln.vjp @sinexp(%x, %ct) wrt [0] : (tensor<3xf64>, tensor<f64>) -> tensor<3xf64>
  return %g : tensor<3xf64>
}
func.func @sinexp_d2(%x: tensor<3xf64>, %ct: tensor<f64>, %v: tensor<3xf64>) -> tensor<3xf64> {
  %g = kiln.vjp @sinexp_d1(%x, %ct, %v) wrt [0] : (tensor<3xf64>, tensor<f64>, tensor<3xf64>) -> tensor<3xf64>
  return %g : tensor<3xf64>
}

// x = [0, 0.5, -1], ct = 1, v = 1, u = [1, 2, 3]: H u = f'' u, and
// d/dx <u, H v> = f''' v u.
// HIGHER:      out0: tensor<3xf64>
// HIGHER-NEXT: [2, 5.78755614634, 1.19259666208]
// HIGHER-NEXT: out1: tensor<3xf64>
// HIGHER-NEXT: [2, 2.62579981348, 3.049955916]
func.func @higher_known(%x: tensor<3xf64>, %ct: tensor<f64>, %v: tensor<3xf64>, %u: tensor<3xf64>)
    -> (tensor<3xf64>, tensor<3xf64>) {
  %hu = kiln.vjp @sinexp_d1(%x, %ct, %u) wrt [0] : (tensor<3xf64>, tensor<f64>, tensor<3xf64>) -> tensor<3xf64>
  %t = kiln.vjp @sinexp_d2(%x, %ct, %v, %u) wrt [0] : (tensor<3xf64>, tensor<f64>, tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64>
  return %hu, %t : tensor<3xf64>, tensor<3xf64>
}

//===----------------------------------------------------------------------===//
// f32
//===----------------------------------------------------------------------===//

func.func @sumsq_f32(%x: tensor<4xf32>) -> tensor<f32> {
  %sq = kiln.mul %x, %x : tensor<4xf32>
  %s = kiln.reduce_sum %sq, dims = [0] : tensor<4xf32> -> tensor<f32>
  return %s : tensor<f32>
}
// SUMSQ32:      out0: tensor<4xf32>
// SUMSQ32-NEXT: [2, 4, 6, -8]
// SUMSQ32-NEXT: reference: out0 tensor<4xf32> matches
func.func @sumsq_grad_f32(%x: tensor<4xf32>, %ct: tensor<f32>) -> tensor<4xf32> {
  %g = kiln.vjp @sumsq_f32(%x, %ct) wrt [0] : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  return %g : tensor<4xf32>
}

func.func @sigmoid_f32(%x: tensor<3xf32>) -> tensor<3xf32> {
  %y = kiln.sigmoid %x : tensor<3xf32>
  return %y : tensor<3xf32>
}
// SIG32:      out0: tensor<3xf32>
// SIG32-NEXT: [0.25, 0.25, 0.25]
// SIG32-NEXT: reference: out0 tensor<3xf32> matches
func.func @sigmoid_at_zero_f32(%x: tensor<3xf32>, %ct: tensor<3xf32>) -> tensor<3xf32> {
  %g = kiln.vjp @sigmoid_f32(%x, %ct) wrt [0] : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %g : tensor<3xf32>
}

func.func @mm_f32(%a: tensor<2x2xf32>, %b: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %c = kiln.matmul %a, %b : tensor<2x2xf32>, tensor<2x2xf32> -> tensor<2x2xf32>
  return %c : tensor<2x2xf32>
}
// MATMUL32:      out0: tensor<2x2xf32>
// MATMUL32-NEXT: {{\[\[}}5, 7],
// MATMUL32-NEXT: [12, 16]]
// MATMUL32-NEXT: out1: tensor<2x2xf32>
// MATMUL32-NEXT: {{\[\[}}1, 6],
// MATMUL32-NEXT: [2, 8]]
// MATMUL32-NEXT: reference: out0 tensor<2x2xf32> matches
// MATMUL32-NEXT: reference: out1 tensor<2x2xf32> matches
func.func @matmul_known_f32(%a: tensor<2x2xf32>, %b: tensor<2x2xf32>, %ct: tensor<2x2xf32>)
    -> (tensor<2x2xf32>, tensor<2x2xf32>) {
  %g:2 = kiln.vjp @mm_f32(%a, %b, %ct) wrt [0, 1] : (tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>) -> (tensor<2x2xf32>, tensor<2x2xf32>)
  return %g#0, %g#1 : tensor<2x2xf32>, tensor<2x2xf32>
}
