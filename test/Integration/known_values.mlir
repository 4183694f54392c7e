// Hand-computed results on .npy inputs (so that nothing constant-folds and
// the compiled kernels themselves are checked), special values included:
// signed zeros, infinities and NaN. Every run is also compared with the
// reference interpreter.

// REQUIRES: numpy
// RUN: rm -rf %t && mkdir -p %t
// RUN: %host_python -c "import numpy as np; inf = np.inf; nan = np.nan; \
// RUN:   np.save('%t/special.npy', np.array([-inf, -1, -0.0, 0, 0.25, 1, 4, inf, nan], np.float32)); \
// RUN:   np.save('%t/angles.npy', np.array([0, np.pi / 6, np.pi / 2, np.pi, -np.pi / 4], np.float64)); \
// RUN:   np.save('%t/a.npy', np.array([1, nan, 2, -2, 2, 0.25, 0, -8], np.float32)); \
// RUN:   np.save('%t/b.npy', np.array([2, 1, nan, 3, 10, 0.5, -1, 1 / 3], np.float32)); \
// RUN:   np.save('%t/m1.npy', np.array([[1, 2], [3, 4]], np.float32)); \
// RUN:   np.save('%t/m2.npy', np.array([[5, 6], [7, 8]], np.float32)); \
// RUN:   np.save('%t/infs.npy', np.array([[-inf, -inf, -5], [-inf, 1, -3]], np.float32)); \
// RUN:   np.save('%t/round.npy', np.array([1.00390625, 1.01171875, 1 + 2**-8 + 2**-20, 65504, 65520, 2049, 2051, nan, -0.0, 0.5], np.float32)); \
// RUN:   np.save('%t/row.npy', np.array([[1, 2, 3], [0, 0, 0]], np.float32)); \
// RUN:   np.save('%t/mask.npy', np.array([True, False, True], np.bool_)); \
// RUN:   np.save('%t/c.npy', np.array([-3, -3, -2], np.float32)); \
// RUN:   np.save('%t/d.npy', np.array([2, 3, -2], np.float32))"

// RUN: kiln-run %s --entry unary_special --input %t/special.npy --print --check-reference | FileCheck %s --check-prefix=UNARY
// RUN: kiln-run %s --entry trig --input %t/angles.npy --print --check-reference | FileCheck %s --check-prefix=TRIG
// RUN: kiln-run %s --entry binary_special --input %t/a.npy --input %t/b.npy --print --check-reference | FileCheck %s --check-prefix=BINARY
// RUN: kiln-run %s --entry compare_special --input %t/a.npy --input %t/b.npy --print --check-reference | FileCheck %s --check-prefix=CMP
// RUN: kiln-run %s --entry matmul_2x2 --input %t/m1.npy --input %t/m2.npy --print --check-reference | FileCheck %s --check-prefix=MATMUL
// RUN: kiln-run %s --entry reduce_infs --input %t/infs.npy --print --check-reference | FileCheck %s --check-prefix=REDUCE
// RUN: kiln-run %s --entry rounding --input %t/round.npy --print --check-reference | FileCheck %s --check-prefix=ROUND
// RUN: kiln-run %s --entry softmax_rows --input %t/row.npy --print --check-reference | FileCheck %s --check-prefix=SOFTMAX
// RUN: kiln-run %s --entry bool_input --input %t/mask.npy --print --check-reference | FileCheck %s --check-prefix=BOOL
// pow with negative bases (integral exponents keep the sign rule of C's pow).
// RUN: kiln-run %s --entry pow_special --input %t/a.npy --input %t/b.npy --input %t/c.npy --input %t/d.npy --print --check-reference | FileCheck %s --check-prefix=POW

