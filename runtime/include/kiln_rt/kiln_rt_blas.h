/*===- kiln_rt_blas.h - matrix products for compiled CPU code -------------===*
 *
 * kiln.matmul on the CPU calls these. They use a CBLAS found at run time
 * (OpenBLAS first, then the system libblas) through dlopen, so nothing
 * links against a BLAS, and fall back to a plain loop for layouts a BLAS
 * cannot take or when none is installed. KILN_BLAS=0 in the environment
 * disables the BLAS.
 *
 * Each entry point computes C += op(A) op(B), with op the transpose named
 * by the suffix (n: none, t: transposed; first letter A, second B), on
 * strided memref descriptors as MLIR's C interface passes them. The `_set`
 * variants compute C = op(A) op(B) without reading C. The batch_ entry
 * points take one batch dim (rank 3), the batch2_ ones two (rank 4: the
 * heads of attention, [batch, heads, rows, cols] with any strides).
 *
 *===----------------------------------------------------------------------===*/

#ifndef KILN_RT_KILN_RT_BLAS_H
#define KILN_RT_KILN_RT_BLAS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* 1 when a CBLAS with sgemm and dgemm was loaded, else 0. */
int kiln_rt_blas_available(void);

/* The library that was loaded, or "" when none was. */
const char *kiln_rt_blas_library(void);

/* 1 once GEMMs run their parts on the process's OpenMP pool (the compiled
 * kernels' libomp, found loaded) rather than on the BLAS's own threads. */
int kiln_rt_blas_uses_openmp_pool(void);

/* Strided memref descriptors of rank 2, 3 and 4 (MLIR's layout). */
typedef struct kiln_rt_memref2d_f32 {
  float *allocated, *aligned;
  int64_t offset, sizes[2], strides[2];
} kiln_rt_memref2d_f32;
typedef struct kiln_rt_memref3d_f32 {
  float *allocated, *aligned;
  int64_t offset, sizes[3], strides[3];
} kiln_rt_memref3d_f32;
typedef struct kiln_rt_memref2d_f64 {
  double *allocated, *aligned;
  int64_t offset, sizes[2], strides[2];
} kiln_rt_memref2d_f64;
typedef struct kiln_rt_memref3d_f64 {
  double *allocated, *aligned;
  int64_t offset, sizes[3], strides[3];
} kiln_rt_memref3d_f64;
typedef struct kiln_rt_memref4d_f32 {
  float *allocated, *aligned;
  int64_t offset, sizes[4], strides[4];
} kiln_rt_memref4d_f32;
typedef struct kiln_rt_memref4d_f64 {
  double *allocated, *aligned;
  int64_t offset, sizes[4], strides[4];
} kiln_rt_memref4d_f64;

#define KILN_RT_DECLARE_MATMUL(T, FLAGS)                                       \
  void _mlir_ciface_kiln_rt_matmul_##T##_##FLAGS(kiln_rt_memref2d_##T *a,      \
                                                 kiln_rt_memref2d_##T *b,      \
                                                 kiln_rt_memref2d_##T *c);     \
  void _mlir_ciface_kiln_rt_batch_matmul_##T##_##FLAGS(                        \
      kiln_rt_memref3d_##T *a, kiln_rt_memref3d_##T *b,                        \
      kiln_rt_memref3d_##T *c);                                                \
  void _mlir_ciface_kiln_rt_matmul_##T##_##FLAGS##_set(                        \
      kiln_rt_memref2d_##T *a, kiln_rt_memref2d_##T *b,                        \
      kiln_rt_memref2d_##T *c);                                                \
  void _mlir_ciface_kiln_rt_batch_matmul_##T##_##FLAGS##_set(                  \
      kiln_rt_memref3d_##T *a, kiln_rt_memref3d_##T *b,                        \
      kiln_rt_memref3d_##T *c);                                                \
  void _mlir_ciface_kiln_rt_batch2_matmul_##T##_##FLAGS(                       \
      kiln_rt_memref4d_##T *a, kiln_rt_memref4d_##T *b,                        \
      kiln_rt_memref4d_##T *c);                                                \
  void _mlir_ciface_kiln_rt_batch2_matmul_##T##_##FLAGS##_set(                 \
      kiln_rt_memref4d_##T *a, kiln_rt_memref4d_##T *b,                        \
      kiln_rt_memref4d_##T *c);

