// One case per VJP rule of -kiln-autodiff, plus the accumulation, symbolic
// zero, pruning and flattening behaviours. Every case differentiates @f at a
// kiln.vjp in @main; the checks follow the adjoint ops as the pass emits them
// (operands, operand order and attributes), and the CLEAN prefix checks the
// form after -canonicalize -cse where shared constants make it clearer.
// RUN: kiln-opt %s -kiln-autodiff -split-input-file | FileCheck %s
// RUN: kiln-opt %s -kiln-autodiff -canonicalize -cse -split-input-file | FileCheck %s --check-prefix=CLEAN

// neg: -ct.
// CHECK-LABEL: func.func @main(
// CHECK-SAME: %[[X:[^:]+]]: tensor<4xf32>, %[[CT:[^:]+]]: tensor<4xf32>)
// CHECK-NEXT: %[[G:.+]] = kiln.neg %[[CT]] : tensor<4xf32>
// CHECK-NEXT: return %[[G]] : tensor<4xf32>
// CLEAN-LABEL: func.func @main(
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = kiln.neg %x : tensor<4xf32>
  return %y : tensor<4xf32>
}
func.func @main(%x: tensor<4xf32>, %ct: tensor<4xf32>) -> tensor<4xf32> {
  %g = kiln.vjp @f(%x, %ct) wrt [0] : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %g : tensor<4xf32>
}

// -----

// exp: ct * y, reusing the forward result.
// CHECK-LABEL: func.func @main(
// CHECK-SAME: %[[X:[^:]+]]: tensor<4xf32>, %[[CT:[^:]+]]: tensor<4xf32>)
// CHECK-NEXT: %[[Y:.+]] = kiln.exp %[[X]] : tensor<4xf32>
// CHECK-NEXT: %[[G:.+]] = kiln.mul %[[CT]], %[[Y]] : tensor<4xf32>
// CHECK-NEXT: return %[[G]] : tensor<4xf32>
// CLEAN-LABEL: func.func @main(
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = kiln.exp %x : tensor<4xf32>
  return %y : tensor<4xf32>
}
func.func @main(%x: tensor<4xf32>, %ct: tensor<4xf32>) -> tensor<4xf32> {
  %g = kiln.vjp @f(%x, %ct) wrt [0] : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %g : tensor<4xf32>
}

// -----

// log: ct / x; the forward log is not needed and not emitted.
// CHECK-LABEL: func.func @main(
// CHECK-SAME: %[[X:[^:]+]]: tensor<4xf32>, %[[CT:[^:]+]]: tensor<4xf32>)
// CHECK-NEXT: %[[G:.+]] = kiln.div %[[CT]], %[[X]] : tensor<4xf32>
// CHECK-NEXT: return %[[G]] : tensor<4xf32>
// CLEAN-LABEL: func.func @main(
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = kiln.log %x : tensor<4xf32>
  return %y : tensor<4xf32>
}
func.func @main(%x: tensor<4xf32>, %ct: tensor<4xf32>) -> tensor<4xf32> {
  %g = kiln.vjp @f(%x, %ct) wrt [0] : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %g : tensor<4xf32>
}

// -----

// tanh: ct * (1 - y * y).
// CHECK-LABEL: func.func @main(
// CHECK-SAME: %[[X:[^:]+]]: tensor<4xf32>, %[[CT:[^:]+]]: tensor<4xf32>)
// CHECK-NEXT: %[[Y:.+]] = kiln.tanh %[[X]] : tensor<4xf32>
// CHECK-NEXT: %[[ONE:.+]] = kiln.constant dense<1.000000e+00> : tensor<4xf32>
// CHECK-NEXT: %[[YY:.+]] = kiln.mul %[[Y]], %[[Y]] : tensor<4xf32>
// CHECK-NEXT: %[[D:.+]] = kiln.sub %[[ONE]], %[[YY]] : tensor<4xf32>
// CHECK-NEXT: %[[G:.+]] = kiln.mul %[[CT]], %[[D]] : tensor<4xf32>
// CHECK-NEXT: return %[[G]] : tensor<4xf32>
// CLEAN-LABEL: func.func @main(
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = kiln.tanh %x : tensor<4xf32>
  return %y : tensor<4xf32>
}
func.func @main(%x: tensor<4xf32>, %ct: tensor<4xf32>) -> tensor<4xf32> {
  %g = kiln.vjp @f(%x, %ct) wrt [0] : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %g : tensor<4xf32>
}

// -----

// sigmoid: (ct * y) * (1 - y).
// CHECK-LABEL: func.func @main(
// CHECK-SAME: %[[X:[^:]+]]: tensor<4xf32>, %[[CT:[^:]+]]: tensor<4xf32>)
// CHECK-NEXT: %[[Y:.+]] = kiln.sigmoid %[[X]] : tensor<4xf32>
// CHECK-NEXT: %[[CY:.+]] = kiln.mul %[[CT]], %[[Y]] : tensor<4xf32>
// CHECK-NEXT: %[[ONE:.+]] = kiln.constant dense<1.000000e+00> : tensor<4xf32>
// CHECK-NEXT: %[[D:.+]] = kiln.sub %[[ONE]], %[[Y]] : tensor<4xf32>
// CHECK-NEXT: %[[G:.+]] = kiln.mul %[[CY]], %[[D]] : tensor<4xf32>
// CHECK-NEXT: return %[[G]] : tensor<4xf32>
// CLEAN-LABEL: func.func @main(
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = kiln.sigmoid %x : tensor<4xf32>
  return %y : tensor<4xf32>
}
func.func @main(%x: tensor<4xf32>, %ct: tensor<4xf32>) -> tensor<4xf32> {
  %g = kiln.vjp @f(%x, %ct) wrt [0] : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %g : tensor<4xf32>
}

// -----

// relu: ct where x > 0, else 0 (the derivative at 0 is 0); the forward relu
// is not needed.
// CHECK-LABEL: func.func @main(
// CHECK-SAME: %[[X:[^:]+]]: tensor<4xf32>, %[[CT:[^:]+]]: tensor<4xf32>)
// CHECK-NEXT: %[[Z0:.+]] = kiln.constant dense<0.000000e+00> : tensor<4xf32>
// CHECK-NEXT: %[[P:.+]] = kiln.cmp gt, %[[X]], %[[Z0]] : tensor<4xf32>
// CHECK-NEXT: %[[Z1:.+]] = kiln.constant dense<0.000000e+00> : tensor<4xf32>
// CHECK-NEXT: %[[G:.+]] = kiln.select %[[P]], %[[CT]], %[[Z1]] : tensor<4xi1>, tensor<4xf32>
// CHECK-NEXT: return %[[G]] : tensor<4xf32>
// CLEAN-LABEL: func.func @main(
// CLEAN-SAME: %[[X:[^:]+]]: tensor<4xf32>, %[[CT:[^:]+]]: tensor<4xf32>)
// CLEAN-NEXT: %[[Z:.+]] = kiln.constant dense<0.000000e+00> : tensor<4xf32>
// CLEAN-NEXT: %[[P:.+]] = kiln.cmp gt, %[[X]], %[[Z]] : tensor<4xf32>
// CLEAN-NEXT: %[[G:.+]] = kiln.select %[[P]], %[[CT]], %[[Z]] : tensor<4xi1>, tensor<4xf32>
// CLEAN-NEXT: return %[[G]] : tensor<4xf32>
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = kiln.relu %x : tensor<4xf32>
  return %y : tensor<4xf32>
}
func.func @main(%x: tensor<4xf32>, %ct: tensor<4xf32>) -> tensor<4xf32> {
  %g = kiln.vjp @f(%x, %ct) wrt [0] : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %g : tensor<4xf32>
}

// -----

// sqrt: ct / (y + y).
// CHECK-LABEL: func.func @main(
// CHECK-SAME: %[[X:[^:]+]]: tensor<4xf32>, %[[CT:[^:]+]]: tensor<4xf32>)
// CHECK-NEXT: %[[Y:.+]] = kiln.sqrt %[[X]] : tensor<4xf32>
// CHECK-NEXT: %[[Y2:.+]] = kiln.add %[[Y]], %[[Y]] : tensor<4xf32>
// CHECK-NEXT: %[[G:.+]] = kiln.div %[[CT]], %[[Y2]] : tensor<4xf32>
// CHECK-NEXT: return %[[G]] : tensor<4xf32>
// CLEAN-LABEL: func.func @main(
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = kiln.sqrt %x : tensor<4xf32>
  return %y : tensor<4xf32>
}
func.func @main(%x: tensor<4xf32>, %ct: tensor<4xf32>) -> tensor<4xf32> {
  %g = kiln.vjp @f(%x, %ct) wrt [0] : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %g : tensor<4xf32>
}

// -----

// rsqrt: -ct / 2 * x^(-3/2) = (ct * y^3) * -0.5.
// CHECK-LABEL: func.func @main(
// CHECK-SAME: %[[X:[^:]+]]: tensor<4xf32>, %[[CT:[^:]+]]: tensor<4xf32>)
// CHECK-NEXT: %[[Y:.+]] = kiln.rsqrt %[[X]] : tensor<4xf32>
// CHECK-NEXT: %[[YY:.+]] = kiln.mul %[[Y]], %[[Y]] : tensor<4xf32>
// CHECK-NEXT: %[[Y3:.+]] = kiln.mul %[[YY]], %[[Y]] : tensor<4xf32>
// CHECK-NEXT: %[[CY3:.+]] = kiln.mul %[[CT]], %[[Y3]] : tensor<4xf32>
// CHECK-NEXT: %[[H:.+]] = kiln.constant dense<-5.000000e-01> : tensor<4xf32>
// CHECK-NEXT: %[[G:.+]] = kiln.mul %[[CY3]], %[[H]] : tensor<4xf32>
// CHECK-NEXT: return %[[G]] : tensor<4xf32>
// CLEAN-LABEL: func.func @main(
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = kiln.rsqrt %x : tensor<4xf32>
  return %y : tensor<4xf32>
}
func.func @main(%x: tensor<4xf32>, %ct: tensor<4xf32>) -> tensor<4xf32> {
  %g = kiln.vjp @f(%x, %ct) wrt [0] : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %g : tensor<4xf32>
}

// -----

