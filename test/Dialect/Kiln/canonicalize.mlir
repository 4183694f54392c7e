// RUN: kiln-opt %s -canonicalize -cse -split-input-file | FileCheck %s

// Constant folding of elementwise ops on constants.
// CHECK-LABEL: func @fold_elementwise
// CHECK-DAG: %[[A:.+]] = kiln.constant dense<5.000000e+00> : tensor<4xf32>
// CHECK-DAG: %[[B:.+]] = kiln.constant dense<[1.000000e+00, 4.000000e+00]> : tensor<2xf32>
// CHECK-DAG: %[[C:.+]] = kiln.constant dense<5.000000e-01> : tensor<4xf32>
// CHECK-DAG: %[[D:.+]] = kiln.constant dense<[false, true]> : tensor<2xi1>
// CHECK-NOT: kiln.add
// CHECK-NOT: kiln.mul
// CHECK-NOT: kiln.sigmoid
// CHECK: return %[[A]], %[[B]], %[[C]], %[[D]]
func.func @fold_elementwise() -> (tensor<4xf32>, tensor<2xf32>, tensor<4xf32>, tensor<2xi1>) {
  %two = kiln.constant dense<2.0> : tensor<4xf32>
  %three = kiln.constant dense<3.0> : tensor<4xf32>
  %sum = kiln.add %two, %three : tensor<4xf32>
  %v = kiln.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %sq = kiln.mul %v, %v : tensor<2xf32>
  %zero = kiln.constant dense<0.0> : tensor<4xf32>
  %half = kiln.sigmoid %zero : tensor<4xf32>
  %lt = kiln.cmp lt, %v, %sq : tensor<2xf32>
  return %sum, %sq, %half, %lt : tensor<4xf32>, tensor<2xf32>, tensor<4xf32>, tensor<2xi1>
}

// -----

// Every unary op folds on a constant operand.
// CHECK-LABEL: func @fold_unary
// CHECK-NOT: kiln.{{(neg|exp|log|tanh|relu|sqrt|rsqrt|abs|sin|cos|reciprocal)}}
// CHECK: kiln.constant dense<-4.000000e+00>
// CHECK: kiln.constant dense<54.5981483>
// CHECK: kiln.constant dense<1.38629436>
// CHECK: kiln.constant dense<0.999329328>
// CHECK: kiln.constant dense<4.000000e+00>
// CHECK: kiln.constant dense<2.000000e+00>
// CHECK: kiln.constant dense<5.000000e-01>
// CHECK: kiln.constant dense<-0.756802499>
// CHECK: kiln.constant dense<-0.653643608>
// CHECK: kiln.constant dense<2.500000e-01>
func.func @fold_unary() -> (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) {
  %c = kiln.constant dense<4.0> : tensor<2xf32>
  %n = kiln.neg %c : tensor<2xf32>
  %e = kiln.exp %c : tensor<2xf32>
  %l = kiln.log %c : tensor<2xf32>
  %t = kiln.tanh %c : tensor<2xf32>
  %r = kiln.relu %c : tensor<2xf32>
  %s = kiln.sqrt %c : tensor<2xf32>
  %rs = kiln.rsqrt %c : tensor<2xf32>
  %a = kiln.abs %n : tensor<2xf32>
  %sn = kiln.sin %c : tensor<2xf32>
  %cs = kiln.cos %c : tensor<2xf32>
  %rc = kiln.reciprocal %c : tensor<2xf32>
  return %n, %e, %l, %t, %r, %s, %rs, %a, %sn, %cs, %rc : tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>
}

// -----

