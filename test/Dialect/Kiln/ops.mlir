// Round trip of every kiln op in the custom form, directly and through the
// generic form; the GENERIC lines pin the generic spelling of docs/Dialect.md.
// RUN: kiln-opt %s | kiln-opt | FileCheck %s
// RUN: kiln-opt %s --mlir-print-op-generic | kiln-opt | FileCheck %s
// RUN: kiln-opt %s --mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC

// Constants of every element type, splat and non-splat.
// CHECK-LABEL: func.func @constant(
// CHECK-SAME: ) -> (tensor<4x8xf32>, tensor<2xf64>, tensor<3xf16>, tensor<2x2xbf16>, tensor<4xi1>, tensor<f32>) {
// GENERIC-LABEL: sym_name = "constant"
// GENERIC: "kiln.constant"() <{value = dense<1.000000e+00> : tensor<4x8xf32>}> : () -> tensor<4x8xf32>
// GENERIC: "kiln.constant"() <{value = dense<[true, false, true, false]> : tensor<4xi1>}> : () -> tensor<4xi1>
func.func @constant() -> (tensor<4x8xf32>, tensor<2xf64>, tensor<3xf16>, tensor<2x2xbf16>, tensor<4xi1>, tensor<f32>) {
  // CHECK: %[[R0:[a-z0-9_]+]] = kiln.constant dense<1.000000e+00> : tensor<4x8xf32>
  %0 = kiln.constant dense<1.0> : tensor<4x8xf32>
  // CHECK: %[[R1:[a-z0-9_]+]] = kiln.constant dense<[1.500000e+00, -2.000000e+00]> : tensor<2xf64>
  %1 = kiln.constant dense<[1.5, -2.0]> : tensor<2xf64>
  // CHECK: %[[R2:[a-z0-9_]+]] = kiln.constant dense<[0.000000e+00, 1.000000e+00, 2.000000e+00]> : tensor<3xf16>
  %2 = kiln.constant dense<[0.0, 1.0, 2.0]> : tensor<3xf16>
  // CHECK: %[[R3:[a-z0-9_]+]] = kiln.constant dense<{{\[\[}}1.000000e+00, 2.000000e+00], [3.000000e+00, 4.000000e+00]]> : tensor<2x2xbf16>
  %3 = kiln.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xbf16>
  // CHECK: %[[R4:[a-z0-9_]+]] = kiln.constant dense<[true, false, true, false]> : tensor<4xi1>
  %4 = kiln.constant dense<[true, false, true, false]> : tensor<4xi1>
  // CHECK: %[[R5:[a-z0-9_]+]] = kiln.constant dense<5.000000e-01> : tensor<f32>
  %5 = kiln.constant dense<0.5> : tensor<f32>
  // CHECK: return %[[R0]], %[[R1]], %[[R2]], %[[R3]], %[[R4]], %[[R5]] : tensor<4x8xf32>, tensor<2xf64>, tensor<3xf16>, tensor<2x2xbf16>, tensor<4xi1>, tensor<f32>
  return %0, %1, %2, %3, %4, %5 : tensor<4x8xf32>, tensor<2xf64>, tensor<3xf16>, tensor<2x2xbf16>, tensor<4xi1>, tensor<f32>
}

// Every unary elementwise op; f32, f64, f16, bf16 and dynamic dims.
// CHECK-LABEL: func.func @unary(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<4x8xf32>, %[[D:[a-z0-9_]+]]: tensor<?x8xf64>, %[[H:[a-z0-9_]+]]: tensor<2x?xf16>, %[[B:[a-z0-9_]+]]: tensor<?xbf16>) -> (tensor<4x8xf32>, tensor<?x8xf64>, tensor<2x?xf16>, tensor<?xbf16>) {
// GENERIC-LABEL: sym_name = "unary"
// GENERIC: "kiln.neg"(%{{.*}}) : (tensor<4x8xf32>) -> tensor<4x8xf32>
// GENERIC: "kiln.reciprocal"(%{{.*}}) : (tensor<4x8xf32>) -> tensor<4x8xf32>
// GENERIC: "kiln.exp"(%{{.*}}) : (tensor<?x8xf64>) -> tensor<?x8xf64>
func.func @unary(%x: tensor<4x8xf32>, %d: tensor<?x8xf64>, %h: tensor<2x?xf16>, %b: tensor<?xbf16>) -> (tensor<4x8xf32>, tensor<?x8xf64>, tensor<2x?xf16>, tensor<?xbf16>) {
  // CHECK: %[[R0:[a-z0-9_]+]] = kiln.neg %[[X]] : tensor<4x8xf32>
  %0 = kiln.neg %x : tensor<4x8xf32>
  // CHECK: %[[R1:[a-z0-9_]+]] = kiln.exp %[[R0]] : tensor<4x8xf32>
  %1 = kiln.exp %0 : tensor<4x8xf32>
  // CHECK: %[[R2:[a-z0-9_]+]] = kiln.log %[[R1]] : tensor<4x8xf32>
  %2 = kiln.log %1 : tensor<4x8xf32>
  // CHECK: %[[R3:[a-z0-9_]+]] = kiln.tanh %[[R2]] : tensor<4x8xf32>
  %3 = kiln.tanh %2 : tensor<4x8xf32>
  // CHECK: %[[R4:[a-z0-9_]+]] = kiln.sigmoid %[[R3]] : tensor<4x8xf32>
  %4 = kiln.sigmoid %3 : tensor<4x8xf32>
  // CHECK: %[[R5:[a-z0-9_]+]] = kiln.relu %[[R4]] : tensor<4x8xf32>
  %5 = kiln.relu %4 : tensor<4x8xf32>
  // CHECK: %[[R6:[a-z0-9_]+]] = kiln.sqrt %[[R5]] : tensor<4x8xf32>
  %6 = kiln.sqrt %5 : tensor<4x8xf32>
  // CHECK: %[[R7:[a-z0-9_]+]] = kiln.rsqrt %[[R6]] : tensor<4x8xf32>
  %7 = kiln.rsqrt %6 : tensor<4x8xf32>
  // CHECK: %[[R8:[a-z0-9_]+]] = kiln.abs %[[R7]] : tensor<4x8xf32>
  %8 = kiln.abs %7 : tensor<4x8xf32>
  // CHECK: %[[R9:[a-z0-9_]+]] = kiln.sin %[[R8]] : tensor<4x8xf32>
  %9 = kiln.sin %8 : tensor<4x8xf32>
  // CHECK: %[[R10:[a-z0-9_]+]] = kiln.cos %[[R9]] : tensor<4x8xf32>
  %10 = kiln.cos %9 : tensor<4x8xf32>
  // CHECK: %[[R11:[a-z0-9_]+]] = kiln.reciprocal %[[R10]] : tensor<4x8xf32>
  %11 = kiln.reciprocal %10 : tensor<4x8xf32>
  // CHECK: %[[R12:[a-z0-9_]+]] = kiln.exp %[[D]] : tensor<?x8xf64>
  %12 = kiln.exp %d : tensor<?x8xf64>
  // CHECK: %[[R13:[a-z0-9_]+]] = kiln.tanh %[[H]] : tensor<2x?xf16>
  %13 = kiln.tanh %h : tensor<2x?xf16>
  // CHECK: %[[R14:[a-z0-9_]+]] = kiln.sigmoid %[[B]] : tensor<?xbf16>
  %14 = kiln.sigmoid %b : tensor<?xbf16>
  // CHECK: return %[[R11]], %[[R12]], %[[R13]], %[[R14]] : tensor<4x8xf32>, tensor<?x8xf64>, tensor<2x?xf16>, tensor<?xbf16>
  return %11, %12, %13, %14 : tensor<4x8xf32>, tensor<?x8xf64>, tensor<2x?xf16>, tensor<?xbf16>
}

