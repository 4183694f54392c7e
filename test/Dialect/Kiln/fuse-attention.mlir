// RUN: kiln-opt %s -split-input-file -kiln-fuse-attention | FileCheck %s
// RUN: kiln-opt %s -split-input-file -kiln-fuse-attention -kiln-autodiff | FileCheck %s --check-prefix=GRAD

// A scale and an additive mask: both become rank-3 operands read broadcast
// (the constant one element, the [T, T] mask without its broadcast); the
// scores, the softmax and the second product are gone.
// CHECK-LABEL: func.func @additive
// CHECK-SAME: (%[[Q:.*]]: tensor<4x16x8xf32>, %[[K:.*]]: tensor<4x16x8xf32>, %[[V:.*]]: tensor<4x16x8xf32>, %[[MASK:.*]]: tensor<16x16xf32>)
// CHECK-DAG: %[[SCALE:.*]] = kiln.constant dense<0.353553385> : tensor<1x1x1xf32>
// CHECK-DAG: %[[MASK3:.*]] = kiln.reshape %[[MASK]] : tensor<16x16xf32> -> tensor<1x16x16xf32>
// CHECK: %[[O:.*]], %{{.*}}, %{{.*}} = kiln.attention %[[Q]], %[[K]], %[[V]] score(%[[SCALE]], %[[MASK3]] : tensor<1x1x1xf32>, tensor<1x16x16xf32>) steps [0, 0, -1, 2, 1, -1]
// CHECK-NOT: kiln.matmul
// CHECK-NOT: kiln.exp
// CHECK: return %[[O]]
// GRAD-LABEL: func.func @additive_grad
// GRAD: %[[O:.*]], %[[M:.*]], %[[L:.*]] = kiln.attention
// GRAD: %[[DQ:.*]], %[[DK:.*]], %[[DV:.*]] = kiln.attention_grad %{{.*}}, %{{.*}}, %{{.*}}, %[[O]], %[[M]], %[[L]], %{{.*}} score
// GRAD-NOT: kiln.matmul
// GRAD: return %[[DQ]], %[[DK]], %[[DV]]
func.func @additive(%q: tensor<4x16x8xf32>, %k: tensor<4x16x8xf32>, %v: tensor<4x16x8xf32>, %mask: tensor<16x16xf32>) -> tensor<4x16x8xf32> {
  %s0 = kiln.matmul %q, %k {transpose_b = true} : tensor<4x16x8xf32>, tensor<4x16x8xf32> -> tensor<4x16x16xf32>
  %scale = kiln.constant dense<0.35355339> : tensor<4x16x16xf32>
  %s1 = kiln.mul %s0, %scale : tensor<4x16x16xf32>
  %mb = kiln.broadcast_in_dim %mask, dims = [1, 2] : tensor<16x16xf32> -> tensor<4x16x16xf32>
  %s = kiln.add %s1, %mb : tensor<4x16x16xf32>
  %m = kiln.reduce_max %s, dims = [2] : tensor<4x16x16xf32> -> tensor<4x16xf32>
  %mx = kiln.broadcast_in_dim %m, dims = [0, 1] : tensor<4x16xf32> -> tensor<4x16x16xf32>
  %d = kiln.sub %s, %mx : tensor<4x16x16xf32>
  %e = kiln.exp %d : tensor<4x16x16xf32>
  %z = kiln.reduce_sum %e, dims = [2] : tensor<4x16x16xf32> -> tensor<4x16xf32>
  %zb = kiln.broadcast_in_dim %z, dims = [0, 1] : tensor<4x16xf32> -> tensor<4x16x16xf32>
  %p = kiln.div %e, %zb : tensor<4x16x16xf32>
  %o = kiln.matmul %p, %v : tensor<4x16x16xf32>, tensor<4x16x8xf32> -> tensor<4x16x8xf32>
  return %o : tensor<4x16x8xf32>
}
func.func @additive_grad(%q: tensor<4x16x8xf32>, %k: tensor<4x16x8xf32>, %v: tensor<4x16x8xf32>, %mask: tensor<16x16xf32>, %ct: tensor<4x16x8xf32>) -> (tensor<4x16x8xf32>, tensor<4x16x8xf32>, tensor<4x16x8xf32>) {
  %g:3 = kiln.vjp @additive(%q, %k, %v, %mask, %ct) wrt [0, 1, 2] : (tensor<4x16x8xf32>, tensor<4x16x8xf32>, tensor<4x16x8xf32>, tensor<16x16xf32>, tensor<4x16x8xf32>) -> (tensor<4x16x8xf32>, tensor<4x16x8xf32>, tensor<4x16x8xf32>)
  return %g#0, %g#1, %g#2 : tensor<4x16x8xf32>, tensor<4x16x8xf32>, tensor<4x16x8xf32>
}

