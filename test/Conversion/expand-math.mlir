// RUN: kiln-opt %s -kiln-expand-math -split-input-file | FileCheck %s

// f32 tanh is one rational function of x (no exp): clamped, a numerator
// and a denominator polynomial in x^2 with contractible multiply-adds, one
// division, exactly +-1 beyond the clamp and NaN kept.
// CHECK-LABEL: func @tanh_f32
// CHECK-NOT: math.tanh
// CHECK-NOT: math.exp
// CHECK: arith.minnumf
// CHECK: arith.maxnumf
// CHECK: arith.mulf {{.*}} fastmath<contract>
// CHECK: arith.divf
// CHECK: math.absf
// CHECK: arith.cmpf oge
// CHECK: math.copysign
// CHECK: arith.select
// CHECK: arith.cmpf uno
// CHECK: arith.select
func.func @tanh_f32(%x: f32) -> f32 {
  %t = math.tanh %x : f32
  return %t : f32
}

// -----

// Vectors get the same form, with splat constants.
// CHECK-LABEL: func @tanh_vector
// CHECK-NOT: math.tanh
// CHECK: arith.constant dense<7.90531111> : vector<8xf32>
// CHECK: arith.divf {{.*}} : vector<8xf32>
func.func @tanh_vector(%x: vector<8xf32>) -> vector<8xf32> {
  %t = math.tanh %x : vector<8xf32>
  return %t : vector<8xf32>
}

// -----

// f64 keeps libm's accuracy.
// CHECK-LABEL: func @tanh_f64
// CHECK: math.tanh {{.*}} : f64
func.func @tanh_f64(%x: f64) -> f64 {
  %t = math.tanh %x : f64
  return %t : f64
}
