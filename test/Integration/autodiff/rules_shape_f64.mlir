// The VJP rules of the shape ops (broadcast_in_dim, reduce_sum, reduce_max,
// reshape, transpose, slice, concat), in f64, against the reference
// interpreter's central finite differences. Each entry @vjp_OP takes several
// kiln.vjps, one per variant @OP_VARIANT, and returns all their gradients.
// Tolerances as in rules_f64.mlir (--rtol 1e-7 --atol 1e-9: the finite
// differences are good to about 1e-10 absolute).

// RUN: kiln-run %s --entry vjp_broadcast --random-inputs 301 --check-reference --rtol 1e-7 --atol 1e-9 | FileCheck %s --check-prefix=BROADCAST
// RUN: kiln-run %s --entry vjp_reduce_sum --random-inputs 302 --check-reference --rtol 1e-7 --atol 1e-9 | FileCheck %s --check-prefix=RSUM
// RUN: kiln-run %s --entry vjp_reduce_max --random-inputs 303 --check-reference --rtol 1e-7 --atol 1e-9 | FileCheck %s --check-prefix=RMAX
// RUN: kiln-run %s --entry vjp_reshape --random-inputs 304 --check-reference --rtol 1e-7 --atol 1e-9 | FileCheck %s --check-prefix=RESHAPE
// RUN: kiln-run %s --entry vjp_transpose --random-inputs 305 --check-reference --rtol 1e-7 --atol 1e-9 | FileCheck %s --check-prefix=TRANSPOSE
// RUN: kiln-run %s --entry vjp_slice --random-inputs 306 --check-reference --rtol 1e-7 --atol 1e-9 | FileCheck %s --check-prefix=SLICE
// RUN: kiln-run %s --entry vjp_chunk --random-inputs 307 --check-reference --rtol 1e-7 --atol 1e-9 | FileCheck %s --check-prefix=CHUNK
// RUN: kiln-run %s --entry vjp_tiles --random-inputs 309 --check-reference --rtol 1e-7 --atol 1e-9 | FileCheck %s --check-prefix=TILES
// RUN: kiln-run %s --entry vjp_concat --random-inputs 308 --check-reference --rtol 1e-7 --atol 1e-9 | FileCheck %s --check-prefix=CONCAT

//===----------------------------------------------------------------------===//
// broadcast_in_dim: the adjoint sums over new dims and expanded size-1 dims
//===----------------------------------------------------------------------===//

// BROADCAST:      reference: out0 tensor<4xf64> matches
// BROADCAST-NEXT: reference: out1 tensor<3xf64> matches
// BROADCAST-NEXT: reference: out2 tensor<4xf64> matches
// BROADCAST-NEXT: reference: out3 tensor<3x1xf64> matches
// BROADCAST-NEXT: reference: out4 tensor<1x4xf64> matches
// BROADCAST-NEXT: reference: out5 tensor<1x4xf64> matches
// BROADCAST-NEXT: reference: out6 tensor<f64> matches
// BROADCAST-NEXT: reference: out7 tensor<3x4xf64> matches
// BROADCAST-NEXT: reference: out8 tensor<2x1x3xf64> matches
// BROADCAST-NOT:  matches

// A new leading dim.
func.func @broadcast_row(%x: tensor<4xf64>) -> tensor<3x4xf64> {
  %y = kiln.broadcast_in_dim %x, dims = [1] : tensor<4xf64> -> tensor<3x4xf64>
  return %y : tensor<3x4xf64>
}
// A new trailing dim.
func.func @broadcast_col(%x: tensor<3xf64>) -> tensor<3x4xf64> {
  %y = kiln.broadcast_in_dim %x, dims = [0] : tensor<3xf64> -> tensor<3x4xf64>
  return %y : tensor<3x4xf64>
}
// New dims on both sides.
func.func @broadcast_middle(%x: tensor<4xf64>) -> tensor<2x4x3xf64> {
  %y = kiln.broadcast_in_dim %x, dims = [1] : tensor<4xf64> -> tensor<2x4x3xf64>
  return %y : tensor<2x4x3xf64>
}
// A size-1 dim expanded, no new dim.
func.func @broadcast_expand(%x: tensor<3x1xf64>) -> tensor<3x4xf64> {
  %y = kiln.broadcast_in_dim %x, dims = [0, 1] : tensor<3x1xf64> -> tensor<3x4xf64>
  return %y : tensor<3x4xf64>
}
// A new dim and an expanded size-1 dim.
func.func @broadcast_new_and_expand(%x: tensor<1x4xf64>) -> tensor<2x3x4xf64> {
  %y = kiln.broadcast_in_dim %x, dims = [1, 2] : tensor<1x4xf64> -> tensor<2x3x4xf64>
  return %y : tensor<2x3x4xf64>
}
// A size-1 dim that stays size 1, and a new dim between.
func.func @broadcast_keep_unit(%x: tensor<1x4xf64>) -> tensor<1x3x4xf64> {
  %y = kiln.broadcast_in_dim %x, dims = [0, 2] : tensor<1x4xf64> -> tensor<1x3x4xf64>
  return %y : tensor<1x3x4xf64>
}
// A scalar.
func.func @broadcast_scalar(%x: tensor<f64>) -> tensor<3x4xf64> {
  %y = kiln.broadcast_in_dim %x, dims = [] : tensor<f64> -> tensor<3x4xf64>
  return %y : tensor<3x4xf64>
}
// The identity, inside a computation.
func.func @broadcast_identity(%x: tensor<3x4xf64>) -> tensor<3x4xf64> {
  %y = kiln.broadcast_in_dim %x, dims = [0, 1] : tensor<3x4xf64> -> tensor<3x4xf64>
  %z = kiln.mul %y, %x : tensor<3x4xf64>
  return %z : tensor<3x4xf64>
}
// Rank 3 with an inner unit dim expanded and a new dim between the others.
func.func @broadcast_rank3(%x: tensor<2x1x3xf64>) -> tensor<2x5x4x3xf64> {
  %y = kiln.broadcast_in_dim %x, dims = [0, 2, 3] : tensor<2x1x3xf64> -> tensor<2x5x4x3xf64>
  %t = kiln.tanh %y : tensor<2x5x4x3xf64>
  return %t : tensor<2x5x4x3xf64>
}