// -----

// What PyTorch's scaled_dot_product_attention(is_causal=True) records: 4-D
// heads through reshapes, k transposed by an op, the scale an input, the
// causal mask a masked_fill (select of -inf where hidden), and the row
// maxima a derivative receives as an argument. The shift by that argument
// is dropped (softmax does not depend on it); the mask keeps its [T, T]
// source.
// CHECK-LABEL: func.func @causal_masked_fill
// CHECK-SAME: %[[MAX:[^:]*]]: tensor<2x2x8xf32>
// CHECK: %[[HIDE:.*]] = kiln.cmp gt
// CHECK-DAG: %[[KT:.*]] = kiln.transpose %{{.*}}, perm = [0, 2, 1] : tensor<4x4x8xf32> -> tensor<4x8x4xf32>
// CHECK-DAG: %[[HIDE3:.*]] = kiln.reshape %[[HIDE]] : tensor<8x8xi1> -> tensor<1x8x8xi1>
// CHECK: kiln.attention %{{.*}}, %[[KT]], %{{.*}} score(%{{.*}}, %[[HIDE3]], %{{.*}} : tensor<1x1x1xf32>, tensor<1x8x8xi1>, tensor<1x1x1xf32>) steps [0, 0, -1, 6, 1, 2]
// CHECK-NOT: kiln.exp
func.func @causal_masked_fill(%q: tensor<2x2x8x4xf32>, %k: tensor<2x2x8x4xf32>, %scale: tensor<f32>, %max: tensor<2x2x8xf32>, %v: tensor<2x2x8x4xf32>) -> tensor<2x2x8x4xf32> {
  %col = kiln.iota dim = 1 : tensor<8x8xi64>
  %row = kiln.iota dim = 0 : tensor<8x8xi64>
  %above = kiln.cmp gt, %col, %row : tensor<8x8xi64>
  %hide = kiln.broadcast_in_dim %above, dims = [2, 3] : tensor<8x8xi1> -> tensor<2x2x8x8xi1>
  %inf = kiln.constant dense<0xFF800000> : tensor<f32>
  %fill = kiln.broadcast_in_dim %inf, dims = [] : tensor<f32> -> tensor<2x2x8x8xf32>
  %q3 = kiln.reshape %q : tensor<2x2x8x4xf32> -> tensor<4x8x4xf32>
  %kt = kiln.transpose %k, perm = [0, 1, 3, 2] : tensor<2x2x8x4xf32> -> tensor<2x2x4x8xf32>
  %kt3 = kiln.reshape %kt : tensor<2x2x4x8xf32> -> tensor<4x4x8xf32>
  %s3 = kiln.matmul %q3, %kt3 : tensor<4x8x4xf32>, tensor<4x4x8xf32> -> tensor<4x8x8xf32>
  %s = kiln.reshape %s3 : tensor<4x8x8xf32> -> tensor<2x2x8x8xf32>
  %sb = kiln.broadcast_in_dim %scale, dims = [] : tensor<f32> -> tensor<2x2x8x8xf32>
  %scaled = kiln.mul %s, %sb : tensor<2x2x8x8xf32>
  %x = kiln.select %hide, %fill, %scaled : tensor<2x2x8x8xi1>, tensor<2x2x8x8xf32>
  %m1 = kiln.reshape %max : tensor<2x2x8xf32> -> tensor<2x2x8x1xf32>
  %mx = kiln.broadcast_in_dim %m1, dims = [0, 1, 2, 3] : tensor<2x2x8x1xf32> -> tensor<2x2x8x8xf32>
  %d = kiln.sub %x, %mx : tensor<2x2x8x8xf32>
  %e = kiln.exp %d : tensor<2x2x8x8xf32>
  %z = kiln.reduce_sum %e, dims = [3] : tensor<2x2x8x8xf32> -> tensor<2x2x8xf32>
  %z1 = kiln.reshape %z : tensor<2x2x8xf32> -> tensor<2x2x8x1xf32>
  %zb = kiln.broadcast_in_dim %z1, dims = [0, 1, 2, 3] : tensor<2x2x8x1xf32> -> tensor<2x2x8x8xf32>
  %p = kiln.div %e, %zb : tensor<2x2x8x8xf32>
  %p3 = kiln.reshape %p : tensor<2x2x8x8xf32> -> tensor<4x8x8xf32>
  %v3 = kiln.reshape %v : tensor<2x2x8x4xf32> -> tensor<4x8x4xf32>
  %o3 = kiln.matmul %p3, %v3 : tensor<4x8x8xf32>, tensor<4x8x4xf32> -> tensor<4x8x4xf32>
  %o = kiln.reshape %o3 : tensor<4x8x4xf32> -> tensor<2x2x8x4xf32>
  return %o : tensor<2x2x8x4xf32>
}

