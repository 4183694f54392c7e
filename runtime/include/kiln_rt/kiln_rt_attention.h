/*===- kiln_rt_attention.h - attention without its scores, on the CPU -----===*
 *
 * kiln.attention and kiln.attention_grad on the CPU (docs/Dialect.md has
 * their semantics). Blockwise, with an online softmax: a block of query
 * rows meets the keys a block at a time (products through the CBLAS that
 * kiln_rt_blas.h loads), and only one block of scores exists at a time
 * per thread, never the [N, Tq, Tk] scores. The backward recomputes each
 * block of scores from the saved row maxima and sums.
 *
 * Operands are strided memref descriptors as MLIR's C interface passes
 * them: q [N, Tq, D], k [N, Tk, D], v [N, Tk, Dv], the result [N, Tq, Dv],
 * the row statistics [N, Tq]. x0 to x3 are the score operands (rank 3, each
 * dim 1 or the scores'; masks as 1.0 / 0.0), an unused one any rank-3
 * view; `steps` holds the score rewrites, triples [kind, a, b] as the
 * dialect states them, ended by a kind of -1.
 *
 *===----------------------------------------------------------------------===*/

#ifndef KILN_RT_KILN_RT_ATTENTION_H
#define KILN_RT_KILN_RT_ATTENTION_H

#include "kiln_rt/kiln_rt_blas.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct kiln_rt_memref1d_i64 {
  int64_t *allocated, *aligned;
  int64_t offset, sizes[1], strides[1];
} kiln_rt_memref1d_i64;

/* result, row_max and row_sum from q, k and v. */
void _mlir_ciface_kiln_rt_attention_f32(
    kiln_rt_memref3d_f32 *q, kiln_rt_memref3d_f32 *k, kiln_rt_memref3d_f32 *v,
    kiln_rt_memref3d_f32 *x0, kiln_rt_memref3d_f32 *x1,
    kiln_rt_memref3d_f32 *x2, kiln_rt_memref3d_f32 *x3,
    kiln_rt_memref1d_i64 *steps, kiln_rt_memref3d_f32 *result,
    kiln_rt_memref2d_f32 *row_max, kiln_rt_memref2d_f32 *row_sum);

/* The gradients of q, k and v, given the attention's result, row
 * statistics and the gradient of its result. */
void _mlir_ciface_kiln_rt_attention_grad_f32(
    kiln_rt_memref3d_f32 *q, kiln_rt_memref3d_f32 *k, kiln_rt_memref3d_f32 *v,
    kiln_rt_memref3d_f32 *result, kiln_rt_memref2d_f32 *row_max,
    kiln_rt_memref2d_f32 *row_sum, kiln_rt_memref3d_f32 *result_grad,
    kiln_rt_memref3d_f32 *x0, kiln_rt_memref3d_f32 *x1,
    kiln_rt_memref3d_f32 *x2, kiln_rt_memref3d_f32 *x3,
    kiln_rt_memref1d_i64 *steps, kiln_rt_memref3d_f32 *query_grad,
    kiln_rt_memref3d_f32 *key_grad, kiln_rt_memref3d_f32 *value_grad);

#ifdef __cplusplus
}
#endif

#endif /* KILN_RT_KILN_RT_ATTENTION_H */
