/*===- FakeCublas.c - a cuBLAS stand-in for the runtime's tests -----------===*
 *
 * The few cuBLAS entry points runtime/cuda uses, computing column-major
 * products on host memory (the stand-in driver's device memory is host
 * memory), so that the runtime's row-major mapping is checked by value on
 * machines without a GPU.
 *
 *===----------------------------------------------------------------------===*/

#include "FakeFailAt.h"

#include <stddef.h>

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