// Every binary elementwise op; f32, f64, f16, bf16 and dynamic dims.
// CHECK-LABEL: func.func @binary(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<4x8xf32>, %[[Y:[a-z0-9_]+]]: tensor<4x8xf32>, %[[D:[a-z0-9_]+]]: tensor<?x?xf64>, %[[H:[a-z0-9_]+]]: tensor<8xf16>, %[[B:[a-z0-9_]+]]: tensor<?x3xbf16>) -> (tensor<4x8xf32>, tensor<?x?xf64>, tensor<8xf16>, tensor<?x3xbf16>) {
// GENERIC-LABEL: sym_name = "binary"
// GENERIC: "kiln.add"(%{{.*}}, %{{.*}}) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
// GENERIC: "kiln.pow"(%{{.*}}, %{{.*}}) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
func.func @binary(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>, %d: tensor<?x?xf64>, %h: tensor<8xf16>, %b: tensor<?x3xbf16>) -> (tensor<4x8xf32>, tensor<?x?xf64>, tensor<8xf16>, tensor<?x3xbf16>) {
  // CHECK: %[[R0:[a-z0-9_]+]] = kiln.add %[[X]], %[[Y]] : tensor<4x8xf32>
  %0 = kiln.add %x, %y : tensor<4x8xf32>
  // CHECK: %[[R1:[a-z0-9_]+]] = kiln.sub %[[R0]], %[[Y]] : tensor<4x8xf32>
  %1 = kiln.sub %0, %y : tensor<4x8xf32>
  // CHECK: %[[R2:[a-z0-9_]+]] = kiln.mul %[[R1]], %[[X]] : tensor<4x8xf32>
  %2 = kiln.mul %1, %x : tensor<4x8xf32>
  // CHECK: %[[R3:[a-z0-9_]+]] = kiln.div %[[R2]], %[[Y]] : tensor<4x8xf32>
  %3 = kiln.div %2, %y : tensor<4x8xf32>
  // CHECK: %[[R4:[a-z0-9_]+]] = kiln.max %[[R3]], %[[X]] : tensor<4x8xf32>
  %4 = kiln.max %3, %x : tensor<4x8xf32>
  // CHECK: %[[R5:[a-z0-9_]+]] = kiln.min %[[R4]], %[[Y]] : tensor<4x8xf32>
  %5 = kiln.min %4, %y : tensor<4x8xf32>
  // CHECK: %[[R6:[a-z0-9_]+]] = kiln.pow %[[R5]], %[[X]] : tensor<4x8xf32>
  %6 = kiln.pow %5, %x : tensor<4x8xf32>
  // CHECK: %[[R7:[a-z0-9_]+]] = kiln.mul %[[D]], %[[D]] : tensor<?x?xf64>
  %7 = kiln.mul %d, %d : tensor<?x?xf64>
  // CHECK: %[[R8:[a-z0-9_]+]] = kiln.add %[[H]], %[[H]] : tensor<8xf16>
  %8 = kiln.add %h, %h : tensor<8xf16>
  // CHECK: %[[R9:[a-z0-9_]+]] = kiln.pow %[[B]], %[[B]] : tensor<?x3xbf16>
  %9 = kiln.pow %b, %b : tensor<?x3xbf16>
  // CHECK: return %[[R6]], %[[R7]], %[[R8]], %[[R9]] : tensor<4x8xf32>, tensor<?x?xf64>, tensor<8xf16>, tensor<?x3xbf16>
  return %6, %7, %8, %9 : tensor<4x8xf32>, tensor<?x?xf64>, tensor<8xf16>, tensor<?x3xbf16>
}

// kiln.cmp with every predicate.
// CHECK-LABEL: func.func @cmp(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<4x8xf32>, %[[Y:[a-z0-9_]+]]: tensor<4x8xf32>, %[[D:[a-z0-9_]+]]: tensor<?xf64>, %[[H:[a-z0-9_]+]]: tensor<2x?xf16>) -> (tensor<4x8xi1>, tensor<4x8xi1>, tensor<4x8xi1>, tensor<4x8xi1>, tensor<?xi1>, tensor<2x?xi1>) {
// GENERIC-LABEL: sym_name = "cmp"
// GENERIC: "kiln.cmp"(%{{.*}}, %{{.*}}) <{predicate = #kiln<predicate eq>}> : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xi1>
// GENERIC: "kiln.cmp"(%{{.*}}, %{{.*}}) <{predicate = #kiln<predicate ne>}> : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xi1>
// GENERIC: "kiln.cmp"(%{{.*}}, %{{.*}}) <{predicate = #kiln<predicate lt>}> : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xi1>
// GENERIC: "kiln.cmp"(%{{.*}}, %{{.*}}) <{predicate = #kiln<predicate le>}> : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xi1>
// GENERIC: "kiln.cmp"(%{{.*}}, %{{.*}}) <{predicate = #kiln<predicate gt>}> : (tensor<?xf64>, tensor<?xf64>) -> tensor<?xi1>
// GENERIC: "kiln.cmp"(%{{.*}}, %{{.*}}) <{predicate = #kiln<predicate ge>}> : (tensor<2x?xf16>, tensor<2x?xf16>) -> tensor<2x?xi1>
func.func @cmp(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>, %d: tensor<?xf64>, %h: tensor<2x?xf16>) -> (tensor<4x8xi1>, tensor<4x8xi1>, tensor<4x8xi1>, tensor<4x8xi1>, tensor<?xi1>, tensor<2x?xi1>) {
  // CHECK: %[[R0:[a-z0-9_]+]] = kiln.cmp eq, %[[X]], %[[Y]] : tensor<4x8xf32>
  %0 = kiln.cmp eq, %x, %y : tensor<4x8xf32>
  // CHECK: %[[R1:[a-z0-9_]+]] = kiln.cmp ne, %[[X]], %[[Y]] : tensor<4x8xf32>
  %1 = kiln.cmp ne, %x, %y : tensor<4x8xf32>
  // CHECK: %[[R2:[a-z0-9_]+]] = kiln.cmp lt, %[[X]], %[[Y]] : tensor<4x8xf32>
  %2 = kiln.cmp lt, %x, %y : tensor<4x8xf32>
  // CHECK: %[[R3:[a-z0-9_]+]] = kiln.cmp le, %[[X]], %[[Y]] : tensor<4x8xf32>
  %3 = kiln.cmp le, %x, %y : tensor<4x8xf32>
  // CHECK: %[[R4:[a-z0-9_]+]] = kiln.cmp gt, %[[D]], %[[D]] : tensor<?xf64>
  %4 = kiln.cmp gt, %d, %d : tensor<?xf64>
  // CHECK: %[[R5:[a-z0-9_]+]] = kiln.cmp ge, %[[H]], %[[H]] : tensor<2x?xf16>
  %5 = kiln.cmp ge, %h, %h : tensor<2x?xf16>
  // CHECK: return %[[R0]], %[[R1]], %[[R2]], %[[R3]], %[[R4]], %[[R5]] : tensor<4x8xi1>, tensor<4x8xi1>, tensor<4x8xi1>, tensor<4x8xi1>, tensor<?xi1>, tensor<2x?xi1>
  return %0, %1, %2, %3, %4, %5 : tensor<4x8xi1>, tensor<4x8xi1>, tensor<4x8xi1>, tensor<4x8xi1>, tensor<?xi1>, tensor<2x?xi1>
}

// kiln.select of float and i1 values, static and dynamic.
// CHECK-LABEL: func.func @select(
// CHECK-SAME: %[[P:[a-z0-9_]+]]: tensor<4x8xi1>, %[[X:[a-z0-9_]+]]: tensor<4x8xf32>, %[[Y:[a-z0-9_]+]]: tensor<4x8xf32>, %[[Q:[a-z0-9_]+]]: tensor<?xi1>, %[[B:[a-z0-9_]+]]: tensor<?xbf16>) -> (tensor<4x8xf32>, tensor<4x8xi1>, tensor<?xbf16>) {
// GENERIC-LABEL: sym_name = "select"
// GENERIC: "kiln.select"(%{{.*}}, %{{.*}}, %{{.*}}) : (tensor<4x8xi1>, tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
func.func @select(%p: tensor<4x8xi1>, %x: tensor<4x8xf32>, %y: tensor<4x8xf32>, %q: tensor<?xi1>, %b: tensor<?xbf16>) -> (tensor<4x8xf32>, tensor<4x8xi1>, tensor<?xbf16>) {
  // CHECK: %[[R0:[a-z0-9_]+]] = kiln.select %[[P]], %[[X]], %[[Y]] : tensor<4x8xi1>, tensor<4x8xf32>
  %0 = kiln.select %p, %x, %y : tensor<4x8xi1>, tensor<4x8xf32>
  // CHECK: %[[R1:[a-z0-9_]+]] = kiln.select %[[P]], %[[P]], %[[P]] : tensor<4x8xi1>, tensor<4x8xi1>
  %1 = kiln.select %p, %p, %p : tensor<4x8xi1>, tensor<4x8xi1>
  // CHECK: %[[R2:[a-z0-9_]+]] = kiln.select %[[Q]], %[[B]], %[[B]] : tensor<?xi1>, tensor<?xbf16>
  %2 = kiln.select %q, %b, %b : tensor<?xi1>, tensor<?xbf16>
  // CHECK: return %[[R0]], %[[R1]], %[[R2]] : tensor<4x8xf32>, tensor<4x8xi1>, tensor<?xbf16>
  return %0, %1, %2 : tensor<4x8xf32>, tensor<4x8xi1>, tensor<?xbf16>
}