// x = [-inf, -1, -0, 0, 0.25, 1, 4, inf, nan]
// UNARY:      out0: tensor<9xf32>
// UNARY-NEXT: [0, 0, 0, 0, 0.25, 1, 4, inf, {{-?}}nan]
// UNARY-NEXT: out1: tensor<9xf32>
// UNARY-NEXT: [0, 0.268941, 0.5, 0.5, 0.562177, 0.731059, 0.982014, 1, {{-?}}nan]
// UNARY-NEXT: out2: tensor<9xf32>
// UNARY-NEXT: [0, 0.367879, 1, 1, 1.28403, 2.71828, 54.5982, inf, {{-?}}nan]
// UNARY-NEXT: out3: tensor<9xf32>
// UNARY-NEXT: [{{-?}}nan, {{-?}}nan, -0, 0, 0.5, 1, 2, inf, {{-?}}nan]
// UNARY-NEXT: out4: tensor<9xf32>
// UNARY-NEXT: [{{-?}}nan, {{-?}}nan, -inf, inf, 2, 1, 0.5, 0, {{-?}}nan]
// UNARY-NEXT: out5: tensor<9xf32>
// UNARY-NEXT: [{{-?}}nan, {{-?}}nan, -inf, -inf, -1.38629, 0, 1.38629, inf, {{-?}}nan]
// UNARY-NEXT: out6: tensor<9xf32>
// UNARY-NEXT: [-1, -0.761594, {{-?}}0, 0, 0.244919, 0.761594, 0.999329, 1, {{-?}}nan]
// UNARY-NEXT: out7: tensor<9xf32>
// UNARY-NEXT: [inf, 1, 0, 0, 0.25, 1, 4, inf, {{-?}}nan]
// UNARY-NEXT: out8: tensor<9xf32>
// UNARY-NEXT: [inf, 1, 0, -0, -0.25, -1, -4, -inf, {{-?}}nan]
// UNARY-NEXT: out9: tensor<9xf32>
// UNARY-NEXT: [-0, -1, -inf, inf, 4, 1, 0.25, 0, {{-?}}nan]
// UNARY-COUNT-10: matches
func.func @unary_special(%x: tensor<9xf32>)
    -> (tensor<9xf32>, tensor<9xf32>, tensor<9xf32>, tensor<9xf32>,
        tensor<9xf32>, tensor<9xf32>, tensor<9xf32>, tensor<9xf32>,
        tensor<9xf32>, tensor<9xf32>) {
  %0 = kiln.relu %x : tensor<9xf32>
  %1 = kiln.sigmoid %x : tensor<9xf32>
  %2 = kiln.exp %x : tensor<9xf32>
  %3 = kiln.sqrt %x : tensor<9xf32>
  %4 = kiln.rsqrt %x : tensor<9xf32>
  %5 = kiln.log %x : tensor<9xf32>
  %6 = kiln.tanh %x : tensor<9xf32>
  %7 = kiln.abs %x : tensor<9xf32>
  %8 = kiln.neg %x : tensor<9xf32>
  %9 = kiln.reciprocal %x : tensor<9xf32>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9
      : tensor<9xf32>, tensor<9xf32>, tensor<9xf32>, tensor<9xf32>,
        tensor<9xf32>, tensor<9xf32>, tensor<9xf32>, tensor<9xf32>,
        tensor<9xf32>, tensor<9xf32>
}

// x = [0, pi/6, pi/2, pi, -pi/4] in f64.
// TRIG:      out0: tensor<5xf64>
// TRIG-NEXT: [0, 0.5, 1, 1.22464679915e-16, -0.707106781187]
// TRIG-NEXT: out1: tensor<5xf64>
// TRIG-NEXT: [1, 0.866025403784, 6.12323399574e-17, -1, 0.707106781187]
// TRIG-COUNT-2: matches
func.func @trig(%x: tensor<5xf64>) -> (tensor<5xf64>, tensor<5xf64>) {
  %0 = kiln.sin %x : tensor<5xf64>
  %1 = kiln.cos %x : tensor<5xf64>
  return %0, %1 : tensor<5xf64>, tensor<5xf64>
}