KILN_RT_DECLARE_MATMUL(f32, nn)
KILN_RT_DECLARE_MATMUL(f32, nt)
KILN_RT_DECLARE_MATMUL(f32, tn)
KILN_RT_DECLARE_MATMUL(f32, tt)
KILN_RT_DECLARE_MATMUL(f64, nn)
KILN_RT_DECLARE_MATMUL(f64, nt)
KILN_RT_DECLARE_MATMUL(f64, tn)
KILN_RT_DECLARE_MATMUL(f64, tt)

#undef KILN_RT_DECLARE_MATMUL

/* Operands of 16-bit floats (bf16, f16) as their bits. */
typedef struct kiln_rt_memref2d_u16 {
  uint16_t *allocated, *aligned;
  int64_t offset, sizes[2], strides[2];
} kiln_rt_memref2d_u16;
typedef struct kiln_rt_memref3d_u16 {
  uint16_t *allocated, *aligned;
  int64_t offset, sizes[3], strides[3];
} kiln_rt_memref3d_u16;
typedef struct kiln_rt_memref4d_u16 {
  uint16_t *allocated, *aligned;
  int64_t offset, sizes[4], strides[4];
} kiln_rt_memref4d_u16;

/* Products of bf16 or f16 operands into an f32 C (the accumulator that
 * kiln's lowering rounds afterwards): the operands are widened to f32
 * (exactly) and multiplied by the f32 GEMM, so the sums are f32 as on
 * tensor cores. */
#define KILN_RT_DECLARE_NARROW_MATMUL(T, FLAGS)                                \
  void _mlir_ciface_kiln_rt_matmul_##T##_##FLAGS(kiln_rt_memref2d_u16 *a,      \
                                                 kiln_rt_memref2d_u16 *b,      \
                                                 kiln_rt_memref2d_f32 *c);     \
  void _mlir_ciface_kiln_rt_batch_matmul_##T##_##FLAGS(                        \
      kiln_rt_memref3d_u16 *a, kiln_rt_memref3d_u16 *b,                        \
      kiln_rt_memref3d_f32 *c);                                                \
  void _mlir_ciface_kiln_rt_batch2_matmul_##T##_##FLAGS(                       \
      kiln_rt_memref4d_u16 *a, kiln_rt_memref4d_u16 *b,                        \
      kiln_rt_memref4d_f32 *c);

KILN_RT_DECLARE_NARROW_MATMUL(bf16, nn)
KILN_RT_DECLARE_NARROW_MATMUL(bf16, nt)
KILN_RT_DECLARE_NARROW_MATMUL(bf16, tn)
KILN_RT_DECLARE_NARROW_MATMUL(bf16, tt)
KILN_RT_DECLARE_NARROW_MATMUL(f16, nn)
KILN_RT_DECLARE_NARROW_MATMUL(f16, nt)
KILN_RT_DECLARE_NARROW_MATMUL(f16, tn)
KILN_RT_DECLARE_NARROW_MATMUL(f16, tt)
KILN_RT_DECLARE_NARROW_MATMUL(bf16, nn_set)
KILN_RT_DECLARE_NARROW_MATMUL(bf16, nt_set)
KILN_RT_DECLARE_NARROW_MATMUL(bf16, tn_set)
KILN_RT_DECLARE_NARROW_MATMUL(bf16, tt_set)
KILN_RT_DECLARE_NARROW_MATMUL(f16, nn_set)
KILN_RT_DECLARE_NARROW_MATMUL(f16, nt_set)
KILN_RT_DECLARE_NARROW_MATMUL(f16, tn_set)
KILN_RT_DECLARE_NARROW_MATMUL(f16, tt_set)

#undef KILN_RT_DECLARE_NARROW_MATMUL

/* The C-interface entry point of the function named `name` without its
 * _mlir_ciface_ prefix (e.g. "kiln_rt_matmul_f32_nt_set"), for callers that
 * look the entry points up by name; NULL for an unknown name. The
 * attention kernels of kiln_rt_attention.h are found here too. */
void *kiln_rt_blas_lookup(const char *name);

#ifdef __cplusplus
}
#endif

#endif /* KILN_RT_KILN_RT_BLAS_H */