// kiln.convert between float types and i1.
// CHECK-LABEL: func.func @convert(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<4x8xf32>, %[[H:[a-z0-9_]+]]: tensor<?x8xf16>, %[[P:[a-z0-9_]+]]: tensor<4xi1>) -> (tensor<4x8xbf16>, tensor<?x8xf32>, tensor<4xf32>, tensor<4x8xi1>, tensor<4x8xf64>) {
// GENERIC-LABEL: sym_name = "convert"
// GENERIC: "kiln.convert"(%{{.*}}) : (tensor<4x8xf32>) -> tensor<4x8xbf16>
func.func @convert(%x: tensor<4x8xf32>, %h: tensor<?x8xf16>, %p: tensor<4xi1>) -> (tensor<4x8xbf16>, tensor<?x8xf32>, tensor<4xf32>, tensor<4x8xi1>, tensor<4x8xf64>) {
  // CHECK: %[[R0:[a-z0-9_]+]] = kiln.convert %[[X]] : tensor<4x8xf32> -> tensor<4x8xbf16>
  %0 = kiln.convert %x : tensor<4x8xf32> -> tensor<4x8xbf16>
  // CHECK: %[[R1:[a-z0-9_]+]] = kiln.convert %[[H]] : tensor<?x8xf16> -> tensor<?x8xf32>
  %1 = kiln.convert %h : tensor<?x8xf16> -> tensor<?x8xf32>
  // CHECK: %[[R2:[a-z0-9_]+]] = kiln.convert %[[P]] : tensor<4xi1> -> tensor<4xf32>
  %2 = kiln.convert %p : tensor<4xi1> -> tensor<4xf32>
  // CHECK: %[[R3:[a-z0-9_]+]] = kiln.convert %[[X]] : tensor<4x8xf32> -> tensor<4x8xi1>
  %3 = kiln.convert %x : tensor<4x8xf32> -> tensor<4x8xi1>
  // CHECK: %[[R4:[a-z0-9_]+]] = kiln.convert %[[X]] : tensor<4x8xf32> -> tensor<4x8xf64>
  %4 = kiln.convert %x : tensor<4x8xf32> -> tensor<4x8xf64>
  // CHECK: return %[[R0]], %[[R1]], %[[R2]], %[[R3]], %[[R4]] : tensor<4x8xbf16>, tensor<?x8xf32>, tensor<4xf32>, tensor<4x8xi1>, tensor<4x8xf64>
  return %0, %1, %2, %3, %4 : tensor<4x8xbf16>, tensor<?x8xf32>, tensor<4xf32>, tensor<4x8xi1>, tensor<4x8xf64>
}

// kiln.broadcast_in_dim: new dims, size-1 expansion, scalars, dynamic dims.
// CHECK-LABEL: func.func @broadcast_in_dim(
// CHECK-SAME: %[[BIAS:[a-z0-9_]+]]: tensor<8xf32>, %[[ONE:[a-z0-9_]+]]: tensor<1x8xf16>, %[[S:[a-z0-9_]+]]: tensor<f64>, %[[D:[a-z0-9_]+]]: tensor<?xf32>, %[[P:[a-z0-9_]+]]: tensor<4xi1>) -> (tensor<4x8xf32>, tensor<4x8xf16>, tensor<2x3xf64>, tensor<?x5xf32>, tensor<4x2xi1>) {
// GENERIC-LABEL: sym_name = "broadcast_in_dim"
// GENERIC: "kiln.broadcast_in_dim"(%{{.*}}) <{dims = array<i64: 1>}> : (tensor<8xf32>) -> tensor<4x8xf32>
// GENERIC: "kiln.broadcast_in_dim"(%{{.*}}) <{dims = array<i64: 0, 1>}> : (tensor<1x8xf16>) -> tensor<4x8xf16>
// GENERIC: "kiln.broadcast_in_dim"(%{{.*}}) <{dims = array<i64>}> : (tensor<f64>) -> tensor<2x3xf64>
// GENERIC: "kiln.broadcast_in_dim"(%{{.*}}, %{{.*}}) <{dims = array<i64: 0>}> : (tensor<?xf32>, index) -> tensor<?x5xf32>
// GENERIC: "kiln.broadcast_in_dim"(%{{.*}}, %{{.*}}, %{{.*}}) <{dims = array<i64: 1>}> : (tensor<8xf32>, index, index) -> tensor<?x8x?xf32>
func.func @broadcast_in_dim(%bias: tensor<8xf32>, %one: tensor<1x8xf16>, %s: tensor<f64>, %d: tensor<?xf32>, %p: tensor<4xi1>) -> (tensor<4x8xf32>, tensor<4x8xf16>, tensor<2x3xf64>, tensor<?x5xf32>, tensor<4x2xi1>) {
  // CHECK: %[[R0:[a-z0-9_]+]] = kiln.broadcast_in_dim %[[BIAS]], dims = [1] : tensor<8xf32> -> tensor<4x8xf32>
  %0 = kiln.broadcast_in_dim %bias, dims = [1] : tensor<8xf32> -> tensor<4x8xf32>
  // CHECK: %[[R1:[a-z0-9_]+]] = kiln.broadcast_in_dim %[[ONE]], dims = [0, 1] : tensor<1x8xf16> -> tensor<4x8xf16>
  %1 = kiln.broadcast_in_dim %one, dims = [0, 1] : tensor<1x8xf16> -> tensor<4x8xf16>
  // CHECK: %[[R2:[a-z0-9_]+]] = kiln.broadcast_in_dim %[[S]], dims = [] : tensor<f64> -> tensor<2x3xf64>
  %2 = kiln.broadcast_in_dim %s, dims = [] : tensor<f64> -> tensor<2x3xf64>
  // A dynamic result dim takes its size from `sizes`, one per dynamic dim.
  // CHECK: %[[N:[a-z0-9_]+]] = tensor.dim %[[D]]
  // CHECK: %[[R3:[a-z0-9_]+]] = kiln.broadcast_in_dim %[[D]] sizes(%[[N]]), dims = [0] : tensor<?xf32> -> tensor<?x5xf32>
  %c0 = arith.constant 0 : index
  %n = tensor.dim %d, %c0 : tensor<?xf32>
  %3 = kiln.broadcast_in_dim %d sizes(%n), dims = [0] : tensor<?xf32> -> tensor<?x5xf32>
  // CHECK: kiln.broadcast_in_dim %[[BIAS]] sizes(%[[N]], %[[N]]), dims = [1] : tensor<8xf32> -> tensor<?x8x?xf32>
  %5 = kiln.broadcast_in_dim %bias sizes(%n, %n), dims = [1] : tensor<8xf32> -> tensor<?x8x?xf32>
  // CHECK: %[[R4:[a-z0-9_]+]] = kiln.broadcast_in_dim %[[P]], dims = [0] : tensor<4xi1> -> tensor<4x2xi1>
  %4 = kiln.broadcast_in_dim %p, dims = [0] : tensor<4xi1> -> tensor<4x2xi1>
  // CHECK: return %[[R0]], %[[R1]], %[[R2]], %[[R3]], %[[R4]] : tensor<4x8xf32>, tensor<4x8xf16>, tensor<2x3xf64>, tensor<?x5xf32>, tensor<4x2xi1>
  return %0, %1, %2, %3, %4 : tensor<4x8xf32>, tensor<4x8xf16>, tensor<2x3xf64>, tensor<?x5xf32>, tensor<4x2xi1>
}

