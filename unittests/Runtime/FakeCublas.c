/*===- FakeCublas.c - a cuBLAS stand-in for the runtime's tests -----------===*
 *
 * The few cuBLAS entry points runtime/cuda uses, computing column-major
 * products on host memory (the stand-in driver's device memory is host
 * memory), so that the runtime's row-major mapping is checked by value on
 * machines without a GPU.
 *
 *===----------------------------------------------------------------------===*/

#include "FakeFailAt.h"

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
  return fake_fails_at(&entry_calls, "FAKE_CUBLAS_FAIL_AT", "fake-cublas",
                       name);
}
#define FAKE_ENTRY(name)                                                       \
  if (fails(#name))                                                            \
  return 13

cublasStatus_t cublasCreate_v2(void **handle) {
  FAKE_ENTRY(cublasCreate_v2);
  *handle = &handle_object;
  return 0;
}
cublasStatus_t cublasDestroy_v2(void *handle) {
  FAKE_ENTRY(cublasDestroy_v2);
  return 0;
}
cublasStatus_t cublasSetStream_v2(void *handle, void *stream) {
  FAKE_ENTRY(cublasSetStream_v2);
  return 0;
}

/* Column-major: element (i, j) of X with leading dim ld is X[i + j * ld]. */
#define FAKE_GEMM(NAME, T)                                                     \
  cublasStatus_t NAME(void *handle, int opa, int opb, int m, int n, int k,     \
                      const T *alpha, const T *a, int lda, long long sa,       \
                      const T *b, int ldb, long long sb, const T *beta, T *c,  \
                      int ldc, long long sc, int batch) {                      \
    FAKE_ENTRY(NAME);                                                          \
    ++fake_cublas_calls;                                                       \
    for (int p = 0; p < batch; ++p)                                            \
      for (int i = 0; i < m; ++i)                                              \
        for (int j = 0; j < n; ++j) {                                          \
          T acc = 0;                                                           \
          for (int l = 0; l < k; ++l) {                                        \
            T x = opa ? a[p * sa + l + (long long)i * lda]                     \
                      : a[p * sa + i + (long long)l * lda];                    \
            T y = opb ? b[p * sb + j + (long long)l * ldb]                     \
                      : b[p * sb + l + (long long)j * ldb];                    \
            acc += x * y;                                                      \
          }                                                                    \
          T *out = &c[p * sc + i + (long long)j * ldc];                        \
          *out = *alpha * acc + (*beta == 0 ? 0 : *beta * *out);               \
        }                                                                      \
    return 0;                                                                  \
  }

FAKE_GEMM(cublasSgemmStridedBatched, float)
FAKE_GEMM(cublasDgemmStridedBatched, double)