// abs: ct * sign(x) with sign(0) = 0, sign = [x > 0] - [x < 0].
// CHECK-LABEL: func.func @main(
// CHECK-SAME: %[[X:[^:]+]]: tensor<4xf32>, %[[CT:[^:]+]]: tensor<4xf32>)
// CHECK-NEXT: %[[Z:.+]] = kiln.constant dense<0.000000e+00> : tensor<4xf32>
// CHECK-NEXT: %[[GT:.+]] = kiln.cmp gt, %[[X]], %[[Z]] : tensor<4xf32>
// CHECK-NEXT: %[[GTF:.+]] = kiln.convert %[[GT]] : tensor<4xi1> -> tensor<4xf32>
// CHECK-NEXT: %[[LT:.+]] = kiln.cmp lt, %[[X]], %[[Z]] : tensor<4xf32>
// CHECK-NEXT: %[[LTF:.+]] = kiln.convert %[[LT]] : tensor<4xi1> -> tensor<4xf32>
// CHECK-NEXT: %[[S:.+]] = kiln.sub %[[GTF]], %[[LTF]] : tensor<4xf32>
// CHECK-NEXT: %[[G:.+]] = kiln.mul %[[CT]], %[[S]] : tensor<4xf32>
// CHECK-NEXT: return %[[G]] : tensor<4xf32>
// CLEAN-LABEL: func.func @main(
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = kiln.abs %x : tensor<4xf32>
  return %y : tensor<4xf32>
}
func.func @main(%x: tensor<4xf32>, %ct: tensor<4xf32>) -> tensor<4xf32> {
  %g = kiln.vjp @f(%x, %ct) wrt [0] : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %g : tensor<4xf32>
}

// -----

// sin: ct * cos(x); the forward sin is not needed.
// CHECK-LABEL: func.func @main(
// CHECK-SAME: %[[X:[^:]+]]: tensor<4xf32>, %[[CT:[^:]+]]: tensor<4xf32>)
// CHECK-NEXT: %[[C:.+]] = kiln.cos %[[X]] : tensor<4xf32>
// CHECK-NEXT: %[[G:.+]] = kiln.mul %[[CT]], %[[C]] : tensor<4xf32>
// CHECK-NEXT: return %[[G]] : tensor<4xf32>
// CLEAN-LABEL: func.func @main(
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = kiln.sin %x : tensor<4xf32>
  return %y : tensor<4xf32>
}
func.func @main(%x: tensor<4xf32>, %ct: tensor<4xf32>) -> tensor<4xf32> {
  %g = kiln.vjp @f(%x, %ct) wrt [0] : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %g : tensor<4xf32>
}

// -----

// cos: -(ct * sin(x)); the forward cos is not needed.
// CHECK-LABEL: func.func @main(
// CHECK-SAME: %[[X:[^:]+]]: tensor<4xf32>, %[[CT:[^:]+]]: tensor<4xf32>)
// CHECK-NEXT: %[[S:.+]] = kiln.sin %[[X]] : tensor<4xf32>
// CHECK-NEXT: %[[CS:.+]] = kiln.mul %[[CT]], %[[S]] : tensor<4xf32>
// CHECK-NEXT: %[[G:.+]] = kiln.neg %[[CS]] : tensor<4xf32>
// CHECK-NEXT: return %[[G]] : tensor<4xf32>
// CLEAN-LABEL: func.func @main(
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = kiln.cos %x : tensor<4xf32>
  return %y : tensor<4xf32>
}
func.func @main(%x: tensor<4xf32>, %ct: tensor<4xf32>) -> tensor<4xf32> {
  %g = kiln.vjp @f(%x, %ct) wrt [0] : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %g : tensor<4xf32>
}

// -----

// reciprocal: -ct / x^2 = -(ct * (y * y)).
// CHECK-LABEL: func.func @main(
// CHECK-SAME: %[[X:[^:]+]]: tensor<4xf32>, %[[CT:[^:]+]]: tensor<4xf32>)
// CHECK-NEXT: %[[Y:.+]] = kiln.reciprocal %[[X]] : tensor<4xf32>
// CHECK-NEXT: %[[YY:.+]] = kiln.mul %[[Y]], %[[Y]] : tensor<4xf32>
// CHECK-NEXT: %[[CYY:.+]] = kiln.mul %[[CT]], %[[YY]] : tensor<4xf32>
// CHECK-NEXT: %[[G:.+]] = kiln.neg %[[CYY]] : tensor<4xf32>
// CHECK-NEXT: return %[[G]] : tensor<4xf32>
// CLEAN-LABEL: func.func @main(
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = kiln.reciprocal %x : tensor<4xf32>
  return %y : tensor<4xf32>
}
func.func @main(%x: tensor<4xf32>, %ct: tensor<4xf32>) -> tensor<4xf32> {
  %g = kiln.vjp @f(%x, %ct) wrt [0] : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %g : tensor<4xf32>
}

// -----

// add: ct to both operands; no op at all.
// CHECK-LABEL: func.func @main(
// CHECK-SAME: %[[X:[^:]+]]: tensor<4xf32>, %[[Y:[^:]+]]: tensor<4xf32>, %[[CT:[^:]+]]: tensor<4xf32>)
// CHECK-NEXT: return %[[CT]], %[[CT]] : tensor<4xf32>, tensor<4xf32>
// CLEAN-LABEL: func.func @main(
func.func @f(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %z = kiln.add %x, %y : tensor<4xf32>
  return %z : tensor<4xf32>
}
func.func @main(%x: tensor<4xf32>, %y: tensor<4xf32>, %ct: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %gx, %gy = kiln.vjp @f(%x, %y, %ct) wrt [0, 1] : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
  return %gx, %gy : tensor<4xf32>, tensor<4xf32>
}

// -----

// sub: ct and -ct.
// CHECK-LABEL: func.func @main(
// CHECK-SAME: %[[X:[^:]+]]: tensor<4xf32>, %[[Y:[^:]+]]: tensor<4xf32>, %[[CT:[^:]+]]: tensor<4xf32>)
// CHECK-NEXT: %[[GY:.+]] = kiln.neg %[[CT]] : tensor<4xf32>
// CHECK-NEXT: return %[[CT]], %[[GY]] : tensor<4xf32>, tensor<4xf32>
// CLEAN-LABEL: func.func @main(
func.func @f(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %z = kiln.sub %x, %y : tensor<4xf32>
  return %z : tensor<4xf32>
}
func.func @main(%x: tensor<4xf32>, %y: tensor<4xf32>, %ct: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %gx, %gy = kiln.vjp @f(%x, %y, %ct) wrt [0, 1] : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
  return %gx, %gy : tensor<4xf32>, tensor<4xf32>
}

// -----

// mul: ct * y and ct * x; the forward product is not needed.
// CHECK-LABEL: func.func @main(
// CHECK-SAME: %[[X:[^:]+]]: tensor<4xf32>, %[[Y:[^:]+]]: tensor<4xf32>, %[[CT:[^:]+]]: tensor<4xf32>)
// CHECK-NEXT: %[[GX:.+]] = kiln.mul %[[CT]], %[[Y]] : tensor<4xf32>
// CHECK-NEXT: %[[GY:.+]] = kiln.mul %[[CT]], %[[X]] : tensor<4xf32>
// CHECK-NEXT: return %[[GX]], %[[GY]] : tensor<4xf32>, tensor<4xf32>
// CLEAN-LABEL: func.func @main(
func.func @f(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %z = kiln.mul %x, %y : tensor<4xf32>
  return %z : tensor<4xf32>
}
func.func @main(%x: tensor<4xf32>, %y: tensor<4xf32>, %ct: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %gx, %gy = kiln.vjp @f(%x, %y, %ct) wrt [0, 1] : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
  return %gx, %gy : tensor<4xf32>, tensor<4xf32>
}

// -----

// div: ct / y, and -(ct / y) * z for the divisor, sharing ct / y.
// CHECK-LABEL: func.func @main(
// CHECK-SAME: %[[X:[^:]+]]: tensor<4xf32>, %[[Y:[^:]+]]: tensor<4xf32>, %[[CT:[^:]+]]: tensor<4xf32>)
// CHECK-NEXT: %[[Z:.+]] = kiln.div %[[X]], %[[Y]] : tensor<4xf32>
// CHECK-NEXT: %[[GX:.+]] = kiln.div %[[CT]], %[[Y]] : tensor<4xf32>
// CHECK-NEXT: %[[T:.+]] = kiln.mul %[[GX]], %[[Z]] : tensor<4xf32>
// CHECK-NEXT: %[[GY:.+]] = kiln.neg %[[T]] : tensor<4xf32>
// CHECK-NEXT: return %[[GX]], %[[GY]] : tensor<4xf32>, tensor<4xf32>
// CLEAN-LABEL: func.func @main(
func.func @f(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %z = kiln.div %x, %y : tensor<4xf32>
  return %z : tensor<4xf32>
}
func.func @main(%x: tensor<4xf32>, %y: tensor<4xf32>, %ct: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %gx, %gy = kiln.vjp @f(%x, %y, %ct) wrt [0, 1] : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
  return %gx, %gy : tensor<4xf32>, tensor<4xf32>
}

// -----

// max: ct * ([self > other] + [self == other] * 0.5) for each side (ties
// split evenly); the forward max is not needed.
// CHECK-LABEL: func.func @main(
// CHECK-SAME: %[[X:[^:]+]]: tensor<4xf32>, %[[Y:[^:]+]]: tensor<4xf32>, %[[CT:[^:]+]]: tensor<4xf32>)
// CHECK-NEXT: %[[W0:.+]] = kiln.cmp gt, %[[X]], %[[Y]] : tensor<4xf32>
// CHECK-NEXT: %[[W0F:.+]] = kiln.convert %[[W0]] : tensor<4xi1> -> tensor<4xf32>
// CHECK-NEXT: %[[T0:.+]] = kiln.cmp eq, %[[X]], %[[Y]] : tensor<4xf32>
// CHECK-NEXT: %[[T0F:.+]] = kiln.convert %[[T0]] : tensor<4xi1> -> tensor<4xf32>
// CHECK-NEXT: %[[H0:.+]] = kiln.constant dense<5.000000e-01> : tensor<4xf32>
// CHECK-NEXT: %[[S0:.+]] = kiln.mul %[[T0F]], %[[H0]] : tensor<4xf32>
// CHECK-NEXT: %[[A0:.+]] = kiln.add %[[W0F]], %[[S0]] : tensor<4xf32>
// CHECK-NEXT: %[[GX:.+]] = kiln.mul %[[CT]], %[[A0]] : tensor<4xf32>
// CHECK-NEXT: %[[W1:.+]] = kiln.cmp gt, %[[Y]], %[[X]] : tensor<4xf32>
// CHECK-NEXT: %[[W1F:.+]] = kiln.convert %[[W1]] : tensor<4xi1> -> tensor<4xf32>
// CHECK-NEXT: %[[T1:.+]] = kiln.cmp eq, %[[Y]], %[[X]] : tensor<4xf32>
// CHECK-NEXT: %[[T1F:.+]] = kiln.convert %[[T1]] : tensor<4xi1> -> tensor<4xf32>
// CHECK-NEXT: %[[H1:.+]] = kiln.constant dense<5.000000e-01> : tensor<4xf32>
// CHECK-NEXT: %[[S1:.+]] = kiln.mul %[[T1F]], %[[H1]] : tensor<4xf32>
// CHECK-NEXT: %[[A1:.+]] = kiln.add %[[W1F]], %[[S1]] : tensor<4xf32>
// CHECK-NEXT: %[[GY:.+]] = kiln.mul %[[CT]], %[[A1]] : tensor<4xf32>
// CHECK-NEXT: return %[[GX]], %[[GY]] : tensor<4xf32>, tensor<4xf32>
// CLEAN-LABEL: func.func @main(
// CLEAN-NOT: kiln.max
// CLEAN-COUNT-1: kiln.constant dense<5.000000e-01>
// CLEAN-NOT: kiln.constant
// CLEAN: return
func.func @f(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %z = kiln.max %x, %y : tensor<4xf32>
  return %z : tensor<4xf32>
}
func.func @main(%x: tensor<4xf32>, %y: tensor<4xf32>, %ct: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %gx, %gy = kiln.vjp @f(%x, %y, %ct) wrt [0, 1] : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
  return %gx, %gy : tensor<4xf32>, tensor<4xf32>
}

