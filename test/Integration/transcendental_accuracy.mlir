// exp, tanh and sigmoid over all of the float range (a dense grid on
// [-100, 100], magnitudes from 1e-30 up, infinities, NaN and signed zeros),
// against numpy in f64: the f32 kernels use kiln's polynomial and rational
// forms, f64 uses libm.

// REQUIRES: numpy
// RUN: rm -rf %t && mkdir -p %t
// RUN: %host_python %S/Inputs/check_transcendentals.py inputs %t
// RUN: kiln-run %s --entry f32 --input %t/x32.npy --output-dir %t/out32
// RUN: kiln-run %s --entry f64 --input %t/x64.npy --output-dir %t/out64
// RUN: %host_python %S/Inputs/check_transcendentals.py check %t | FileCheck %s
// CHECK: f32 exp: max rel error
// CHECK: f32 tanh: max rel error
// CHECK: f32 sigmoid: max rel error
// CHECK: f64 exp: max rel error
// CHECK: f64 tanh: max rel error
// CHECK: f64 sigmoid: max rel error

func.func @f32(%x: tensor<65536xf32>) -> (tensor<65536xf32>, tensor<65536xf32>, tensor<65536xf32>) {
  %e = kiln.exp %x : tensor<65536xf32>
  %t = kiln.tanh %x : tensor<65536xf32>
  %s = kiln.sigmoid %x : tensor<65536xf32>
  return %e, %t, %s : tensor<65536xf32>, tensor<65536xf32>, tensor<65536xf32>
}

func.func @f64(%x: tensor<65536xf64>) -> (tensor<65536xf64>, tensor<65536xf64>, tensor<65536xf64>) {
  %e = kiln.exp %x : tensor<65536xf64>
  %t = kiln.tanh %x : tensor<65536xf64>
  %s = kiln.sigmoid %x : tensor<65536xf64>
  return %e, %t, %s : tensor<65536xf64>, tensor<65536xf64>, tensor<65536xf64>
}