func.func @vjp_broadcast(
    %x0: tensor<4xf64>, %x1: tensor<3xf64>, %x2: tensor<4xf64>,
    %x3: tensor<3x1xf64>, %x4: tensor<1x4xf64>, %x5: tensor<1x4xf64>,
    %x6: tensor<f64>, %x7: tensor<3x4xf64>, %x8: tensor<2x1x3xf64>,
    %c0: tensor<3x4xf64>, %c1: tensor<3x4xf64>, %c2: tensor<2x4x3xf64>,
    %c3: tensor<3x4xf64>, %c4: tensor<2x3x4xf64>, %c5: tensor<1x3x4xf64>,
    %c6: tensor<3x4xf64>, %c7: tensor<3x4xf64>, %c8: tensor<2x5x4x3xf64>)
    -> (tensor<4xf64>, tensor<3xf64>, tensor<4xf64>, tensor<3x1xf64>,
        tensor<1x4xf64>, tensor<1x4xf64>, tensor<f64>, tensor<3x4xf64>,
        tensor<2x1x3xf64>) {
  %g0 = kiln.vjp @broadcast_row(%x0, %c0) wrt [0] : (tensor<4xf64>, tensor<3x4xf64>) -> tensor<4xf64>
  %g1 = kiln.vjp @broadcast_col(%x1, %c1) wrt [0] : (tensor<3xf64>, tensor<3x4xf64>) -> tensor<3xf64>
  %g2 = kiln.vjp @broadcast_middle(%x2, %c2) wrt [0] : (tensor<4xf64>, tensor<2x4x3xf64>) -> tensor<4xf64>
  %g3 = kiln.vjp @broadcast_expand(%x3, %c3) wrt [0] : (tensor<3x1xf64>, tensor<3x4xf64>) -> tensor<3x1xf64>
  %g4 = kiln.vjp @broadcast_new_and_expand(%x4, %c4) wrt [0] : (tensor<1x4xf64>, tensor<2x3x4xf64>) -> tensor<1x4xf64>
  %g5 = kiln.vjp @broadcast_keep_unit(%x5, %c5) wrt [0] : (tensor<1x4xf64>, tensor<1x3x4xf64>) -> tensor<1x4xf64>
  %g6 = kiln.vjp @broadcast_scalar(%x6, %c6) wrt [0] : (tensor<f64>, tensor<3x4xf64>) -> tensor<f64>
  %g7 = kiln.vjp @broadcast_identity(%x7, %c7) wrt [0] : (tensor<3x4xf64>, tensor<3x4xf64>) -> tensor<3x4xf64>
  %g8 = kiln.vjp @broadcast_rank3(%x8, %c8) wrt [0] : (tensor<2x1x3xf64>, tensor<2x5x4x3xf64>) -> tensor<2x1x3xf64>
  return %g0, %g1, %g2, %g3, %g4, %g5, %g6, %g7, %g8
      : tensor<4xf64>, tensor<3xf64>, tensor<4xf64>, tensor<3x1xf64>,
        tensor<1x4xf64>, tensor<1x4xf64>, tensor<f64>, tensor<3x4xf64>,
        tensor<2x1x3xf64>
}

//===----------------------------------------------------------------------===//
// reduce_sum: the adjoint broadcasts ct back over the reduced dims
//===----------------------------------------------------------------------===//

// RSUM-COUNT-7: tensor<2x3x4xf64> matches
// RSUM-NOT:     matches

func.func @reduce_sum_0(%x: tensor<2x3x4xf64>) -> tensor<3x4xf64> {
  %y = kiln.reduce_sum %x, dims = [0] : tensor<2x3x4xf64> -> tensor<3x4xf64>
  return %y : tensor<3x4xf64>
}
func.func @reduce_sum_1(%x: tensor<2x3x4xf64>) -> tensor<2x4xf64> {
  %y = kiln.reduce_sum %x, dims = [1] : tensor<2x3x4xf64> -> tensor<2x4xf64>
  return %y : tensor<2x4xf64>
}
func.func @reduce_sum_2(%x: tensor<2x3x4xf64>) -> tensor<2x3xf64> {
  %y = kiln.reduce_sum %x, dims = [2] : tensor<2x3x4xf64> -> tensor<2x3xf64>
  return %y : tensor<2x3xf64>
}
func.func @reduce_sum_02(%x: tensor<2x3x4xf64>) -> tensor<3xf64> {
  %y = kiln.reduce_sum %x, dims = [0, 2] : tensor<2x3x4xf64> -> tensor<3xf64>
  return %y : tensor<3xf64>
}
func.func @reduce_sum_12(%x: tensor<2x3x4xf64>) -> tensor<2xf64> {
  %y = kiln.reduce_sum %x, dims = [1, 2] : tensor<2x3x4xf64> -> tensor<2xf64>
  return %y : tensor<2xf64>
}
// Everything, to a rank-0 result, of a nonlinear function.
func.func @reduce_sum_all(%x: tensor<2x3x4xf64>) -> tensor<f64> {
  %e = kiln.exp %x : tensor<2x3x4xf64>
  %y = kiln.reduce_sum %e, dims = [0, 1, 2] : tensor<2x3x4xf64> -> tensor<f64>
  return %y : tensor<f64>
}
// Two results of one argument, each with its cotangent.
func.func @reduce_sum_two(%x: tensor<2x3x4xf64>) -> (tensor<3x4xf64>, tensor<2x3xf64>) {
  %sq = kiln.mul %x, %x : tensor<2x3x4xf64>
  %a = kiln.reduce_sum %sq, dims = [0] : tensor<2x3x4xf64> -> tensor<3x4xf64>
  %b = kiln.reduce_sum %x, dims = [2] : tensor<2x3x4xf64> -> tensor<2x3xf64>
  return %a, %b : tensor<3x4xf64>, tensor<2x3xf64>
}

