// RUN: kiln-opt %s -split-input-file -kiln-decompose-attention | FileCheck %s

// The forward: the scores, their rewrites in order (a product by the
// broadcast scale, then a fill where the mask hides), the row maximum and
// sum, and the product with v.
// CHECK-LABEL: func.func @forward
// CHECK-SAME: (%[[Q:.*]]: tensor<2x4x8xf32>, %[[K:.*]]: tensor<2x6x8xf32>, %[[V:.*]]: tensor<2x6x3xf32>, %[[SCALE:.*]]: tensor<1x1x1xf32>, %[[HIDE:.*]]: tensor<1x4x6xi1>, %[[FILL:.*]]: tensor<1x1x1xf32>)
// CHECK: %[[S:.*]] = kiln.matmul %[[Q]], %[[K]] {transpose_b = true} : tensor<2x4x8xf32>, tensor<2x6x8xf32> -> tensor<2x4x6xf32>
// CHECK: %[[SB:.*]] = kiln.broadcast_in_dim %[[SCALE]], dims = [0, 1, 2] : tensor<1x1x1xf32> -> tensor<2x4x6xf32>
// CHECK: %[[S1:.*]] = kiln.mul %[[S]], %[[SB]]
// CHECK: %[[HB:.*]] = kiln.broadcast_in_dim %[[HIDE]], dims = [0, 1, 2] : tensor<1x4x6xi1> -> tensor<2x4x6xi1>
// CHECK: %[[FB:.*]] = kiln.broadcast_in_dim %[[FILL]]
// CHECK: %[[S2:.*]] = kiln.select %[[HB]], %[[FB]], %[[S1]]
// CHECK: %[[M:.*]] = kiln.reduce_max %[[S2]], dims = [2]
// CHECK: %[[MB:.*]] = kiln.broadcast_in_dim %[[M]], dims = [0, 1]
// CHECK: %[[D:.*]] = kiln.sub %[[S2]], %[[MB]]
// CHECK: %[[E:.*]] = kiln.exp %[[D]]
// CHECK: %[[L:.*]] = kiln.reduce_sum %[[E]], dims = [2]
// CHECK: %[[LB:.*]] = kiln.broadcast_in_dim %[[L]], dims = [0, 1]
// CHECK: %[[P:.*]] = kiln.div %[[E]], %[[LB]]
// CHECK: %[[O:.*]] = kiln.matmul %[[P]], %[[V]] : tensor<2x4x6xf32>, tensor<2x6x3xf32> -> tensor<2x4x3xf32>
// CHECK: return %[[O]], %[[M]], %[[L]]
func.func @forward(%q: tensor<2x4x8xf32>, %k: tensor<2x6x8xf32>, %v: tensor<2x6x3xf32>, %scale: tensor<1x1x1xf32>, %hide: tensor<1x4x6xi1>, %fill: tensor<1x1x1xf32>) -> (tensor<2x4x3xf32>, tensor<2x4xf32>, tensor<2x4xf32>) {
  %o, %m, %l = kiln.attention %q, %k, %v score(%scale, %hide, %fill : tensor<1x1x1xf32>, tensor<1x4x6xi1>, tensor<1x1x1xf32>) steps [0, 0, -1, 6, 1, 2] : tensor<2x4x8xf32>, tensor<2x6x8xf32>, tensor<2x6x3xf32> -> tensor<2x4x3xf32>, tensor<2x4xf32>, tensor<2x4xf32>
  return %o, %m, %l : tensor<2x4x3xf32>, tensor<2x4xf32>, tensor<2x4xf32>
}

// -----