// -----

// Cross-attention (6 queries, 10 keys, values 5 wide) with a key-padding
// mask per batch kept (select against -1e9), and an encoder's unshifted
// softmax with the scale a division.
// CHECK-LABEL: func.func @cross
// CHECK: kiln.attention {{.*}} score(%{{.*}}, %{{.*}}, %{{.*}} : tensor<1x1x1xf32>, tensor<2x1x10xi1>, tensor<1x1x1xf32>) steps [0, 0, -1, 5, 1, 2] : tensor<2x6x4xf32>, tensor<2x10x4xf32>, tensor<2x10x5xf32> -> tensor<2x6x5xf32>, tensor<2x6xf32>, tensor<2x6xf32>
// CHECK-LABEL: func.func @encoder
// CHECK: kiln.attention {{.*}} steps [1, 0, -1]
func.func @cross(%q: tensor<2x6x4xf32>, %k: tensor<2x10x4xf32>, %v: tensor<2x10x5xf32>, %keep: tensor<2x10xi1>) -> tensor<2x6x5xf32> {
  %s = kiln.matmul %q, %k {transpose_b = true} : tensor<2x6x4xf32>, tensor<2x10x4xf32> -> tensor<2x6x10xf32>
  %c = kiln.constant dense<0.5> : tensor<2x6x10xf32>
  %scaled = kiln.mul %c, %s : tensor<2x6x10xf32>
  %kb = kiln.broadcast_in_dim %keep, dims = [0, 2] : tensor<2x10xi1> -> tensor<2x6x10xi1>
  %low = kiln.constant dense<-1.0e+09> : tensor<2x6x10xf32>
  %x = kiln.select %kb, %scaled, %low : tensor<2x6x10xi1>, tensor<2x6x10xf32>
  %m = kiln.reduce_max %x, dims = [2] : tensor<2x6x10xf32> -> tensor<2x6xf32>
  %mx = kiln.broadcast_in_dim %m, dims = [0, 1] : tensor<2x6xf32> -> tensor<2x6x10xf32>
  %d = kiln.sub %x, %mx : tensor<2x6x10xf32>
  %e = kiln.exp %d : tensor<2x6x10xf32>
  %z = kiln.reduce_sum %e, dims = [2] : tensor<2x6x10xf32> -> tensor<2x6xf32>
  %zb = kiln.broadcast_in_dim %z, dims = [0, 1] : tensor<2x6xf32> -> tensor<2x6x10xf32>
  %p = kiln.div %e, %zb : tensor<2x6x10xf32>
  %o = kiln.matmul %p, %v : tensor<2x6x10xf32>, tensor<2x10x5xf32> -> tensor<2x6x5xf32>
  return %o : tensor<2x6x5xf32>
}
func.func @encoder(%q: tensor<3x7x4xf32>, %k: tensor<3x7x4xf32>, %v: tensor<3x7x4xf32>) -> tensor<3x7x4xf32> {
  %s = kiln.matmul %q, %k {transpose_b = true} : tensor<3x7x4xf32>, tensor<3x7x4xf32> -> tensor<3x7x7xf32>
  %c = kiln.constant dense<2.0> : tensor<3x7x7xf32>
  %x = kiln.div %s, %c : tensor<3x7x7xf32>
  %e = kiln.exp %x : tensor<3x7x7xf32>
  %z = kiln.reduce_sum %e, dims = [2] : tensor<3x7x7xf32> -> tensor<3x7xf32>
  %zb = kiln.broadcast_in_dim %z, dims = [0, 1] : tensor<3x7xf32> -> tensor<3x7x7xf32>
  %p = kiln.div %e, %zb : tensor<3x7x7xf32>
  %o = kiln.matmul %p, %v : tensor<3x7x7xf32>, tensor<3x7x4xf32> -> tensor<3x7x4xf32>
  return %o : tensor<3x7x4xf32>
}