// erf and both forms of gelu fold on constants through their one scalar
// definition: erf(1), gelu(1) (erf form) and gelu(1) (tanh form); f64 keeps
// every digit, bf16 rounds once.
// CHECK-LABEL: func @fold_erf_gelu
// CHECK-NOT: kiln.{{(erf|gelu)}}
// CHECK-DAG: kiln.constant dense<0.842700779> : tensor<2xf32>
// CHECK-DAG: kiln.constant dense<0.841344773> : tensor<2xf32>
// CHECK-DAG: kiln.constant dense<8.411920e-01> : tensor<2xf32>
// CHECK-DAG: kiln.constant dense<[0.000000e+00, 0.84134474606854{{[0-9]+}}, -0.158655253931457{{[0-9]+}}]> : tensor<3xf64>
// CHECK-DAG: kiln.constant dense<8.398430e-01> : tensor<2xbf16>
func.func @fold_erf_gelu() -> (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<3xf64>, tensor<2xbf16>) {
  %c = kiln.constant dense<1.0> : tensor<2xf32>
  %e = kiln.erf %c : tensor<2xf32>
  %g = kiln.gelu %c : tensor<2xf32>
  %t = kiln.gelu %c {approximate = true} : tensor<2xf32>
  %d = kiln.constant dense<[0.0, 1.0, -1.0]> : tensor<3xf64>
  %gd = kiln.gelu %d : tensor<3xf64>
  %b = kiln.constant dense<1.0> : tensor<2xbf16>
  %gb = kiln.gelu %b : tensor<2xbf16>
  return %e, %g, %t, %gd, %gb : tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<3xf64>, tensor<2xbf16>
}

// -----

// relu folds negative zero and negative values to +0.
// CHECK-LABEL: func @fold_relu
// CHECK: kiln.constant dense<[0.000000e+00, 0.000000e+00, 3.000000e+00]>
func.func @fold_relu() -> tensor<3xf32> {
  %c = kiln.constant dense<[-2.0, -0.0, 3.0]> : tensor<3xf32>
  %r = kiln.relu %c : tensor<3xf32>
  return %r : tensor<3xf32>
}

// -----

// Binary ops fold on constants: sub, div, max, min, pow.
// CHECK-LABEL: func @fold_binary
// CHECK-DAG: kiln.constant dense<1.000000e+00> : tensor<2xf64>
// CHECK-DAG: kiln.constant dense<1.500000e+00> : tensor<2xf64>
// CHECK-DAG: kiln.constant dense<3.000000e+00> : tensor<2xf64>
// CHECK-DAG: kiln.constant dense<2.000000e+00> : tensor<2xf64>
// CHECK-DAG: kiln.constant dense<9.000000e+00> : tensor<2xf64>
// CHECK-NOT: kiln.{{(sub|div|max|min|pow)}}
func.func @fold_binary() -> (tensor<2xf64>, tensor<2xf64>, tensor<2xf64>, tensor<2xf64>, tensor<2xf64>) {
  %a = kiln.constant dense<3.0> : tensor<2xf64>
  %b = kiln.constant dense<2.0> : tensor<2xf64>
  %s = kiln.sub %a, %b : tensor<2xf64>
  %d = kiln.div %a, %b : tensor<2xf64>
  %mx = kiln.max %a, %b : tensor<2xf64>
  %mn = kiln.min %a, %b : tensor<2xf64>
  %p = kiln.pow %a, %b : tensor<2xf64>
  return %s, %d, %mx, %mn, %p : tensor<2xf64>, tensor<2xf64>, tensor<2xf64>, tensor<2xf64>, tensor<2xf64>
}

// -----