// -----

// min: as max with lt.
// CHECK-LABEL: func.func @main(
// CHECK-SAME: %[[X:[^:]+]]: tensor<4xf32>, %[[Y:[^:]+]]: tensor<4xf32>, %[[CT:[^:]+]]: tensor<4xf32>)
// CHECK-NEXT: %[[W0:.+]] = kiln.cmp lt, %[[X]], %[[Y]] : tensor<4xf32>
// CHECK-NEXT: %[[W0F:.+]] = kiln.convert %[[W0]] : tensor<4xi1> -> tensor<4xf32>
// CHECK-NEXT: %[[T0:.+]] = kiln.cmp eq, %[[X]], %[[Y]] : tensor<4xf32>
// CHECK-NEXT: %[[T0F:.+]] = kiln.convert %[[T0]] : tensor<4xi1> -> tensor<4xf32>
// CHECK-NEXT: %[[H0:.+]] = kiln.constant dense<5.000000e-01> : tensor<4xf32>
// CHECK-NEXT: %[[S0:.+]] = kiln.mul %[[T0F]], %[[H0]] : tensor<4xf32>
// CHECK-NEXT: %[[A0:.+]] = kiln.add %[[W0F]], %[[S0]] : tensor<4xf32>
// CHECK-NEXT: %[[GX:.+]] = kiln.mul %[[CT]], %[[A0]] : tensor<4xf32>
// CHECK-NEXT: %[[W1:.+]] = kiln.cmp lt, %[[Y]], %[[X]] : tensor<4xf32>
// CHECK-NEXT: %[[W1F:.+]] = kiln.convert %[[W1]] : tensor<4xi1> -> tensor<4xf32>
// CHECK-NEXT: %[[T1:.+]] = kiln.cmp eq, %[[Y]], %[[X]] : tensor<4xf32>
// CHECK-NEXT: %[[T1F:.+]] = kiln.convert %[[T1]] : tensor<4xi1> -> tensor<4xf32>
// CHECK-NEXT: %[[H1:.+]] = kiln.constant dense<5.000000e-01> : tensor<4xf32>
// CHECK-NEXT: %[[S1:.+]] = kiln.mul %[[T1F]], %[[H1]] : tensor<4xf32>
// CHECK-NEXT: %[[A1:.+]] = kiln.add %[[W1F]], %[[S1]] : tensor<4xf32>
// CHECK-NEXT: %[[GY:.+]] = kiln.mul %[[CT]], %[[A1]] : tensor<4xf32>
// CHECK-NEXT: return %[[GX]], %[[GY]] : tensor<4xf32>, tensor<4xf32>
// CLEAN-LABEL: func.func @main(
func.func @f(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %z = kiln.min %x, %y : tensor<4xf32>
  return %z : tensor<4xf32>
}
func.func @main(%x: tensor<4xf32>, %y: tensor<4xf32>, %ct: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %gx, %gy = kiln.vjp @f(%x, %y, %ct) wrt [0, 1] : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
  return %gx, %gy : tensor<4xf32>, tensor<4xf32>
}

// -----

// pow, both operands, PyTorch's rules: ct * (y * x^(y - 1)) for the base, 0
// where y == 0; for the exponent ct * (z * log x), 0 where x == 0 and y >= 0
// (NaN where x < 0, as log x).
// CHECK-LABEL: func.func @main(
// CHECK-SAME: %[[X:[^:]+]]: tensor<4xf32>, %[[Y:[^:]+]]: tensor<4xf32>, %[[CT:[^:]+]]: tensor<4xf32>)
// CHECK-NEXT: %[[Z:.+]] = kiln.pow %[[X]], %[[Y]] : tensor<4xf32>
// CHECK-NEXT: %[[ONE:.+]] = kiln.constant dense<1.000000e+00> : tensor<4xf32>
// CHECK-NEXT: %[[YM1:.+]] = kiln.sub %[[Y]], %[[ONE]] : tensor<4xf32>
// CHECK-NEXT: %[[P:.+]] = kiln.pow %[[X]], %[[YM1]] : tensor<4xf32>
// CHECK-NEXT: %[[Z0:.+]] = kiln.constant dense<0.000000e+00> : tensor<4xf32>
// CHECK-NEXT: %[[Y0:.+]] = kiln.cmp eq, %[[Y]], %[[Z0]] : tensor<4xf32>
// CHECK-NEXT: %[[YP:.+]] = kiln.mul %[[Y]], %[[P]] : tensor<4xf32>
// CHECK-NEXT: %[[CYP:.+]] = kiln.mul %[[CT]], %[[YP]] : tensor<4xf32>
// CHECK-NEXT: %[[Z1:.+]] = kiln.constant dense<0.000000e+00> : tensor<4xf32>
// CHECK-NEXT: %[[GX:.+]] = kiln.select %[[Y0]], %[[Z1]], %[[CYP]] : tensor<4xi1>, tensor<4xf32>
// CHECK-NEXT: %[[LOG:.+]] = kiln.log %[[X]] : tensor<4xf32>
// CHECK-NEXT: %[[ZL:.+]] = kiln.mul %[[Z]], %[[LOG]] : tensor<4xf32>
// CHECK-NEXT: %[[CZL:.+]] = kiln.mul %[[CT]], %[[ZL]] : tensor<4xf32>
// CHECK-NEXT: %[[Z2:.+]] = kiln.constant dense<0.000000e+00> : tensor<4xf32>
// CHECK-NEXT: %[[X0:.+]] = kiln.cmp eq, %[[X]], %[[Z2]] : tensor<4xf32>
// CHECK-NEXT: %[[Z3:.+]] = kiln.constant dense<0.000000e+00> : tensor<4xf32>
// CHECK-NEXT: %[[YNN:.+]] = kiln.cmp ge, %[[Y]], %[[Z3]] : tensor<4xf32>
// CHECK-NEXT: %[[Z4:.+]] = kiln.constant dense<0.000000e+00> : tensor<4xf32>
// CHECK-NEXT: %[[AT0:.+]] = kiln.select %[[YNN]], %[[Z4]], %[[CZL]] : tensor<4xi1>, tensor<4xf32>
// CHECK-NEXT: %[[GY:.+]] = kiln.select %[[X0]], %[[AT0]], %[[CZL]] : tensor<4xi1>, tensor<4xf32>
// CHECK-NEXT: return %[[GX]], %[[GY]] : tensor<4xf32>, tensor<4xf32>
// CLEAN-LABEL: func.func @main(
func.func @f(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %z = kiln.pow %x, %y : tensor<4xf32>
  return %z : tensor<4xf32>
}
func.func @main(%x: tensor<4xf32>, %y: tensor<4xf32>, %ct: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %gx, %gy = kiln.vjp @f(%x, %y, %ct) wrt [0, 1] : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
  return %gx, %gy : tensor<4xf32>, tensor<4xf32>
}

// -----

// cmp has no derivative: both gradients are zero constants and nothing of
// the forward survives.
// CHECK-LABEL: func.func @main(
// CHECK-NEXT: %[[GX:.+]] = kiln.constant dense<0.000000e+00> : tensor<4xf32>
// CHECK-NEXT: %[[GY:.+]] = kiln.constant dense<0.000000e+00> : tensor<4xf32>
// CHECK-NEXT: return %[[GX]], %[[GY]] : tensor<4xf32>, tensor<4xf32>
// CLEAN-LABEL: func.func @main(
// CLEAN-NEXT: %[[Z:.+]] = kiln.constant dense<0.000000e+00> : tensor<4xf32>
// CLEAN-NEXT: return %[[Z]], %[[Z]] : tensor<4xf32>, tensor<4xf32>
func.func @f(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %c = kiln.cmp lt, %x, %y : tensor<4xf32>
  %z = kiln.convert %c : tensor<4xi1> -> tensor<4xf32>
  return %z : tensor<4xf32>
}
func.func @main(%x: tensor<4xf32>, %y: tensor<4xf32>, %ct: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %gx, %gy = kiln.vjp @f(%x, %y, %ct) wrt [0, 1] : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
  return %gx, %gy : tensor<4xf32>, tensor<4xf32>
}

// -----

// constant: no operand to differentiate; it is recomputed where the adjoint
// of the other factor needs it. The cotangent of the constant result is
// dropped.
// CHECK-LABEL: func.func @main(
// CHECK-SAME: %[[X:[^:]+]]: tensor<4xf32>, %[[CT0:[^:]+]]: tensor<4xf32>, %[[CT1:[^:]+]]: tensor<4xf32>)
// CHECK-NEXT: %[[C:.+]] = kiln.constant dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00]> : tensor<4xf32>
// CHECK-NEXT: %[[G:.+]] = kiln.mul %[[CT0]], %[[C]] : tensor<4xf32>
// CHECK-NEXT: return %[[G]] : tensor<4xf32>
// CLEAN-LABEL: func.func @main(
func.func @f(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %c = kiln.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %y = kiln.mul %x, %c : tensor<4xf32>
  return %y, %c : tensor<4xf32>, tensor<4xf32>
}
func.func @main(%x: tensor<4xf32>, %ct0: tensor<4xf32>, %ct1: tensor<4xf32>) -> tensor<4xf32> {
  %g = kiln.vjp @f(%x, %ct0, %ct1) wrt [0] : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %g : tensor<4xf32>
}

// -----