func.func @vjp_reduce_sum(%x: tensor<2x3x4xf64>, %c0: tensor<3x4xf64>,
                          %c1: tensor<2x4xf64>, %c2: tensor<2x3xf64>,
                          %c02: tensor<3xf64>, %c12: tensor<2xf64>,
                          %call: tensor<f64>)
    -> (tensor<2x3x4xf64>, tensor<2x3x4xf64>, tensor<2x3x4xf64>,
        tensor<2x3x4xf64>, tensor<2x3x4xf64>, tensor<2x3x4xf64>,
        tensor<2x3x4xf64>) {
  %g0 = kiln.vjp @reduce_sum_0(%x, %c0) wrt [0] : (tensor<2x3x4xf64>, tensor<3x4xf64>) -> tensor<2x3x4xf64>
  %g1 = kiln.vjp @reduce_sum_1(%x, %c1) wrt [0] : (tensor<2x3x4xf64>, tensor<2x4xf64>) -> tensor<2x3x4xf64>
  %g2 = kiln.vjp @reduce_sum_2(%x, %c2) wrt [0] : (tensor<2x3x4xf64>, tensor<2x3xf64>) -> tensor<2x3x4xf64>
  %g3 = kiln.vjp @reduce_sum_02(%x, %c02) wrt [0] : (tensor<2x3x4xf64>, tensor<3xf64>) -> tensor<2x3x4xf64>
  %g4 = kiln.vjp @reduce_sum_12(%x, %c12) wrt [0] : (tensor<2x3x4xf64>, tensor<2xf64>) -> tensor<2x3x4xf64>
  %g5 = kiln.vjp @reduce_sum_all(%x, %call) wrt [0] : (tensor<2x3x4xf64>, tensor<f64>) -> tensor<2x3x4xf64>
  %g6 = kiln.vjp @reduce_sum_two(%x, %c0, %c2) wrt [0] : (tensor<2x3x4xf64>, tensor<3x4xf64>, tensor<2x3xf64>) -> tensor<2x3x4xf64>
  return %g0, %g1, %g2, %g3, %g4, %g5, %g6
      : tensor<2x3x4xf64>, tensor<2x3x4xf64>, tensor<2x3x4xf64>,
        tensor<2x3x4xf64>, tensor<2x3x4xf64>, tensor<2x3x4xf64>,
        tensor<2x3x4xf64>
}

//===----------------------------------------------------------------------===//
// reduce_max: ct goes to the maximum (random inputs have no ties)
//===----------------------------------------------------------------------===//

// RMAX:      reference: out0 tensor<3x4xf64> matches
// RMAX-NEXT: reference: out1 tensor<3x4xf64> matches
// RMAX-NEXT: reference: out2 tensor<3x4xf64> matches
// RMAX-NEXT: reference: out3 tensor<2x3x4xf64> matches
// RMAX-NEXT: reference: out4 tensor<3x4xf64> matches
// RMAX-NOT:  matches

func.func @reduce_max_1(%x: tensor<3x4xf64>) -> tensor<3xf64> {
  %y = kiln.reduce_max %x, dims = [1] : tensor<3x4xf64> -> tensor<3xf64>
  return %y : tensor<3xf64>
}
func.func @reduce_max_0(%x: tensor<3x4xf64>) -> tensor<4xf64> {
  %y = kiln.reduce_max %x, dims = [0] : tensor<3x4xf64> -> tensor<4xf64>
  return %y : tensor<4xf64>
}
func.func @reduce_max_all(%x: tensor<3x4xf64>) -> tensor<f64> {
  %y = kiln.reduce_max %x, dims = [0, 1] : tensor<3x4xf64> -> tensor<f64>
  return %y : tensor<f64>
}
func.func @reduce_max_3d(%x: tensor<2x3x4xf64>) -> tensor<2x4xf64> {
  %y = kiln.reduce_max %x, dims = [1] : tensor<2x3x4xf64> -> tensor<2x4xf64>
  return %y : tensor<2x4xf64>
}
// The maximum used again elementwise: x * max_row(x) (broadcast back).
func.func @reduce_max_reuse(%x: tensor<3x4xf64>) -> tensor<3x4xf64> {
  %m = kiln.reduce_max %x, dims = [1] : tensor<3x4xf64> -> tensor<3xf64>
  %b = kiln.broadcast_in_dim %m, dims = [0] : tensor<3xf64> -> tensor<3x4xf64>
  %y = kiln.mul %x, %b : tensor<3x4xf64>
  return %y : tensor<3x4xf64>
}

func.func @vjp_reduce_max(%x: tensor<3x4xf64>, %x3: tensor<2x3x4xf64>,
                          %c1: tensor<3xf64>, %c0: tensor<4xf64>,
                          %call: tensor<f64>, %c3: tensor<2x4xf64>,
                          %c: tensor<3x4xf64>)
    -> (tensor<3x4xf64>, tensor<3x4xf64>, tensor<3x4xf64>, tensor<2x3x4xf64>,
        tensor<3x4xf64>) {
  %g0 = kiln.vjp @reduce_max_1(%x, %c1) wrt [0] : (tensor<3x4xf64>, tensor<3xf64>) -> tensor<3x4xf64>
  %g1 = kiln.vjp @reduce_max_0(%x, %c0) wrt [0] : (tensor<3x4xf64>, tensor<4xf64>) -> tensor<3x4xf64>
  %g2 = kiln.vjp @reduce_max_all(%x, %call) wrt [0] : (tensor<3x4xf64>, tensor<f64>) -> tensor<3x4xf64>
  %g3 = kiln.vjp @reduce_max_3d(%x3, %c3) wrt [0] : (tensor<2x3x4xf64>, tensor<2x4xf64>) -> tensor<2x3x4xf64>
  %g4 = kiln.vjp @reduce_max_reuse(%x, %c) wrt [0] : (tensor<3x4xf64>, tensor<3x4xf64>) -> tensor<3x4xf64>
  return %g0, %g1, %g2, %g3, %g4
      : tensor<3x4xf64>, tensor<3x4xf64>, tensor<3x4xf64>, tensor<2x3x4xf64>,
        tensor<3x4xf64>
}

