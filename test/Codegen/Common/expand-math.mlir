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

// -----

// 1 / (1 + exp(-x)), kiln's f32 sigmoid, gets an exp for its own range:
// -x clamped by compare-and-select (NaN passes), 2^n from one exponent
// field, no NaN select and no general exp.
// CHECK-LABEL: func @sigmoid_f32
// CHECK-NOT: math.exp
// CHECK: %[[T:.+]] = arith.negf %[[X:.+]] : vector<8xf32>
// CHECK: arith.cmpf olt, %[[T]]
// CHECK: arith.select
// CHECK: arith.cmpf ogt
// CHECK: arith.select
// CHECK: arith.shli
// CHECK-NOT: arith.shrsi
// CHECK-NOT: arith.cmpf uno
// CHECK: %[[D:.+]] = arith.addf %{{.+}}, %{{.+}} : vector<8xf32>
// CHECK: arith.divf %{{.+}}, %[[D]] : vector<8xf32>
func.func @sigmoid_f32(%x: vector<8xf32>) -> vector<8xf32> {
  %one = arith.constant dense<1.0> : vector<8xf32>
  %n = arith.negf %x : vector<8xf32>
  %e = math.exp %n : vector<8xf32>
  %d = arith.addf %one, %e : vector<8xf32>
  %s = arith.divf %one, %d : vector<8xf32>
  return %s : vector<8xf32>
}

// -----

// Any other division by 1 + exp(..) keeps the general exp.
// CHECK-LABEL: func @not_sigmoid
// CHECK: arith.shrsi
// CHECK: arith.cmpf uno
func.func @not_sigmoid(%x: f32) -> f32 {
  %one = arith.constant 1.0 : f32
  %e = math.exp %x : f32
  %d = arith.addf %one, %e : f32
  %s = arith.divf %one, %d : f32
  return %s : f32
}

// -----

// f32 sin and cos reduce x by pi/2 in three parts (Cephes'), the first two
// exact in a product with the quadrant count, then choose the sine or the
// cosine polynomial and the sign by the quadrant's low bits; inf and NaN
// give NaN.
// CHECK-LABEL: func @sin_cos_f32
// CHECK-NOT: math.sin
// CHECK-NOT: math.cos
// CHECK-DAG: arith.constant dense<-1.5703125> : vector<8xf32>
// CHECK-DAG: arith.constant dense<-4.83751297E-4> : vector<8xf32>
// CHECK-DAG: arith.constant dense<-7.549790e-08> : vector<8xf32>
// CHECK: arith.xori {{.*}} : vector<8xi32>
// CHECK: arith.cmpf uge
// CHECK: arith.subf
// CHECK: arith.select
// CHECK: return
func.func @sin_cos_f32(%x: vector<8xf32>) -> (vector<8xf32>, vector<8xf32>) {
  %s = math.sin %x : vector<8xf32>
  %c = math.cos %x : vector<8xf32>
  return %s, %c : vector<8xf32>, vector<8xf32>
}