// select: ct to the taken branch, 0 to the other; the predicate (an
// argument) gets nothing and nothing of the forward survives.
// CHECK-LABEL: func.func @main(
// CHECK-SAME: %[[P:[^:]+]]: tensor<4xi1>, %[[A:[^:]+]]: tensor<4xf32>, %[[B:[^:]+]]: tensor<4xf32>, %[[CT:[^:]+]]: tensor<4xf32>)
// CHECK-NEXT: %[[Z0:.+]] = kiln.constant dense<0.000000e+00> : tensor<4xf32>
// CHECK-NEXT: %[[GA:.+]] = kiln.select %[[P]], %[[CT]], %[[Z0]] : tensor<4xi1>, tensor<4xf32>
// CHECK-NEXT: %[[Z1:.+]] = kiln.constant dense<0.000000e+00> : tensor<4xf32>
// CHECK-NEXT: %[[GB:.+]] = kiln.select %[[P]], %[[Z1]], %[[CT]] : tensor<4xi1>, tensor<4xf32>
// CHECK-NEXT: return %[[GA]], %[[GB]] : tensor<4xf32>, tensor<4xf32>
// CLEAN-LABEL: func.func @main(
// CLEAN-SAME: %[[P:[^:]+]]: tensor<4xi1>, %[[A:[^:]+]]: tensor<4xf32>, %[[B:[^:]+]]: tensor<4xf32>, %[[CT:[^:]+]]: tensor<4xf32>)
// CLEAN-NEXT: %[[Z:.+]] = kiln.constant dense<0.000000e+00> : tensor<4xf32>
// CLEAN-NEXT: %[[GA:.+]] = kiln.select %[[P]], %[[CT]], %[[Z]] : tensor<4xi1>, tensor<4xf32>
// CLEAN-NEXT: %[[GB:.+]] = kiln.select %[[P]], %[[Z]], %[[CT]] : tensor<4xi1>, tensor<4xf32>
// CLEAN-NEXT: return %[[GA]], %[[GB]] : tensor<4xf32>, tensor<4xf32>
func.func @f(%p: tensor<4xi1>, %a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %s = kiln.select %p, %a, %b : tensor<4xi1>, tensor<4xf32>
  return %s : tensor<4xf32>
}
func.func @main(%p: tensor<4xi1>, %a: tensor<4xf32>, %b: tensor<4xf32>, %ct: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %ga, %gb = kiln.vjp @f(%p, %a, %b, %ct) wrt [1, 2] : (tensor<4xi1>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
  return %ga, %gb : tensor<4xf32>, tensor<4xf32>
}

// -----

// select whose predicate is computed from the differentiated value: the
// predicate edge is not differentiable, only the taken branch gets ct.
// CHECK-LABEL: func.func @main(
// CHECK-SAME: %[[X:[^:]+]]: tensor<4xf32>, %[[Y:[^:]+]]: tensor<4xf32>, %[[CT:[^:]+]]: tensor<4xf32>)
// CHECK-NEXT: %[[P:.+]] = kiln.cmp gt, %[[X]], %[[Y]] : tensor<4xf32>
// CHECK-NEXT: %[[Z:.+]] = kiln.constant dense<0.000000e+00> : tensor<4xf32>
// CHECK-NEXT: %[[G:.+]] = kiln.select %[[P]], %[[CT]], %[[Z]] : tensor<4xi1>, tensor<4xf32>
// CHECK-NEXT: return %[[G]] : tensor<4xf32>
// CLEAN-LABEL: func.func @main(
func.func @f(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %p = kiln.cmp gt, %x, %y : tensor<4xf32>
  %s = kiln.select %p, %x, %y : tensor<4xi1>, tensor<4xf32>
  return %s : tensor<4xf32>
}
func.func @main(%x: tensor<4xf32>, %y: tensor<4xf32>, %ct: tensor<4xf32>) -> tensor<4xf32> {
  %g = kiln.vjp @f(%x, %y, %ct) wrt [0] : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %g : tensor<4xf32>
}

// -----

// convert, f32 -> f64 and back: the cotangent is converted back to each
// operand's type.
// CHECK-LABEL: func.func @main(
// CHECK-SAME: %[[X:[^:]+]]: tensor<4xf32>, %[[CT:[^:]+]]: tensor<4xf32>)
// CHECK-NEXT: %[[D:.+]] = kiln.convert %[[X]] : tensor<4xf32> -> tensor<4xf64>
// CHECK-NEXT: %[[E:.+]] = kiln.exp %[[D]] : tensor<4xf64>
// CHECK-NEXT: %[[CT64:.+]] = kiln.convert %[[CT]] : tensor<4xf32> -> tensor<4xf64>
// CHECK-NEXT: %[[GD:.+]] = kiln.mul %[[CT64]], %[[E]] : tensor<4xf64>
// CHECK-NEXT: %[[G:.+]] = kiln.convert %[[GD]] : tensor<4xf64> -> tensor<4xf32>
// CHECK-NEXT: return %[[G]] : tensor<4xf32>
// CLEAN-LABEL: func.func @main(
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %d = kiln.convert %x : tensor<4xf32> -> tensor<4xf64>
  %e = kiln.exp %d : tensor<4xf64>
  %y = kiln.convert %e : tensor<4xf64> -> tensor<4xf32>
  return %y : tensor<4xf32>
}
func.func @main(%x: tensor<4xf32>, %ct: tensor<4xf32>) -> tensor<4xf32> {
  %g = kiln.vjp @f(%x, %ct) wrt [0] : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %g : tensor<4xf32>
}

// -----

// broadcast_in_dim into a new dim: reduce_sum over it, no reshape.
// CHECK-LABEL: func.func @main(
// CHECK-SAME: %[[B:[^:]+]]: tensor<8xf32>, %[[CT:[^:]+]]: tensor<4x8xf32>)
// CHECK-NEXT: %[[G:.+]] = kiln.reduce_sum %[[CT]], dims = [0] : tensor<4x8xf32> -> tensor<8xf32>
// CHECK-NEXT: return %[[G]] : tensor<8xf32>
// CLEAN-LABEL: func.func @main(
func.func @f(%b: tensor<8xf32>) -> tensor<4x8xf32> {
  %y = kiln.broadcast_in_dim %b, dims = [1] : tensor<8xf32> -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}
func.func @main(%b: tensor<8xf32>, %ct: tensor<4x8xf32>) -> tensor<8xf32> {
  %g = kiln.vjp @f(%b, %ct) wrt [0] : (tensor<8xf32>, tensor<4x8xf32>) -> tensor<8xf32>
  return %g : tensor<8xf32>
}

// -----

// broadcast_in_dim with a new dim (0) and a size-1 dim that expands (2):
// reduce_sum over both, then a reshape puts the unit dim back.
// CHECK-LABEL: func.func @main(
// CHECK-SAME: %[[B:[^:]+]]: tensor<4x1xf32>, %[[CT:[^:]+]]: tensor<3x4x8xf32>)
// CHECK-NEXT: %[[S:.+]] = kiln.reduce_sum %[[CT]], dims = [0, 2] : tensor<3x4x8xf32> -> tensor<4xf32>
// CHECK-NEXT: %[[G:.+]] = kiln.reshape %[[S]] : tensor<4xf32> -> tensor<4x1xf32>
// CHECK-NEXT: return %[[G]] : tensor<4x1xf32>
// CLEAN-LABEL: func.func @main(
func.func @f(%b: tensor<4x1xf32>) -> tensor<3x4x8xf32> {
  %y = kiln.broadcast_in_dim %b, dims = [1, 2] : tensor<4x1xf32> -> tensor<3x4x8xf32>
  return %y : tensor<3x4x8xf32>
}
func.func @main(%b: tensor<4x1xf32>, %ct: tensor<3x4x8xf32>) -> tensor<4x1xf32> {
  %g = kiln.vjp @f(%b, %ct) wrt [0] : (tensor<4x1xf32>, tensor<3x4x8xf32>) -> tensor<4x1xf32>
  return %g : tensor<4x1xf32>
}

// -----

// reduce_sum: broadcast_in_dim of ct back over the reduced dims.
// CHECK-LABEL: func.func @main(
// CHECK-SAME: %[[X:[^:]+]]: tensor<2x3x4xf32>, %[[CT:[^:]+]]: tensor<3xf32>)
// CHECK-NEXT: %[[G:.+]] = kiln.broadcast_in_dim %[[CT]], dims = [1] : tensor<3xf32> -> tensor<2x3x4xf32>
// CHECK-NEXT: return %[[G]] : tensor<2x3x4xf32>
// CLEAN-LABEL: func.func @main(
func.func @f(%x: tensor<2x3x4xf32>) -> tensor<3xf32> {
  %y = kiln.reduce_sum %x, dims = [0, 2] : tensor<2x3x4xf32> -> tensor<3xf32>
  return %y : tensor<3xf32>
}
func.func @main(%x: tensor<2x3x4xf32>, %ct: tensor<3xf32>) -> tensor<2x3x4xf32> {
  %g = kiln.vjp @f(%x, %ct) wrt [0] : (tensor<2x3x4xf32>, tensor<3xf32>) -> tensor<2x3x4xf32>
  return %g : tensor<2x3x4xf32>
}

// -----

// reduce_max: every element equal to the maximum gets ct / count, with
// count the number of such elements (hits = [x == max]).
// CHECK-LABEL: func.func @main(
// CHECK-SAME: %[[X:[^:]+]]: tensor<4x8xf32>, %[[CT:[^:]+]]: tensor<4xf32>)
// CHECK-NEXT: %[[M:.+]] = kiln.reduce_max %[[X]], dims = [1] : tensor<4x8xf32> -> tensor<4xf32>
// CHECK-NEXT: %[[MB:.+]] = kiln.broadcast_in_dim %[[M]], dims = [0] : tensor<4xf32> -> tensor<4x8xf32>
// CHECK-NEXT: %[[EQ:.+]] = kiln.cmp eq, %[[X]], %[[MB]] : tensor<4x8xf32>
// CHECK-NEXT: %[[HITS:.+]] = kiln.convert %[[EQ]] : tensor<4x8xi1> -> tensor<4x8xf32>
// CHECK-NEXT: %[[COUNT:.+]] = kiln.reduce_sum %[[HITS]], dims = [1] : tensor<4x8xf32> -> tensor<4xf32>
// CHECK-NEXT: %[[SHARE:.+]] = kiln.div %[[CT]], %[[COUNT]] : tensor<4xf32>
// CHECK-NEXT: %[[SB:.+]] = kiln.broadcast_in_dim %[[SHARE]], dims = [0] : tensor<4xf32> -> tensor<4x8xf32>
// CHECK-NEXT: %[[G:.+]] = kiln.mul %[[HITS]], %[[SB]] : tensor<4x8xf32>
// CHECK-NEXT: return %[[G]] : tensor<4x8xf32>
// CLEAN-LABEL: func.func @main(
func.func @f(%x: tensor<4x8xf32>) -> tensor<4xf32> {
  %y = kiln.reduce_max %x, dims = [1] : tensor<4x8xf32> -> tensor<4xf32>
  return %y : tensor<4xf32>
}
func.func @main(%x: tensor<4x8xf32>, %ct: tensor<4xf32>) -> tensor<4x8xf32> {
  %g = kiln.vjp @f(%x, %ct) wrt [0] : (tensor<4x8xf32>, tensor<4xf32>) -> tensor<4x8xf32>
  return %g : tensor<4x8xf32>
}