//===----------------------------------------------------------------------===//
// reshape
//===----------------------------------------------------------------------===//

// RESHAPE-COUNT-4: reference: out{{[0-3]}} tensor<3x4xf64> matches
// RESHAPE-NEXT:    reference: out4 tensor<2x6xf64> matches
// RESHAPE-NOT:     matches

func.func @reshape_2x6(%x: tensor<3x4xf64>) -> tensor<2x6xf64> {
  %y = kiln.reshape %x : tensor<3x4xf64> -> tensor<2x6xf64>
  return %y : tensor<2x6xf64>
}
func.func @reshape_flat(%x: tensor<3x4xf64>) -> tensor<12xf64> {
  %y = kiln.reshape %x : tensor<3x4xf64> -> tensor<12xf64>
  return %y : tensor<12xf64>
}
func.func @reshape_3d(%x: tensor<3x4xf64>) -> tensor<2x3x2xf64> {
  %y = kiln.reshape %x : tensor<3x4xf64> -> tensor<2x3x2xf64>
  return %y : tensor<2x3x2xf64>
}
// Unit dims, then elementwise work on the reshaped value.
func.func @reshape_units(%x: tensor<3x4xf64>) -> tensor<1x12x1xf64> {
  %y = kiln.reshape %x : tensor<3x4xf64> -> tensor<1x12x1xf64>
  %s = kiln.sin %y : tensor<1x12x1xf64>
  return %s : tensor<1x12x1xf64>
}
// Reshape, compute, reshape back, and mix with the original.
func.func @reshape_round_trip(%x: tensor<2x6xf64>) -> tensor<2x6xf64> {
  %a = kiln.reshape %x : tensor<2x6xf64> -> tensor<3x4xf64>
  %t = kiln.transpose %a, perm = [1, 0] : tensor<3x4xf64> -> tensor<4x3xf64>
  %b = kiln.reshape %t : tensor<4x3xf64> -> tensor<2x6xf64>
  %y = kiln.mul %b, %x : tensor<2x6xf64>
  return %y : tensor<2x6xf64>
}

func.func @vjp_reshape(%x: tensor<3x4xf64>, %x26: tensor<2x6xf64>,
                       %c0: tensor<2x6xf64>, %c1: tensor<12xf64>,
                       %c2: tensor<2x3x2xf64>, %c3: tensor<1x12x1xf64>,
                       %c4: tensor<2x6xf64>)
    -> (tensor<3x4xf64>, tensor<3x4xf64>, tensor<3x4xf64>, tensor<3x4xf64>,
        tensor<2x6xf64>) {
  %g0 = kiln.vjp @reshape_2x6(%x, %c0) wrt [0] : (tensor<3x4xf64>, tensor<2x6xf64>) -> tensor<3x4xf64>
  %g1 = kiln.vjp @reshape_flat(%x, %c1) wrt [0] : (tensor<3x4xf64>, tensor<12xf64>) -> tensor<3x4xf64>
  %g2 = kiln.vjp @reshape_3d(%x, %c2) wrt [0] : (tensor<3x4xf64>, tensor<2x3x2xf64>) -> tensor<3x4xf64>
  %g3 = kiln.vjp @reshape_units(%x, %c3) wrt [0] : (tensor<3x4xf64>, tensor<1x12x1xf64>) -> tensor<3x4xf64>
  %g4 = kiln.vjp @reshape_round_trip(%x26, %c4) wrt [0] : (tensor<2x6xf64>, tensor<2x6xf64>) -> tensor<2x6xf64>
  return %g0, %g1, %g2, %g3, %g4
      : tensor<3x4xf64>, tensor<3x4xf64>, tensor<3x4xf64>, tensor<3x4xf64>,
        tensor<2x6xf64>
}

//===----------------------------------------------------------------------===//
// transpose: the adjoint applies the inverse permutation
//===----------------------------------------------------------------------===//

// TRANSPOSE:          reference: out0 tensor<3x4xf64> matches
// TRANSPOSE-COUNT-5:  tensor<2x3x4xf64> matches
// TRANSPOSE-NOT:      matches

func.func @transpose_2d(%x: tensor<3x4xf64>) -> tensor<4x3xf64> {
  %y = kiln.transpose %x, perm = [1, 0] : tensor<3x4xf64> -> tensor<4x3xf64>
  return %y : tensor<4x3xf64>
}
// [2, 0, 1] and [1, 2, 0] are each other's inverse: a rule that applied
// perm instead of its inverse would fail these two.
func.func @transpose_201(%x: tensor<2x3x4xf64>) -> tensor<4x2x3xf64> {
  %y = kiln.transpose %x, perm = [2, 0, 1] : tensor<2x3x4xf64> -> tensor<4x2x3xf64>
  return %y : tensor<4x2x3xf64>
}
func.func @transpose_120(%x: tensor<2x3x4xf64>) -> tensor<3x4x2xf64> {
  %y = kiln.transpose %x, perm = [1, 2, 0] : tensor<2x3x4xf64> -> tensor<3x4x2xf64>
  return %y : tensor<3x4x2xf64>
}
func.func @transpose_021(%x: tensor<2x3x4xf64>) -> tensor<2x4x3xf64> {
  %y = kiln.transpose %x, perm = [0, 2, 1] : tensor<2x3x4xf64> -> tensor<2x4x3xf64>
  return %y : tensor<2x4x3xf64>
}
func.func @transpose_210(%x: tensor<2x3x4xf64>) -> tensor<4x3x2xf64> {
  %y = kiln.transpose %x, perm = [2, 1, 0] : tensor<2x3x4xf64> -> tensor<4x3x2xf64>
  return %y : tensor<4x3x2xf64>
}
// Two transposes composed, then elementwise with a third view of x.
func.func @transpose_compose(%x: tensor<2x3x4xf64>) -> tensor<3x4x2xf64> {
  %a = kiln.transpose %x, perm = [2, 0, 1] : tensor<2x3x4xf64> -> tensor<4x2x3xf64>
  %b = kiln.transpose %a, perm = [2, 0, 1] : tensor<4x2x3xf64> -> tensor<3x4x2xf64>
  %c = kiln.transpose %x, perm = [1, 2, 0] : tensor<2x3x4xf64> -> tensor<3x4x2xf64>
  %e = kiln.exp %b : tensor<3x4x2xf64>
  %y = kiln.mul %e, %c : tensor<3x4x2xf64>
  return %y : tensor<3x4x2xf64>
}