// -----

// Left as they are: the probabilities read elsewhere (returned), the scores
// read elsewhere, a softmax along another dim, scores divided into a value
// (not a rewrite kiln.attention states), and f64.
// CHECK-LABEL: func.func @probabilities_returned
// CHECK-NOT: kiln.attention
// CHECK: kiln.exp
// CHECK-LABEL: func.func @scores_returned
// CHECK-NOT: kiln.attention
// CHECK: kiln.exp
// CHECK-LABEL: func.func @softmax_over_queries
// CHECK-NOT: kiln.attention
// CHECK: kiln.exp
// CHECK-LABEL: func.func @reciprocal_scores
// CHECK-NOT: kiln.attention
// CHECK: kiln.exp
// CHECK-LABEL: func.func @f64
// CHECK-NOT: kiln.attention
// CHECK: kiln.exp
func.func @probabilities_returned(%q: tensor<2x4x3xf32>, %k: tensor<2x4x3xf32>, %v: tensor<2x4x3xf32>) -> (tensor<2x4x3xf32>, tensor<2x4x4xf32>) {
  %s = kiln.matmul %q, %k {transpose_b = true} : tensor<2x4x3xf32>, tensor<2x4x3xf32> -> tensor<2x4x4xf32>
  %e = kiln.exp %s : tensor<2x4x4xf32>
  %z = kiln.reduce_sum %e, dims = [2] : tensor<2x4x4xf32> -> tensor<2x4xf32>
  %zb = kiln.broadcast_in_dim %z, dims = [0, 1] : tensor<2x4xf32> -> tensor<2x4x4xf32>
  %p = kiln.div %e, %zb : tensor<2x4x4xf32>
  %o = kiln.matmul %p, %v : tensor<2x4x4xf32>, tensor<2x4x3xf32> -> tensor<2x4x3xf32>
  return %o, %p : tensor<2x4x3xf32>, tensor<2x4x4xf32>
}
func.func @scores_returned(%q: tensor<2x4x3xf32>, %k: tensor<2x4x3xf32>, %v: tensor<2x4x3xf32>) -> (tensor<2x4x3xf32>, tensor<2x4x4xf32>) {
  %s = kiln.matmul %q, %k {transpose_b = true} : tensor<2x4x3xf32>, tensor<2x4x3xf32> -> tensor<2x4x4xf32>
  %c = kiln.constant dense<0.5> : tensor<2x4x4xf32>
  %x = kiln.mul %s, %c : tensor<2x4x4xf32>
  %e = kiln.exp %x : tensor<2x4x4xf32>
  %z = kiln.reduce_sum %e, dims = [2] : tensor<2x4x4xf32> -> tensor<2x4xf32>
  %zb = kiln.broadcast_in_dim %z, dims = [0, 1] : tensor<2x4xf32> -> tensor<2x4x4xf32>
  %p = kiln.div %e, %zb : tensor<2x4x4xf32>
  %o = kiln.matmul %p, %v : tensor<2x4x4xf32>, tensor<2x4x3xf32> -> tensor<2x4x3xf32>
  return %o, %s : tensor<2x4x3xf32>, tensor<2x4x4xf32>
}
func.func @softmax_over_queries(%q: tensor<2x4x3xf32>, %k: tensor<2x4x3xf32>, %v: tensor<2x4x3xf32>) -> tensor<2x4x3xf32> {
  %s = kiln.matmul %q, %k {transpose_b = true} : tensor<2x4x3xf32>, tensor<2x4x3xf32> -> tensor<2x4x4xf32>
  %e = kiln.exp %s : tensor<2x4x4xf32>
  %z = kiln.reduce_sum %e, dims = [1] : tensor<2x4x4xf32> -> tensor<2x4xf32>
  %zb = kiln.broadcast_in_dim %z, dims = [0, 2] : tensor<2x4xf32> -> tensor<2x4x4xf32>
  %p = kiln.div %e, %zb : tensor<2x4x4xf32>
  %o = kiln.matmul %p, %v : tensor<2x4x4xf32>, tensor<2x4x3xf32> -> tensor<2x4x3xf32>
  return %o : tensor<2x4x3xf32>
}
func.func @reciprocal_scores(%q: tensor<2x4x3xf32>, %k: tensor<2x4x3xf32>, %v: tensor<2x4x3xf32>) -> tensor<2x4x3xf32> {
  %s = kiln.matmul %q, %k {transpose_b = true} : tensor<2x4x3xf32>, tensor<2x4x3xf32> -> tensor<2x4x4xf32>
  %c = kiln.constant dense<0.5> : tensor<2x4x4xf32>
  %x = kiln.div %c, %s : tensor<2x4x4xf32>
  %e = kiln.exp %x : tensor<2x4x4xf32>
  %z = kiln.reduce_sum %e, dims = [2] : tensor<2x4x4xf32> -> tensor<2x4xf32>
  %zb = kiln.broadcast_in_dim %z, dims = [0, 1] : tensor<2x4xf32> -> tensor<2x4x4xf32>
  %p = kiln.div %e, %zb : tensor<2x4x4xf32>
  %o = kiln.matmul %p, %v : tensor<2x4x4xf32>, tensor<2x4x3xf32> -> tensor<2x4x3xf32>
  return %o : tensor<2x4x3xf32>
}
func.func @f64(%q: tensor<2x4x3xf64>, %k: tensor<2x4x3xf64>, %v: tensor<2x4x3xf64>) -> tensor<2x4x3xf64> {
  %s = kiln.matmul %q, %k {transpose_b = true} : tensor<2x4x3xf64>, tensor<2x4x3xf64> -> tensor<2x4x4xf64>
  %e = kiln.exp %s : tensor<2x4x4xf64>
  %z = kiln.reduce_sum %e, dims = [2] : tensor<2x4x4xf64> -> tensor<2x4xf64>
  %zb = kiln.broadcast_in_dim %z, dims = [0, 1] : tensor<2x4xf64> -> tensor<2x4x4xf64>
  %p = kiln.div %e, %zb : tensor<2x4x4xf64>
  %o = kiln.matmul %p, %v : tensor<2x4x4xf64>, tensor<2x4x3xf64> -> tensor<2x4x3xf64>
  return %o : tensor<2x4x3xf64>
}