// -----

// reshape: ct reshaped back.
// CHECK-LABEL: func.func @main(
// CHECK-SAME: %[[X:[^:]+]]: tensor<4x6xf32>, %[[CT:[^:]+]]: tensor<2x3x4xf32>)
// CHECK-NEXT: %[[G:.+]] = kiln.reshape %[[CT]] : tensor<2x3x4xf32> -> tensor<4x6xf32>
// CHECK-NEXT: return %[[G]] : tensor<4x6xf32>
// CLEAN-LABEL: func.func @main(
func.func @f(%x: tensor<4x6xf32>) -> tensor<2x3x4xf32> {
  %y = kiln.reshape %x : tensor<4x6xf32> -> tensor<2x3x4xf32>
  return %y : tensor<2x3x4xf32>
}
func.func @main(%x: tensor<4x6xf32>, %ct: tensor<2x3x4xf32>) -> tensor<4x6xf32> {
  %g = kiln.vjp @f(%x, %ct) wrt [0] : (tensor<4x6xf32>, tensor<2x3x4xf32>) -> tensor<4x6xf32>
  return %g : tensor<4x6xf32>
}

// -----

// transpose: ct transposed by the inverse permutation ([2, 0, 1] -> [1, 2, 0]).
// CHECK-LABEL: func.func @main(
// CHECK-SAME: %[[X:[^:]+]]: tensor<2x3x4xf32>, %[[CT:[^:]+]]: tensor<4x2x3xf32>)
// CHECK-NEXT: %[[G:.+]] = kiln.transpose %[[CT]], perm = [1, 2, 0] : tensor<4x2x3xf32> -> tensor<2x3x4xf32>
// CHECK-NEXT: return %[[G]] : tensor<2x3x4xf32>
// CLEAN-LABEL: func.func @main(
func.func @f(%x: tensor<2x3x4xf32>) -> tensor<4x2x3xf32> {
  %y = kiln.transpose %x, perm = [2, 0, 1] : tensor<2x3x4xf32> -> tensor<4x2x3xf32>
  return %y : tensor<4x2x3xf32>
}
func.func @main(%x: tensor<2x3x4xf32>, %ct: tensor<4x2x3xf32>) -> tensor<2x3x4xf32> {
  %g = kiln.vjp @f(%x, %ct) wrt [0] : (tensor<2x3x4xf32>, tensor<4x2x3xf32>) -> tensor<2x3x4xf32>
  return %g : tensor<2x3x4xf32>
}

// -----

// slice: ct placed by one concat with zero parts around it, never a
// kiln.add of padded tensors.
// CHECK-LABEL: func.func @main(
// CHECK-SAME: %[[X:[^:]+]]: tensor<4x32xf32>, %[[CT:[^:]+]]: tensor<4x8xf32>)
// CHECK-NOT: kiln.slice
// CHECK-NEXT: %[[Z0:.+]] = kiln.constant dense<0.000000e+00> : tensor<4x8xf32>
// CHECK-NEXT: %[[Z1:.+]] = kiln.constant dense<0.000000e+00> : tensor<4x16xf32>
// CHECK-NEXT: %[[G:.+]] = kiln.concat %[[Z0]], %[[CT]], %[[Z1]] dim = 1 : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x16xf32> -> tensor<4x32xf32>
// CHECK-NOT: kiln.add
// CHECK-NEXT: return %[[G]] : tensor<4x32xf32>
// CLEAN-LABEL: func.func @main(
func.func @f(%x: tensor<4x32xf32>) -> tensor<4x8xf32> {
  %y = kiln.slice %x, offsets = [0, 8], sizes = [4, 8] : tensor<4x32xf32> -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}
func.func @main(%x: tensor<4x32xf32>, %ct: tensor<4x8xf32>) -> tensor<4x32xf32> {
  %g = kiln.vjp @f(%x, %ct) wrt [0] : (tensor<4x32xf32>, tensor<4x8xf32>) -> tensor<4x32xf32>
  return %g : tensor<4x32xf32>
}

// -----

// A slice in two dims: one concat per sliced dim, zeros only around the
// part, still no kiln.add.
// CHECK-LABEL: func.func @main(
// CHECK-SAME: %[[X:[^:]+]]: tensor<4x32xf32>, %[[CT:[^:]+]]: tensor<2x8xf32>)
// CHECK-NEXT: %[[Z0:.+]] = kiln.constant dense<0.000000e+00> : tensor<1x8xf32>
// CHECK-NEXT: %[[Z1:.+]] = kiln.constant dense<0.000000e+00> : tensor<1x8xf32>
// CHECK-NEXT: %[[ROWS:.+]] = kiln.concat %[[Z0]], %[[CT]], %[[Z1]] dim = 0 : tensor<1x8xf32>, tensor<2x8xf32>, tensor<1x8xf32> -> tensor<4x8xf32>
// CHECK-NEXT: %[[Z2:.+]] = kiln.constant dense<0.000000e+00> : tensor<4x8xf32>
// CHECK-NEXT: %[[Z3:.+]] = kiln.constant dense<0.000000e+00> : tensor<4x16xf32>
// CHECK-NEXT: %[[G:.+]] = kiln.concat %[[Z2]], %[[ROWS]], %[[Z3]] dim = 1 : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x16xf32> -> tensor<4x32xf32>
// CHECK-NEXT: return %[[G]] : tensor<4x32xf32>
// CLEAN-LABEL: func.func @main(
// CLEAN-SAME: %[[X:[^:]+]]: tensor<4x32xf32>, %[[CT:[^:]+]]: tensor<2x8xf32>)
// CLEAN-DAG: %[[Z16:.+]] = kiln.constant dense<0.000000e+00> : tensor<4x16xf32>
// CLEAN-DAG: %[[Z8:.+]] = kiln.constant dense<0.000000e+00> : tensor<4x8xf32>
// CLEAN-DAG: %[[Z1:.+]] = kiln.constant dense<0.000000e+00> : tensor<1x8xf32>
// CLEAN: %[[ROWS:.+]] = kiln.concat %[[Z1]], %[[CT]], %[[Z1]] dim = 0 : tensor<1x8xf32>, tensor<2x8xf32>, tensor<1x8xf32> -> tensor<4x8xf32>
// CLEAN-NEXT: %[[G:.+]] = kiln.concat %[[Z8]], %[[ROWS]], %[[Z16]] dim = 1 : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x16xf32> -> tensor<4x32xf32>
// CLEAN-NEXT: return %[[G]] : tensor<4x32xf32>
func.func @f(%x: tensor<4x32xf32>) -> tensor<2x8xf32> {
  %y = kiln.slice %x, offsets = [1, 8], sizes = [2, 8] : tensor<4x32xf32> -> tensor<2x8xf32>
  return %y : tensor<2x8xf32>
}
func.func @main(%x: tensor<4x32xf32>, %ct: tensor<2x8xf32>) -> tensor<4x32xf32> {
  %g = kiln.vjp @f(%x, %ct) wrt [0] : (tensor<4x32xf32>, tensor<2x8xf32>) -> tensor<4x32xf32>
  return %g : tensor<4x32xf32>
}

// -----