// a = [1, nan,   2, -2,  2, 0.25,  0,  -8]
// b = [2,   1, nan,  3, 10,  0.5, -1, 1/3]
// max and min propagate NaN. pow is in @pow_special.
// BINARY:      out0: tensor<8xf32>
// BINARY-NEXT: [3, {{-?}}nan, {{-?}}nan, 1, 12, 0.75, -1, -7.66667]
// BINARY-NEXT: out1: tensor<8xf32>
// BINARY-NEXT: [-1, {{-?}}nan, {{-?}}nan, -5, -8, -0.25, 1, -8.33333]
// BINARY-NEXT: out2: tensor<8xf32>
// BINARY-NEXT: [2, {{-?}}nan, {{-?}}nan, -6, 20, 0.125, -0, -2.66667]
// BINARY-NEXT: out3: tensor<8xf32>
// BINARY-NEXT: [0.5, {{-?}}nan, {{-?}}nan, -0.666667, 0.2, 0.5, -0, -24]
// BINARY-NEXT: out4: tensor<8xf32>
// BINARY-NEXT: [2, {{-?}}nan, {{-?}}nan, 3, 10, 0.5, 0, 0.333333]
// BINARY-NEXT: out5: tensor<8xf32>
// BINARY-NEXT: [1, {{-?}}nan, {{-?}}nan, -2, 2, 0.25, -1, -8]
// BINARY-COUNT-6: matches
func.func @binary_special(%a: tensor<8xf32>, %b: tensor<8xf32>)
    -> (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>,
        tensor<8xf32>, tensor<8xf32>) {
  %0 = kiln.add %a, %b : tensor<8xf32>
  %1 = kiln.sub %a, %b : tensor<8xf32>
  %2 = kiln.mul %a, %b : tensor<8xf32>
  %3 = kiln.div %a, %b : tensor<8xf32>
  %4 = kiln.max %a, %b : tensor<8xf32>
  %5 = kiln.min %a, %b : tensor<8xf32>
  return %0, %1, %2, %3, %4, %5
      : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>,
        tensor<8xf32>, tensor<8xf32>
}

// pow(a, b) with a and b as above, in f32 and f64 (C99 pow): a NaN operand
// gives NaN (neither lane has base 1 or exponent 0), pow(-2, 3) = -8 (a
// negative base with an odd integer exponent), pow(2, 10) = 1024,
// pow(0.25, 0.5) = 0.5, pow(0, -1) = inf, pow(-8, 1/3) = nan (a negative
// base with a non-integer exponent). c = [-3, -3, -2], d = [2, 3, -2].
// POW:      out0: tensor<8xf32>
// POW-NEXT: [1, {{-?}}nan, {{-?}}nan, -8, 1024, 0.5, inf, {{-?}}nan]
// POW-NEXT: out1: tensor<8xf64>
// POW-NEXT: [1, {{-?}}nan, {{-?}}nan, -8, 1024, 0.5, inf, {{-?}}nan]
// POW-NEXT: out2: tensor<3xf32>
// POW-NEXT: [9, -27, 0.25]
// POW-COUNT-3: matches
func.func @pow_special(%a: tensor<8xf32>, %b: tensor<8xf32>, %c: tensor<3xf32>,
                       %d: tensor<3xf32>)
    -> (tensor<8xf32>, tensor<8xf64>, tensor<3xf32>) {
  %0 = kiln.pow %a, %b : tensor<8xf32>
  %a64 = kiln.convert %a : tensor<8xf32> -> tensor<8xf64>
  %b64 = kiln.convert %b : tensor<8xf32> -> tensor<8xf64>
  %1 = kiln.pow %a64, %b64 : tensor<8xf64>
  %2 = kiln.pow %c, %d : tensor<3xf32>
  return %0, %1, %2 : tensor<8xf32>, tensor<8xf64>, tensor<3xf32>
}