func.func @vjp_transpose(%x: tensor<3x4xf64>, %x3: tensor<2x3x4xf64>,
                         %c0: tensor<4x3xf64>, %c1: tensor<4x2x3xf64>,
                         %c2: tensor<3x4x2xf64>, %c3: tensor<2x4x3xf64>,
                         %c4: tensor<4x3x2xf64>, %c5: tensor<3x4x2xf64>)
    -> (tensor<3x4xf64>, tensor<2x3x4xf64>, tensor<2x3x4xf64>,
        tensor<2x3x4xf64>, tensor<2x3x4xf64>, tensor<2x3x4xf64>) {
  %g0 = kiln.vjp @transpose_2d(%x, %c0) wrt [0] : (tensor<3x4xf64>, tensor<4x3xf64>) -> tensor<3x4xf64>
  %g1 = kiln.vjp @transpose_201(%x3, %c1) wrt [0] : (tensor<2x3x4xf64>, tensor<4x2x3xf64>) -> tensor<2x3x4xf64>
  %g2 = kiln.vjp @transpose_120(%x3, %c2) wrt [0] : (tensor<2x3x4xf64>, tensor<3x4x2xf64>) -> tensor<2x3x4xf64>
  %g3 = kiln.vjp @transpose_021(%x3, %c3) wrt [0] : (tensor<2x3x4xf64>, tensor<2x4x3xf64>) -> tensor<2x3x4xf64>
  %g4 = kiln.vjp @transpose_210(%x3, %c4) wrt [0] : (tensor<2x3x4xf64>, tensor<4x3x2xf64>) -> tensor<2x3x4xf64>
  %g5 = kiln.vjp @transpose_compose(%x3, %c5) wrt [0] : (tensor<2x3x4xf64>, tensor<3x4x2xf64>) -> tensor<2x3x4xf64>
  return %g0, %g1, %g2, %g3, %g4, %g5
      : tensor<3x4xf64>, tensor<2x3x4xf64>, tensor<2x3x4xf64>,
        tensor<2x3x4xf64>, tensor<2x3x4xf64>, tensor<2x3x4xf64>
}

//===----------------------------------------------------------------------===//
// slice: the adjoint is ct placed at the offsets, zero elsewhere
//===----------------------------------------------------------------------===//

// SLICE:      reference: out0 tensor<4x5xf64> matches
// SLICE-NEXT: reference: out1 tensor<7xf64> matches
// SLICE-NEXT: reference: out2 tensor<2x3x4xf64> matches
// SLICE-NEXT: reference: out3 tensor<4x5xf64> matches
// SLICE-NEXT: reference: out4 tensor<4x5xf64> matches
// SLICE-NOT:  matches

func.func @slice_2d(%x: tensor<4x5xf64>) -> tensor<2x3xf64> {
  %y = kiln.slice %x, offsets = [1, 2], sizes = [2, 3] : tensor<4x5xf64> -> tensor<2x3xf64>
  return %y : tensor<2x3xf64>
}
func.func @slice_1d(%x: tensor<7xf64>) -> tensor<4xf64> {
  %y = kiln.slice %x, offsets = [2], sizes = [4] : tensor<7xf64> -> tensor<4xf64>
  return %y : tensor<4xf64>
}
func.func @slice_3d(%x: tensor<2x3x4xf64>) -> tensor<2x1x2xf64> {
  %y = kiln.slice %x, offsets = [0, 1, 1], sizes = [2, 1, 2] : tensor<2x3x4xf64> -> tensor<2x1x2xf64>
  return %y : tensor<2x1x2xf64>
}
// The whole tensor.
func.func @slice_full(%x: tensor<4x5xf64>) -> tensor<4x5xf64> {
  %y = kiln.slice %x, offsets = [0, 0], sizes = [4, 5] : tensor<4x5xf64> -> tensor<4x5xf64>
  %t = kiln.tanh %y : tensor<4x5xf64>
  return %t : tensor<4x5xf64>
}
// A slice of a slice, squared.
func.func @slice_nested(%x: tensor<4x5xf64>) -> tensor<2x2xf64> {
  %a = kiln.slice %x, offsets = [1, 0], sizes = [3, 4] : tensor<4x5xf64> -> tensor<3x4xf64>
  %b = kiln.slice %a, offsets = [1, 2], sizes = [2, 2] : tensor<3x4xf64> -> tensor<2x2xf64>
  %y = kiln.mul %b, %b : tensor<2x2xf64>
  return %y : tensor<2x2xf64>
}

func.func @vjp_slice(%x: tensor<4x5xf64>, %x1: tensor<7xf64>,
                     %x3: tensor<2x3x4xf64>, %c0: tensor<2x3xf64>,
                     %c1: tensor<4xf64>, %c2: tensor<2x1x2xf64>,
                     %c3: tensor<4x5xf64>, %c4: tensor<2x2xf64>)
    -> (tensor<4x5xf64>, tensor<7xf64>, tensor<2x3x4xf64>, tensor<4x5xf64>,
        tensor<4x5xf64>) {
  %g0 = kiln.vjp @slice_2d(%x, %c0) wrt [0] : (tensor<4x5xf64>, tensor<2x3xf64>) -> tensor<4x5xf64>
  %g1 = kiln.vjp @slice_1d(%x1, %c1) wrt [0] : (tensor<7xf64>, tensor<4xf64>) -> tensor<7xf64>
  %g2 = kiln.vjp @slice_3d(%x3, %c2) wrt [0] : (tensor<2x3x4xf64>, tensor<2x1x2xf64>) -> tensor<2x3x4xf64>
  %g3 = kiln.vjp @slice_full(%x, %c3) wrt [0] : (tensor<4x5xf64>, tensor<4x5xf64>) -> tensor<4x5xf64>
  %g4 = kiln.vjp @slice_nested(%x, %c4) wrt [0] : (tensor<4x5xf64>, tensor<2x2xf64>) -> tensor<4x5xf64>
  return %g0, %g1, %g2, %g3, %g4
      : tensor<4x5xf64>, tensor<7xf64>, tensor<2x3x4xf64>, tensor<4x5xf64>,
        tensor<4x5xf64>
}