// kiln.reshape: flatten, split, to and from rank 0, dynamic.
// CHECK-LABEL: func.func @reshape(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<4x8xf32>, %[[S:[a-z0-9_]+]]: tensor<1x1xbf16>, %[[D:[a-z0-9_]+]]: tensor<?x8xf32>) -> (tensor<32xf32>, tensor<2x2x8xf32>, tensor<bf16>, tensor<?xf32>) {
// GENERIC-LABEL: sym_name = "reshape"
// GENERIC: "kiln.reshape"(%{{.*}}) : (tensor<4x8xf32>) -> tensor<32xf32>
func.func @reshape(%x: tensor<4x8xf32>, %s: tensor<1x1xbf16>, %d: tensor<?x8xf32>) -> (tensor<32xf32>, tensor<2x2x8xf32>, tensor<bf16>, tensor<?xf32>) {
  // CHECK: %[[R0:[a-z0-9_]+]] = kiln.reshape %[[X]] : tensor<4x8xf32> -> tensor<32xf32>
  %0 = kiln.reshape %x : tensor<4x8xf32> -> tensor<32xf32>
  // CHECK: %[[R1:[a-z0-9_]+]] = kiln.reshape %[[R0]] : tensor<32xf32> -> tensor<2x2x8xf32>
  %1 = kiln.reshape %0 : tensor<32xf32> -> tensor<2x2x8xf32>
  // CHECK: %[[R2:[a-z0-9_]+]] = kiln.reshape %[[S]] : tensor<1x1xbf16> -> tensor<bf16>
  %2 = kiln.reshape %s : tensor<1x1xbf16> -> tensor<bf16>
  // CHECK: %[[R3:[a-z0-9_]+]] = kiln.reshape %[[D]] : tensor<?x8xf32> -> tensor<?xf32>
  %3 = kiln.reshape %d : tensor<?x8xf32> -> tensor<?xf32>
  // CHECK: return %[[R0]], %[[R1]], %[[R2]], %[[R3]] : tensor<32xf32>, tensor<2x2x8xf32>, tensor<bf16>, tensor<?xf32>
  return %0, %1, %2, %3 : tensor<32xf32>, tensor<2x2x8xf32>, tensor<bf16>, tensor<?xf32>
}

// kiln.transpose: 2-D, 3-D, identity, rank 0, dynamic dims.
// CHECK-LABEL: func.func @transpose(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<4x8xf32>, %[[Y:[a-z0-9_]+]]: tensor<2x3x4xf16>, %[[D:[a-z0-9_]+]]: tensor<?x8x?xf64>, %[[S:[a-z0-9_]+]]: tensor<bf16>) -> (tensor<8x4xf32>, tensor<4x2x3xf16>, tensor<2x3x4xf16>, tensor<?x?x8xf64>, tensor<bf16>) {
// GENERIC-LABEL: sym_name = "transpose"
// GENERIC: "kiln.transpose"(%{{.*}}) <{perm = array<i64: 1, 0>}> : (tensor<4x8xf32>) -> tensor<8x4xf32>
func.func @transpose(%x: tensor<4x8xf32>, %y: tensor<2x3x4xf16>, %d: tensor<?x8x?xf64>, %s: tensor<bf16>) -> (tensor<8x4xf32>, tensor<4x2x3xf16>, tensor<2x3x4xf16>, tensor<?x?x8xf64>, tensor<bf16>) {
  // CHECK: %[[R0:[a-z0-9_]+]] = kiln.transpose %[[X]], perm = [1, 0] : tensor<4x8xf32> -> tensor<8x4xf32>
  %0 = kiln.transpose %x, perm = [1, 0] : tensor<4x8xf32> -> tensor<8x4xf32>
  // CHECK: %[[R1:[a-z0-9_]+]] = kiln.transpose %[[Y]], perm = [2, 0, 1] : tensor<2x3x4xf16> -> tensor<4x2x3xf16>
  %1 = kiln.transpose %y, perm = [2, 0, 1] : tensor<2x3x4xf16> -> tensor<4x2x3xf16>
  // CHECK: %[[R2:[a-z0-9_]+]] = kiln.transpose %[[Y]], perm = [0, 1, 2] : tensor<2x3x4xf16> -> tensor<2x3x4xf16>
  %2 = kiln.transpose %y, perm = [0, 1, 2] : tensor<2x3x4xf16> -> tensor<2x3x4xf16>
  // CHECK: %[[R3:[a-z0-9_]+]] = kiln.transpose %[[D]], perm = [2, 0, 1] : tensor<?x8x?xf64> -> tensor<?x?x8xf64>
  %3 = kiln.transpose %d, perm = [2, 0, 1] : tensor<?x8x?xf64> -> tensor<?x?x8xf64>
  // CHECK: %[[R4:[a-z0-9_]+]] = kiln.transpose %[[S]], perm = [] : tensor<bf16> -> tensor<bf16>
  %4 = kiln.transpose %s, perm = [] : tensor<bf16> -> tensor<bf16>
  // CHECK: return %[[R0]], %[[R1]], %[[R2]], %[[R3]], %[[R4]] : tensor<8x4xf32>, tensor<4x2x3xf16>, tensor<2x3x4xf16>, tensor<?x?x8xf64>, tensor<bf16>
  return %0, %1, %2, %3, %4 : tensor<8x4xf32>, tensor<4x2x3xf16>, tensor<2x3x4xf16>, tensor<?x?x8xf64>, tensor<bf16>
}

// kiln.slice: interior, whole, empty, and a dynamic dim sliced at offset 0.
// CHECK-LABEL: func.func @slice(
// CHECK-SAME: %[[G:[a-z0-9_]+]]: tensor<4x32xf32>, %[[D:[a-z0-9_]+]]: tensor<?x16xbf16>, %[[P:[a-z0-9_]+]]: tensor<6xi1>) -> (tensor<4x8xf32>, tensor<4x32xf32>, tensor<0x8xf32>, tensor<2x16xbf16>, tensor<3xi1>) {
// GENERIC-LABEL: sym_name = "slice"
// GENERIC: "kiln.slice"(%{{.*}}) <{offsets = array<i64: 0, 8>, sizes = array<i64: 4, 8>}> : (tensor<4x32xf32>) -> tensor<4x8xf32>
func.func @slice(%g: tensor<4x32xf32>, %d: tensor<?x16xbf16>, %p: tensor<6xi1>) -> (tensor<4x8xf32>, tensor<4x32xf32>, tensor<0x8xf32>, tensor<2x16xbf16>, tensor<3xi1>) {
  // CHECK: %[[R0:[a-z0-9_]+]] = kiln.slice %[[G]], offsets = [0, 8], sizes = [4, 8] : tensor<4x32xf32> -> tensor<4x8xf32>
  %0 = kiln.slice %g, offsets = [0, 8], sizes = [4, 8] : tensor<4x32xf32> -> tensor<4x8xf32>
  // CHECK: %[[R1:[a-z0-9_]+]] = kiln.slice %[[G]], offsets = [0, 0], sizes = [4, 32] : tensor<4x32xf32> -> tensor<4x32xf32>
  %1 = kiln.slice %g, offsets = [0, 0], sizes = [4, 32] : tensor<4x32xf32> -> tensor<4x32xf32>
  // CHECK: %[[R2:[a-z0-9_]+]] = kiln.slice %[[G]], offsets = [4, 24], sizes = [0, 8] : tensor<4x32xf32> -> tensor<0x8xf32>
  %2 = kiln.slice %g, offsets = [4, 24], sizes = [0, 8] : tensor<4x32xf32> -> tensor<0x8xf32>
  // CHECK: %[[R3:[a-z0-9_]+]] = kiln.slice %[[D]], offsets = [0, 0], sizes = [2, 16] : tensor<?x16xbf16> -> tensor<2x16xbf16>
  %3 = kiln.slice %d, offsets = [0, 0], sizes = [2, 16] : tensor<?x16xbf16> -> tensor<2x16xbf16>
  // CHECK: %[[R4:[a-z0-9_]+]] = kiln.slice %[[P]], offsets = [3], sizes = [3] : tensor<6xi1> -> tensor<3xi1>
  %4 = kiln.slice %p, offsets = [3], sizes = [3] : tensor<6xi1> -> tensor<3xi1>
  // CHECK: return %[[R0]], %[[R1]], %[[R2]], %[[R3]], %[[R4]] : tensor<4x8xf32>, tensor<4x32xf32>, tensor<0x8xf32>, tensor<2x16xbf16>, tensor<3xi1>
  return %0, %1, %2, %3, %4 : tensor<4x8xf32>, tensor<4x32xf32>, tensor<0x8xf32>, tensor<2x16xbf16>, tensor<3xi1>
}