// Ordered predicates are false where either side is NaN; ne is true there.
// The last output selects a where a < b, else b.
// CMP:      out0: tensor<8xi1>
// CMP-NEXT: [false, false, false, false, false, false, false, false]
// CMP-NEXT: out1: tensor<8xi1>
// CMP-NEXT: [true, true, true, true, true, true, true, true]
// CMP-NEXT: out2: tensor<8xi1>
// CMP-NEXT: [true, false, false, true, true, true, false, true]
// CMP-NEXT: out3: tensor<8xi1>
// CMP-NEXT: [true, false, false, true, true, true, false, true]
// CMP-NEXT: out4: tensor<8xi1>
// CMP-NEXT: [false, false, false, false, false, false, true, false]
// CMP-NEXT: out5: tensor<8xi1>
// CMP-NEXT: [false, false, false, false, false, false, true, false]
// CMP-NEXT: out6: tensor<8xi1>
// CMP-NEXT: [true, false, true, true, true, true, true, true]
// CMP-NEXT: out7: tensor<8xf32>
// CMP-NEXT: [1, 1, {{-?}}nan, -2, 2, 0.25, -1, -8]
// CMP-COUNT-8: matches
func.func @compare_special(%a: tensor<8xf32>, %b: tensor<8xf32>)
    -> (tensor<8xi1>, tensor<8xi1>, tensor<8xi1>, tensor<8xi1>,
        tensor<8xi1>, tensor<8xi1>, tensor<8xi1>, tensor<8xf32>) {
  %0 = kiln.cmp eq, %a, %b : tensor<8xf32>
  %1 = kiln.cmp ne, %a, %b : tensor<8xf32>
  %2 = kiln.cmp lt, %a, %b : tensor<8xf32>
  %3 = kiln.cmp le, %a, %b : tensor<8xf32>
  %4 = kiln.cmp gt, %a, %b : tensor<8xf32>
  %5 = kiln.cmp ge, %a, %b : tensor<8xf32>
  // eq of a with itself: false only at its NaN.
  %6 = kiln.cmp eq, %a, %a : tensor<8xf32>
  %7 = kiln.select %2, %a, %b : tensor<8xi1>, tensor<8xf32>
  return %0, %1, %2, %3, %4, %5, %6, %7
      : tensor<8xi1>, tensor<8xi1>, tensor<8xi1>, tensor<8xi1>,
        tensor<8xi1>, tensor<8xi1>, tensor<8xi1>, tensor<8xf32>
}

// MATMUL:      out0: tensor<2x2xf32>
// MATMUL-NEXT: {{\[\[}}19, 22],
// MATMUL-NEXT:  [43, 50]]
// MATMUL-NEXT: out1: tensor<2x2xf32>
// MATMUL-NEXT: {{\[\[}}26, 30],
// MATMUL-NEXT:  [38, 44]]
// MATMUL-NEXT: out2: tensor<2x2xf32>
// MATMUL-NEXT: {{\[\[}}17, 23],
// MATMUL-NEXT:  [39, 53]]
// MATMUL-NEXT: out3: tensor<2x2xf32>
// MATMUL-NEXT: {{\[\[}}23, 31],
// MATMUL-NEXT:  [34, 46]]
// MATMUL-COUNT-4: matches
func.func @matmul_2x2(%a: tensor<2x2xf32>, %b: tensor<2x2xf32>)
    -> (tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>) {
  %0 = kiln.matmul %a, %b : tensor<2x2xf32>, tensor<2x2xf32> -> tensor<2x2xf32>
  %1 = kiln.matmul %a, %b {transpose_a = true} : tensor<2x2xf32>, tensor<2x2xf32> -> tensor<2x2xf32>
  %2 = kiln.matmul %a, %b {transpose_b = true} : tensor<2x2xf32>, tensor<2x2xf32> -> tensor<2x2xf32>
  %3 = kiln.matmul %a, %b {transpose_a = true, transpose_b = true} : tensor<2x2xf32>, tensor<2x2xf32> -> tensor<2x2xf32>
  return %0, %1, %2, %3 : tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>,
      tensor<2x2xf32>
}

// x = [[-inf, -inf, -5], [-inf, 1, -3]]
// REDUCE:      out0: tensor<3xf32>
// REDUCE-NEXT: [-inf, 1, -3]
// REDUCE-NEXT: out1: tensor<2xf32>
// REDUCE-NEXT: [-5, 1]
// REDUCE-NEXT: out2: tensor<f32>
// REDUCE-NEXT: 1
// REDUCE-NEXT: out3: tensor<2xf32>
// REDUCE-NEXT: [-inf, -inf]
// REDUCE-NEXT: out4: tensor<3xf32>
// REDUCE-NEXT: [0, 0.731059, 0.0474259]
// REDUCE-COUNT-5: matches
func.func @reduce_infs(%x: tensor<2x3xf32>)
    -> (tensor<3xf32>, tensor<2xf32>, tensor<f32>, tensor<2xf32>,
        tensor<3xf32>) {
  %0 = kiln.reduce_max %x, dims = [0] : tensor<2x3xf32> -> tensor<3xf32>
  %1 = kiln.reduce_max %x, dims = [1] : tensor<2x3xf32> -> tensor<2xf32>
  %2 = kiln.reduce_max %x, dims = [0, 1] : tensor<2x3xf32> -> tensor<f32>
  %3 = kiln.reduce_sum %x, dims = [1] : tensor<2x3xf32> -> tensor<2xf32>
  // sigmoid of the column maxima: sigmoid(-inf) = 0.
  %4 = kiln.sigmoid %0 : tensor<3xf32>
  return %0, %1, %2, %3, %4 : tensor<3xf32>, tensor<2xf32>, tensor<f32>,
      tensor<2xf32>, tensor<3xf32>
}

