/*===- FakeCublas.c - a cuBLAS stand-in for the runtime's tests -----------===*
 *
 * The few cuBLAS entry points runtime/cuda uses, computing column-major
 * products on host memory (the stand-in driver's device memory is host
 * memory), so that the runtime's row-major mapping is checked by value on
 * machines without a GPU.
 *
 *===----------------------------------------------------------------------===*/

#include "../../runtime/common/half.h"
#include "FakeFailAt.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* The stand-in driver records a capturing stream's host work. */
int fake_cuda_capture_host(void *stream, void (*fn)(void *), const void *data,
                           size_t bytes);
int fake_cuda_is_capturing(void *stream);
int fake_cuda_timing(void);
static void *current_stream;

typedef int cublasStatus_t;
static int handle_object;
/* GEMMs computed. */
int fake_cublas_calls;

/* FAKE_CUBLAS_FAIL_AT=N: the Nth call to any entry point (from 1) fails
 * with CUBLAS_STATUS_EXECUTION_FAILED (13) and says so on stderr
 * ("fake-cublas: call N (NAME) fails"); fake_cublas_entry_calls() is the
 * count so far, for faults at a point of a run in the same process. */
static long entry_calls;
long fake_cublas_entry_calls(void) { return entry_calls; }

static int fails(const char *name) {
  return fake_fails_at(&entry_calls, "FAKE_CUBLAS_FAIL_AT", "fake-cublas", name,
                       fake_cuda_is_capturing(current_stream));
}
#define FAKE_ENTRY(name)                                                       \
  if (fails(#name))                                                            \
  return 13

cublasStatus_t cublasCreate_v2(void **handle) {
  current_stream = NULL; /* a new handle is on the default stream */
  FAKE_ENTRY(cublasCreate_v2);
  *handle = &handle_object;
  return 0;
}
cublasStatus_t cublasDestroy_v2(void *handle) {
  FAKE_ENTRY(cublasDestroy_v2);
  current_stream = NULL; /* its stream may go next */
  return 0;
}
cublasStatus_t cublasSetStream_v2(void *handle, void *stream) {
  current_stream = stream; /* first: a failure reports this stream's capture */
  FAKE_ENTRY(cublasSetStream_v2);
  return 0;
}

/* Column-major: element (i, j) of X with leading dim ld is X[i + j * ld].
 * A product is computed at once, or recorded into a capturing stream's
 * graph (its arguments by value) and computed when the graph runs. */
#define FAKE_GEMM(NAME, T)                                                     \
  typedef struct NAME##_args {                                                 \
    int opa, opb, m, n, k;                                                     \
    T alpha, beta;                                                             \
    const T *a, *b;                                                            \
    T *c;                                                                      \
    int lda, ldb, ldc, batch;                                                  \
    long long sa, sb, sc;                                                      \
  } NAME##_args;                                                               \
  static void NAME##_compute(void *data) {                                     \
    const NAME##_args *g = data;                                               \
    ++fake_cublas_calls;                                                       \
    for (int p = 0; p < g->batch; ++p)                                         \
      for (int i = 0; i < g->m; ++i)                                           \
        for (int j = 0; j < g->n; ++j) {                                       \
          T acc = 0;                                                           \
          for (int l = 0; l < g->k; ++l) {                                     \
            T x = g->opa ? g->a[p * g->sa + l + (long long)i * g->lda]         \
                         : g->a[p * g->sa + i + (long long)l * g->lda];        \
            T y = g->opb ? g->b[p * g->sb + j + (long long)l * g->ldb]         \
                         : g->b[p * g->sb + l + (long long)j * g->ldb];        \
            acc += x * y;                                                      \
          }                                                                    \
          T *out = &g->c[p * g->sc + i + (long long)j * g->ldc];               \
          *out = g->alpha * acc + (g->beta == 0 ? 0 : g->beta * *out);         \
        }                                                                      \
  }                                                                            \
  cublasStatus_t NAME(void *handle, int opa, int opb, int m, int n, int k,     \
                      const T *alpha, const T *a, int lda, long long sa,       \
                      const T *b, int ldb, long long sb, const T *beta, T *c,  \
                      int ldc, long long sc, int batch) {                      \
    FAKE_ENTRY(NAME);                                                          \
    NAME##_args args = {opa, opb, m,   n,   k,     *alpha, *beta, a, b,        \
                        c,   lda, ldb, ldc, batch, sa,     sb,    sc};         \
    if (!fake_cuda_capture_host(current_stream, NAME##_compute, &args,         \
                                sizeof(args)) &&                               \
        !fake_cuda_timing())                                                   \
      NAME##_compute(&args);                                                   \
    return 0;                                                                  \
  }