// -----

// Under autocast (as kiln.autocast records it on the CPU): bf16 products
// of q, k and v converted from f32, the scale, the causal fill and the
// softmax in bf16, the probabilities through f32 and back around a
// reshape. The converts are looked through: the attention computes in f32
// from the bf16-rounded q, k and v (a tensor core's narrow operands and
// f32 accumulator), the bf16 score operands converted to f32, and its
// result is rounded to the product's bf16.
// CHECK-LABEL: func.func @autocast
// CHECK-SAME: (%[[Q:[^:]+]]: tensor<4x16x8xf32>, %[[K:[^:]+]]: tensor<4x8x16xf32>, %[[V:[^:]+]]: tensor<4x16x8xf32>, %[[S:[^:]+]]: tensor<bf16>, %[[C:[^:]+]]: tensor<16x16xi1>)
// CHECK-DAG: %[[QB:.+]] = kiln.convert %[[Q]] : tensor<4x16x8xf32> -> tensor<4x16x8xbf16>
// CHECK-DAG: %[[QF:.+]] = kiln.convert %[[QB]] : tensor<4x16x8xbf16> -> tensor<4x16x8xf32>
// CHECK-DAG: %[[SF:.+]] = kiln.convert %{{.+}} : tensor<1x1x1xbf16> -> tensor<1x1x1xf32>
// CHECK: %[[O:.+]], %{{.+}}, %{{.+}} = kiln.attention %[[QF]], %{{.+}}, %{{.+}} score(%{{.+}} : tensor<1x1x1xf32>, tensor<1x16x16xi1>, tensor<1x1x1xf32>) steps [0, 0, -1, 6, 1, 2] : tensor<4x16x8xf32>, tensor<4x16x8xf32>, tensor<4x16x8xf32> -> tensor<4x16x8xf32>, tensor<4x16xf32>, tensor<4x16xf32>
// CHECK: %[[R:.+]] = kiln.convert %[[O]] : tensor<4x16x8xf32> -> tensor<4x16x8xbf16>
// CHECK-NOT: kiln.exp
// CHECK: return %[[R]]
// GRAD-LABEL: func.func @autocast_grad
// GRAD: kiln.attention_grad
// GRAD-NOT: kiln.exp
func.func @autocast(%q: tensor<4x16x8xf32>, %k: tensor<4x8x16xf32>, %v: tensor<4x16x8xf32>, %scale: tensor<bf16>, %causal: tensor<16x16xi1>) -> tensor<4x16x8xbf16> {
  %qb = kiln.convert %q : tensor<4x16x8xf32> -> tensor<4x16x8xbf16>
  %kb = kiln.convert %k : tensor<4x8x16xf32> -> tensor<4x8x16xbf16>
  %s = kiln.matmul %qb, %kb : tensor<4x16x8xbf16>, tensor<4x8x16xbf16> -> tensor<4x16x16xbf16>
  %sb = kiln.broadcast_in_dim %scale, dims = [] : tensor<bf16> -> tensor<4x16x16xbf16>
  %scaled = kiln.mul %s, %sb : tensor<4x16x16xbf16>
  %cb = kiln.broadcast_in_dim %causal, dims = [1, 2] : tensor<16x16xi1> -> tensor<4x16x16xi1>
  %ninf = kiln.constant dense<0xFF80> : tensor<bf16>
  %nb = kiln.broadcast_in_dim %ninf, dims = [] : tensor<bf16> -> tensor<4x16x16xbf16>
  %x = kiln.select %cb, %nb, %scaled : tensor<4x16x16xi1>, tensor<4x16x16xbf16>
  %m = kiln.reduce_max %x, dims = [2] : tensor<4x16x16xbf16> -> tensor<4x16xbf16>
  %mb = kiln.broadcast_in_dim %m, dims = [0, 1] : tensor<4x16xbf16> -> tensor<4x16x16xbf16>
  %d = kiln.sub %x, %mb : tensor<4x16x16xbf16>
  %e = kiln.exp %d : tensor<4x16x16xbf16>
  %z = kiln.reduce_sum %e, dims = [2] : tensor<4x16x16xbf16> -> tensor<4x16xbf16>
  %zb = kiln.broadcast_in_dim %z, dims = [0, 1] : tensor<4x16xbf16> -> tensor<4x16x16xbf16>
  %p = kiln.div %e, %zb : tensor<4x16x16xbf16>
  %pf = kiln.convert %p : tensor<4x16x16xbf16> -> tensor<4x16x16xf32>
  %pr = kiln.reshape %pf : tensor<4x16x16xf32> -> tensor<4x16x16xf32>
  %pb = kiln.convert %pr : tensor<4x16x16xf32> -> tensor<4x16x16xbf16>
  %vb = kiln.convert %v : tensor<4x16x8xf32> -> tensor<4x16x8xbf16>
  %o = kiln.matmul %pb, %vb : tensor<4x16x16xbf16>, tensor<4x16x8xbf16> -> tensor<4x16x8xbf16>
  return %o : tensor<4x16x8xbf16>
}
func.func @autocast_grad(%q: tensor<4x16x8xf32>, %k: tensor<4x8x16xf32>, %v: tensor<4x16x8xf32>, %scale: tensor<bf16>, %causal: tensor<16x16xi1>, %do: tensor<4x16x8xbf16>) -> (tensor<4x16x8xf32>, tensor<4x8x16xf32>, tensor<4x16x8xf32>) {
  %dq, %dk, %dv = kiln.vjp @autocast(%q, %k, %v, %scale, %causal, %do) wrt [0, 1, 2] : (tensor<4x16x8xf32>, tensor<4x8x16xf32>, tensor<4x16x8xf32>, tensor<bf16>, tensor<16x16xi1>, tensor<4x16x8xbf16>) -> (tensor<4x16x8xf32>, tensor<4x8x16xf32>, tensor<4x16x8xf32>)
  return %dq, %dk, %dv : tensor<4x16x8xf32>, tensor<4x8x16xf32>, tensor<4x16x8xf32>
}