// kiln.concat of 1, 2 and 3 operands of unequal sizes, and with dynamic dims.
// CHECK-LABEL: func.func @concat(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<4x8xf32>, %[[Y:[a-z0-9_]+]]: tensor<4x3xf32>, %[[Z:[a-z0-9_]+]]: tensor<4x1xf32>, %[[A:[a-z0-9_]+]]: tensor<2x8xf32>, %[[D:[a-z0-9_]+]]: tensor<?x5xf16>, %[[E:[a-z0-9_]+]]: tensor<3x5xf16>, %[[P:[a-z0-9_]+]]: tensor<2xi1>) -> (tensor<4x8xf32>, tensor<4x11xf32>, tensor<4x12xf32>, tensor<6x8xf32>, tensor<?x5xf16>, tensor<4xi1>) {
// GENERIC-LABEL: sym_name = "concat"
// GENERIC: "kiln.concat"(%{{.*}}) <{dim = 1 : i64}> : (tensor<4x8xf32>) -> tensor<4x8xf32>
// GENERIC: "kiln.concat"(%{{.*}}, %{{.*}}) <{dim = 1 : i64}> : (tensor<4x8xf32>, tensor<4x3xf32>) -> tensor<4x11xf32>
// GENERIC: "kiln.concat"(%{{.*}}, %{{.*}}, %{{.*}}) <{dim = 1 : i64}> : (tensor<4x8xf32>, tensor<4x3xf32>, tensor<4x1xf32>) -> tensor<4x12xf32>
func.func @concat(%x: tensor<4x8xf32>, %y: tensor<4x3xf32>, %z: tensor<4x1xf32>, %a: tensor<2x8xf32>, %d: tensor<?x5xf16>, %e: tensor<3x5xf16>, %p: tensor<2xi1>) -> (tensor<4x8xf32>, tensor<4x11xf32>, tensor<4x12xf32>, tensor<6x8xf32>, tensor<?x5xf16>, tensor<4xi1>) {
  // CHECK: %[[R0:[a-z0-9_]+]] = kiln.concat %[[X]] dim = 1 : tensor<4x8xf32> -> tensor<4x8xf32>
  %0 = kiln.concat %x dim = 1 : tensor<4x8xf32> -> tensor<4x8xf32>
  // CHECK: %[[R1:[a-z0-9_]+]] = kiln.concat %[[X]], %[[Y]] dim = 1 : tensor<4x8xf32>, tensor<4x3xf32> -> tensor<4x11xf32>
  %1 = kiln.concat %x, %y dim = 1 : tensor<4x8xf32>, tensor<4x3xf32> -> tensor<4x11xf32>
  // CHECK: %[[R2:[a-z0-9_]+]] = kiln.concat %[[X]], %[[Y]], %[[Z]] dim = 1 : tensor<4x8xf32>, tensor<4x3xf32>, tensor<4x1xf32> -> tensor<4x12xf32>
  %2 = kiln.concat %x, %y, %z dim = 1 : tensor<4x8xf32>, tensor<4x3xf32>, tensor<4x1xf32> -> tensor<4x12xf32>
  // CHECK: %[[R3:[a-z0-9_]+]] = kiln.concat %[[X]], %[[A]] dim = 0 : tensor<4x8xf32>, tensor<2x8xf32> -> tensor<6x8xf32>
  %3 = kiln.concat %x, %a dim = 0 : tensor<4x8xf32>, tensor<2x8xf32> -> tensor<6x8xf32>
  // CHECK: %[[R4:[a-z0-9_]+]] = kiln.concat %[[D]], %[[E]], %[[D]] dim = 0 : tensor<?x5xf16>, tensor<3x5xf16>, tensor<?x5xf16> -> tensor<?x5xf16>
  %4 = kiln.concat %d, %e, %d dim = 0 : tensor<?x5xf16>, tensor<3x5xf16>, tensor<?x5xf16> -> tensor<?x5xf16>
  // CHECK: %[[R5:[a-z0-9_]+]] = kiln.concat %[[P]], %[[P]] dim = 0 : tensor<2xi1>, tensor<2xi1> -> tensor<4xi1>
  %5 = kiln.concat %p, %p dim = 0 : tensor<2xi1>, tensor<2xi1> -> tensor<4xi1>
  // CHECK: return %[[R0]], %[[R1]], %[[R2]], %[[R3]], %[[R4]], %[[R5]] : tensor<4x8xf32>, tensor<4x11xf32>, tensor<4x12xf32>, tensor<6x8xf32>, tensor<?x5xf16>, tensor<4xi1>
  return %0, %1, %2, %3, %4, %5 : tensor<4x8xf32>, tensor<4x11xf32>, tensor<4x12xf32>, tensor<6x8xf32>, tensor<?x5xf16>, tensor<4xi1>
}

// kiln.reduce_sum and kiln.reduce_max: one, several, all and no dims; dynamic dims.
// CHECK-LABEL: func.func @reduce(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<4x8xf32>, %[[Y:[a-z0-9_]+]]: tensor<2x3x4xf64>, %[[D:[a-z0-9_]+]]: tensor<?x8x?xbf16>, %[[H:[a-z0-9_]+]]: tensor<4x?xf16>) -> (tensor<8xf32>, tensor<4xf32>, tensor<3xf64>, tensor<f64>, tensor<4x8xf32>, tensor<?x?xbf16>, tensor<?xf16>) {
// GENERIC-LABEL: sym_name = "reduce"
// GENERIC: "kiln.reduce_sum"(%{{.*}}) <{dims = array<i64: 0>}> : (tensor<4x8xf32>) -> tensor<8xf32>
// GENERIC: "kiln.reduce_max"(%{{.*}}) <{dims = array<i64: 1>}> : (tensor<4x8xf32>) -> tensor<4xf32>
func.func @reduce(%x: tensor<4x8xf32>, %y: tensor<2x3x4xf64>, %d: tensor<?x8x?xbf16>, %h: tensor<4x?xf16>) -> (tensor<8xf32>, tensor<4xf32>, tensor<3xf64>, tensor<f64>, tensor<4x8xf32>, tensor<?x?xbf16>, tensor<?xf16>) {
  // CHECK: %[[R0:[a-z0-9_]+]] = kiln.reduce_sum %[[X]], dims = [0] : tensor<4x8xf32> -> tensor<8xf32>
  %0 = kiln.reduce_sum %x, dims = [0] : tensor<4x8xf32> -> tensor<8xf32>
  // CHECK: %[[R1:[a-z0-9_]+]] = kiln.reduce_max %[[X]], dims = [1] : tensor<4x8xf32> -> tensor<4xf32>
  %1 = kiln.reduce_max %x, dims = [1] : tensor<4x8xf32> -> tensor<4xf32>
  // CHECK: %[[R2:[a-z0-9_]+]] = kiln.reduce_sum %[[Y]], dims = [0, 2] : tensor<2x3x4xf64> -> tensor<3xf64>
  %2 = kiln.reduce_sum %y, dims = [0, 2] : tensor<2x3x4xf64> -> tensor<3xf64>
  // CHECK: %[[R3:[a-z0-9_]+]] = kiln.reduce_max %[[Y]], dims = [0, 1, 2] : tensor<2x3x4xf64> -> tensor<f64>
  %3 = kiln.reduce_max %y, dims = [0, 1, 2] : tensor<2x3x4xf64> -> tensor<f64>
  // CHECK: %[[R4:[a-z0-9_]+]] = kiln.reduce_sum %[[X]], dims = [] : tensor<4x8xf32> -> tensor<4x8xf32>
  %4 = kiln.reduce_sum %x, dims = [] : tensor<4x8xf32> -> tensor<4x8xf32>
  // CHECK: %[[R5:[a-z0-9_]+]] = kiln.reduce_sum %[[D]], dims = [1] : tensor<?x8x?xbf16> -> tensor<?x?xbf16>
  %5 = kiln.reduce_sum %d, dims = [1] : tensor<?x8x?xbf16> -> tensor<?x?xbf16>
  // CHECK: %[[R6:[a-z0-9_]+]] = kiln.reduce_max %[[H]], dims = [0] : tensor<4x?xf16> -> tensor<?xf16>
  %6 = kiln.reduce_max %h, dims = [0] : tensor<4x?xf16> -> tensor<?xf16>
  // CHECK: return %[[R0]], %[[R1]], %[[R2]], %[[R3]], %[[R4]], %[[R5]], %[[R6]] : tensor<8xf32>, tensor<4xf32>, tensor<3xf64>, tensor<f64>, tensor<4x8xf32>, tensor<?x?xbf16>, tensor<?xf16>
  return %0, %1, %2, %3, %4, %5, %6 : tensor<8xf32>, tensor<4xf32>, tensor<3xf64>, tensor<f64>, tensor<4x8xf32>, tensor<?x?xbf16>, tensor<?xf16>
}