//===----------------------------------------------------------------------===//
// chunk: several slices of one tensor (adjoints joined into one tensor)
//===----------------------------------------------------------------------===//

// CHUNK-COUNT-3: tensor<3x8xf64> matches
// CHUNK-NEXT:    reference: out3 tensor<6x4xf64> matches
// CHUNK-NEXT:    reference: out4 tensor<3x8xf64> matches
// CHUNK-NOT:     matches

// x.chunk(4, 1) combined: s0 * s1 + tanh(s2) - exp(s3).
func.func @chunk4(%x: tensor<3x8xf64>) -> tensor<3x2xf64> {
  %s0 = kiln.slice %x, offsets = [0, 0], sizes = [3, 2] : tensor<3x8xf64> -> tensor<3x2xf64>
  %s1 = kiln.slice %x, offsets = [0, 2], sizes = [3, 2] : tensor<3x8xf64> -> tensor<3x2xf64>
  %s2 = kiln.slice %x, offsets = [0, 4], sizes = [3, 2] : tensor<3x8xf64> -> tensor<3x2xf64>
  %s3 = kiln.slice %x, offsets = [0, 6], sizes = [3, 2] : tensor<3x8xf64> -> tensor<3x2xf64>
  %p = kiln.mul %s0, %s1 : tensor<3x2xf64>
  %t = kiln.tanh %s2 : tensor<3x2xf64>
  %e = kiln.exp %s3 : tensor<3x2xf64>
  %a = kiln.add %p, %t : tensor<3x2xf64>
  %y = kiln.sub %a, %e : tensor<3x2xf64>
  return %y : tensor<3x2xf64>
}
// Overlapping slices (columns 3 and 4 are in both), two results.
func.func @chunk_overlap(%x: tensor<3x8xf64>) -> (tensor<3x5xf64>, tensor<3x5xf64>) {
  %a = kiln.slice %x, offsets = [0, 0], sizes = [3, 5] : tensor<3x8xf64> -> tensor<3x5xf64>
  %b = kiln.slice %x, offsets = [0, 3], sizes = [3, 5] : tensor<3x8xf64> -> tensor<3x5xf64>
  %sa = kiln.sin %a : tensor<3x5xf64>
  %bb = kiln.mul %b, %b : tensor<3x5xf64>
  return %sa, %bb : tensor<3x5xf64>, tensor<3x5xf64>
}
// Slices with gaps (columns 2, 3, 4 and 7 get no gradient) and one used
// twice.
func.func @chunk_gaps(%x: tensor<3x8xf64>) -> tensor<3x2xf64> {
  %a = kiln.slice %x, offsets = [0, 0], sizes = [3, 2] : tensor<3x8xf64> -> tensor<3x2xf64>
  %b = kiln.slice %x, offsets = [0, 5], sizes = [3, 2] : tensor<3x8xf64> -> tensor<3x2xf64>
  %ab = kiln.mul %a, %b : tensor<3x2xf64>
  %y = kiln.mul %ab, %a : tensor<3x2xf64>
  return %y : tensor<3x2xf64>
}
// Along dim 0, every chunk a result of its own.
func.func @chunk_rows(%x: tensor<6x4xf64>) -> (tensor<2x4xf64>, tensor<2x4xf64>, tensor<2x4xf64>) {
  %a = kiln.slice %x, offsets = [0, 0], sizes = [2, 4] : tensor<6x4xf64> -> tensor<2x4xf64>
  %b = kiln.slice %x, offsets = [2, 0], sizes = [2, 4] : tensor<6x4xf64> -> tensor<2x4xf64>
  %c = kiln.slice %x, offsets = [4, 0], sizes = [2, 4] : tensor<6x4xf64> -> tensor<2x4xf64>
  %ta = kiln.tanh %a : tensor<2x4xf64>
  %cc = kiln.mul %c, %b : tensor<2x4xf64>
  return %ta, %b, %cc : tensor<2x4xf64>, tensor<2x4xf64>, tensor<2x4xf64>
}
// The chunks and the whole tensor both used.
func.func @chunk_and_whole(%x: tensor<3x8xf64>) -> tensor<3x8xf64> {
  %a = kiln.slice %x, offsets = [0, 0], sizes = [3, 4] : tensor<3x8xf64> -> tensor<3x4xf64>
  %b = kiln.slice %x, offsets = [0, 4], sizes = [3, 4] : tensor<3x8xf64> -> tensor<3x4xf64>
  %ab = kiln.mul %a, %b : tensor<3x4xf64>
  %k = kiln.concat %ab, %ab dim = 1 : tensor<3x4xf64>, tensor<3x4xf64> -> tensor<3x8xf64>
  %y = kiln.mul %k, %x : tensor<3x8xf64>
  return %y : tensor<3x8xf64>
}