// chunk: four slices of the matmul result cover it (created out of order).
// The adjoint of the gates is ONE concat of the four part adjoints, in
// offset order, with no zero part and no kiln.add; it feeds the single
// input-gradient matmul.
// CHECK-LABEL: func.func @main(
// CHECK-SAME: %[[X:[^:]+]]: tensor<4x8xf32>, %[[W:[^:]+]]: tensor<8x32xf32>, %[[CI:[^:]+]]: tensor<4x8xf32>, %[[CF:[^:]+]]: tensor<4x8xf32>, %[[CG:[^:]+]]: tensor<4x8xf32>, %[[CO:[^:]+]]: tensor<4x8xf32>)
// CHECK-NEXT: %[[GATES:.+]] = kiln.matmul %[[X]], %[[W]] : tensor<4x8xf32>, tensor<8x32xf32> -> tensor<4x32xf32>
// CHECK-NEXT: %[[O:.+]] = kiln.slice %[[GATES]], offsets = [0, 24], sizes = [4, 8] : tensor<4x32xf32> -> tensor<4x8xf32>
// CHECK-NEXT: %[[I:.+]] = kiln.slice %[[GATES]], offsets = [0, 0], sizes = [4, 8] : tensor<4x32xf32> -> tensor<4x8xf32>
// CHECK-NEXT: %[[EI:.+]] = kiln.exp %[[I]] : tensor<4x8xf32>
// CHECK-NEXT: %[[DO:.+]] = kiln.div %[[CO]], %[[O]] : tensor<4x8xf32>
// CHECK-NEXT: %[[DF:.+]] = kiln.neg %[[CF]] : tensor<4x8xf32>
// CHECK-NEXT: %[[DI:.+]] = kiln.mul %[[CI]], %[[EI]] : tensor<4x8xf32>
// CHECK-NOT: kiln.constant
// CHECK-NEXT: %[[D:.+]] = kiln.concat %[[DI]], %[[DF]], %[[CG]], %[[DO]] dim = 1 : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x32xf32>
// CHECK-NEXT: %[[G:.+]] = kiln.matmul %[[D]], %[[W]] {transpose_b = true} : tensor<4x32xf32>, tensor<8x32xf32> -> tensor<4x8xf32>
// CHECK-NOT: kiln.add
// CHECK-NEXT: return %[[G]] : tensor<4x8xf32>
// CLEAN-LABEL: func.func @main(
func.func @f(%x: tensor<4x8xf32>, %w: tensor<8x32xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) {
  %gates = kiln.matmul %x, %w : tensor<4x8xf32>, tensor<8x32xf32> -> tensor<4x32xf32>
  %o = kiln.slice %gates, offsets = [0, 24], sizes = [4, 8] : tensor<4x32xf32> -> tensor<4x8xf32>
  %g = kiln.slice %gates, offsets = [0, 16], sizes = [4, 8] : tensor<4x32xf32> -> tensor<4x8xf32>
  %i = kiln.slice %gates, offsets = [0, 0], sizes = [4, 8] : tensor<4x32xf32> -> tensor<4x8xf32>
  %f = kiln.slice %gates, offsets = [0, 8], sizes = [4, 8] : tensor<4x32xf32> -> tensor<4x8xf32>
  %ei = kiln.exp %i : tensor<4x8xf32>
  %nf = kiln.neg %f : tensor<4x8xf32>
  %lo = kiln.log %o : tensor<4x8xf32>
  return %ei, %nf, %g, %lo : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>
}
func.func @main(%x: tensor<4x8xf32>, %w: tensor<8x32xf32>, %ci: tensor<4x8xf32>, %cf: tensor<4x8xf32>, %cg: tensor<4x8xf32>, %co: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %g = kiln.vjp @f(%x, %w, %ci, %cf, %cg, %co) wrt [0] : (tensor<4x8xf32>, tensor<8x32xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return %g : tensor<4x8xf32>
}

// -----

// chunk with a gap: two of four chunks are read, so the one concat holds a
// single zero part for the gap between them, and no kiln.add.
// CHECK-LABEL: func.func @main(
// CHECK-SAME: %[[X:[^:]+]]: tensor<4x32xf32>, %[[CT:[^:]+]]: tensor<4x8xf32>)
// CHECK-NEXT: %[[I:.+]] = kiln.slice %[[X]], offsets = [0, 0], sizes = [4, 8] : tensor<4x32xf32> -> tensor<4x8xf32>
// CHECK-NEXT: %[[O:.+]] = kiln.slice %[[X]], offsets = [0, 24], sizes = [4, 8] : tensor<4x32xf32> -> tensor<4x8xf32>
// CHECK-NEXT: %[[DI:.+]] = kiln.mul %[[CT]], %[[O]] : tensor<4x8xf32>
// CHECK-NEXT: %[[DO:.+]] = kiln.mul %[[CT]], %[[I]] : tensor<4x8xf32>
// CHECK-NEXT: %[[Z:.+]] = kiln.constant dense<0.000000e+00> : tensor<4x16xf32>
// CHECK-NEXT: %[[G:.+]] = kiln.concat %[[DI]], %[[Z]], %[[DO]] dim = 1 : tensor<4x8xf32>, tensor<4x16xf32>, tensor<4x8xf32> -> tensor<4x32xf32>
// CHECK-NEXT: return %[[G]] : tensor<4x32xf32>
// CLEAN-LABEL: func.func @main(
func.func @f(%x: tensor<4x32xf32>) -> tensor<4x8xf32> {
  %i = kiln.slice %x, offsets = [0, 0], sizes = [4, 8] : tensor<4x32xf32> -> tensor<4x8xf32>
  %o = kiln.slice %x, offsets = [0, 24], sizes = [4, 8] : tensor<4x32xf32> -> tensor<4x8xf32>
  %c = kiln.mul %i, %o : tensor<4x8xf32>
  return %c : tensor<4x8xf32>
}
func.func @main(%x: tensor<4x32xf32>, %ct: tensor<4x8xf32>) -> tensor<4x32xf32> {
  %g = kiln.vjp @f(%x, %ct) wrt [0] : (tensor<4x32xf32>, tensor<4x8xf32>) -> tensor<4x32xf32>
  return %g : tensor<4x32xf32>
}

// -----

// concat: one slice of ct per operand, at the operand's offset.
// CHECK-LABEL: func.func @main(
// CHECK-SAME: %[[X:[^:]+]]: tensor<4x8xf32>, %[[Y:[^:]+]]: tensor<4x3xf32>, %[[CT:[^:]+]]: tensor<4x11xf32>)
// CHECK-NEXT: %[[GX:.+]] = kiln.slice %[[CT]], offsets = [0, 0], sizes = [4, 8] : tensor<4x11xf32> -> tensor<4x8xf32>
// CHECK-NEXT: %[[GY:.+]] = kiln.slice %[[CT]], offsets = [0, 8], sizes = [4, 3] : tensor<4x11xf32> -> tensor<4x3xf32>
// CHECK-NEXT: return %[[GX]], %[[GY]] : tensor<4x8xf32>, tensor<4x3xf32>
// CLEAN-LABEL: func.func @main(
func.func @f(%x: tensor<4x8xf32>, %y: tensor<4x3xf32>) -> tensor<4x11xf32> {
  %k = kiln.concat %x, %y dim = 1 : tensor<4x8xf32>, tensor<4x3xf32> -> tensor<4x11xf32>
  return %k : tensor<4x11xf32>
}
func.func @main(%x: tensor<4x8xf32>, %y: tensor<4x3xf32>, %ct: tensor<4x11xf32>) -> (tensor<4x8xf32>, tensor<4x3xf32>) {
  %gx, %gy = kiln.vjp @f(%x, %y, %ct) wrt [0, 1] : (tensor<4x8xf32>, tensor<4x3xf32>, tensor<4x11xf32>) -> (tensor<4x8xf32>, tensor<4x3xf32>)
  return %gx, %gy : tensor<4x8xf32>, tensor<4x3xf32>
}

// -----

// matmul C = A B: dA = ct B^T, dB = A^T ct, by flags; no transpose op, and
// the forward product is not needed.
// CHECK-LABEL: func.func @main(
// CHECK-SAME: %[[A:[^:]+]]: tensor<4x8xf32>, %[[B:[^:]+]]: tensor<8x16xf32>, %[[CT:[^:]+]]: tensor<4x16xf32>)
// CHECK-NOT: kiln.transpose
// CHECK-NEXT: %[[GA:.+]] = kiln.matmul %[[CT]], %[[B]] {transpose_b = true} : tensor<4x16xf32>, tensor<8x16xf32> -> tensor<4x8xf32>
// CHECK-NEXT: %[[GB:.+]] = kiln.matmul %[[A]], %[[CT]] {transpose_a = true} : tensor<4x8xf32>, tensor<4x16xf32> -> tensor<8x16xf32>
// CHECK-NOT: kiln.transpose
// CHECK-NEXT: return %[[GA]], %[[GB]] : tensor<4x8xf32>, tensor<8x16xf32>
// CLEAN-LABEL: func.func @main(
func.func @f(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>) -> tensor<4x16xf32> {
  %m = kiln.matmul %a, %b : tensor<4x8xf32>, tensor<8x16xf32> -> tensor<4x16xf32>
  return %m : tensor<4x16xf32>
}
func.func @main(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>, %ct: tensor<4x16xf32>) -> (tensor<4x8xf32>, tensor<8x16xf32>) {
  %ga, %gb = kiln.vjp @f(%a, %b, %ct) wrt [0, 1] : (tensor<4x8xf32>, tensor<8x16xf32>, tensor<4x16xf32>) -> (tensor<4x8xf32>, tensor<8x16xf32>)
  return %ga, %gb : tensor<4x8xf32>, tensor<8x16xf32>
}

// -----

// matmul C = A^T B: dA = B ct^T, dB = A ct.
// CHECK-LABEL: func.func @main(
// CHECK-SAME: %[[A:[^:]+]]: tensor<8x4xf32>, %[[B:[^:]+]]: tensor<8x16xf32>, %[[CT:[^:]+]]: tensor<4x16xf32>)
// CHECK-NOT: kiln.transpose
// CHECK-NEXT: %[[GA:.+]] = kiln.matmul %[[B]], %[[CT]] {transpose_b = true} : tensor<8x16xf32>, tensor<4x16xf32> -> tensor<8x4xf32>
// CHECK-NEXT: %[[GB:.+]] = kiln.matmul %[[A]], %[[CT]] : tensor<8x4xf32>, tensor<4x16xf32> -> tensor<8x16xf32>
// CHECK-NOT: kiln.transpose
// CHECK-NEXT: return %[[GA]], %[[GB]] : tensor<8x4xf32>, tensor<8x16xf32>
// CLEAN-LABEL: func.func @main(
func.func @f(%a: tensor<8x4xf32>, %b: tensor<8x16xf32>) -> tensor<4x16xf32> {
  %m = kiln.matmul %a, %b {transpose_a = true} : tensor<8x4xf32>, tensor<8x16xf32> -> tensor<4x16xf32>
  return %m : tensor<4x16xf32>
}
func.func @main(%a: tensor<8x4xf32>, %b: tensor<8x16xf32>, %ct: tensor<4x16xf32>) -> (tensor<8x4xf32>, tensor<8x16xf32>) {
  %ga, %gb = kiln.vjp @f(%a, %b, %ct) wrt [0, 1] : (tensor<8x4xf32>, tensor<8x16xf32>, tensor<4x16xf32>) -> (tensor<8x4xf32>, tensor<8x16xf32>)
  return %ga, %gb : tensor<8x4xf32>, tensor<8x16xf32>
}

// -----

// matmul C = A B^T: dA = ct B, dB = ct^T A.
// CHECK-LABEL: func.func @main(
// CHECK-SAME: %[[A:[^:]+]]: tensor<4x8xf32>, %[[B:[^:]+]]: tensor<16x8xf32>, %[[CT:[^:]+]]: tensor<4x16xf32>)
// CHECK-NOT: kiln.transpose
// CHECK-NEXT: %[[GA:.+]] = kiln.matmul %[[CT]], %[[B]] : tensor<4x16xf32>, tensor<16x8xf32> -> tensor<4x8xf32>
// CHECK-NEXT: %[[GB:.+]] = kiln.matmul %[[CT]], %[[A]] {transpose_a = true} : tensor<4x16xf32>, tensor<4x8xf32> -> tensor<16x8xf32>
// CHECK-NOT: kiln.transpose
// CHECK-NEXT: return %[[GA]], %[[GB]] : tensor<4x8xf32>, tensor<16x8xf32>
// CLEAN-LABEL: func.func @main(
func.func @f(%a: tensor<4x8xf32>, %b: tensor<16x8xf32>) -> tensor<4x16xf32> {
  %m = kiln.matmul %a, %b {transpose_b = true} : tensor<4x8xf32>, tensor<16x8xf32> -> tensor<4x16xf32>
  return %m : tensor<4x16xf32>
}
func.func @main(%a: tensor<4x8xf32>, %b: tensor<16x8xf32>, %ct: tensor<4x16xf32>) -> (tensor<4x8xf32>, tensor<16x8xf32>) {
  %ga, %gb = kiln.vjp @f(%a, %b, %ct) wrt [0, 1] : (tensor<4x8xf32>, tensor<16x8xf32>, tensor<4x16xf32>) -> (tensor<4x8xf32>, tensor<16x8xf32>)
  return %ga, %gb : tensor<4x8xf32>, tensor<16x8xf32>
}

// -----

// matmul C = A^T B^T: dA = B^T ct^T, dB = ct^T A^T.
// CHECK-LABEL: func.func @main(
// CHECK-SAME: %[[A:[^:]+]]: tensor<8x4xf32>, %[[B:[^:]+]]: tensor<16x8xf32>, %[[CT:[^:]+]]: tensor<4x16xf32>)
// CHECK-NOT: kiln.transpose
// CHECK-NEXT: %[[GA:.+]] = kiln.matmul %[[B]], %[[CT]] {transpose_a = true, transpose_b = true} : tensor<16x8xf32>, tensor<4x16xf32> -> tensor<8x4xf32>
// CHECK-NEXT: %[[GB:.+]] = kiln.matmul %[[CT]], %[[A]] {transpose_a = true, transpose_b = true} : tensor<4x16xf32>, tensor<8x4xf32> -> tensor<16x8xf32>
// CHECK-NOT: kiln.transpose
// CHECK-NEXT: return %[[GA]], %[[GB]] : tensor<8x4xf32>, tensor<16x8xf32>
// CLEAN-LABEL: func.func @main(
func.func @f(%a: tensor<8x4xf32>, %b: tensor<16x8xf32>) -> tensor<4x16xf32> {
  %m = kiln.matmul %a, %b {transpose_a = true, transpose_b = true} : tensor<8x4xf32>, tensor<16x8xf32> -> tensor<4x16xf32>
  return %m : tensor<4x16xf32>
}
func.func @main(%a: tensor<8x4xf32>, %b: tensor<16x8xf32>, %ct: tensor<4x16xf32>) -> (tensor<8x4xf32>, tensor<16x8xf32>) {
  %ga, %gb = kiln.vjp @f(%a, %b, %ct) wrt [0, 1] : (tensor<8x4xf32>, tensor<16x8xf32>, tensor<4x16xf32>) -> (tensor<8x4xf32>, tensor<16x8xf32>)
  return %ga, %gb : tensor<8x4xf32>, tensor<16x8xf32>
}

// -----

// Batched matmul: the flags act on the last two dims, the batch dim stays.
// CHECK-LABEL: func.func @main(
// CHECK-SAME: %[[A:[^:]+]]: tensor<2x4x8xf32>, %[[B:[^:]+]]: tensor<2x8x16xf32>, %[[CT:[^:]+]]: tensor<2x4x16xf32>)
// CHECK-NOT: kiln.transpose
// CHECK-NEXT: %[[GA:.+]] = kiln.matmul %[[CT]], %[[B]] {transpose_b = true} : tensor<2x4x16xf32>, tensor<2x8x16xf32> -> tensor<2x4x8xf32>
// CHECK-NEXT: %[[GB:.+]] = kiln.matmul %[[A]], %[[CT]] {transpose_a = true} : tensor<2x4x8xf32>, tensor<2x4x16xf32> -> tensor<2x8x16xf32>
// CHECK-NOT: kiln.transpose
// CHECK-NEXT: return %[[GA]], %[[GB]] : tensor<2x4x8xf32>, tensor<2x8x16xf32>
// CLEAN-LABEL: func.func @main(
func.func @f(%a: tensor<2x4x8xf32>, %b: tensor<2x8x16xf32>) -> tensor<2x4x16xf32> {
  %m = kiln.matmul %a, %b : tensor<2x4x8xf32>, tensor<2x8x16xf32> -> tensor<2x4x16xf32>
  return %m : tensor<2x4x16xf32>
}
func.func @main(%a: tensor<2x4x8xf32>, %b: tensor<2x8x16xf32>, %ct: tensor<2x4x16xf32>) -> (tensor<2x4x8xf32>, tensor<2x8x16xf32>) {
  %ga, %gb = kiln.vjp @f(%a, %b, %ct) wrt [0, 1] : (tensor<2x4x8xf32>, tensor<2x8x16xf32>, tensor<2x4x16xf32>) -> (tensor<2x4x8xf32>, tensor<2x8x16xf32>)
  return %ga, %gb : tensor<2x4x8xf32>, tensor<2x8x16xf32>
}

// -----

// Batched matmul with transpose_b: dA = ct B, dB = ct^T A, per batch.
// CHECK-LABEL: func.func @main(
// CHECK-SAME: %[[A:[^:]+]]: tensor<2x4x8xf32>, %[[B:[^:]+]]: tensor<2x16x8xf32>, %[[CT:[^:]+]]: tensor<2x4x16xf32>)
// CHECK-NOT: kiln.transpose
// CHECK-NEXT: %[[GA:.+]] = kiln.matmul %[[CT]], %[[B]] : tensor<2x4x16xf32>, tensor<2x16x8xf32> -> tensor<2x4x8xf32>
// CHECK-NEXT: %[[GB:.+]] = kiln.matmul %[[CT]], %[[A]] {transpose_a = true} : tensor<2x4x16xf32>, tensor<2x4x8xf32> -> tensor<2x16x8xf32>
// CHECK-NOT: kiln.transpose
// CHECK-NEXT: return %[[GA]], %[[GB]] : tensor<2x4x8xf32>, tensor<2x16x8xf32>
// CLEAN-LABEL: func.func @main(
func.func @f(%a: tensor<2x4x8xf32>, %b: tensor<2x16x8xf32>) -> tensor<2x4x16xf32> {
  %m = kiln.matmul %a, %b {transpose_b = true} : tensor<2x4x8xf32>, tensor<2x16x8xf32> -> tensor<2x4x16xf32>
  return %m : tensor<2x4x16xf32>
}
func.func @main(%a: tensor<2x4x8xf32>, %b: tensor<2x16x8xf32>, %ct: tensor<2x4x16xf32>) -> (tensor<2x4x8xf32>, tensor<2x16x8xf32>) {
  %ga, %gb = kiln.vjp @f(%a, %b, %ct) wrt [0, 1] : (tensor<2x4x8xf32>, tensor<2x16x8xf32>, tensor<2x4x16xf32>) -> (tensor<2x4x8xf32>, tensor<2x16x8xf32>)
  return %ga, %gb : tensor<2x4x8xf32>, tensor<2x16x8xf32>
}

// -----

// A value used twice: its two contributions accumulate with exactly one
// kiln.add.
// CHECK-LABEL: func.func @main(
// CHECK-SAME: %[[X:[^:]+]]: tensor<4xf32>, %[[CT:[^:]+]]: tensor<4xf32>)
// CHECK-NEXT: %[[E:.+]] = kiln.exp %[[X]] : tensor<4xf32>
// CHECK-NEXT: %[[C:.+]] = kiln.cos %[[X]] : tensor<4xf32>
// CHECK-NEXT: %[[DS:.+]] = kiln.mul %[[CT]], %[[C]] : tensor<4xf32>
// CHECK-NEXT: %[[DE:.+]] = kiln.mul %[[CT]], %[[E]] : tensor<4xf32>
// CHECK-NEXT: %[[G:.+]] = kiln.add %[[DS]], %[[DE]] : tensor<4xf32>
// CHECK-NEXT: return %[[G]] : tensor<4xf32>
// CLEAN-LABEL: func.func @main(
// CLEAN-COUNT-1: kiln.add
// CLEAN-NOT: kiln.add
// CLEAN: return
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %e = kiln.exp %x : tensor<4xf32>
  %s = kiln.sin %x : tensor<4xf32>
  %y = kiln.add %e, %s : tensor<4xf32>
  return %y : tensor<4xf32>
}
func.func @main(%x: tensor<4xf32>, %ct: tensor<4xf32>) -> tensor<4xf32> {
  %g = kiln.vjp @f(%x, %ct) wrt [0] : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %g : tensor<4xf32>
}

