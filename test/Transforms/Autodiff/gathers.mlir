// The VJPs of kiln.take and kiln.scatter_add (issue 38): a gather's
// gradient is a scatter_add of the cotangent into zeros; a scatter_add's
// is the cotangent for its operand and, for its updates, a take of the
// cotangent that is 0 where the update was dropped (its index out of
// range: a take of ones is 1 only in range). Indices get none.
// RUN: kiln-opt %s -split-input-file -kiln-autodiff -canonicalize -cse | FileCheck %s

func.func private @lookup(%w: tensor<5x2xf32>, %ids: tensor<3xi64>) -> tensor<3x2xf32> {
  %e = kiln.take %w, %ids dim = 0 : tensor<5x2xf32>, tensor<3xi64> -> tensor<3x2xf32>
  return %e : tensor<3x2xf32>
}

// CHECK-LABEL: func.func @take_grad(
// CHECK-SAME: %[[W:[^:]*]]: tensor<5x2xf32>, %[[IDS:[^:]*]]: tensor<3xi64>, %[[CT:[^:]*]]: tensor<3x2xf32>
// CHECK: %[[Z:.*]] = kiln.constant dense<0.000000e+00> : tensor<5x2xf32>
// CHECK: %[[G:.*]] = kiln.scatter_add %[[Z]], %[[IDS]], %[[CT]] dim = 0
// CHECK: return %[[G]]
func.func @take_grad(%w: tensor<5x2xf32>, %ids: tensor<3xi64>, %ct: tensor<3x2xf32>) -> tensor<5x2xf32> {
  %g = kiln.vjp @lookup(%w, %ids, %ct) wrt [0] : (tensor<5x2xf32>, tensor<3xi64>, tensor<3x2xf32>) -> tensor<5x2xf32>
  return %g : tensor<5x2xf32>
}

// -----

func.func private @accumulate(%t: tensor<5x2xf32>, %ids: tensor<3xi32>, %u: tensor<3x2xf32>) -> tensor<5x2xf32> {
  %s = kiln.scatter_add %t, %ids, %u dim = 0 : tensor<5x2xf32>, tensor<3xi32>, tensor<3x2xf32> -> tensor<5x2xf32>
  return %s : tensor<5x2xf32>
}

// CHECK-LABEL: func.func @scatter_grad(
// CHECK-SAME: %[[T:[^:]*]]: tensor<5x2xf32>, %[[IDS:[^:]*]]: tensor<3xi32>, %[[U:[^:]*]]: tensor<3x2xf32>, %[[CT:[^:]*]]: tensor<5x2xf32>
// CHECK-DAG: %[[GATHERED:.*]] = kiln.take %[[CT]], %[[IDS]] dim = 0
// CHECK-DAG: %[[ONES:.*]] = kiln.take %{{.*}}, %[[IDS]] dim = 0
// CHECK: %[[IN:.*]] = kiln.cmp eq, %[[ONES]], %{{.*}}
// CHECK: %[[DU:.*]] = kiln.select %[[IN]], %[[GATHERED]], %{{.*}}
// CHECK: return %[[CT]], %[[DU]]
func.func @scatter_grad(%t: tensor<5x2xf32>, %ids: tensor<3xi32>, %u: tensor<3x2xf32>, %ct: tensor<5x2xf32>) -> (tensor<5x2xf32>, tensor<3x2xf32>) {
  %g:2 = kiln.vjp @accumulate(%t, %ids, %u, %ct) wrt [0, 2] : (tensor<5x2xf32>, tensor<3xi32>, tensor<3x2xf32>, tensor<5x2xf32>) -> (tensor<5x2xf32>, tensor<3x2xf32>)
  return %g#0, %g#1 : tensor<5x2xf32>, tensor<3x2xf32>
}
