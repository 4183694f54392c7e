// The generic-form examples of docs/Dialect.md, verbatim, parse, verify and print
// in the custom form (round-tripped once more through the custom form).
// RUN: kiln-opt %s | FileCheck %s
// RUN: kiln-opt %s | kiln-opt | FileCheck %s

// Callee of the kiln.vjp example.
// CHECK-LABEL: func.func @f(
func.func @f(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>) -> tensor<4x8xf32> {
  %y = kiln.matmul %x, %w : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// CHECK-LABEL: func.func @constant(
// CHECK: %[[C:.*]] = kiln.constant dense<1.000000e+00> : tensor<4x8xf32>
// CHECK: return %[[C]]
func.func @constant() -> tensor<4x8xf32> {
  %c = "kiln.constant"() <{value = dense<1.0> : tensor<4x8xf32>}> : () -> tensor<4x8xf32>
  return %c : tensor<4x8xf32>
}

// CHECK-LABEL: func.func @add(
// CHECK-SAME: %[[A:[a-z0-9_]+]]: tensor<4x8xf32>, %[[B:[a-z0-9_]+]]: tensor<4x8xf32>)
// CHECK: %[[S:.*]] = kiln.add %[[A]], %[[B]] : tensor<4x8xf32>
// CHECK: return %[[S]]
func.func @add(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %s = "kiln.add"(%a, %b) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return %s : tensor<4x8xf32>
}

// CHECK-LABEL: func.func @broadcast_in_dim(
// CHECK-SAME: %[[BIAS:[a-z0-9_]+]]: tensor<8xf32>)
// CHECK: %[[B:.*]] = kiln.broadcast_in_dim %[[BIAS]], dims = [1] : tensor<8xf32> -> tensor<4x8xf32>
// CHECK: return %[[B]]
func.func @broadcast_in_dim(%bias: tensor<8xf32>) -> tensor<4x8xf32> {
  %b = "kiln.broadcast_in_dim"(%bias) <{dims = array<i64: 1>}> : (tensor<8xf32>) -> tensor<4x8xf32>
  return %b : tensor<4x8xf32>
}

// A broadcast to a dynamic dim: its size is an index operand after the
// tensor operand.
// CHECK-LABEL: func.func @broadcast_in_dim_dynamic(
// CHECK-SAME: %[[BIAS:[a-z0-9_]+]]: tensor<8xf32>, %[[N:[a-z0-9_]+]]: index)
// CHECK: %[[B:.*]] = kiln.broadcast_in_dim %[[BIAS]] sizes(%[[N]]), dims = [1] : tensor<8xf32> -> tensor<?x8xf32>
func.func @broadcast_in_dim_dynamic(%bias: tensor<8xf32>, %n: index) -> tensor<?x8xf32> {
  %b = "kiln.broadcast_in_dim"(%bias, %n) <{dims = array<i64: 1>}> : (tensor<8xf32>, index) -> tensor<?x8xf32>
  return %b : tensor<?x8xf32>
}

// CHECK-LABEL: func.func @slice(
// CHECK-SAME: %[[G:[a-z0-9_]+]]: tensor<4x32xf32>)
// CHECK: %[[I:.*]] = kiln.slice %[[G]], offsets = [0, 8], sizes = [4, 8] : tensor<4x32xf32> -> tensor<4x8xf32>
// CHECK: return %[[I]]
func.func @slice(%g: tensor<4x32xf32>) -> tensor<4x8xf32> {
  %i = "kiln.slice"(%g) <{offsets = array<i64: 0, 8>, sizes = array<i64: 4, 8>}> : (tensor<4x32xf32>) -> tensor<4x8xf32>
  return %i : tensor<4x8xf32>
}

// CHECK-LABEL: func.func @concat(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<4x8xf32>, %[[Y:[a-z0-9_]+]]: tensor<4x3xf32>)
// CHECK: %[[K:.*]] = kiln.concat %[[X]], %[[Y]] dim = 1 : tensor<4x8xf32>, tensor<4x3xf32> -> tensor<4x11xf32>
// CHECK: return %[[K]]
func.func @concat(%x: tensor<4x8xf32>, %y: tensor<4x3xf32>) -> tensor<4x11xf32> {
  %k = "kiln.concat"(%x, %y) <{dim = 1 : i64}> : (tensor<4x8xf32>, tensor<4x3xf32>) -> tensor<4x11xf32>
  return %k : tensor<4x11xf32>
}

// CHECK-LABEL: func.func @reduce_sum(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<4x8xf32>)
// CHECK: %[[R:.*]] = kiln.reduce_sum %[[X]], dims = [0] : tensor<4x8xf32> -> tensor<8xf32>
// CHECK: return %[[R]]
func.func @reduce_sum(%x: tensor<4x8xf32>) -> tensor<8xf32> {
  %r = "kiln.reduce_sum"(%x) <{dims = array<i64: 0>}> : (tensor<4x8xf32>) -> tensor<8xf32>
  return %r : tensor<8xf32>
}

// CHECK-LABEL: func.func @matmul(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<4x8xf32>, %[[W:[a-z0-9_]+]]: tensor<16x8xf32>)
// CHECK: %[[M:.*]] = kiln.matmul %[[X]], %[[W]] {transpose_b = true} : tensor<4x8xf32>, tensor<16x8xf32> -> tensor<4x16xf32>
// CHECK: return %[[M]]
func.func @matmul(%x: tensor<4x8xf32>, %w: tensor<16x8xf32>) -> tensor<4x16xf32> {
  %m = "kiln.matmul"(%x, %w) <{transpose_b = true}> : (tensor<4x8xf32>, tensor<16x8xf32>) -> tensor<4x16xf32>
  return %m : tensor<4x16xf32>
}

// CHECK-LABEL: func.func @matmul_precision(
// CHECK: kiln.matmul %{{.*}}, %{{.*}} {precision = #kiln<precision high>} : tensor<4x8xf32>, tensor<8x16xf32> -> tensor<4x16xf32>
func.func @matmul_precision(%x: tensor<4x8xf32>, %v: tensor<8x16xf32>) -> tensor<4x16xf32> {
  %t = "kiln.matmul"(%x, %v) <{precision = #kiln<precision high>}> : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  return %t : tensor<4x16xf32>
}

// CHECK-LABEL: func.func @vjp(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<4x8xf32>, %[[W:[a-z0-9_]+]]: tensor<8x8xf32>, %[[CT:[a-z0-9_]+]]: tensor<4x8xf32>)
// CHECK: %[[G:.*]] = kiln.vjp @f(%[[X]], %[[W]], %[[CT]]) wrt [0] : (tensor<4x8xf32>, tensor<8x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK: return %[[G]]
func.func @vjp(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>, %ct: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %g = "kiln.vjp"(%x, %w, %ct) <{callee = @f, wrt = array<i64: 0>}> : (tensor<4x8xf32>, tensor<8x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return %g : tensor<4x8xf32>
}

// CHECK-LABEL: func.func @take(
// CHECK: kiln.take %{{.*}}, %{{.*}} dim = 0 : tensor<65x32xf32>, tensor<4x16xi64> -> tensor<4x16x32xf32>
func.func @take(%wte: tensor<65x32xf32>, %ids: tensor<4x16xi64>) -> tensor<4x16x32xf32> {
  %e = "kiln.take"(%wte, %ids) <{dim = 0 : i64}> : (tensor<65x32xf32>, tensor<4x16xi64>) -> tensor<4x16x32xf32>
  return %e : tensor<4x16x32xf32>
}

// CHECK-LABEL: func.func @scatter_add(
// CHECK: kiln.scatter_add %{{.*}}, %{{.*}}, %{{.*}} dim = 0 : tensor<65x32xf32>, tensor<4x16xi64>, tensor<4x16x32xf32> -> tensor<65x32xf32>
func.func @scatter_add(%z: tensor<65x32xf32>, %ids: tensor<4x16xi64>, %ct: tensor<4x16x32xf32>) -> tensor<65x32xf32> {
  %d = "kiln.scatter_add"(%z, %ids, %ct) <{dim = 0 : i64}> : (tensor<65x32xf32>, tensor<4x16xi64>, tensor<4x16x32xf32>) -> tensor<65x32xf32>
  return %d : tensor<65x32xf32>
}

// CHECK-LABEL: func.func @iota(
// CHECK: kiln.iota dim = 1 : tensor<4x16xi64>
func.func @iota() -> tensor<4x16xi64> {
  %p = "kiln.iota"() <{dim = 1 : i64}> : () -> tensor<4x16xi64>
  return %p : tensor<4x16xi64>
}

// CHECK-LABEL: func.func @argmax(
// CHECK: kiln.argmax %{{.*}} dim = 1 : tensor<4x65xf32> -> tensor<4xi64>
func.func @argmax(%logits: tensor<4x65xf32>) -> tensor<4xi64> {
  %a = "kiln.argmax"(%logits) <{dim = 1 : i64}> : (tensor<4x65xf32>) -> tensor<4xi64>
  return %a : tensor<4xi64>
}

// CHECK-LABEL: func.func @rng_uniform(
// CHECK: kiln.rng_uniform %{{.*}} : tensor<2xi64> -> tensor<4x16xf32>
func.func @rng_uniform(%key: tensor<2xi64>) -> tensor<4x16xf32> {
  %u = "kiln.rng_uniform"(%key) : (tensor<2xi64>) -> tensor<4x16xf32>
  return %u : tensor<4x16xf32>
}

// CHECK-LABEL: func.func @attention(
// CHECK: kiln.attention %{{.*}}, %{{.*}}, %{{.*}} score(%{{.*}} : tensor<1x1x1xf32>) steps [0, 0, -1] : tensor<4x16x8xf32>, tensor<4x16x8xf32>, tensor<4x16x8xf32> -> tensor<4x16x8xf32>, tensor<4x16xf32>, tensor<4x16xf32>
func.func @attention(%q: tensor<4x16x8xf32>, %k: tensor<4x16x8xf32>, %v: tensor<4x16x8xf32>, %scale: tensor<1x1x1xf32>) -> tensor<4x16x8xf32> {
  %o:3 = "kiln.attention"(%q, %k, %v, %scale) <{score_steps = array<i64: 0, 0, -1>}> : (tensor<4x16x8xf32>, tensor<4x16x8xf32>, tensor<4x16x8xf32>, tensor<1x1x1xf32>) -> (tensor<4x16x8xf32>, tensor<4x16xf32>, tensor<4x16xf32>)
  return %o#0 : tensor<4x16x8xf32>
}
