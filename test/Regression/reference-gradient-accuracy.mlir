// The reference interpreter's gradients were central differences with a
// 1e-5 step, good to about 1e-9: an f64 gradient that kiln computed to
// 1e-13 failed --check-reference with "got -0.46, expected -0.46". They are
// now Richardson-extrapolated (about 1e-13 of the scale for first order),
// kiln-run allows for the reference's own error, and a mismatch prints
// every digit, the tolerance and each failing output.

// A first-order f64 gradient against a tolerance of 1e-12 relative (plus
// the reference's own 1e-11 of the scale).
// RUN: kiln-run %s --entry grads --random-inputs 3 --check-reference --rtol 1e-12 --atol 0 | FileCheck %s
// CHECK: reference: out0 tensor<6xf64> matches
// CHECK: reference: out1 tensor<6xf64> matches

// A mismatch (no tolerance at all: the f32 output's polynomial tanh and exp
// differ from the reference by ulps) names the output, the element, both
// values in full and the tolerance used, for each failing element.
// RUN: not kiln-run %s --random-inputs 3 --check-reference --rtol 0 --atol 0 2>&1 | FileCheck %s --check-prefix=TIGHT
// TIGHT: reference: out0 tensor<6xf64> matches
// TIGHT: reference: out1 tensor<6xf64> matches
// TIGHT: kiln-run: error: output 2 (tensor<6xf32>) differs from the reference at element {{[0-9]+}}: got {{-?[0-9]\.[0-9]+e[-+][0-9]+}}, expected {{-?[0-9]\.[0-9]+e[-+][0-9]+}}, difference {{.*}} > tolerance {{.*}} (atol 0.000e+00 + rtol 0.000e+00 * |expected| + the reference's own error {{.*}})
// TIGHT-NEXT: output 2 (tensor<6xf32>) differs from the reference at element

func.func private @f(%x: tensor<6xf64>) -> tensor<f64> {
  %t = kiln.tanh %x : tensor<6xf64>
  %e = kiln.exp %t : tensor<6xf64>
  %m = kiln.mul %e, %x : tensor<6xf64>
  %s = kiln.reduce_sum %m, dims = [0] : tensor<6xf64> -> tensor<f64>
  return %s : tensor<f64>
}

func.func @grads(%x: tensor<6xf64>, %ct: tensor<f64>) -> (tensor<6xf64>, tensor<6xf64>) {
  %d = kiln.vjp @f(%x, %ct) wrt [0] : (tensor<6xf64>, tensor<f64>) -> tensor<6xf64>
  %d2 = kiln.mul %d, %x : tensor<6xf64>
  return %d, %d2 : tensor<6xf64>, tensor<6xf64>
}

func.func @main(%x: tensor<6xf64>, %ct: tensor<f64>, %y: tensor<6xf32>) -> (tensor<6xf64>, tensor<6xf64>, tensor<6xf32>) {
  %d = kiln.vjp @f(%x, %ct) wrt [0] : (tensor<6xf64>, tensor<f64>) -> tensor<6xf64>
  %d2 = kiln.mul %d, %x : tensor<6xf64>
  %t = kiln.tanh %y : tensor<6xf32>
  %u = kiln.exp %t : tensor<6xf32>
  return %d, %d2, %u : tensor<6xf64>, tensor<6xf64>, tensor<6xf32>
}