func.func @vjp_chunk(%x: tensor<3x8xf64>, %x6: tensor<6x4xf64>,
                     %c0: tensor<3x2xf64>, %c1a: tensor<3x5xf64>,
                     %c1b: tensor<3x5xf64>, %c2: tensor<3x2xf64>,
                     %c3a: tensor<2x4xf64>, %c3b: tensor<2x4xf64>,
                     %c3c: tensor<2x4xf64>, %c4: tensor<3x8xf64>)
    -> (tensor<3x8xf64>, tensor<3x8xf64>, tensor<3x8xf64>, tensor<6x4xf64>,
        tensor<3x8xf64>) {
  %g0 = kiln.vjp @chunk4(%x, %c0) wrt [0] : (tensor<3x8xf64>, tensor<3x2xf64>) -> tensor<3x8xf64>
  %g1 = kiln.vjp @chunk_overlap(%x, %c1a, %c1b) wrt [0] : (tensor<3x8xf64>, tensor<3x5xf64>, tensor<3x5xf64>) -> tensor<3x8xf64>
  %g2 = kiln.vjp @chunk_gaps(%x, %c2) wrt [0] : (tensor<3x8xf64>, tensor<3x2xf64>) -> tensor<3x8xf64>
  %g3 = kiln.vjp @chunk_rows(%x6, %c3a, %c3b, %c3c) wrt [0] : (tensor<6x4xf64>, tensor<2x4xf64>, tensor<2x4xf64>, tensor<2x4xf64>) -> tensor<6x4xf64>
  %g4 = kiln.vjp @chunk_and_whole(%x, %c4) wrt [0] : (tensor<3x8xf64>, tensor<3x8xf64>) -> tensor<3x8xf64>
  return %g0, %g1, %g2, %g3, %g4
      : tensor<3x8xf64>, tensor<3x8xf64>, tensor<3x8xf64>, tensor<6x4xf64>,
        tensor<3x8xf64>
}

//===----------------------------------------------------------------------===//
// Slices that tile the operand in two dims, and a reshape/transpose/broadcast
// chain
//===----------------------------------------------------------------------===//

// TILES:      reference: out0 tensor<4x6xf64> matches
// TILES-NEXT: reference: out1 tensor<4x6xf64> matches
// TILES-NEXT: reference: out2 tensor<2x6xf64> matches
// TILES-NEXT: reference: out3 tensor<6xf64> matches
// TILES-NOT:  matches

// Four quadrants.
func.func @quad(%x: tensor<4x6xf64>) -> tensor<2x3xf64> {
  %a = kiln.slice %x, offsets = [0, 0], sizes = [2, 3] : tensor<4x6xf64> -> tensor<2x3xf64>
  %b = kiln.slice %x, offsets = [0, 3], sizes = [2, 3] : tensor<4x6xf64> -> tensor<2x3xf64>
  %c = kiln.slice %x, offsets = [2, 0], sizes = [2, 3] : tensor<4x6xf64> -> tensor<2x3xf64>
  %d = kiln.slice %x, offsets = [2, 3], sizes = [2, 3] : tensor<4x6xf64> -> tensor<2x3xf64>
  %ab = kiln.mul %a, %b : tensor<2x3xf64>
  %cd = kiln.mul %c, %d : tensor<2x3xf64>
  %t = kiln.tanh %cd : tensor<2x3xf64>
  %y = kiln.add %ab, %t : tensor<2x3xf64>
  return %y : tensor<2x3xf64>
}
// An L-shaped tiling: the top row, then two blocks below it.
func.func @lshape(%x: tensor<4x6xf64>) -> (tensor<1x6xf64>, tensor<3x2xf64>, tensor<3x4xf64>) {
  %a = kiln.slice %x, offsets = [0, 0], sizes = [1, 6] : tensor<4x6xf64> -> tensor<1x6xf64>
  %b = kiln.slice %x, offsets = [1, 0], sizes = [3, 2] : tensor<4x6xf64> -> tensor<3x2xf64>
  %c = kiln.slice %x, offsets = [1, 2], sizes = [3, 4] : tensor<4x6xf64> -> tensor<3x4xf64>
  %sa = kiln.sin %a : tensor<1x6xf64>
  %sb = kiln.exp %b : tensor<3x2xf64>
  %sc = kiln.mul %c, %c : tensor<3x4xf64>
  return %sa, %sb, %sc : tensor<1x6xf64>, tensor<3x2xf64>, tensor<3x4xf64>
}
// One slice taken twice (same offsets), listed before the other half.
func.func @twice(%x: tensor<2x6xf64>) -> tensor<2x3xf64> {
  %b = kiln.slice %x, offsets = [0, 3], sizes = [2, 3] : tensor<2x6xf64> -> tensor<2x3xf64>
  %a = kiln.slice %x, offsets = [0, 0], sizes = [2, 3] : tensor<2x6xf64> -> tensor<2x3xf64>
  %b2 = kiln.slice %x, offsets = [0, 3], sizes = [2, 3] : tensor<2x6xf64> -> tensor<2x3xf64>
  %m = kiln.mul %b, %b2 : tensor<2x3xf64>
  %y = kiln.mul %m, %a : tensor<2x3xf64>
  return %y : tensor<2x3xf64>
}
// reshape, transpose, then broadcast with a new middle dim.
func.func @chain(%x: tensor<6xf64>) -> tensor<3x4x2xf64> {
  %r = kiln.reshape %x : tensor<6xf64> -> tensor<2x3xf64>
  %t = kiln.transpose %r, perm = [1, 0] : tensor<2x3xf64> -> tensor<3x2xf64>
  %b = kiln.broadcast_in_dim %t, dims = [0, 2] : tensor<3x2xf64> -> tensor<3x4x2xf64>
  %s = kiln.sin %b : tensor<3x4x2xf64>
  return %s : tensor<3x4x2xf64>
}