// -----

// Both operands of one op are the same value: x * x accumulates ct * x twice
// with one kiln.add (CSE merges the two products afterwards).
// CHECK-LABEL: func.func @main(
// CHECK-SAME: %[[X:[^:]+]]: tensor<4xf32>, %[[CT:[^:]+]]: tensor<4xf32>)
// CHECK-NEXT: %[[A:.+]] = kiln.mul %[[CT]], %[[X]] : tensor<4xf32>
// CHECK-NEXT: %[[B:.+]] = kiln.mul %[[CT]], %[[X]] : tensor<4xf32>
// CHECK-NEXT: %[[G:.+]] = kiln.add %[[A]], %[[B]] : tensor<4xf32>
// CHECK-NEXT: return %[[G]] : tensor<4xf32>
// CLEAN-LABEL: func.func @main(
// CLEAN-SAME: %[[X:[^:]+]]: tensor<4xf32>, %[[CT:[^:]+]]: tensor<4xf32>)
// CLEAN-NEXT: %[[A:.+]] = kiln.mul %[[CT]], %[[X]] : tensor<4xf32>
// CLEAN-NEXT: %[[G:.+]] = kiln.add %[[A]], %[[A]] : tensor<4xf32>
// CLEAN-NEXT: return %[[G]] : tensor<4xf32>
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = kiln.mul %x, %x : tensor<4xf32>
  return %y : tensor<4xf32>
}
func.func @main(%x: tensor<4xf32>, %ct: tensor<4xf32>) -> tensor<4xf32> {
  %g = kiln.vjp @f(%x, %ct) wrt [0] : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %g : tensor<4xf32>
}

// -----

// A zero-constant cotangent stays a symbolic zero: the gradient is a zero
// constant, with no forward op and no adjoint op.
// CHECK-LABEL: func.func @main(
// CHECK-NEXT: %[[CT:.+]] = kiln.constant dense<0.000000e+00> : tensor<4xf32>
// CHECK-NEXT: %[[G:.+]] = kiln.constant dense<0.000000e+00> : tensor<4xf32>
// CHECK-NEXT: return %[[G]] : tensor<4xf32>
// CLEAN-LABEL: func.func @main(
// CLEAN-NEXT: %[[G:.+]] = kiln.constant dense<0.000000e+00> : tensor<4xf32>
// CLEAN-NEXT: return %[[G]] : tensor<4xf32>
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %e = kiln.exp %x : tensor<4xf32>
  %y = kiln.mul %e, %x : tensor<4xf32>
  return %y : tensor<4xf32>
}
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %ct = kiln.constant dense<0.0> : tensor<4xf32>
  %g = kiln.vjp @f(%x, %ct) wrt [0] : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %g : tensor<4xf32>
}

// -----