// kiln.matmul: 2-D, batched 3-D, each transpose flag, dynamic M, other float types.
// CHECK-LABEL: func.func @matmul(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<4x8xf32>, %[[W:[a-z0-9_]+]]: tensor<8x16xf32>, %[[WT:[a-z0-9_]+]]: tensor<16x8xf32>, %[[XT:[a-z0-9_]+]]: tensor<8x4xf32>, %[[BX:[a-z0-9_]+]]: tensor<2x4x8xf16>, %[[BW:[a-z0-9_]+]]: tensor<2x8x16xf16>, %[[DX:[a-z0-9_]+]]: tensor<?x8xf32>, %[[DB:[a-z0-9_]+]]: tensor<?x4x8xbf16>, %[[DW:[a-z0-9_]+]]: tensor<?x16x8xbf16>, %[[F:[a-z0-9_]+]]: tensor<3x3xf64>) -> (tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>, tensor<2x4x16xf16>, tensor<?x16xf32>, tensor<?x4x16xbf16>, tensor<3x3xf64>) {
// GENERIC-LABEL: sym_name = "matmul"
// GENERIC: "kiln.matmul"(%{{.*}}, %{{.*}}) <{transpose_a = false, transpose_b = false}> : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
// GENERIC: "kiln.matmul"(%{{.*}}, %{{.*}}) <{transpose_a = false, transpose_b = true}> : (tensor<4x8xf32>, tensor<16x8xf32>) -> tensor<4x16xf32>
// GENERIC: "kiln.matmul"(%{{.*}}, %{{.*}}) <{transpose_a = true, transpose_b = false}> : (tensor<8x4xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
// GENERIC: "kiln.matmul"(%{{.*}}, %{{.*}}) <{transpose_a = true, transpose_b = true}> : (tensor<8x4xf32>, tensor<16x8xf32>) -> tensor<4x16xf32>
func.func @matmul(%x: tensor<4x8xf32>, %w: tensor<8x16xf32>, %wt: tensor<16x8xf32>, %xt: tensor<8x4xf32>, %bx: tensor<2x4x8xf16>, %bw: tensor<2x8x16xf16>, %dx: tensor<?x8xf32>, %db: tensor<?x4x8xbf16>, %dw: tensor<?x16x8xbf16>, %f: tensor<3x3xf64>) -> (tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>, tensor<2x4x16xf16>, tensor<?x16xf32>, tensor<?x4x16xbf16>, tensor<3x3xf64>) {
  // CHECK: %[[R0:[a-z0-9_]+]] = kiln.matmul %[[X]], %[[W]] : tensor<4x8xf32>, tensor<8x16xf32> -> tensor<4x16xf32>
  %0 = kiln.matmul %x, %w : tensor<4x8xf32>, tensor<8x16xf32> -> tensor<4x16xf32>
  // CHECK: %[[R1:[a-z0-9_]+]] = kiln.matmul %[[X]], %[[WT]] {transpose_b = true} : tensor<4x8xf32>, tensor<16x8xf32> -> tensor<4x16xf32>
  %1 = kiln.matmul %x, %wt {transpose_b = true} : tensor<4x8xf32>, tensor<16x8xf32> -> tensor<4x16xf32>
  // CHECK: %[[R2:[a-z0-9_]+]] = kiln.matmul %[[XT]], %[[W]] {transpose_a = true} : tensor<8x4xf32>, tensor<8x16xf32> -> tensor<4x16xf32>
  %2 = kiln.matmul %xt, %w {transpose_a = true} : tensor<8x4xf32>, tensor<8x16xf32> -> tensor<4x16xf32>
  // CHECK: %[[R3:[a-z0-9_]+]] = kiln.matmul %[[XT]], %[[WT]] {transpose_a = true, transpose_b = true} : tensor<8x4xf32>, tensor<16x8xf32> -> tensor<4x16xf32>
  %3 = kiln.matmul %xt, %wt {transpose_a = true, transpose_b = true} : tensor<8x4xf32>, tensor<16x8xf32> -> tensor<4x16xf32>
  // CHECK: %[[R4:[a-z0-9_]+]] = kiln.matmul %[[BX]], %[[BW]] : tensor<2x4x8xf16>, tensor<2x8x16xf16> -> tensor<2x4x16xf16>
  %4 = kiln.matmul %bx, %bw : tensor<2x4x8xf16>, tensor<2x8x16xf16> -> tensor<2x4x16xf16>
  // CHECK: %[[R5:[a-z0-9_]+]] = kiln.matmul %[[DX]], %[[W]] : tensor<?x8xf32>, tensor<8x16xf32> -> tensor<?x16xf32>
  %5 = kiln.matmul %dx, %w : tensor<?x8xf32>, tensor<8x16xf32> -> tensor<?x16xf32>
  // CHECK: %[[R6:[a-z0-9_]+]] = kiln.matmul %[[DB]], %[[DW]] {transpose_b = true} : tensor<?x4x8xbf16>, tensor<?x16x8xbf16> -> tensor<?x4x16xbf16>
  %6 = kiln.matmul %db, %dw {transpose_b = true} : tensor<?x4x8xbf16>, tensor<?x16x8xbf16> -> tensor<?x4x16xbf16>
  // CHECK: %[[R7:[a-z0-9_]+]] = kiln.matmul %[[F]], %[[F]] : tensor<3x3xf64>, tensor<3x3xf64> -> tensor<3x3xf64>
  %7 = kiln.matmul %f, %f {transpose_a = false, transpose_b = false} : tensor<3x3xf64>, tensor<3x3xf64> -> tensor<3x3xf64>
  // CHECK: return %[[R0]], %[[R1]], %[[R2]], %[[R3]], %[[R4]], %[[R5]], %[[R6]], %[[R7]] : tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>, tensor<2x4x16xf16>, tensor<?x16xf32>, tensor<?x4x16xbf16>, tensor<3x3xf64>
  return %0, %1, %2, %3, %4, %5, %6, %7 : tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>, tensor<2x4x16xf16>, tensor<?x16xf32>, tensor<?x4x16xbf16>, tensor<3x3xf64>
}

