// Every verifier rule of the kiln dialect, one case each.
// RUN: kiln-opt %s -split-input-file -verify-diagnostics

// Element types: add, sub, mul, max and min take floats and i32/i64, not i1.
func.func @add_i1(%a: tensor<4xi1>) -> tensor<4xi1> {
  // expected-error @+1 {{operand #0 must be ranked tensor of 32-bit float or 64-bit float or 16-bit float or bfloat16 type or 32-bit signless integer or 64-bit signless integer values, but got 'tensor<4xi1>'}}
  %0 = kiln.add %a, %a : tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

// Element types: float-only math refuses integers.
func.func @exp_i32(%a: tensor<4xi32>) -> tensor<4xi32> {
  // expected-error @+1 {{operand #0 must be ranked tensor of 32-bit float or 64-bit float or 16-bit float or bfloat16 type values, but got 'tensor<4xi32>'}}
  %0 = kiln.exp %a : tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

// Element types: div is float-only.
func.func @div_i64(%a: tensor<4xi64>) -> tensor<4xi64> {
  // expected-error @+1 {{operand #0 must be ranked tensor of 32-bit float or 64-bit float or 16-bit float or bfloat16 type values, but got 'tensor<4xi64>'}}
  %0 = kiln.div %a, %a : tensor<4xi64>
  return %0 : tensor<4xi64>
}

// -----

// Element types: unary ops reject i1.
func.func @exp_i1(%a: tensor<4xi1>) -> tensor<4xi1> {
  // expected-error @+1 {{operand #0 must be ranked tensor of 32-bit float or 64-bit float or 16-bit float or bfloat16 type values, but got 'tensor<4xi1>'}}
  %0 = kiln.exp %a : tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

// Types: unranked tensors are rejected.
func.func @neg_unranked(%a: tensor<*xf32>) -> tensor<*xf32> {
  // expected-error @+1 {{operand #0 must be ranked tensor of 32-bit float or 64-bit float or 16-bit float or bfloat16 type or 32-bit signless integer or 64-bit signless integer values, but got 'tensor<*xf32>'}}
  %0 = "kiln.neg"(%a) : (tensor<*xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

// Element types: the select predicate is i1.
func.func @select_f32_pred(%p: tensor<4xf32>, %a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{operand #0 must be ranked tensor of 1-bit signless integer values, but got 'tensor<4xf32>'}}
  %0 = kiln.select %p, %a, %a : tensor<4xf32>, tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Element types: constants are f32/f64/f16/bf16/i1/i32/i64.
func.func @constant_i16() -> tensor<4xi16> {
  // expected-error @+1 {{result #0 must be ranked tensor of 32-bit float or 64-bit float or 16-bit float or bfloat16 type or 1-bit signless integer or 32-bit signless integer or 64-bit signless integer values, but got 'tensor<4xi16>'}}
  %0 = kiln.constant dense<1> : tensor<4xi16>
  return %0 : tensor<4xi16>
}

// -----

// Element types: convert cannot produce i8.
func.func @convert_i8(%a: tensor<4xf32>) -> tensor<4xi8> {
  // expected-error @+1 {{result #0 must be ranked tensor of 32-bit float or 64-bit float or 16-bit float or bfloat16 type or 1-bit signless integer or 32-bit signless integer or 64-bit signless integer values, but got 'tensor<4xi8>'}}
  %0 = kiln.convert %a : tensor<4xf32> -> tensor<4xi8>
  return %0 : tensor<4xi8>
}

// -----

// Element types: cmp compares floats only.
func.func @cmp_i1(%a: tensor<4xi1>) -> tensor<4xi1> {
  // expected-error @+1 {{'lhs' must be ranked tensor of 32-bit float or 64-bit float or 16-bit float or bfloat16 type or 32-bit signless integer or 64-bit signless integer values, but got 'tensor<4xi1>'}}
  %0 = kiln.cmp eq, %a, %a : tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

// Element types: cmp produces i1.
func.func @cmp_result_f32(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{result #0 must be ranked tensor of 1-bit signless integer values, but got 'tensor<4xf32>'}}
  %0 = "kiln.cmp"(%a, %a) <{predicate = #kiln<predicate eq>}> : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Element types: reductions take floats and i32/i64, not i1.
func.func @reduce_i1(%a: tensor<4xi1>) -> tensor<i1> {
  // expected-error @+1 {{operand #0 must be ranked tensor of 32-bit float or 64-bit float or 16-bit float or bfloat16 type or 32-bit signless integer or 64-bit signless integer values, but got 'tensor<4xi1>'}}
  %0 = kiln.reduce_sum %a, dims = [0] : tensor<4xi1> -> tensor<i1>
  return %0 : tensor<i1>
}

// -----

// Element types: matmul rejects f8.
func.func @matmul_f8(%a: tensor<4x4xf8E4M3FN>) -> tensor<4x4xf8E4M3FN> {
  // expected-error @+1 {{operand #0 must be ranked tensor of 32-bit float or 64-bit float or 16-bit float or bfloat16 type values, but got 'tensor<4x4xf8E4M3FN>'}}
  %0 = kiln.matmul %a, %a : tensor<4x4xf8E4M3FN>, tensor<4x4xf8E4M3FN> -> tensor<4x4xf8E4M3FN>
  return %0 : tensor<4x4xf8E4M3FN>
}

// -----

// Binary ops: operands of different element types.
func.func @add_elt(%a: tensor<4xf32>, %b: tensor<4xf16>) -> tensor<4xf32> {
  // expected-error @+1 {{requires the same type for all operands and results}}
  %0 = "kiln.add"(%a, %b) : (tensor<4xf32>, tensor<4xf16>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Binary ops: operands of different shapes (no implicit broadcasting); the
// error names both and the fix.
func.func @sub_shape(%a: tensor<4xf32>, %b: tensor<8xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'kiln.sub' op operands #0 and #1 have different shapes, 'tensor<4xf32>' and 'tensor<8xf32>': elementwise ops never broadcast; make them one shape with kiln.broadcast_in_dim}}
  %0 = "kiln.sub"(%a, %b) : (tensor<4xf32>, tensor<8xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Binary ops: result type differs from the operands'.
func.func @mul_result(%a: tensor<4xf32>) -> tensor<4xf64> {
  // expected-error @+1 {{requires the same type for all operands and results}}
  %0 = "kiln.mul"(%a, %a) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf64>
  return %0 : tensor<4xf64>
}

// -----

// Unary ops: the result type is the operand type.
func.func @exp_result(%a: tensor<4xf32>) -> tensor<?xf32> {
  // expected-error @+2 {{inferred type(s) 'tensor<4xf32>' are incompatible with return type(s) of operation 'tensor<?xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = "kiln.exp"(%a) : (tensor<4xf32>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

// Constant: the value's type is the result type.
func.func @constant_type() -> tensor<8xf32> {
  // expected-error @+1 {{value type 'tensor<4xf32>' does not match result type 'tensor<8xf32>'}}
  %0 = "kiln.constant"() <{value = dense<1.0> : tensor<4xf32>}> : () -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

// Cmp: operands of different shapes.
func.func @cmp_operands(%a: tensor<4xf32>, %b: tensor<8xf32>) -> tensor<4xi1> {
  // expected-error @+1 {{operands #0 and #1 have different shapes, 'tensor<4xf32>' and 'tensor<8xf32>': elementwise ops never broadcast; make them one shape with kiln.broadcast_in_dim}}
  %0 = "kiln.cmp"(%a, %b) <{predicate = #kiln<predicate lt>}> : (tensor<4xf32>, tensor<8xf32>) -> tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

// Cmp: result shape differs from the operands'.
func.func @cmp_result_shape(%a: tensor<4xf32>) -> tensor<8xi1> {
  // expected-error @+1 {{result #0 has shape 'tensor<8xi1>', but the operands have 'tensor<4xf32>': elementwise ops keep their operands' shape}}
  %0 = "kiln.cmp"(%a, %a) <{predicate = #kiln<predicate lt>}> : (tensor<4xf32>, tensor<4xf32>) -> tensor<8xi1>
  return %0 : tensor<8xi1>
}

// -----

// Cmp: unknown predicate.
func.func @cmp_predicate(%a: tensor<4xf32>) -> tensor<4xi1> {
  // expected-error @+2 {{expected ::kiln::CmpPredicate to be one of: eq, ne, lt, le, gt, ge}}
  // expected-error @+1 {{failed to parse Kiln_CmpPredicateAttr parameter}}
  %0 = kiln.cmp foo, %a, %a : tensor<4xf32>
  return %0 : tensor<4xi1>
}

// -----

// Select: predicate shape differs from the result's.
func.func @select_pred_shape(%p: tensor<8xi1>, %a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{operands #0 and #1 have different shapes, 'tensor<8xi1>' and 'tensor<4xf32>'}}
  %0 = kiln.select %p, %a, %a : tensor<8xi1>, tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Select: the two values have different types.
func.func @select_values(%p: tensor<4xi1>, %a: tensor<4xf32>, %b: tensor<4xf16>) -> tensor<4xf32> {
  // expected-error @+1 {{failed to verify that result and on_false have one element type}}
  %0 = "kiln.select"(%p, %a, %b) : (tensor<4xi1>, tensor<4xf32>, tensor<4xf16>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Convert: the shape must not change.
func.func @convert_shape(%a: tensor<4x8xf32>) -> tensor<32xbf16> {
  // expected-error @+1 {{result #0 has shape 'tensor<32xbf16>', but the operands have 'tensor<4x8xf32>'}}
  %0 = kiln.convert %a : tensor<4x8xf32> -> tensor<32xbf16>
  return %0 : tensor<32xbf16>
}

// -----

// Broadcast_in_dim: one dims entry per operand dim.
func.func @bcast_dims_size(%a: tensor<8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{dims has 2 entries but the operand has rank 1}}
  %0 = kiln.broadcast_in_dim %a, dims = [0, 1] : tensor<8xf32> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// Broadcast_in_dim: one size per dynamic result dim.
func.func @bcast_missing_size(%a: tensor<8xf32>) -> tensor<?x8xf32> {
  // expected-error @+1 {{has 0 sizes but the result 'tensor<?x8xf32>' has 1 dynamic dims}}
  %0 = kiln.broadcast_in_dim %a, dims = [1] : tensor<8xf32> -> tensor<?x8xf32>
  return %0 : tensor<?x8xf32>
}

// -----

func.func @bcast_extra_size(%a: tensor<8xf32>, %n: index) -> tensor<4x8xf32> {
  // expected-error @+1 {{has 1 sizes but the result 'tensor<4x8xf32>' has 0 dynamic dims}}
  %0 = kiln.broadcast_in_dim %a sizes(%n), dims = [1] : tensor<8xf32> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// Broadcast_in_dim: a dynamic operand dim is never broadcast.
func.func @bcast_dynamic_to_static(%a: tensor<?xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{dynamic operand dim 0 maps to static result dim 1: a dynamic dim is never broadcast}}
  %0 = kiln.broadcast_in_dim %a, dims = [1] : tensor<?xf32> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// Broadcast_in_dim: dims entry past the result rank.
func.func @bcast_range(%a: tensor<8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{dim 2 is out of range for result rank 2}}
  %0 = kiln.broadcast_in_dim %a, dims = [2] : tensor<8xf32> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// Broadcast_in_dim: negative dims entry.
func.func @bcast_negative(%a: tensor<8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{dim -1 is out of range for result rank 2}}
  %0 = kiln.broadcast_in_dim %a, dims = [-1] : tensor<8xf32> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// Broadcast_in_dim: dims decreasing.
func.func @bcast_order(%a: tensor<1x1xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{dims must be strictly increasing}}
  %0 = kiln.broadcast_in_dim %a, dims = [1, 0] : tensor<1x1xf32> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// Broadcast_in_dim: dims repeated.
func.func @bcast_duplicate(%a: tensor<1x1xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{dims must be strictly increasing}}
  %0 = kiln.broadcast_in_dim %a, dims = [1, 1] : tensor<1x1xf32> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// Broadcast_in_dim: an operand size other than 1 must equal the result size.
func.func @bcast_size(%a: tensor<3xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{operand dim 0 of size 3 cannot broadcast to result dim 1 of size 8}}
  %0 = kiln.broadcast_in_dim %a, dims = [1] : tensor<3xf32> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// Broadcast_in_dim: the element type must not change.
func.func @bcast_element_type(%a: tensor<8xf32>) -> tensor<4x8xf16> {
  // expected-error @+1 {{operand and result element types differ}}
  %0 = kiln.broadcast_in_dim %a, dims = [1] : tensor<8xf32> -> tensor<4x8xf16>
  return %0 : tensor<4x8xf16>
}

// -----

// Reshape: the element count must not change.
func.func @reshape_count(%a: tensor<4x8xf32>) -> tensor<30xf32> {
  // expected-error @+1 {{operand has 32 elements but the result has 30}}
  %0 = kiln.reshape %a : tensor<4x8xf32> -> tensor<30xf32>
  return %0 : tensor<30xf32>
}

// -----

// Reshape: the element type must not change.
func.func @reshape_element_type(%a: tensor<4x8xf32>) -> tensor<32xf64> {
  // expected-error @+1 {{operand and result element types differ}}
  %0 = kiln.reshape %a : tensor<4x8xf32> -> tensor<32xf64>
  return %0 : tensor<32xf64>
}

// -----

// Transpose: one perm entry per operand dim.
func.func @transpose_length(%a: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+2 {{perm has 1 entries but the operand has rank 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.transpose %a, perm = [0] : tensor<4x8xf32> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// Transpose: perm with a repeated entry.
func.func @transpose_duplicate(%a: tensor<4x8xf32>) -> tensor<4x4xf32> {
  // expected-error @+2 {{perm is not a permutation of [0, 2)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.transpose %a, perm = [0, 0] : tensor<4x8xf32> -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}

// -----

// Transpose: perm with an out-of-range entry.
func.func @transpose_range(%a: tensor<4x8xf32>) -> tensor<8x4xf32> {
  // expected-error @+2 {{perm is not a permutation of [0, 2)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.transpose %a, perm = [2, 0] : tensor<4x8xf32> -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}

// -----

// Transpose: result shape is not the permuted operand shape.
func.func @transpose_result(%a: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+2 {{inferred type(s) 'tensor<8x4xf32>' are incompatible with return type(s) of operation 'tensor<4x8xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.transpose %a, perm = [1, 0] : tensor<4x8xf32> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// Transpose: result element type differs.
func.func @transpose_element_type(%a: tensor<4x8xf32>) -> tensor<8x4xf16> {
  // expected-error @+2 {{inferred type(s) 'tensor<8x4xf32>' are incompatible with return type(s) of operation 'tensor<8x4xf16>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.transpose %a, perm = [1, 0] : tensor<4x8xf32> -> tensor<8x4xf16>
  return %0 : tensor<8x4xf16>
}

// -----

// Slice: too few offsets.
func.func @slice_offsets(%a: tensor<4x32xf32>) -> tensor<4x8xf32> {
  // expected-error @+2 {{offsets and sizes need 2 entries, one per operand dim}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.slice %a, offsets = [0], sizes = [4, 8] : tensor<4x32xf32> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// Slice: too many sizes.
func.func @slice_sizes(%a: tensor<4x32xf32>) -> tensor<4x8xf32> {
  // expected-error @+2 {{offsets and sizes need 2 entries, one per operand dim}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.slice %a, offsets = [0, 0], sizes = [4, 8, 1] : tensor<4x32xf32> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// Slice: negative offset.
func.func @slice_negative_offset(%a: tensor<4x32xf32>) -> tensor<4x8xf32> {
  // expected-error @+2 {{slice dim 1 has a negative offset or size}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.slice %a, offsets = [0, -1], sizes = [4, 8] : tensor<4x32xf32> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// Slice: negative size.
func.func @slice_negative_size(%a: tensor<4x32xf32>) -> tensor<4x8xf32> {
  // expected-error @+2 {{slice dim 0 has a negative offset or size}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.slice %a, offsets = [0, 0], sizes = [-4, 8] : tensor<4x32xf32> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// Slice: past the end of the operand.
func.func @slice_out_of_bounds(%a: tensor<4x32xf32>) -> tensor<4x16xf32> {
  // expected-error @+2 {{slice dim 1 at offset 24 of size 16 is out of bounds for size 32}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.slice %a, offsets = [0, 24], sizes = [4, 16] : tensor<4x32xf32> -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// -----

// Slice: far past the end, where offset + size overflows int64.
func.func @slice_out_of_bounds_overflow(%a: tensor<4xf32>) -> tensor<1xf32> {
  // expected-error @+2 {{is out of bounds for size 4}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.slice %a, offsets = [9223372036854775807], sizes = [1] : tensor<4xf32> -> tensor<1xf32>
  return %0 : tensor<1xf32>
}

// -----

// Slice: result shape is not `sizes`.
func.func @slice_result(%a: tensor<4x32xf32>) -> tensor<4x16xf32> {
  // expected-error @+2 {{inferred type(s) 'tensor<4x8xf32>' are incompatible with return type(s) of operation 'tensor<4x16xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.slice %a, offsets = [0, 8], sizes = [4, 8] : tensor<4x32xf32> -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// -----

// Concat: operands of different ranks.
func.func @concat_rank(%a: tensor<4x8xf32>, %b: tensor<4xf32>) -> tensor<4x12xf32> {
  // expected-error @+2 {{operand 1 differs from operand 0 in rank or element type}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.concat %a, %b dim = 1 : tensor<4x8xf32>, tensor<4xf32> -> tensor<4x12xf32>
  return %0 : tensor<4x12xf32>
}

// -----

// Concat: operands of different element types.
func.func @concat_element_type(%a: tensor<4x8xf32>, %b: tensor<4x4xf16>) -> tensor<4x12xf32> {
  // expected-error @+2 {{operand 1 differs from operand 0 in rank or element type}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.concat %a, %b dim = 1 : tensor<4x8xf32>, tensor<4x4xf16> -> tensor<4x12xf32>
  return %0 : tensor<4x12xf32>
}

// -----

// Concat: operands differ in a dim other than `dim`.
func.func @concat_other_dim(%a: tensor<4x8xf32>, %b: tensor<4x3xf32>, %c: tensor<5x4xf32>) -> tensor<4x15xf32> {
  // expected-error @+2 {{operand 2 has size 5 in dim 0 but operand 0 has 4}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.concat %a, %b, %c dim = 1 : tensor<4x8xf32>, tensor<4x3xf32>, tensor<5x4xf32> -> tensor<4x15xf32>
  return %0 : tensor<4x15xf32>
}

// -----

// Concat: `dim` past the rank.
func.func @concat_dim_range(%a: tensor<4x8xf32>) -> tensor<4x16xf32> {
  // expected-error @+2 {{dim 2 is out of range for rank 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.concat %a, %a dim = 2 : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// -----

// Concat: negative `dim`.
func.func @concat_dim_negative(%a: tensor<4x8xf32>) -> tensor<4x16xf32> {
  // expected-error @+2 {{dim -1 is out of range for rank 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.concat %a, %a dim = -1 : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// -----

// Concat: result size along `dim` is not the sum.
func.func @concat_result(%a: tensor<4x8xf32>, %b: tensor<4x3xf32>) -> tensor<4x12xf32> {
  // expected-error @+2 {{inferred type(s) 'tensor<4x11xf32>' are incompatible with return type(s) of operation 'tensor<4x12xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.concat %a, %b dim = 1 : tensor<4x8xf32>, tensor<4x3xf32> -> tensor<4x12xf32>
  return %0 : tensor<4x12xf32>
}

// -----

// Concat: no operands.
func.func @concat_none() -> tensor<0xf32> {
  // expected-error @+2 {{expects at least one operand}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = "kiln.concat"() <{dim = 0 : i64}> : () -> tensor<0xf32>
  return %0 : tensor<0xf32>
}

// -----

// Reduce: dims not sorted.
func.func @reduce_unsorted(%a: tensor<4x8xf32>) -> tensor<f32> {
  // expected-error @+2 {{reduction dim must be sorted and unique, got [1, 0]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.reduce_sum %a, dims = [1, 0] : tensor<4x8xf32> -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

// Reduce: dims repeated.
func.func @reduce_duplicate(%a: tensor<4x8xf32>) -> tensor<8xf32> {
  // expected-error @+2 {{reduction dim must be sorted and unique, got [0, 0]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.reduce_max %a, dims = [0, 0] : tensor<4x8xf32> -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

// Reduce: dim past the rank.
func.func @reduce_range(%a: tensor<4x8xf32>) -> tensor<4xf32> {
  // expected-error @+2 {{reduction dim 2 is out of range for rank 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.reduce_sum %a, dims = [2] : tensor<4x8xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Reduce: negative dim.
func.func @reduce_negative(%a: tensor<4x8xf32>) -> tensor<4xf32> {
  // expected-error @+2 {{reduction dim -1 is out of range for rank 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.reduce_max %a, dims = [-1] : tensor<4x8xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Reduce: the reduced dim is removed, not kept as size 1.
func.func @reduce_sum_result(%a: tensor<4x8xf32>) -> tensor<4x1xf32> {
  // expected-error @+2 {{inferred type(s) 'tensor<4xf32>' are incompatible with return type(s) of operation 'tensor<4x1xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.reduce_sum %a, dims = [1] : tensor<4x8xf32> -> tensor<4x1xf32>
  return %0 : tensor<4x1xf32>
}

// -----

// Reduce: the wrong dim removed.
func.func @reduce_max_result(%a: tensor<4x8xf32>) -> tensor<8xf32> {
  // expected-error @+2 {{inferred type(s) 'tensor<4xf32>' are incompatible with return type(s) of operation 'tensor<8xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.reduce_max %a, dims = [1] : tensor<4x8xf32> -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

// Matmul: rank-1 operands.
func.func @matmul_rank1(%a: tensor<8xf32>) -> tensor<f32> {
  // expected-error @+2 {{expects two 2-D or two 3-D operands, got 'tensor<8xf32>' and 'tensor<8xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.matmul %a, %a : tensor<8xf32>, tensor<8xf32> -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

// Matmul: rank-4 operands.
func.func @matmul_rank4(%a: tensor<2x2x4x4xf32>) -> tensor<2x2x4x4xf32> {
  // expected-error @+2 {{expects two 2-D or two 3-D operands, got 'tensor<2x2x4x4xf32>' and 'tensor<2x2x4x4xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.matmul %a, %a : tensor<2x2x4x4xf32>, tensor<2x2x4x4xf32> -> tensor<2x2x4x4xf32>
  return %0 : tensor<2x2x4x4xf32>
}

// -----

// Matmul: a 2-D and a 3-D operand.
func.func @matmul_rank_mismatch(%a: tensor<4x8xf32>, %b: tensor<2x8x4xf32>) -> tensor<2x4x4xf32> {
  // expected-error @+2 {{expects two 2-D or two 3-D operands, got 'tensor<4x8xf32>' and 'tensor<2x8x4xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.matmul %a, %b : tensor<4x8xf32>, tensor<2x8x4xf32> -> tensor<2x4x4xf32>
  return %0 : tensor<2x4x4xf32>
}

// -----

// Matmul: contraction sizes differ.
func.func @matmul_k(%a: tensor<4x8xf32>, %b: tensor<4x16xf32>) -> tensor<4x16xf32> {
  // expected-error @+2 {{contraction sizes differ: 8 vs 4}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.matmul %a, %b : tensor<4x8xf32>, tensor<4x16xf32> -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// -----

// Matmul: contraction sizes differ after transpose_a.
func.func @matmul_k_transpose_a(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>) -> tensor<8x16xf32> {
  // expected-error @+2 {{contraction sizes differ: 4 vs 8}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.matmul %a, %b {transpose_a = true} : tensor<4x8xf32>, tensor<8x16xf32> -> tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}

// -----

// Matmul: contraction sizes differ after transpose_b.
func.func @matmul_k_transpose_b(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>) -> tensor<4x8xf32> {
  // expected-error @+2 {{contraction sizes differ: 8 vs 16}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.matmul %a, %b {transpose_b = true} : tensor<4x8xf32>, tensor<8x16xf32> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// Matmul: contraction sizes differ after both transposes (batched).
func.func @matmul_k_transpose_ab(%a: tensor<2x8x4xf32>, %b: tensor<2x8x16xf32>) -> tensor<2x4x8xf32> {
  // expected-error @+2 {{contraction sizes differ: 8 vs 16}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.matmul %a, %b {transpose_a = true, transpose_b = true} : tensor<2x8x4xf32>, tensor<2x8x16xf32> -> tensor<2x4x8xf32>
  return %0 : tensor<2x4x8xf32>
}

// -----

// Matmul: batch sizes differ.
func.func @matmul_batch(%a: tensor<2x4x8xf32>, %b: tensor<3x8x16xf32>) -> tensor<2x4x16xf32> {
  // expected-error @+2 {{batch sizes differ: 2 vs 3}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.matmul %a, %b : tensor<2x4x8xf32>, tensor<3x8x16xf32> -> tensor<2x4x16xf32>
  return %0 : tensor<2x4x16xf32>
}

// -----

// Matmul: operand element types differ.
func.func @matmul_element_type(%a: tensor<4x8xf32>, %b: tensor<8x16xf16>) -> tensor<4x16xf32> {
  // expected-error @+2 {{operand element types differ: 'f32' vs 'f16'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.matmul %a, %b : tensor<4x8xf32>, tensor<8x16xf16> -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// -----

// Matmul: wrong result shape.
func.func @matmul_result(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>) -> tensor<4x8xf32> {
  // expected-error @+2 {{inferred type(s) 'tensor<4x16xf32>' are incompatible with return type(s) of operation 'tensor<4x8xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.matmul %a, %b : tensor<4x8xf32>, tensor<8x16xf32> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// Matmul: result element type differs from the operands'.
func.func @matmul_result_element_type(%a: tensor<4x8xf16>, %b: tensor<8x16xf16>) -> tensor<4x16xf32> {
  // expected-error @+2 {{inferred type(s) 'tensor<4x16xf16>' are incompatible with return type(s) of operation 'tensor<4x16xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.matmul %a, %b : tensor<4x8xf16>, tensor<8x16xf16> -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// -----

// Vjp: unknown callee.
func.func @vjp_unknown(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{callee 'nope' does not name a func.func}}
  %0 = kiln.vjp @nope(%x, %x) wrt [0] : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Vjp: the callee is a symbol but not a func.func.
module @g {
}
func.func @vjp_not_func(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{callee 'g' does not name a func.func}}
  %0 = kiln.vjp @g(%x, %x) wrt [0] : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Vjp: the cotangent is missing.
func.func private @f(tensor<4xf32>, tensor<8xf32>) -> tensor<4xf32>
func.func @vjp_operand_count(%x: tensor<4xf32>, %w: tensor<8xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{expects 2 arguments and 1 cotangents for callee 'f', got 2 operands}}
  %0 = kiln.vjp @f(%x, %w) wrt [0] : (tensor<4xf32>, tensor<8xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Vjp: an argument's type differs from the callee's.
func.func private @f(tensor<4xf32>, tensor<8xf32>) -> tensor<4xf32>
func.func @vjp_argument_type(%x: tensor<4xf32>, %w: tensor<8xf16>) -> tensor<4xf32> {
  // expected-error @+1 {{argument 1 has type 'tensor<8xf16>' but the callee expects 'tensor<8xf32>'}}
  %0 = kiln.vjp @f(%x, %w, %x) wrt [0] : (tensor<4xf32>, tensor<8xf16>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Vjp: a cotangent's type differs from the callee's result.
func.func private @f(tensor<4xf32>, tensor<8xf32>) -> tensor<4xf32>
func.func @vjp_cotangent_type(%x: tensor<4xf32>, %w: tensor<8xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{cotangent 0 has type 'tensor<8xf32>' but the callee expects 'tensor<4xf32>'}}
  %0 = kiln.vjp @f(%x, %w, %w) wrt [0] : (tensor<4xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Vjp: wrt not sorted.
func.func private @f(tensor<4xf32>, tensor<8xf32>) -> tensor<4xf32>
func.func @vjp_wrt_unsorted(%x: tensor<4xf32>, %w: tensor<8xf32>) -> (tensor<8xf32>, tensor<4xf32>) {
  // expected-error @+1 {{wrt indices must be sorted and unique}}
  %0:2 = kiln.vjp @f(%x, %w, %x) wrt [1, 0] : (tensor<4xf32>, tensor<8xf32>, tensor<4xf32>) -> (tensor<8xf32>, tensor<4xf32>)
  return %0#0, %0#1 : tensor<8xf32>, tensor<4xf32>
}

// -----

// Vjp: wrt repeated.
func.func private @f(tensor<4xf32>, tensor<8xf32>) -> tensor<4xf32>
func.func @vjp_wrt_duplicate(%x: tensor<4xf32>, %w: tensor<8xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  // expected-error @+1 {{wrt indices must be sorted and unique}}
  %0:2 = kiln.vjp @f(%x, %w, %x) wrt [0, 0] : (tensor<4xf32>, tensor<8xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
  return %0#0, %0#1 : tensor<4xf32>, tensor<4xf32>
}

// -----

// Vjp: wrt index past the callee's arguments.
func.func private @f(tensor<4xf32>, tensor<8xf32>) -> tensor<4xf32>
func.func @vjp_wrt_range(%x: tensor<4xf32>, %w: tensor<8xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{wrt index 2 is out of range}}
  %0 = kiln.vjp @f(%x, %w, %x) wrt [2] : (tensor<4xf32>, tensor<8xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Vjp: negative wrt index.
func.func private @f(tensor<4xf32>, tensor<8xf32>) -> tensor<4xf32>
func.func @vjp_wrt_negative(%x: tensor<4xf32>, %w: tensor<8xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{wrt index -1 is out of range}}
  %0 = kiln.vjp @f(%x, %w, %x) wrt [-1] : (tensor<4xf32>, tensor<8xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Vjp: one result per wrt index.
func.func private @f(tensor<4xf32>, tensor<8xf32>) -> tensor<4xf32>
func.func @vjp_result_count(%x: tensor<4xf32>, %w: tensor<8xf32>) -> (tensor<4xf32>, tensor<8xf32>) {
  // expected-error @+1 {{expects one result per wrt index (1), got 2}}
  %0:2 = kiln.vjp @f(%x, %w, %x) wrt [0] : (tensor<4xf32>, tensor<8xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<8xf32>)
  return %0#0, %0#1 : tensor<4xf32>, tensor<8xf32>
}

// -----

// Vjp: a gradient is typed like its argument.
func.func private @f(tensor<4xf32>, tensor<8xf32>) -> tensor<4xf32>
func.func @vjp_result_type(%x: tensor<4xf32>, %w: tensor<8xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{gradient for argument 1 has type 'tensor<4xf32>' but the argument has type 'tensor<8xf32>'}}
  %0 = kiln.vjp @f(%x, %w, %x) wrt [1] : (tensor<4xf32>, tensor<8xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Vjp: no gradient with respect to an i1 argument.
func.func private @f(tensor<4xi1>, tensor<4xf32>) -> tensor<4xf32>
func.func @vjp_wrt_i1(%p: tensor<4xi1>, %x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{cannot differentiate with respect to argument 0 of non-float type 'tensor<4xi1>'}}
  %0 = kiln.vjp @f(%p, %x, %x) wrt [0] : (tensor<4xi1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Vjp: gradients are float tensors.
func.func private @f(tensor<4xi1>, tensor<4xf32>) -> tensor<4xf32>
func.func @vjp_i1_gradient(%p: tensor<4xi1>, %x: tensor<4xf32>) -> tensor<4xi1> {
  // expected-error @+1 {{result #0 must be variadic of ranked tensor of 32-bit float or 64-bit float or 16-bit float or bfloat16 type values, but got 'tensor<4xi1>'}}
  %0 = kiln.vjp @f(%p, %x, %x) wrt [0] : (tensor<4xi1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

// Fusion_group: one block argument per input.
func.func @fusion_arg_count(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{body has 1 arguments but the group has 2 inputs}}
  %0 = kiln.fusion_group %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%x: tensor<4xf32>):
    kiln.yield %x : tensor<4xf32>
  }
  return %0 : tensor<4xf32>
}

// -----

// Fusion_group: block arguments are typed like the inputs.
func.func @fusion_arg_type(%a: tensor<4xf32>) -> tensor<4xf16> {
  // expected-error @+1 {{body argument 0 has type 'tensor<4xf16>' but input 0 has type 'tensor<4xf32>'}}
  %0 = kiln.fusion_group %a : (tensor<4xf32>) -> tensor<4xf16> {
  ^bb0(%x: tensor<4xf16>):
    kiln.yield %x : tensor<4xf16>
  }
  return %0 : tensor<4xf16>
}

// -----

// Fusion_group: yielded types are the result types.
func.func @fusion_yield_type(%a: tensor<4xf32>) -> tensor<4xf16> {
  // expected-error @+1 {{yielded types do not match the group's result types}}
  %0 = kiln.fusion_group %a : (tensor<4xf32>) -> tensor<4xf16> {
  ^bb0(%x: tensor<4xf32>):
    kiln.yield %x : tensor<4xf32>
  }
  return %0 : tensor<4xf16>
}

// -----

// Fusion_group: one yielded value per result.
func.func @fusion_yield_count(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{yielded types do not match the group's result types}}
  %0 = kiln.fusion_group %a : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%x: tensor<4xf32>):
    kiln.yield %x, %x : tensor<4xf32>, tensor<4xf32>
  }
  return %0 : tensor<4xf32>
}

// -----

// Fusion_group: the body ends in kiln.yield.
func.func @fusion_no_yield(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{body must end in kiln.yield}}
  %0 = kiln.fusion_group %a : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%x: tensor<4xf32>):
    %1 = kiln.neg %x : tensor<4xf32>
  }
  return %0 : tensor<4xf32>
}

// -----

// Fusion_group: exactly one block.
func.func @fusion_two_blocks(%a: tensor<4xf32>) {
  // expected-error @+1 {{expects region #0 to have 0 or 1 blocks}}
  "kiln.fusion_group"(%a) ({
  ^bb0(%x: tensor<4xf32>):
    "kiln.yield"() : () -> ()
  ^bb1:
    "kiln.yield"() : () -> ()
  }) : (tensor<4xf32>) -> ()
  return
}

// -----

// Fusion_group: isolated from above.
func.func @fusion_isolated(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-note @+1 {{required by region isolation constraints}}
  %0 = kiln.fusion_group %a : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%x: tensor<4xf32>):
    // expected-error @+1 {{using value defined outside the region}}
    %1 = kiln.add %x, %a : tensor<4xf32>
    kiln.yield %1 : tensor<4xf32>
  }
  return %0 : tensor<4xf32>
}

// -----

// Yield: only inside kiln.fusion_group.
func.func @yield_outside(%a: tensor<4xf32>) {
  // expected-error @+1 {{expects parent op 'kiln.fusion_group'}}
  kiln.yield %a : tensor<4xf32>
}

// -----

// kiln.gelu's `approximate` is a bool.
func.func @gelu_approximate_not_bool(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{invalid properties {approximate = 1 : i32} for op kiln.gelu: Invalid attribute `approximate` in property conversion: 1 : i32}}
  %0 = "kiln.gelu"(%a) <{approximate = 1 : i32}> : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// kiln.erf takes floats only.
func.func @erf_i1(%a: tensor<4xi1>) -> tensor<4xi1> {
  // expected-error @+1 {{operand #0 must be ranked tensor of 32-bit float or 64-bit float or 16-bit float or bfloat16 type values, but got 'tensor<4xi1>'}}
  %0 = kiln.erf %a : tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

// Cmp: operands of different element types.
func.func @cmp_element_types(%a: tensor<4xf32>, %b: tensor<4xf64>) -> tensor<4xi1> {
  // expected-error @+1 {{failed to verify that lhs and rhs have one element type}}
  %0 = "kiln.cmp"(%a, %b) <{predicate = #kiln<predicate lt>}> : (tensor<4xf32>, tensor<4xf64>) -> tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

// Select: values of different shapes.
func.func @select_shapes(%m: tensor<4xi1>, %a: tensor<4xf32>, %b: tensor<8xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{operands #0 and #2 have different shapes, 'tensor<4xi1>' and 'tensor<8xf32>': elementwise ops never broadcast; make them one shape with kiln.broadcast_in_dim}}
  %0 = "kiln.select"(%m, %a, %b) : (tensor<4xi1>, tensor<4xf32>, tensor<8xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Slice: a dim taken whole (size -1) starts at 0.
func.func @slice_whole_dim_offset(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+2 {{slice dim 0 is taken whole (size -1) but its offset is 1, not 0}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.slice %x, offsets = [1], sizes = [-1] : tensor<4xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Collectives: a group is a communicator handle, never negative.
func.func @all_reduce_bad_group(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{group -1 is not a communicator}}
  %0 = kiln.all_reduce sum, %x group = -1 : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Collectives: all_gather's result is a whole multiple of its operand at dim.
func.func @all_gather_not_multiple(%x: tensor<3x4xf32>) -> tensor<3x6xf32> {
  // expected-error @+1 {{size 6 at dim 1 is not a whole multiple of 4}}
  %0 = kiln.all_gather %x dim = 1 group = 0 : tensor<3x4xf32> -> tensor<3x6xf32>
  return %0 : tensor<3x6xf32>
}

// -----

// Collectives: the other dims are equal.
func.func @all_gather_other_dim(%x: tensor<3x4xf32>) -> tensor<6x8xf32> {
  // expected-error @+1 {{operand and result differ at dim 0, which is not the collective's dim 1}}
  %0 = kiln.all_gather %x dim = 1 group = 0 : tensor<3x4xf32> -> tensor<6x8xf32>
  return %0 : tensor<6x8xf32>
}

// -----

// Collectives: dim is a dim of the operand.
func.func @reduce_scatter_dim(%x: tensor<8xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{dim 1 is out of range for rank 1}}
  %0 = kiln.reduce_scatter sum, %x dim = 1 group = 0 : tensor<8xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Collectives: reduce_scatter's operand is a whole multiple of its result.
func.func @reduce_scatter_not_multiple(%x: tensor<6xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{size 6 at dim 0 is not a whole multiple of 4}}
  %0 = kiln.reduce_scatter mean, %x dim = 0 group = 0 : tensor<6xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Collectives: one element type.
func.func @all_gather_types(%x: tensor<4xf32>) -> tensor<8xf64> {
  // expected-error @+1 {{operand and result element types differ}}
  %0 = kiln.all_gather %x dim = 0 group = 0 : tensor<4xf32> -> tensor<8xf64>
  return %0 : tensor<8xf64>
}

// -----

func.func private @scale(%x: tensor<3xf32>, %n: tensor<3xi64>) -> tensor<3xf32> {
  %f = "kiln.convert"(%n) : (tensor<3xi64>) -> tensor<3xf32>
  %y = "kiln.mul"(%x, %f) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %y : tensor<3xf32>
}

// Integers carry no gradient: wrt may not name an integer argument.
func.func @vjp_wrt_integer(%x: tensor<3xf32>, %n: tensor<3xi64>, %ct: tensor<3xf32>) -> tensor<3xi64> {
  // expected-error @+1 {{result #0 must be variadic of ranked tensor of 32-bit float or 64-bit float or 16-bit float or bfloat16 type values, but got 'tensor<3xi64>'}}
  %g = "kiln.vjp"(%x, %n, %ct) <{callee = @scale, wrt = array<i64: 1>}> : (tensor<3xf32>, tensor<3xi64>, tensor<3xf32>) -> tensor<3xi64>
  return %g : tensor<3xi64>
}

// -----

// take: the result is operand.shape[:dim] + indices.shape + operand.shape[dim+1:].
func.func @take_shape(%w: tensor<65x32xf32>, %ids: tensor<4x16xi64>) -> tensor<4x32xf32> {
  // expected-error @+1 {{result shape [4, 32] should be [4, 16, 32] (operand.shape[:dim] + indices.shape + operand.shape[dim+1:])}}
  %0 = "kiln.take"(%w, %ids) <{dim = 0 : i64}> : (tensor<65x32xf32>, tensor<4x16xi64>) -> tensor<4x32xf32>
  return %0 : tensor<4x32xf32>
}

// -----

// take: indices are i32 or i64.
func.func @take_float_indices(%w: tensor<65x32xf32>, %ids: tensor<4xf32>) -> tensor<4x32xf32> {
  // expected-error @+1 {{operand #1 must be ranked tensor of 32-bit signless integer or 64-bit signless integer values, but got 'tensor<4xf32>'}}
  %0 = "kiln.take"(%w, %ids) <{dim = 0 : i64}> : (tensor<65x32xf32>, tensor<4xf32>) -> tensor<4x32xf32>
  return %0 : tensor<4x32xf32>
}

// -----

// take: dim names a dim of the operand.
func.func @take_dim(%w: tensor<65x32xf32>, %ids: tensor<4xi32>) -> tensor<4x32xf32> {
  // expected-error @+1 {{dim 2 is out of range for the operand of rank 2}}
  %0 = "kiln.take"(%w, %ids) <{dim = 2 : i64}> : (tensor<65x32xf32>, tensor<4xi32>) -> tensor<4x32xf32>
  return %0 : tensor<4x32xf32>
}

// -----

// scatter_add: the updates have the gathered shape.
func.func @scatter_add_updates(%z: tensor<65x32xf32>, %ids: tensor<4xi64>, %u: tensor<4x31xf32>) -> tensor<65x32xf32> {
  // expected-error @+1 {{updates shape [4, 31] should be [4, 32]}}
  %0 = "kiln.scatter_add"(%z, %ids, %u) <{dim = 0 : i64}> : (tensor<65x32xf32>, tensor<4xi64>, tensor<4x31xf32>) -> tensor<65x32xf32>
  return %0 : tensor<65x32xf32>
}

// -----

// argmax: the result drops dim.
func.func @argmax_shape(%x: tensor<4x65xf32>) -> tensor<65xi64> {
  // expected-error @+1 {{result shape [65] should be [4] (the operand's without dim 1)}}
  %0 = "kiln.argmax"(%x) <{dim = 1 : i64}> : (tensor<4x65xf32>) -> tensor<65xi64>
  return %0 : tensor<65xi64>
}

// -----

// iota: one size per dynamic dim.
func.func @iota_sizes() -> tensor<?x4xi64> {
  // expected-error @+1 {{expects one size per dynamic dim of the result (1), got 0}}
  %0 = "kiln.iota"() <{dim = 1 : i64}> : () -> tensor<?x4xi64>
  return %0 : tensor<?x4xi64>
}

// -----

// rng_uniform: the key is (seed, offset).
func.func @rng_key(%k: tensor<3xi64>) -> tensor<4xf32> {
  // expected-error @+1 {{key must be a tensor<2xi64> holding (seed, offset), not 'tensor<3xi64>'}}
  %0 = "kiln.rng_uniform"(%k) : (tensor<3xi64>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// rng_uniform: a static f32 result.
func.func @rng_dynamic(%k: tensor<2xi64>) -> tensor<?xf32> {
  // expected-error @+1 {{result must have a static shape, not 'tensor<?xf32>'}}
  %0 = "kiln.rng_uniform"(%k) : (tensor<2xi64>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

// matmul: a precision is for f32 products.
func.func @matmul_precision_f64(%a: tensor<2x2xf64>) -> tensor<2x2xf64> {
  // expected-error @+1 {{takes a precision for f32 products only, not 'f64'}}
  %0 = kiln.matmul %a, %a {precision = #kiln<precision high>} : tensor<2x2xf64>, tensor<2x2xf64> -> tensor<2x2xf64>
  return %0 : tensor<2x2xf64>
}

// -----

// matmul: the precisions are PyTorch's three.
func.func @matmul_precision_name(%a: tensor<2x2xf32>) -> tensor<2x2xf32> {
  // expected-error @+2 {{expected ::kiln::MatmulPrecision to be one of: highest, high, medium}}
  // expected-error @+1 {{failed to parse Kiln_MatmulPrecisionAttr parameter 'value' which is to be a `::kiln::MatmulPrecision`}}
  %0 = kiln.matmul %a, %a {precision = #kiln<precision low>} : tensor<2x2xf32>, tensor<2x2xf32> -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}

// -----

// attention: q, k and v are static rank-3 f32 tensors of one batch.
func.func @attention_rank(%q: tensor<16x8xf32>) -> tensor<16x8xf32> {
  // expected-error @+1 {{takes q, k and v of static rank-3 shapes, not 'tensor<16x8xf32>'}}
  %o, %m, %l = kiln.attention %q, %q, %q steps [] : tensor<16x8xf32>, tensor<16x8xf32>, tensor<16x8xf32> -> tensor<16x8xf32>, tensor<16xf32>, tensor<16xf32>
  return %o : tensor<16x8xf32>
}

// -----

func.func @attention_head_dim(%q: tensor<2x4x8xf32>, %k: tensor<2x6x4xf32>, %v: tensor<2x6x8xf32>) -> tensor<2x4x8xf32> {
  // expected-error @+1 {{takes q and k of one head dim}}
  %o, %m, %l = kiln.attention %q, %k, %v steps [] : tensor<2x4x8xf32>, tensor<2x6x4xf32>, tensor<2x6x8xf32> -> tensor<2x4x8xf32>, tensor<2x4xf32>, tensor<2x4xf32>
  return %o : tensor<2x4x8xf32>
}

// -----

func.func @attention_values(%q: tensor<2x4x8xf32>, %k: tensor<2x6x8xf32>, %v: tensor<2x5x8xf32>) -> tensor<2x4x8xf32> {
  // expected-error @+1 {{takes as many values as keys}}
  %o, %m, %l = kiln.attention %q, %k, %v steps [] : tensor<2x4x8xf32>, tensor<2x6x8xf32>, tensor<2x5x8xf32> -> tensor<2x4x8xf32>, tensor<2x4xf32>, tensor<2x4xf32>
  return %o : tensor<2x4x8xf32>
}

// -----

// attention: the score steps are triples of a kind (0 to 7) and operand
// indices in range, -1 where the kind takes none.
func.func @attention_steps(%q: tensor<2x4x8xf32>, %s: tensor<1x1x1xf32>) -> tensor<2x4x8xf32> {
  // expected-error @+1 {{has malformed score_steps: triples [kind, a, b] with kinds 0 to 7 and operand indices in range}}
  %o, %m, %l = kiln.attention %q, %q, %q score(%s : tensor<1x1x1xf32>) steps [0, 1, -1] : tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<2x4x8xf32> -> tensor<2x4x8xf32>, tensor<2x4xf32>, tensor<2x4xf32>
  return %o : tensor<2x4x8xf32>
}

// -----

func.func @attention_step_kind(%q: tensor<2x4x8xf32>) -> tensor<2x4x8xf32> {
  // expected-error @+1 {{has malformed score_steps}}
  %o, %m, %l = kiln.attention %q, %q, %q steps [8, -1, -1] : tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<2x4x8xf32> -> tensor<2x4x8xf32>, tensor<2x4xf32>, tensor<2x4xf32>
  return %o : tensor<2x4x8xf32>
}

// -----

// attention: each score operand broadcasts to [N, Tq, Tk] (each dim 1 or
// the scores').
func.func @attention_operand_shape(%q: tensor<2x4x8xf32>, %b: tensor<1x4x3xf32>) -> tensor<2x4x8xf32> {
  // expected-error @+1 {{score operand #0 of type 'tensor<1x4x3xf32>' does not broadcast to the scores' [2, 4, 4]}}
  %o, %m, %l = kiln.attention %q, %q, %q score(%b : tensor<1x4x3xf32>) steps [2, 0, -1] : tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<2x4x8xf32> -> tensor<2x4x8xf32>, tensor<2x4xf32>, tensor<2x4xf32>
  return %o : tensor<2x4x8xf32>
}

// -----

// attention: masks are i1, the values they select and the other operands
// f32.
func.func @attention_mask_type(%q: tensor<2x4x8xf32>, %b: tensor<1x4x4xf32>) -> tensor<2x4x8xf32> {
  // expected-error @+1 {{masks score operand #0, which is not i1}}
  %o, %m, %l = kiln.attention %q, %q, %q score(%b : tensor<1x4x4xf32>) steps [5, 0, 0] : tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<2x4x8xf32> -> tensor<2x4x8xf32>, tensor<2x4xf32>, tensor<2x4xf32>
  return %o : tensor<2x4x8xf32>
}

// -----

func.func @attention_number_type(%q: tensor<2x4x8xf32>, %b: tensor<1x4x4xi1>) -> tensor<2x4x8xf32> {
  // expected-error @+1 {{reads score operand #0 as a number, but it is not f32}}
  %o, %m, %l = kiln.attention %q, %q, %q score(%b : tensor<1x4x4xi1>) steps [2, 0, -1] : tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<2x4x8xf32> -> tensor<2x4x8xf32>, tensor<2x4xf32>, tensor<2x4xf32>
  return %o : tensor<2x4x8xf32>
}

// -----

// attention: the row statistics are [N, Tq] f32.
func.func @attention_rows(%q: tensor<2x4x8xf32>) -> tensor<2x4x8xf32> {
  // expected-error @+1 {{expects row_sum of type 'tensor<2x4xf32>', not 'tensor<2x8xf32>'}}
  %o, %m, %l = kiln.attention %q, %q, %q steps [] : tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<2x4x8xf32> -> tensor<2x4x8xf32>, tensor<2x4xf32>, tensor<2x8xf32>
  return %o : tensor<2x4x8xf32>
}

// -----

// attention_grad: its gradients are typed as q, k and v.
func.func @attention_grad_types(%q: tensor<2x4x8xf32>, %m: tensor<2x4xf32>) -> tensor<2x4x4xf32> {
  // expected-error @+1 {{expects a value_grad of type 'tensor<2x4x8xf32>', not 'tensor<2x4x4xf32>'}}
  %dq, %dk, %dv = kiln.attention_grad %q, %q, %q, %q, %m, %m, %q steps [] : tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4x8xf32> -> tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<2x4x4xf32>
  return %dv : tensor<2x4x4xf32>
}