FAKE_GEMM(cublasSgemmStridedBatched, float)
FAKE_GEMM(cublasDgemmStridedBatched, double)

/* cublasGemmStridedBatchedEx for the types kiln passes: A and B f32, f16
 * or bf16 (cudaDataType 0, 2, 14), C f32, compute type 32F (68) or the
 * fast ones that round f32 operands to bf16 (75) or TF32 (77) first, as
 * tensor cores do (rounded to nearest even here); products and sums in
 * f32. Anything else is CUBLAS_STATUS_NOT_SUPPORTED (15). */
enum { R_32F = 0, R_16F = 2, R_16BF = 14 };
enum { COMPUTE_32F = 68, COMPUTE_FAST_16BF = 75, COMPUTE_FAST_TF32 = 77 };
/* Ex products rounded each operand to bf16 or TF32 (tests read it). */
int fake_cublas_rounded_products;

/* `x` with only its top `kept` mantissa bits, rounded to nearest even. */
static float round_mantissa(float x, int kept) {
  uint32_t bits;
  memcpy(&bits, &x, sizeof(bits));
  int dropped = 23 - kept;
  uint32_t half = (1u << (dropped - 1)) - 1 + ((bits >> dropped) & 1);
  bits = (bits + half) & ~((1u << dropped) - 1);
  memcpy(&x, &bits, sizeof(x));
  return x;
}

static float load_operand(const void *base, long long index, int type,
                          int compute) {
  if (type == R_16F)
    return kiln_f16_to_float(((const uint16_t *)base)[index]);
  if (type == R_16BF)
    return kiln_bf16_to_float(((const uint16_t *)base)[index]);
  float x = ((const float *)base)[index];
  if (compute == COMPUTE_FAST_TF32)
    return round_mantissa(x, 10);
  if (compute == COMPUTE_FAST_16BF)
    return round_mantissa(x, 7);
  return x;
}

typedef struct gemm_ex_args {
  int opa, opb, m, n, k, atype, btype, compute;
  float alpha, beta;
  const void *a, *b;
  float *c;
  int lda, ldb, ldc, batch;
  long long sa, sb, sc;
} gemm_ex_args;

static void gemm_ex_compute(void *data) {
  const gemm_ex_args *g = data;
  ++fake_cublas_calls;
  if (g->compute != COMPUTE_32F)
    ++fake_cublas_rounded_products;
  for (int p = 0; p < g->batch; ++p)
    for (int i = 0; i < g->m; ++i)
      for (int j = 0; j < g->n; ++j) {
        float acc = 0;
        for (int l = 0; l < g->k; ++l) {
          long long ai = g->opa ? p * g->sa + l + (long long)i * g->lda
                                : p * g->sa + i + (long long)l * g->lda;
          long long bi = g->opb ? p * g->sb + j + (long long)l * g->ldb
                                : p * g->sb + l + (long long)j * g->ldb;
          acc += load_operand(g->a, ai, g->atype, g->compute) *
                 load_operand(g->b, bi, g->btype, g->compute);
        }
        float *out = &g->c[p * g->sc + i + (long long)j * g->ldc];
        *out = g->alpha * acc + (g->beta == 0 ? 0 : g->beta * *out);
      }
}

cublasStatus_t cublasGemmStridedBatchedEx(
    void *handle, int opa, int opb, int m, int n, int k, const void *alpha,
    const void *a, int atype, int lda, long long sa, const void *b, int btype,
    int ldb, long long sb, const void *beta, void *c, int ctype, int ldc,
    long long sc, int batch, int compute, int algo) {
  (void)handle;
  (void)algo;
  FAKE_ENTRY(cublasGemmStridedBatchedEx);
  int narrow = atype == R_16F || atype == R_16BF;
  if (ctype != R_32F || atype != btype || (atype != R_32F && !narrow) ||
      (narrow && compute != COMPUTE_32F) ||
      (compute != COMPUTE_32F && compute != COMPUTE_FAST_16BF &&
       compute != COMPUTE_FAST_TF32))
    return 15;
  gemm_ex_args args = {opa,
                       opb,
                       m,
                       n,
                       k,
                       atype,
                       btype,
                       compute,
                       *(const float *)alpha,
                       *(const float *)beta,
                       a,
                       b,
                       c,
                       lda,
                       ldb,
                       ldc,
                       batch,
                       sa,
                       sb,
                       sc};
  if (!fake_cuda_capture_host(current_stream, gemm_ex_compute, &args,
                              sizeof(args)) &&
      !fake_cuda_timing())
    gemm_ex_compute(&args);
  return 0;
}