// Callees of kiln.vjp; @grad_f itself holds a kiln.vjp (higher order).
// CHECK-LABEL: func.func @f(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<4x8xf32>, %[[W:[a-z0-9_]+]]: tensor<8x8xf32>) -> tensor<4x8xf32> {
func.func @f(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>) -> tensor<4x8xf32> {
  // CHECK: %[[R0:[a-z0-9_]+]] = kiln.matmul %[[X]], %[[W]] : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
  %0 = kiln.matmul %x, %w : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
  // CHECK: return %[[R0]] : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// CHECK-LABEL: func.func @two_results(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<?xf64>, %[[P:[a-z0-9_]+]]: tensor<?xi1>, %[[Y:[a-z0-9_]+]]: tensor<?xf64>) -> (tensor<?xf64>, tensor<f64>) {
func.func @two_results(%x: tensor<?xf64>, %p: tensor<?xi1>, %y: tensor<?xf64>) -> (tensor<?xf64>, tensor<f64>) {
  // CHECK: %[[R0:[a-z0-9_]+]] = kiln.select %[[P]], %[[X]], %[[Y]] : tensor<?xi1>, tensor<?xf64>
  %0 = kiln.select %p, %x, %y : tensor<?xi1>, tensor<?xf64>
  // CHECK: %[[R1:[a-z0-9_]+]] = kiln.reduce_sum %[[R0]], dims = [0] : tensor<?xf64> -> tensor<f64>
  %1 = kiln.reduce_sum %0, dims = [0] : tensor<?xf64> -> tensor<f64>
  // CHECK: return %[[R0]], %[[R1]] : tensor<?xf64>, tensor<f64>
  return %0, %1 : tensor<?xf64>, tensor<f64>
}

// CHECK-LABEL: func.func @grad_f(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<4x8xf32>, %[[W:[a-z0-9_]+]]: tensor<8x8xf32>, %[[CT:[a-z0-9_]+]]: tensor<4x8xf32>) -> tensor<8x8xf32> {
func.func @grad_f(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>, %ct: tensor<4x8xf32>) -> tensor<8x8xf32> {
  // CHECK: %[[R0:[a-z0-9_]+]] = kiln.vjp @f(%[[X]], %[[W]], %[[CT]]) wrt [1] : (tensor<4x8xf32>, tensor<8x8xf32>, tensor<4x8xf32>) -> tensor<8x8xf32>
  %0 = kiln.vjp @f(%x, %w, %ct) wrt [1] : (tensor<4x8xf32>, tensor<8x8xf32>, tensor<4x8xf32>) -> tensor<8x8xf32>
  // CHECK: return %[[R0]] : tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// kiln.vjp: one wrt, several wrt, none, several cotangents, higher order.
// CHECK-LABEL: func.func @vjp(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<4x8xf32>, %[[W:[a-z0-9_]+]]: tensor<8x8xf32>, %[[CT:[a-z0-9_]+]]: tensor<4x8xf32>, %[[CTW:[a-z0-9_]+]]: tensor<8x8xf32>, %[[D:[a-z0-9_]+]]: tensor<?xf64>, %[[P:[a-z0-9_]+]]: tensor<?xi1>, %[[S:[a-z0-9_]+]]: tensor<f64>) -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<8x8xf32>, tensor<?xf64>, tensor<?xf64>, tensor<4x8xf32>) {
// GENERIC-LABEL: sym_name = "vjp"
// GENERIC: "kiln.vjp"(%{{.*}}, %{{.*}}, %{{.*}}) <{callee = @f, wrt = array<i64: 0>}> : (tensor<4x8xf32>, tensor<8x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
// GENERIC: "kiln.vjp"(%{{.*}}, %{{.*}}, %{{.*}}) <{callee = @f, wrt = array<i64: 0, 1>}> : (tensor<4x8xf32>, tensor<8x8xf32>, tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<8x8xf32>)
func.func @vjp(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>, %ct: tensor<4x8xf32>, %ctw: tensor<8x8xf32>, %d: tensor<?xf64>, %p: tensor<?xi1>, %s: tensor<f64>) -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<8x8xf32>, tensor<?xf64>, tensor<?xf64>, tensor<4x8xf32>) {
  // CHECK: %[[R0:[a-z0-9_]+]] = kiln.vjp @f(%[[X]], %[[W]], %[[CT]]) wrt [0] : (tensor<4x8xf32>, tensor<8x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %0 = kiln.vjp @f(%x, %w, %ct) wrt [0] : (tensor<4x8xf32>, tensor<8x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  // CHECK: %[[R1:[a-z0-9_]+]]:2 = kiln.vjp @f(%[[X]], %[[W]], %[[CT]]) wrt [0, 1] : (tensor<4x8xf32>, tensor<8x8xf32>, tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<8x8xf32>)
  %1:2 = kiln.vjp @f(%x, %w, %ct) wrt [0, 1] : (tensor<4x8xf32>, tensor<8x8xf32>, tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<8x8xf32>)
  // CHECK: kiln.vjp @f(%[[X]], %[[W]], %[[CT]]) wrt [] : (tensor<4x8xf32>, tensor<8x8xf32>, tensor<4x8xf32>) -> ()
  kiln.vjp @f(%x, %w, %ct) wrt [] : (tensor<4x8xf32>, tensor<8x8xf32>, tensor<4x8xf32>) -> ()
  // CHECK: %[[R2:[a-z0-9_]+]]:2 = kiln.vjp @two_results(%[[D]], %[[P]], %[[D]], %[[D]], %[[S]]) wrt [0, 2] : (tensor<?xf64>, tensor<?xi1>, tensor<?xf64>, tensor<?xf64>, tensor<f64>) -> (tensor<?xf64>, tensor<?xf64>)
  %2:2 = kiln.vjp @two_results(%d, %p, %d, %d, %s) wrt [0, 2] : (tensor<?xf64>, tensor<?xi1>, tensor<?xf64>, tensor<?xf64>, tensor<f64>) -> (tensor<?xf64>, tensor<?xf64>)
  // CHECK: %[[R3:[a-z0-9_]+]] = kiln.vjp @grad_f(%[[X]], %[[W]], %[[CT]], %[[CTW]]) wrt [0] : (tensor<4x8xf32>, tensor<8x8xf32>, tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  %3 = kiln.vjp @grad_f(%x, %w, %ct, %ctw) wrt [0] : (tensor<4x8xf32>, tensor<8x8xf32>, tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  // CHECK: return %[[R0]], %[[R1]]#0, %[[R1]]#1, %[[R2]]#0, %[[R2]]#1, %[[R3]] : tensor<4x8xf32>, tensor<4x8xf32>, tensor<8x8xf32>, tensor<?xf64>, tensor<?xf64>, tensor<4x8xf32>
  return %0, %1#0, %1#1, %2#0, %2#1, %3 : tensor<4x8xf32>, tensor<4x8xf32>, tensor<8x8xf32>, tensor<?xf64>, tensor<?xf64>, tensor<4x8xf32>
}

// kiln.fusion_group with several inputs and outputs, and an empty one.
// CHECK-LABEL: func.func @fusion_group(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<4x8xf32>, %[[BIAS:[a-z0-9_]+]]: tensor<8xf32>, %[[D:[a-z0-9_]+]]: tensor<?xf16>) -> (tensor<4x8xf32>, tensor<4xf32>, tensor<?xf16>) {
// GENERIC-LABEL: sym_name = "fusion_group"
// GENERIC: "kiln.fusion_group"(%{{.*}}, %{{.*}}) ({
// GENERIC-NEXT: ^bb0(%{{.*}}: tensor<4x8xf32>, %{{.*}}: tensor<8xf32>):
// GENERIC: "kiln.yield"(%{{.*}}, %{{.*}}) : (tensor<4x8xf32>, tensor<4xf32>) -> ()
// GENERIC-NEXT: }) : (tensor<4x8xf32>, tensor<8xf32>) -> (tensor<4x8xf32>, tensor<4xf32>)
func.func @fusion_group(%x: tensor<4x8xf32>, %bias: tensor<8xf32>, %d: tensor<?xf16>) -> (tensor<4x8xf32>, tensor<4xf32>, tensor<?xf16>) {
  // CHECK: %[[R0:[a-z0-9_]+]]:2 = kiln.fusion_group %[[X]], %[[BIAS]] : (tensor<4x8xf32>, tensor<8xf32>) -> (tensor<4x8xf32>, tensor<4xf32>) {
  %0:2 = kiln.fusion_group %x, %bias : (tensor<4x8xf32>, tensor<8xf32>) -> (tensor<4x8xf32>, tensor<4xf32>) {
  // CHECK: ^bb0(%[[A:[a-z0-9_]+]]: tensor<4x8xf32>, %[[B:[a-z0-9_]+]]: tensor<8xf32>):
  ^bb0(%a: tensor<4x8xf32>, %b: tensor<8xf32>):
    // CHECK: %[[R1:[a-z0-9_]+]] = kiln.broadcast_in_dim %[[B]], dims = [1] : tensor<8xf32> -> tensor<4x8xf32>
    %1 = kiln.broadcast_in_dim %b, dims = [1] : tensor<8xf32> -> tensor<4x8xf32>
    // CHECK: %[[R2:[a-z0-9_]+]] = kiln.add %[[A]], %[[R1]] : tensor<4x8xf32>
    %2 = kiln.add %a, %1 : tensor<4x8xf32>
    // CHECK: %[[R3:[a-z0-9_]+]] = kiln.relu %[[R2]] : tensor<4x8xf32>
    %3 = kiln.relu %2 : tensor<4x8xf32>
    // CHECK: %[[R4:[a-z0-9_]+]] = kiln.reduce_sum %[[R3]], dims = [1] : tensor<4x8xf32> -> tensor<4xf32>
    %4 = kiln.reduce_sum %3, dims = [1] : tensor<4x8xf32> -> tensor<4xf32>
    // CHECK: kiln.yield %[[R3]], %[[R4]] : tensor<4x8xf32>, tensor<4xf32>
    kiln.yield %3, %4 : tensor<4x8xf32>, tensor<4xf32>
  }
  // CHECK: %[[R5:[a-z0-9_]+]] = kiln.fusion_group %[[D]] : (tensor<?xf16>) -> tensor<?xf16> {
  %5 = kiln.fusion_group %d : (tensor<?xf16>) -> tensor<?xf16> {
  // CHECK: ^bb0(%[[A:[a-z0-9_]+]]: tensor<?xf16>):
  ^bb0(%a: tensor<?xf16>):
    // CHECK: %[[R6:[a-z0-9_]+]] = kiln.exp %[[A]] : tensor<?xf16>
    %6 = kiln.exp %a : tensor<?xf16>
    // CHECK: kiln.yield %[[R6]] : tensor<?xf16>
    kiln.yield %6 : tensor<?xf16>
  }
  // CHECK: kiln.fusion_group : () -> () {
  kiln.fusion_group : () -> () {
    // CHECK-NEXT: kiln.yield{{$}}
    kiln.yield
  }
  // CHECK: return %[[R0]]#0, %[[R0]]#1, %[[R5]] : tensor<4x8xf32>, tensor<4xf32>, tensor<?xf16>
  return %0#0, %0#1, %5 : tensor<4x8xf32>, tensor<4xf32>, tensor<?xf16>
}

// kiln.erf and kiln.gelu; gelu's `approximate` is elided when false (its
// default) and is a BoolAttr property in the generic form.
// CHECK-LABEL: func.func @erf_gelu(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<4x8xf32>, %[[D:[a-z0-9_]+]]: tensor<?xbf16>)
// GENERIC-LABEL: sym_name = "erf_gelu"
// GENERIC: "kiln.erf"(%{{.*}}) : (tensor<4x8xf32>) -> tensor<4x8xf32>
// GENERIC: "kiln.gelu"(%{{.*}}) <{approximate = false}> : (tensor<4x8xf32>) -> tensor<4x8xf32>
// GENERIC: "kiln.gelu"(%{{.*}}) <{approximate = true}> : (tensor<4x8xf32>) -> tensor<4x8xf32>
func.func @erf_gelu(%x: tensor<4x8xf32>, %d: tensor<?xbf16>) -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<?xbf16>) {
  // CHECK: %[[R0:[a-z0-9_]+]] = kiln.erf %[[X]] : tensor<4x8xf32>
  %0 = kiln.erf %x : tensor<4x8xf32>
  // CHECK: %[[R1:[a-z0-9_]+]] = kiln.gelu %[[R0]] : tensor<4x8xf32>
  %1 = kiln.gelu %0 : tensor<4x8xf32>
  // CHECK: %[[R2:[a-z0-9_]+]] = kiln.gelu %[[R1]] {approximate = true} : tensor<4x8xf32>
  %2 = kiln.gelu %1 {approximate = true} : tensor<4x8xf32>
  // CHECK: %[[R3:[a-z0-9_]+]] = kiln.gelu %[[D]] {approximate = true} : tensor<?xbf16>
  %3 = "kiln.gelu"(%d) <{approximate = true}> : (tensor<?xbf16>) -> tensor<?xbf16>
  // CHECK: return %[[R0]], %[[R1]], %[[R2]], %[[R3]]
  return %0, %1, %2, %3 : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<?xbf16>
}