func.func @vjp_tiles(%x: tensor<4x6xf64>, %x2: tensor<2x6xf64>, %x6: tensor<6xf64>,
                     %c0: tensor<2x3xf64>, %c1a: tensor<1x6xf64>, %c1b: tensor<3x2xf64>,
                     %c1c: tensor<3x4xf64>, %c2: tensor<2x3xf64>, %c3: tensor<3x4x2xf64>)
    -> (tensor<4x6xf64>, tensor<4x6xf64>, tensor<2x6xf64>, tensor<6xf64>) {
  %g0 = kiln.vjp @quad(%x, %c0) wrt [0] : (tensor<4x6xf64>, tensor<2x3xf64>) -> tensor<4x6xf64>
  %g1 = kiln.vjp @lshape(%x, %c1a, %c1b, %c1c) wrt [0] : (tensor<4x6xf64>, tensor<1x6xf64>, tensor<3x2xf64>, tensor<3x4xf64>) -> tensor<4x6xf64>
  %g2 = kiln.vjp @twice(%x2, %c2) wrt [0] : (tensor<2x6xf64>, tensor<2x3xf64>) -> tensor<2x6xf64>
  %g3 = kiln.vjp @chain(%x6, %c3) wrt [0] : (tensor<6xf64>, tensor<3x4x2xf64>) -> tensor<6xf64>
  return %g0, %g1, %g2, %g3 : tensor<4x6xf64>, tensor<4x6xf64>, tensor<2x6xf64>, tensor<6xf64>
}

//===----------------------------------------------------------------------===//
// concat: each operand gets its slice of ct
//===----------------------------------------------------------------------===//

// CONCAT:      reference: out0 tensor<3x2xf64> matches
// CONCAT-NEXT: reference: out1 tensor<3x5xf64> matches
// CONCAT-NEXT: reference: out2 tensor<1x4xf64> matches
// CONCAT-NEXT: reference: out3 tensor<2x4xf64> matches
// CONCAT-NEXT: reference: out4 tensor<3x2xf64> matches
// CONCAT-NEXT: reference: out5 tensor<3x5xf64> matches
// CONCAT-NEXT: reference: out6 tensor<3xf64> matches
// CONCAT-NEXT: reference: out7 tensor<3x2xf64> matches
// CONCAT-NOT:  matches

// Unequal sizes along dim 1.
func.func @concat_cols(%a: tensor<3x2xf64>, %b: tensor<3x5xf64>) -> tensor<3x7xf64> {
  %y = kiln.concat %a, %b dim = 1 : tensor<3x2xf64>, tensor<3x5xf64> -> tensor<3x7xf64>
  return %y : tensor<3x7xf64>
}
// Unequal sizes along dim 0, then nonlinear.
func.func @concat_rows(%a: tensor<1x4xf64>, %b: tensor<2x4xf64>) -> tensor<3x4xf64> {
  %y = kiln.concat %a, %b dim = 0 : tensor<1x4xf64>, tensor<2x4xf64> -> tensor<3x4xf64>
  %t = kiln.tanh %y : tensor<3x4xf64>
  return %t : tensor<3x4xf64>
}
// Three operands, the first twice (its two slices of ct add up), and a
// rank-1 operand broadcast in.
func.func @concat_three(%a: tensor<3x2xf64>, %b: tensor<3x5xf64>, %v: tensor<3xf64>) -> tensor<3x10xf64> {
  %vb = kiln.broadcast_in_dim %v, dims = [0] : tensor<3xf64> -> tensor<3x1xf64>
  %e = kiln.exp %a : tensor<3x2xf64>
  %y = kiln.concat %a, %b, %vb, %e dim = 1 : tensor<3x2xf64>, tensor<3x5xf64>, tensor<3x1xf64>, tensor<3x2xf64> -> tensor<3x10xf64>
  %yy = kiln.mul %y, %y : tensor<3x10xf64>
  return %yy : tensor<3x10xf64>
}
// Concat of two slices of one tensor, swapped.
func.func @concat_swap(%a: tensor<3x2xf64>) -> tensor<3x2xf64> {
  %l = kiln.slice %a, offsets = [0, 0], sizes = [3, 1] : tensor<3x2xf64> -> tensor<3x1xf64>
  %r = kiln.slice %a, offsets = [0, 1], sizes = [3, 1] : tensor<3x2xf64> -> tensor<3x1xf64>
  %y = kiln.concat %r, %l dim = 1 : tensor<3x1xf64>, tensor<3x1xf64> -> tensor<3x2xf64>
  %z = kiln.mul %y, %a : tensor<3x2xf64>
  return %z : tensor<3x2xf64>
}

func.func @vjp_concat(%a: tensor<3x2xf64>, %b: tensor<3x5xf64>,
                      %r1: tensor<1x4xf64>, %r2: tensor<2x4xf64>,
                      %v: tensor<3xf64>, %c0: tensor<3x7xf64>,
                      %c1: tensor<3x4xf64>, %c2: tensor<3x10xf64>,
                      %c3: tensor<3x2xf64>)
    -> (tensor<3x2xf64>, tensor<3x5xf64>, tensor<1x4xf64>, tensor<2x4xf64>,
        tensor<3x2xf64>, tensor<3x5xf64>, tensor<3xf64>, tensor<3x2xf64>) {
  %g0:2 = kiln.vjp @concat_cols(%a, %b, %c0) wrt [0, 1] : (tensor<3x2xf64>, tensor<3x5xf64>, tensor<3x7xf64>) -> (tensor<3x2xf64>, tensor<3x5xf64>)
  %g1:2 = kiln.vjp @concat_rows(%r1, %r2, %c1) wrt [0, 1] : (tensor<1x4xf64>, tensor<2x4xf64>, tensor<3x4xf64>) -> (tensor<1x4xf64>, tensor<2x4xf64>)
  %g2:3 = kiln.vjp @concat_three(%a, %b, %v, %c2) wrt [0, 1, 2] : (tensor<3x2xf64>, tensor<3x5xf64>, tensor<3xf64>, tensor<3x10xf64>) -> (tensor<3x2xf64>, tensor<3x5xf64>, tensor<3xf64>)
  %g3 = kiln.vjp @concat_swap(%a, %c3) wrt [0] : (tensor<3x2xf64>, tensor<3x2xf64>) -> tensor<3x2xf64>
  return %g0#0, %g0#1, %g1#0, %g1#1, %g2#0, %g2#1, %g2#2, %g3
      : tensor<3x2xf64>, tensor<3x5xf64>, tensor<1x4xf64>, tensor<2x4xf64>,
        tensor<3x2xf64>, tensor<3x5xf64>, tensor<3xf64>, tensor<3x2xf64>
}