// x = [1 + 2^-8, 1 + 3 * 2^-8, 1 + 2^-8 + 2^-20, 65504, 65520, 2049, 2051,
//      nan, -0, 0.5]
// bf16 (8 significant bits) rounds ties to even; f16 (11 bits) overflows
// to inf at 65520 and rounds the ties 2049 and 2051 to even; a float is
// true as i1 when it is != 0, NaN included.
// ROUND:      out0: tensor<10xbf16>
// ROUND-NEXT: [1, 1.01562, 1.00781, 65536, 65536, 2048, 2048, {{-?}}nan, -0, 0.5]
// ROUND-NEXT: out1: tensor<10xf32>
// ROUND-NEXT: [1.00391, 1.01172, 1.00391, 65504, inf, 2048, 2052, {{-?}}nan, -0, 0.5]
// ROUND-NEXT: out2: tensor<10xi1>
// ROUND-NEXT: [true, true, true, true, true, true, true, true, false, true]
// ROUND-NEXT: out3: tensor<10xf64>
// ROUND-NEXT: [1.00390625, 1.01171875, 1.00390720367, 65504, 65520, 2049, 2051, {{-?}}nan, -0, 0.5]
// ROUND-COUNT-4: matches
func.func @rounding(%x: tensor<10xf32>)
    -> (tensor<10xbf16>, tensor<10xf32>, tensor<10xi1>, tensor<10xf64>) {
  %0 = kiln.convert %x : tensor<10xf32> -> tensor<10xbf16>
  %h = kiln.convert %x : tensor<10xf32> -> tensor<10xf16>
  %1 = kiln.convert %h : tensor<10xf16> -> tensor<10xf32>
  %2 = kiln.convert %x : tensor<10xf32> -> tensor<10xi1>
  %3 = kiln.convert %x : tensor<10xf32> -> tensor<10xf64>
  return %0, %1, %2, %3 : tensor<10xbf16>, tensor<10xf32>, tensor<10xi1>,
      tensor<10xf64>
}

// softmax([1, 2, 3]) = [0.0900306, 0.244728, 0.665241]; a constant row is
// uniform.
// SOFTMAX:      out0: tensor<2x3xf32>
// SOFTMAX-NEXT: {{\[\[}}0.0900306, 0.244728, 0.665241],
// SOFTMAX-NEXT:  [0.333333, 0.333333, 0.333333]]
// SOFTMAX-NEXT: reference: out0 tensor<2x3xf32> matches
func.func @softmax_rows(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %m = kiln.reduce_max %x, dims = [1] : tensor<2x3xf32> -> tensor<2xf32>
  %mb = kiln.broadcast_in_dim %m, dims = [0] : tensor<2xf32> -> tensor<2x3xf32>
  %d = kiln.sub %x, %mb : tensor<2x3xf32>
  %e = kiln.exp %d : tensor<2x3xf32>
  %s = kiln.reduce_sum %e, dims = [1] : tensor<2x3xf32> -> tensor<2xf32>
  %sb = kiln.broadcast_in_dim %s, dims = [0] : tensor<2xf32> -> tensor<2x3xf32>
  %r = kiln.div %e, %sb : tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

// An i1 argument from a numpy bool array.
// BOOL:      out0: tensor<3xf32>
// BOOL-NEXT: [1, 0, 1]
// BOOL-NEXT: out1: tensor<3xi1>
// BOOL-NEXT: [false, true, false]
// BOOL-COUNT-2: matches
func.func @bool_input(%p: tensor<3xi1>) -> (tensor<3xf32>, tensor<3xi1>) {
  %0 = kiln.convert %p : tensor<3xi1> -> tensor<3xf32>
  %z = kiln.constant dense<0.0> : tensor<3xf32>
  %1 = kiln.cmp eq, %0, %z : tensor<3xf32>
  return %0, %1 : tensor<3xf32>, tensor<3xi1>
}