// x + 0, 0 + x, x - 0, x * 1, 1 * x, x / 1 are x.
// CHECK-LABEL: func @identities
// CHECK-SAME: (%[[X:.+]]: tensor<4xf32>)
// CHECK-NOT: kiln.add
// CHECK-NOT: kiln.sub
// CHECK-NOT: kiln.mul
// CHECK-NOT: kiln.div
// CHECK: return %[[X]], %[[X]], %[[X]], %[[X]], %[[X]], %[[X]]
func.func @identities(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %zero = kiln.constant dense<0.0> : tensor<4xf32>
  %one = kiln.constant dense<1.0> : tensor<4xf32>
  %a = kiln.add %x, %zero : tensor<4xf32>
  %b = kiln.add %zero, %x : tensor<4xf32>
  %c = kiln.sub %x, %zero : tensor<4xf32>
  %d = kiln.mul %x, %one : tensor<4xf32>
  %e = kiln.mul %one, %x : tensor<4xf32>
  %f = kiln.div %x, %one : tensor<4xf32>
  return %a, %b, %c, %d, %e, %f : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// x * 0 is not folded (NaN * 0 and inf * 0 are NaN); 0 - x and 1 / x are
// not identities either.
// CHECK-LABEL: func @no_fold_mul_zero
// CHECK: kiln.mul
// CHECK: kiln.sub
// CHECK: kiln.div
func.func @no_fold_mul_zero(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %zero = kiln.constant dense<0.0> : tensor<4xf32>
  %one = kiln.constant dense<1.0> : tensor<4xf32>
  %a = kiln.mul %x, %zero : tensor<4xf32>
  %b = kiln.sub %zero, %x : tensor<4xf32>
  %c = kiln.div %one, %x : tensor<4xf32>
  return %a, %b, %c : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// neg(neg x) is x; so are reciprocal(reciprocal x), abs(abs x) -> abs x,
// relu(relu x) -> relu x.
// CHECK-LABEL: func @involutions
// CHECK-SAME: (%[[X:.+]]: tensor<4xf32>)
// CHECK-NOT: kiln.neg
// CHECK-NOT: kiln.reciprocal
// CHECK: %[[ABS:.+]] = kiln.abs %[[X]]
// CHECK-NOT: kiln.abs
// CHECK: %[[RELU:.+]] = kiln.relu %[[X]]
// CHECK-NOT: kiln.relu
// CHECK: return %[[X]], %[[X]], %[[ABS]], %[[RELU]]
func.func @involutions(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %n1 = kiln.neg %x : tensor<4xf32>
  %n2 = kiln.neg %n1 : tensor<4xf32>
  %r1 = kiln.reciprocal %x : tensor<4xf32>
  %r2 = kiln.reciprocal %r1 : tensor<4xf32>
  %a1 = kiln.abs %x : tensor<4xf32>
  %a2 = kiln.abs %a1 : tensor<4xf32>
  %l1 = kiln.relu %x : tensor<4xf32>
  %l2 = kiln.relu %l1 : tensor<4xf32>
  return %n2, %r2, %a2, %l2 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// max(x, x) and min(x, x) are x; select with equal arms or a constant
// predicate picks an arm.
// CHECK-LABEL: func @max_min_select
// CHECK-SAME: (%[[X:.+]]: tensor<4xf32>, %[[Y:.+]]: tensor<4xf32>, %[[P:.+]]: tensor<4xi1>)
// CHECK-NOT: kiln.max
// CHECK-NOT: kiln.min
// CHECK-NOT: kiln.select
// CHECK: return %[[X]], %[[X]], %[[X]], %[[X]], %[[Y]]
func.func @max_min_select(%x: tensor<4xf32>, %y: tensor<4xf32>, %p: tensor<4xi1>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %a = kiln.max %x, %x : tensor<4xf32>
  %b = kiln.min %x, %x : tensor<4xf32>
  %c = kiln.select %p, %x, %x : tensor<4xi1>, tensor<4xf32>
  %t = kiln.constant dense<true> : tensor<4xi1>
  %f = kiln.constant dense<false> : tensor<4xi1>
  %d = kiln.select %t, %x, %y : tensor<4xi1>, tensor<4xf32>
  %e = kiln.select %f, %x, %y : tensor<4xi1>, tensor<4xf32>
  return %a, %b, %c, %d, %e : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// pow(x, 1) is x; convert to the same type is x; convert of a constant folds.
// CHECK-LABEL: func @pow_convert
// CHECK-SAME: (%[[X:.+]]: tensor<4xf32>)
// CHECK-DAG: %[[C:.+]] = kiln.constant dense<1.500000e+00> : tensor<4xf64>
// CHECK-NOT: kiln.pow
// CHECK-NOT: kiln.convert
// CHECK: return %[[X]], %[[X]], %[[C]]
func.func @pow_convert(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf64>) {
  %one = kiln.constant dense<1.0> : tensor<4xf32>
  %p = kiln.pow %x, %one : tensor<4xf32>
  %c = kiln.convert %x : tensor<4xf32> -> tensor<4xf32>
  %k = kiln.constant dense<1.5> : tensor<4xf32>
  %w = kiln.convert %k : tensor<4xf32> -> tensor<4xf64>
  return %p, %c, %w : tensor<4xf32>, tensor<4xf32>, tensor<4xf64>
}

// -----

// reshape of reshape is one reshape; an identity reshape disappears.
// CHECK-LABEL: func @reshape_reshape
// CHECK-SAME: (%[[X:.+]]: tensor<4x6xf32>)
// CHECK: %[[R:.+]] = kiln.reshape %[[X]] : tensor<4x6xf32> -> tensor<3x8xf32>
// CHECK-NOT: kiln.reshape
// CHECK: return %[[R]], %[[X]]
func.func @reshape_reshape(%x: tensor<4x6xf32>) -> (tensor<3x8xf32>, tensor<4x6xf32>) {
  %a = kiln.reshape %x : tensor<4x6xf32> -> tensor<24xf32>
  %b = kiln.reshape %a : tensor<24xf32> -> tensor<3x8xf32>
  %c = kiln.reshape %x : tensor<4x6xf32> -> tensor<4x6xf32>
  return %b, %c : tensor<3x8xf32>, tensor<4x6xf32>
}

// -----

// reshape of a constant folds into the constant.
// CHECK-LABEL: func @reshape_constant
// CHECK: kiln.constant dense<{{\[\[}}1.000000e+00, 2.000000e+00], [3.000000e+00, 4.000000e+00]]> : tensor<2x2xf32>
// CHECK-NOT: kiln.reshape
func.func @reshape_constant() -> tensor<2x2xf32> {
  %c = kiln.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %r = kiln.reshape %c : tensor<4xf32> -> tensor<2x2xf32>
  return %r : tensor<2x2xf32>
}

// -----

// transpose of transpose composes; when it composes to the identity it
// disappears, as does an identity transpose.
// CHECK-LABEL: func @transpose_transpose
// CHECK-SAME: (%[[X:.+]]: tensor<2x3x4xf32>)
// CHECK: %[[T:.+]] = kiln.transpose %[[X]], perm = [2, 0, 1] : tensor<2x3x4xf32> -> tensor<4x2x3xf32>
// CHECK-NOT: kiln.transpose
// CHECK: return %[[T]], %[[X]], %[[X]]
func.func @transpose_transpose(%x: tensor<2x3x4xf32>) -> (tensor<4x2x3xf32>, tensor<2x3x4xf32>, tensor<2x3x4xf32>) {
  %a = kiln.transpose %x, perm = [1, 0, 2] : tensor<2x3x4xf32> -> tensor<3x2x4xf32>
  %b = kiln.transpose %a, perm = [2, 1, 0] : tensor<3x2x4xf32> -> tensor<4x2x3xf32>
  %c = kiln.transpose %a, perm = [1, 0, 2] : tensor<3x2x4xf32> -> tensor<2x3x4xf32>
  %d = kiln.transpose %x, perm = [0, 1, 2] : tensor<2x3x4xf32> -> tensor<2x3x4xf32>
  return %b, %c, %d : tensor<4x2x3xf32>, tensor<2x3x4xf32>, tensor<2x3x4xf32>
}

// -----

// broadcast of broadcast composes; an identity broadcast disappears.
// CHECK-LABEL: func @broadcast_broadcast
// CHECK-SAME: (%[[X:.+]]: tensor<8xf32>, %[[Y:.+]]: tensor<4x8xf32>)
// CHECK: %[[B:.+]] = kiln.broadcast_in_dim %[[X]], dims = [2] : tensor<8xf32> -> tensor<3x4x8xf32>
// CHECK-NOT: kiln.broadcast_in_dim
// CHECK: return %[[B]], %[[Y]]
func.func @broadcast_broadcast(%x: tensor<8xf32>, %y: tensor<4x8xf32>) -> (tensor<3x4x8xf32>, tensor<4x8xf32>) {
  %a = kiln.broadcast_in_dim %x, dims = [1] : tensor<8xf32> -> tensor<4x8xf32>
  %b = kiln.broadcast_in_dim %a, dims = [1, 2] : tensor<4x8xf32> -> tensor<3x4x8xf32>
  %c = kiln.broadcast_in_dim %y, dims = [0, 1] : tensor<4x8xf32> -> tensor<4x8xf32>
  return %b, %c : tensor<3x4x8xf32>, tensor<4x8xf32>
}

// -----

// broadcast of a splat constant is a splat constant of the result type.
// CHECK-LABEL: func @broadcast_splat
// CHECK: %[[C:.+]] = kiln.constant dense<2.500000e+00> : tensor<4x8xf32>
// CHECK-NOT: kiln.broadcast_in_dim
// CHECK: return %[[C]]
func.func @broadcast_splat() -> tensor<4x8xf32> {
  %c = kiln.constant dense<2.5> : tensor<8xf32>
  %b = kiln.broadcast_in_dim %c, dims = [1] : tensor<8xf32> -> tensor<4x8xf32>
  return %b : tensor<4x8xf32>
}

// -----

// A broadcast that only adds unit dims moves no data: it becomes a reshape.
// CHECK-LABEL: func @broadcast_unit_dims
// CHECK-SAME: (%[[X:.+]]: tensor<8xf32>)
// CHECK: %[[R:.+]] = kiln.reshape %[[X]] : tensor<8xf32> -> tensor<1x8x1xf32>
// CHECK: return %[[R]]
func.func @broadcast_unit_dims(%x: tensor<8xf32>) -> tensor<1x8x1xf32> {
  %b = kiln.broadcast_in_dim %x, dims = [1] : tensor<8xf32> -> tensor<1x8x1xf32>
  return %b : tensor<1x8x1xf32>
}

// -----

// A broadcast of a reshape that only inserts unit dims reads the reshape's
// operand: a row value [4] as [4, 1] broadcast along the row.
// CHECK-LABEL: func @broadcast_of_unit_reshape
// CHECK-SAME: (%[[X:.+]]: tensor<4xf32>)
// CHECK-NOT: kiln.reshape
// CHECK: %[[B:.+]] = kiln.broadcast_in_dim %[[X]], dims = [0] : tensor<4xf32> -> tensor<4x8xf32>
// CHECK: return %[[B]]
func.func @broadcast_of_unit_reshape(%x: tensor<4xf32>) -> tensor<4x8xf32> {
  %r = kiln.reshape %x : tensor<4xf32> -> tensor<4x1xf32>
  %b = kiln.broadcast_in_dim %r, dims = [0, 1] : tensor<4x1xf32> -> tensor<4x8xf32>
  return %b : tensor<4x8xf32>
}

// -----

// A reshape that moves data (not only unit dims) stays.
// CHECK-LABEL: func @broadcast_of_moving_reshape
// CHECK: kiln.reshape
// CHECK: kiln.broadcast_in_dim
func.func @broadcast_of_moving_reshape(%x: tensor<2x4xf32>) -> tensor<8x3xf32> {
  %r = kiln.reshape %x : tensor<2x4xf32> -> tensor<8x1xf32>
  %b = kiln.broadcast_in_dim %r, dims = [0, 1] : tensor<8x1xf32> -> tensor<8x3xf32>
  return %b : tensor<8x3xf32>
}

// -----

// A slice covering its whole operand is the operand.
// CHECK-LABEL: func @slice_whole
// CHECK-SAME: (%[[X:.+]]: tensor<4x8xf32>)
// CHECK-NOT: kiln.slice
// CHECK: return %[[X]]
func.func @slice_whole(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %s = kiln.slice %x, offsets = [0, 0], sizes = [4, 8] : tensor<4x8xf32> -> tensor<4x8xf32>
  return %s : tensor<4x8xf32>
}

// -----

// An empty slice reads nothing, wherever it starts (even at the end, which
// tensor.extract_slice would refuse): an empty constant.
// CHECK-LABEL: func @slice_empty
// CHECK-NOT: kiln.slice
// CHECK: %[[E:.+]] = kiln.constant dense<> : tensor<0x8xf32>
// CHECK: return %[[E]]
func.func @slice_empty(%x: tensor<4x8xf32>) -> tensor<0x8xf32> {
  %s = kiln.slice %x, offsets = [4, 0], sizes = [0, 8] : tensor<4x8xf32> -> tensor<0x8xf32>
  return %s : tensor<0x8xf32>
}

// -----

// A slice of a concat that selects exactly one operand is that operand; a
// slice across two operands stays.
// CHECK-LABEL: func @slice_of_concat
// CHECK-SAME: (%[[X:.+]]: tensor<4x8xf32>, %[[Y:.+]]: tensor<4x3xf32>, %[[Z:.+]]: tensor<4x5xf32>)
// CHECK: %[[K:.+]] = kiln.concat %[[X]], %[[Y]], %[[Z]] dim = 1
// CHECK: %[[S:.+]] = kiln.slice %[[K]], offsets = [0, 7], sizes = [4, 2]
// CHECK: return %[[X]], %[[Y]], %[[Z]], %[[S]]
func.func @slice_of_concat(%x: tensor<4x8xf32>, %y: tensor<4x3xf32>, %z: tensor<4x5xf32>) -> (tensor<4x8xf32>, tensor<4x3xf32>, tensor<4x5xf32>, tensor<4x2xf32>) {
  %k = kiln.concat %x, %y, %z dim = 1 : tensor<4x8xf32>, tensor<4x3xf32>, tensor<4x5xf32> -> tensor<4x16xf32>
  %a = kiln.slice %k, offsets = [0, 0], sizes = [4, 8] : tensor<4x16xf32> -> tensor<4x8xf32>
  %b = kiln.slice %k, offsets = [0, 8], sizes = [4, 3] : tensor<4x16xf32> -> tensor<4x3xf32>
  %c = kiln.slice %k, offsets = [0, 11], sizes = [4, 5] : tensor<4x16xf32> -> tensor<4x5xf32>
  %d = kiln.slice %k, offsets = [0, 7], sizes = [4, 2] : tensor<4x16xf32> -> tensor<4x2xf32>
  return %a, %b, %c, %d : tensor<4x8xf32>, tensor<4x3xf32>, tensor<4x5xf32>, tensor<4x2xf32>
}

// -----

// slice of slice is one slice.
// CHECK-LABEL: func @slice_slice
// CHECK-SAME: (%[[X:.+]]: tensor<8x8xf32>)
// CHECK: %[[S:.+]] = kiln.slice %[[X]], offsets = [3, 5], sizes = [2, 2]
// CHECK-NEXT: return %[[S]]
func.func @slice_slice(%x: tensor<8x8xf32>) -> tensor<2x2xf32> {
  %a = kiln.slice %x, offsets = [2, 4], sizes = [4, 4] : tensor<8x8xf32> -> tensor<4x4xf32>
  %b = kiln.slice %a, offsets = [1, 1], sizes = [2, 2] : tensor<4x4xf32> -> tensor<2x2xf32>
  return %b : tensor<2x2xf32>
}

// -----

// A concat of a single operand is the operand.
// CHECK-LABEL: func @concat_single
// CHECK-SAME: (%[[X:.+]]: tensor<4x8xf32>)
// CHECK-NOT: kiln.concat
// CHECK: return %[[X]]
func.func @concat_single(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %k = kiln.concat %x dim = 0 : tensor<4x8xf32> -> tensor<4x8xf32>
  return %k : tensor<4x8xf32>
}

// -----

// A reduction over no dims is the operand.
// CHECK-LABEL: func @reduce_no_dims
// CHECK-SAME: (%[[X:.+]]: tensor<4x8xf32>)
// CHECK-NOT: kiln.reduce
// CHECK: return %[[X]], %[[X]]
func.func @reduce_no_dims(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %s = kiln.reduce_sum %x, dims = [] : tensor<4x8xf32> -> tensor<4x8xf32>
  %m = kiln.reduce_max %x, dims = [] : tensor<4x8xf32> -> tensor<4x8xf32>
  return %s, %m : tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// CSE merges identical pure ops.
// CHECK-LABEL: func @cse
// CHECK: %[[T:.+]] = kiln.tanh
// CHECK-NOT: kiln.tanh
// CHECK: return %[[T]], %[[T]]
func.func @cse(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %a = kiln.tanh %x : tensor<4xf32>
  %b = kiln.tanh %x : tensor<4xf32>
  return %a, %b : tensor<4xf32>, tensor<4xf32>
}

// -----

// broadcast of broadcast composes with a dynamic result too: the result's
// dynamic dims are the outer broadcast's sizes.
// CHECK-LABEL: func @broadcast_broadcast_dynamic
// CHECK-SAME: (%[[B:.+]]: tensor<8xf32>, %[[N:.+]]: index)
// CHECK: %[[C:.+]] = kiln.broadcast_in_dim %[[B]] sizes(%[[N]]), dims = [1] : tensor<8xf32> -> tensor<?x8xf32>
// CHECK: return %[[C]]
func.func @broadcast_broadcast_dynamic(%b: tensor<8xf32>, %n: index) -> tensor<?x8xf32> {
  %a = kiln.broadcast_in_dim %b, dims = [1] : tensor<8xf32> -> tensor<5x8xf32>
  %c = kiln.broadcast_in_dim %a sizes(%n), dims = [0, 1] : tensor<5x8xf32> -> tensor<?x8xf32>
  return %c : tensor<?x8xf32>
}

// -----

// Reductions of stored tensors (here: arguments), summed: one reduction of
// their sum, along a whole chain (a bias gradient summed over steps).
// CHECK-LABEL: func @sum_of_reductions
// CHECK-SAME: (%[[A:.+]]: tensor<4x8xf32>, %[[B:.+]]: tensor<4x8xf32>, %[[C:.+]]: tensor<4x8xf32>)
// CHECK: %[[AB:.+]] = kiln.add %[[A]], %[[B]] : tensor<4x8xf32>
// CHECK: %[[ABC:.+]] = kiln.add %[[AB]], %[[C]] : tensor<4x8xf32>
// CHECK: %[[R:.+]] = kiln.reduce_sum %[[ABC]], dims = [0]
// CHECK-NOT: kiln.reduce_sum
// CHECK: return %[[R]]
func.func @sum_of_reductions(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>, %c: tensor<4x8xf32>) -> tensor<8xf32> {
  %ra = kiln.reduce_sum %a, dims = [0] : tensor<4x8xf32> -> tensor<8xf32>
  %rb = kiln.reduce_sum %b, dims = [0] : tensor<4x8xf32> -> tensor<8xf32>
  %rc = kiln.reduce_sum %c, dims = [0] : tensor<4x8xf32> -> tensor<8xf32>
  %s = kiln.add %ra, %rb : tensor<8xf32>
  %t = kiln.add %s, %rc : tensor<8xf32>
  return %t : tensor<8xf32>
}

// -----

// A reduction that is an epilogue of the only computation of its operand
// stays: summing first would store the operands for the sum alone.
// CHECK-LABEL: func @reductions_of_unstored
// CHECK-COUNT-2: kiln.reduce_sum
// CHECK: kiln.add %{{.+}}, %{{.+}} : tensor<8xf32>
func.func @reductions_of_unstored(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>) -> tensor<8xf32> {
  %ea = kiln.exp %a : tensor<4x8xf32>
  %eb = kiln.exp %b : tensor<4x8xf32>
  %ra = kiln.reduce_sum %ea, dims = [0] : tensor<4x8xf32> -> tensor<8xf32>
  %rb = kiln.reduce_sum %eb, dims = [0] : tensor<4x8xf32> -> tensor<8xf32>
  %s = kiln.add %ra, %rb : tensor<8xf32>
  return %s : tensor<8xf32>
}

// -----

// Different reduced dims, or operand types: left alone.
// CHECK-LABEL: func @different_reductions
// CHECK-COUNT-2: kiln.reduce_sum
func.func @different_reductions(%a: tensor<8x8xf32>, %b: tensor<8x8xf32>) -> tensor<8xf32> {
  %ra = kiln.reduce_sum %a, dims = [0] : tensor<8x8xf32> -> tensor<8xf32>
  %rb = kiln.reduce_sum %b, dims = [1] : tensor<8x8xf32> -> tensor<8xf32>
  %s = kiln.add %ra, %rb : tensor<8xf32>
  return %s : tensor<8xf32>
}