// The backward recomputes the probabilities from the row statistics; the
// scores' derivative (the scale where the mask keeps the score, 0 where it
// fills) multiplies the softmax's backward.
// CHECK-LABEL: func.func @backward
// CHECK-SAME: (%[[Q:.*]]: tensor<2x4x8xf32>, %[[K:.*]]: tensor<2x6x8xf32>, %[[V:.*]]: tensor<2x6x3xf32>, %[[O:.*]]: tensor<2x4x3xf32>, %[[M:.*]]: tensor<2x4xf32>, %[[L:.*]]: tensor<2x4xf32>, %[[DO:.*]]: tensor<2x4x3xf32>, %[[SCALE:.*]]: tensor<1x1x1xf32>, %[[HIDE:.*]]: tensor<1x4x6xi1>, %[[FILL:.*]]: tensor<1x1x1xf32>)
// CHECK: %[[SB:.*]] = kiln.broadcast_in_dim %[[SCALE]]
// CHECK: %[[HB:.*]] = kiln.broadcast_in_dim %[[HIDE]]
// CHECK: %[[S2:.*]] = kiln.select %[[HB]]
// CHECK: %[[ZERO:.*]] = kiln.constant dense<0.000000e+00> : tensor<2x4x6xf32>
// CHECK: %[[T:.*]] = kiln.select %[[HB]], %[[ZERO]], %[[SB]]
// CHECK: kiln.broadcast_in_dim %[[M]]
// CHECK: %[[E:.*]] = kiln.exp
// CHECK: kiln.broadcast_in_dim %[[L]]
// CHECK: %[[P:.*]] = kiln.div %[[E]]
// CHECK: %[[DV:.*]] = kiln.matmul %[[P]], %[[DO]] {transpose_a = true} : tensor<2x4x6xf32>, tensor<2x4x3xf32> -> tensor<2x6x3xf32>
// CHECK: %[[DP:.*]] = kiln.matmul %[[DO]], %[[V]] {transpose_b = true} : tensor<2x4x3xf32>, tensor<2x6x3xf32> -> tensor<2x4x6xf32>
// CHECK: %[[PDP:.*]] = kiln.mul %[[P]], %[[DP]]
// CHECK: %[[ROW:.*]] = kiln.reduce_sum %[[PDP]], dims = [2]
// CHECK: %[[ROWB:.*]] = kiln.broadcast_in_dim %[[ROW]]
// CHECK: %[[C:.*]] = kiln.sub %[[DP]], %[[ROWB]]
// CHECK: %[[DS1:.*]] = kiln.mul %[[P]], %[[C]]
// CHECK: %[[DS:.*]] = kiln.mul %[[DS1]], %[[T]]
// CHECK: %[[DQ:.*]] = kiln.matmul %[[DS]], %[[K]] : tensor<2x4x6xf32>, tensor<2x6x8xf32> -> tensor<2x4x8xf32>
// CHECK: %[[DK:.*]] = kiln.matmul %[[DS]], %[[Q]] {transpose_a = true} : tensor<2x4x6xf32>, tensor<2x4x8xf32> -> tensor<2x6x8xf32>
// CHECK: return %[[DQ]], %[[DK]], %[[DV]]
func.func @backward(%q: tensor<2x4x8xf32>, %k: tensor<2x6x8xf32>, %v: tensor<2x6x3xf32>, %o: tensor<2x4x3xf32>, %m: tensor<2x4xf32>, %l: tensor<2x4xf32>, %do: tensor<2x4x3xf32>, %scale: tensor<1x1x1xf32>, %hide: tensor<1x4x6xi1>, %fill: tensor<1x1x1xf32>) -> (tensor<2x4x8xf32>, tensor<2x6x8xf32>, tensor<2x6x3xf32>) {
  %dq, %dk, %dv = kiln.attention_grad %q, %k, %v, %o, %m, %l, %do score(%scale, %hide, %fill : tensor<1x1x1xf32>, tensor<1x4x6xi1>, tensor<1x1x1xf32>) steps [0, 0, -1, 6, 1, 2] : tensor<2x4x8xf32>, tensor<2x6x8xf32>, tensor<2x6x3xf32>, tensor<2x4x3xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4x3xf32> -> tensor<2x4x8xf32>, tensor<2x6x8xf32>, tensor<2x6x3xf32>
  return %dq, %dk, %dv : tensor<2x4x8xf32>, tensor<2x6x8xf32>, tensor<2x6x3xf32>
}