// One of two cotangents is a zero constant: only the other result's path
// is differentiated (no exp, no ct0 product, no kiln.add).
// CHECK-LABEL: func.func @main(
// CHECK-SAME: %[[X:[^:]+]]: tensor<4xf32>, %[[CT1:[^:]+]]: tensor<4xf32>)
// CHECK-NEXT: %[[CT0:.+]] = kiln.constant dense<0.000000e+00> : tensor<4xf32>
// CHECK-NEXT: %[[C:.+]] = kiln.cos %[[X]] : tensor<4xf32>
// CHECK-NEXT: %[[G:.+]] = kiln.mul %[[CT1]], %[[C]] : tensor<4xf32>
// CHECK-NEXT: return %[[G]] : tensor<4xf32>
// CLEAN-LABEL: func.func @main(
func.func @f(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %e = kiln.exp %x : tensor<4xf32>
  %s = kiln.sin %x : tensor<4xf32>
  return %e, %s : tensor<4xf32>, tensor<4xf32>
}
func.func @main(%x: tensor<4xf32>, %ct1: tensor<4xf32>) -> tensor<4xf32> {
  %ct0 = kiln.constant dense<0.0> : tensor<4xf32>
  %g = kiln.vjp @f(%x, %ct0, %ct1) wrt [0] : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %g : tensor<4xf32>
}

// -----

// wrt only the input of a layer: the weight-gradient matmul is absent, and
// the forward matmul and tanh are recomputed because the adjoint needs tanh.
// CHECK-LABEL: func.func @main(
// CHECK-SAME: %[[X:[^:]+]]: tensor<4x8xf32>, %[[W:[^:]+]]: tensor<8x16xf32>, %[[CT:[^:]+]]: tensor<4x16xf32>)
// CHECK-NEXT: %[[M:.+]] = kiln.matmul %[[X]], %[[W]] : tensor<4x8xf32>, tensor<8x16xf32> -> tensor<4x16xf32>
// CHECK-NEXT: %[[Y:.+]] = kiln.tanh %[[M]] : tensor<4x16xf32>
// CHECK-NEXT: %[[ONE:.+]] = kiln.constant dense<1.000000e+00> : tensor<4x16xf32>
// CHECK-NEXT: %[[YY:.+]] = kiln.mul %[[Y]], %[[Y]] : tensor<4x16xf32>
// CHECK-NEXT: %[[D:.+]] = kiln.sub %[[ONE]], %[[YY]] : tensor<4x16xf32>
// CHECK-NEXT: %[[DM:.+]] = kiln.mul %[[CT]], %[[D]] : tensor<4x16xf32>
// CHECK-NOT: transpose_a
// CHECK-NEXT: %[[G:.+]] = kiln.matmul %[[DM]], %[[W]] {transpose_b = true} : tensor<4x16xf32>, tensor<8x16xf32> -> tensor<4x8xf32>
// CHECK-NOT: kiln.matmul
// CHECK-NEXT: return %[[G]] : tensor<4x8xf32>
// CLEAN-LABEL: func.func @main(
// CLEAN-COUNT-2: kiln.matmul
// CLEAN-NOT: kiln.matmul
// CLEAN: return
func.func @f(%x: tensor<4x8xf32>, %w: tensor<8x16xf32>) -> tensor<4x16xf32> {
  %m = kiln.matmul %x, %w : tensor<4x8xf32>, tensor<8x16xf32> -> tensor<4x16xf32>
  %t = kiln.tanh %m : tensor<4x16xf32>
  return %t : tensor<4x16xf32>
}
func.func @main(%x: tensor<4x8xf32>, %w: tensor<8x16xf32>, %ct: tensor<4x16xf32>) -> tensor<4x8xf32> {
  %g = kiln.vjp @f(%x, %w, %ct) wrt [0] : (tensor<4x8xf32>, tensor<8x16xf32>, tensor<4x16xf32>) -> tensor<4x8xf32>
  return %g : tensor<4x8xf32>
}

// -----

// wrt only the second operand of a mul: no ct * e^y for x; the chain goes
// through exp to y.
// CHECK-LABEL: func.func @main(
// CHECK-SAME: %[[X:[^:]+]]: tensor<4xf32>, %[[Y:[^:]+]]: tensor<4xf32>, %[[CT:[^:]+]]: tensor<4xf32>)
// CHECK-NEXT: %[[EY:.+]] = kiln.exp %[[Y]] : tensor<4xf32>
// CHECK-NOT: kiln.mul %[[CT]], %[[EY]]
// CHECK-NEXT: %[[DEY:.+]] = kiln.mul %[[CT]], %[[X]] : tensor<4xf32>
// CHECK-NEXT: %[[G:.+]] = kiln.mul %[[DEY]], %[[EY]] : tensor<4xf32>
// CHECK-NEXT: return %[[G]] : tensor<4xf32>
// CLEAN-LABEL: func.func @main(
func.func @f(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %ey = kiln.exp %y : tensor<4xf32>
  %z = kiln.mul %x, %ey : tensor<4xf32>
  return %z : tensor<4xf32>
}
func.func @main(%x: tensor<4xf32>, %y: tensor<4xf32>, %ct: tensor<4xf32>) -> tensor<4xf32> {
  %g = kiln.vjp @f(%x, %y, %ct) wrt [1] : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %g : tensor<4xf32>
}

// -----

// An identity callee: the gradient of the returned argument is ct, that of
// the unused argument a zero constant.
// CHECK-LABEL: func.func @main(
// CHECK-SAME: %[[X:[^:]+]]: tensor<4xf32>, %[[Y:[^:]+]]: tensor<4xf32>, %[[CT:[^:]+]]: tensor<4xf32>)
// CHECK-NEXT: %[[Z:.+]] = kiln.constant dense<0.000000e+00> : tensor<4xf32>
// CHECK-NEXT: return %[[CT]], %[[Z]] : tensor<4xf32>, tensor<4xf32>
// CLEAN-LABEL: func.func @main(
func.func @f(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
func.func @main(%x: tensor<4xf32>, %y: tensor<4xf32>, %ct: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %gx, %gy = kiln.vjp @f(%x, %y, %ct) wrt [0, 1] : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
  return %gx, %gy : tensor<4xf32>, tensor<4xf32>
}

// -----

// A callee that calls another function: the call is inlined and
// differentiated through (chain rule exp(sin x)).
// CHECK-LABEL: func.func @main(
// CHECK-SAME: %[[X:[^:]+]]: tensor<4xf32>, %[[CT:[^:]+]]: tensor<4xf32>)
// CHECK-NOT: call
// CHECK-NEXT: %[[S:.+]] = kiln.sin %[[X]] : tensor<4xf32>
// CHECK-NEXT: %[[E:.+]] = kiln.exp %[[S]] : tensor<4xf32>
// CHECK-NEXT: %[[DS:.+]] = kiln.mul %[[CT]], %[[E]] : tensor<4xf32>
// CHECK-NEXT: %[[C:.+]] = kiln.cos %[[X]] : tensor<4xf32>
// CHECK-NEXT: %[[G:.+]] = kiln.mul %[[DS]], %[[C]] : tensor<4xf32>
// CHECK-NOT: call
// CHECK-NEXT: return %[[G]] : tensor<4xf32>
// CLEAN-LABEL: func.func @main(
func.func @g(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = kiln.sin %x : tensor<4xf32>
  return %y : tensor<4xf32>
}
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = func.call @g(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %z = kiln.exp %y : tensor<4xf32>
  return %z : tensor<4xf32>
}
func.func @main(%x: tensor<4xf32>, %ct: tensor<4xf32>) -> tensor<4xf32> {
  %g = kiln.vjp @f(%x, %ct) wrt [0] : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %g : tensor<4xf32>
}

// -----

// A callee holding a kiln.fusion_group: the group is inlined and its ops
// differentiated like any other.
// CHECK-LABEL: func.func @main(
// CHECK-SAME: %[[A:[^:]+]]: tensor<4x8xf32>, %[[B:[^:]+]]: tensor<4x8xf32>, %[[CT:[^:]+]]: tensor<4x8xf32>)
// CHECK-NOT: kiln.fusion_group
// CHECK-NEXT: %[[T:.+]] = kiln.tanh %[[A]] : tensor<4x8xf32>
// CHECK-NEXT: %[[ONE:.+]] = kiln.constant dense<1.000000e+00> : tensor<4x8xf32>
// CHECK-NEXT: %[[TT:.+]] = kiln.mul %[[T]], %[[T]] : tensor<4x8xf32>
// CHECK-NEXT: %[[D:.+]] = kiln.sub %[[ONE]], %[[TT]] : tensor<4x8xf32>
// CHECK-NEXT: %[[GA:.+]] = kiln.mul %[[CT]], %[[D]] : tensor<4x8xf32>
// CHECK-NOT: kiln.fusion_group
// CHECK-NEXT: return %[[GA]], %[[CT]] : tensor<4x8xf32>, tensor<4x8xf32>
// CLEAN-LABEL: func.func @main(
func.func @f(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = kiln.fusion_group %a, %b : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32> {
  ^bb0(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>):
    %t = kiln.tanh %x : tensor<4x8xf32>
    %s = kiln.add %t, %y : tensor<4x8xf32>
    kiln.yield %s : tensor<4x8xf32>
  }
  return %0 : tensor<4x8xf32>
}
func.func @main(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>, %ct: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %ga, %gb = kiln.vjp @f(%a, %b, %ct) wrt [0, 1] : (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>)
  return %ga, %gb : tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// Multiple results with two cotangents: each result's contribution to x,
// joined by one kiln.add.
// CHECK-LABEL: func.func @main(
// CHECK-SAME: %[[X:[^:]+]]: tensor<4xf32>, %[[CT0:[^:]+]]: tensor<4xf32>, %[[CT1:[^:]+]]: tensor<4xf32>)
// CHECK-NEXT: %[[E:.+]] = kiln.exp %[[X]] : tensor<4xf32>
// CHECK-NEXT: %[[C:.+]] = kiln.cos %[[X]] : tensor<4xf32>
// CHECK-NEXT: %[[D1:.+]] = kiln.mul %[[CT1]], %[[C]] : tensor<4xf32>
// CHECK-NEXT: %[[D0:.+]] = kiln.mul %[[CT0]], %[[E]] : tensor<4xf32>
// CHECK-NEXT: %[[G:.+]] = kiln.add %[[D1]], %[[D0]] : tensor<4xf32>
// CHECK-NEXT: return %[[G]] : tensor<4xf32>
// CLEAN-LABEL: func.func @main(
func.func @f(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %e = kiln.exp %x : tensor<4xf32>
  %s = kiln.sin %x : tensor<4xf32>
  return %e, %s : tensor<4xf32>, tensor<4xf32>
}
func.func @main(%x: tensor<4xf32>, %ct0: tensor<4xf32>, %ct1: tensor<4xf32>) -> tensor<4xf32> {
  %g = kiln.vjp @f(%x, %ct0, %ct1) wrt [0] : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %g : tensor<4xf32>
}