// -----

// Integer tensors (i32, i64) in the ops that accept them.
// CHECK-LABEL: func.func @integers
func.func @integers(%a: tensor<4x16xi32>, %ids: tensor<4x16xi64>, %x: tensor<4x16xf32>) -> (tensor<4x16xi32>, tensor<4x16xi1>, tensor<4xi64>, tensor<4x16xi32>, tensor<4x16xf32>) {
  // CHECK: kiln.add %{{.*}}, %{{.*}} : tensor<4x16xi32>
  %s = "kiln.add"(%a, %a) : (tensor<4x16xi32>, tensor<4x16xi32>) -> tensor<4x16xi32>
  // CHECK: kiln.cmp lt, %{{.*}}, %{{.*}} : tensor<4x16xi64>
  %c = "kiln.cmp"(%ids, %ids) <{predicate = #kiln<predicate lt>}> : (tensor<4x16xi64>, tensor<4x16xi64>) -> tensor<4x16xi1>
  // CHECK: kiln.reduce_max %{{.*}}, dims = [1] : tensor<4x16xi64> -> tensor<4xi64>
  %m = "kiln.reduce_max"(%ids) <{dims = array<i64: 1>}> : (tensor<4x16xi64>) -> tensor<4xi64>
  // CHECK: kiln.convert %{{.*}} : tensor<4x16xf32> -> tensor<4x16xi32>
  %i = "kiln.convert"(%x) : (tensor<4x16xf32>) -> tensor<4x16xi32>
  // CHECK: kiln.convert %{{.*}} : tensor<4x16xi64> -> tensor<4x16xf32>
  %f = "kiln.convert"(%ids) : (tensor<4x16xi64>) -> tensor<4x16xf32>
  return %s, %c, %m, %i, %f : tensor<4x16xi32>, tensor<4x16xi1>, tensor<4xi64>, tensor<4x16xi32>, tensor<4x16xf32>
}

// -----

// The ops of integer indices and random numbers (issue 38).
// CHECK-LABEL: func.func @gathers
func.func @gathers(%w: tensor<65x32xf32>, %ids: tensor<4x16xi64>, %ct: tensor<4x16x32xf32>, %key: tensor<2xi64>, %n: index) -> (tensor<4x16x32xf32>, tensor<65x32xf32>, tensor<4x16xi64>, tensor<65xi32>, tensor<4x16xf32>, tensor<?x8xf32>) {
  // CHECK: kiln.take %{{.*}}, %{{.*}} dim = 0 : tensor<65x32xf32>, tensor<4x16xi64> -> tensor<4x16x32xf32>
  %e = "kiln.take"(%w, %ids) <{dim = 0 : i64}> : (tensor<65x32xf32>, tensor<4x16xi64>) -> tensor<4x16x32xf32>
  // CHECK: kiln.scatter_add %{{.*}}, %{{.*}}, %{{.*}} dim = 0 : tensor<65x32xf32>, tensor<4x16xi64>, tensor<4x16x32xf32> -> tensor<65x32xf32>
  %d = "kiln.scatter_add"(%w, %ids, %ct) <{dim = 0 : i64}> : (tensor<65x32xf32>, tensor<4x16xi64>, tensor<4x16x32xf32>) -> tensor<65x32xf32>
  // CHECK: kiln.iota dim = 1 : tensor<4x16xi64>
  %p = "kiln.iota"() <{dim = 1 : i64}> : () -> tensor<4x16xi64>
  // CHECK: kiln.argmax %{{.*}} dim = 1 : tensor<65x32xf32> -> tensor<65xi32>
  %m = "kiln.argmax"(%w) <{dim = 1 : i64}> : (tensor<65x32xf32>) -> tensor<65xi32>
  // CHECK: kiln.rng_uniform %{{.*}} : tensor<2xi64> -> tensor<4x16xf32>
  %u = "kiln.rng_uniform"(%key) : (tensor<2xi64>) -> tensor<4x16xf32>
  // CHECK: kiln.iota sizes(%{{.*}}) dim = 0 : tensor<?x8xf32>
  %q = "kiln.iota"(%n) <{dim = 0 : i64}> : (index) -> tensor<?x8xf32>
  return %e, %d, %p, %m, %u, %q : tensor<4x16x32xf32>, tensor<65x32xf32>, tensor<4x16xi64>, tensor<65xi32>, tensor<4x16xf32>, tensor<?x8xf32>
}

// kiln.attention and kiln.attention_grad: score operands optional.
// CHECK-LABEL: func.func @attention(
// CHECK: kiln.attention %{{.*}}, %{{.*}}, %{{.*}} score(%{{.*}}, %{{.*}} : tensor<1x1x1xf32>, tensor<1x4x6xi1>) steps [0, 0, -1, 5, 1, 0]
// CHECK: kiln.attention_grad %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} steps []
// GENERIC-LABEL: sym_name = "attention"
// GENERIC: "kiln.attention"({{.*}}) <{score_steps = array<i64: 0, 0, -1, 5, 1, 0>}>
// GENERIC: "kiln.attention_grad"({{.*}}) <{score_steps = array<i64>}>
func.func @attention(%q: tensor<2x4x8xf32>, %k: tensor<2x6x8xf32>, %v: tensor<2x6x3xf32>, %s: tensor<1x1x1xf32>, %keep: tensor<1x4x6xi1>, %do: tensor<2x4x3xf32>) -> (tensor<2x4x8xf32>, tensor<2x6x8xf32>, tensor<2x6x3xf32>) {
  %o, %m, %l = kiln.attention %q, %k, %v score(%s, %keep : tensor<1x1x1xf32>, tensor<1x4x6xi1>) steps [0, 0, -1, 5, 1, 0] : tensor<2x4x8xf32>, tensor<2x6x8xf32>, tensor<2x6x3xf32> -> tensor<2x4x3xf32>, tensor<2x4xf32>, tensor<2x4xf32>
  %dq, %dk, %dv = kiln.attention_grad %q, %k, %v, %o, %m, %l, %do steps [] : tensor<2x4x8xf32>, tensor<2x6x8xf32>, tensor<2x6x3xf32>, tensor<2x4x3xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4x3xf32> -> tensor<2x4x8xf32>, tensor<2x6x8xf32>, tensor<2x6x3xf32>
  return %dq, %dk, %dv : tensor<2x4x8xf32>, tensor<2x6x8xf32>, tensor<2x6x3xf32>
}
