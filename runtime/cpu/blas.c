/*===- blas.c - matrix products for compiled CPU code ---------------------===*
 *
 * A CBLAS is found with dlopen on first use. A matrix operand whose inner
 * stride is 1 (row-major) or whose outer stride is 1 (a transposed view)
 * goes to cblas_?gemm as it is; anything else, or no BLAS, takes the plain
 * loop, which handles every stride.
 *
 *===----------------------------------------------------------------------===*/

#define _GNU_SOURCE
#include "kiln_rt/kiln_rt_blas.h"

#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

enum { CBLAS_ROW_MAJOR = 101, CBLAS_NO_TRANS = 111, CBLAS_TRANS = 112 };

typedef void (*sgemm_fn)(int, int, int, int, int, int, float, const float *,
                         int, const float *, int, float, float *, int);
typedef void (*dgemm_fn)(int, int, int, int, int, int, double, const double *,
                         int, const double *, int, double, double *, int);

static pthread_once_t blas_once = PTHREAD_ONCE_INIT;
static sgemm_fn blas_sgemm;
static dgemm_fn blas_dgemm;
static const char *blas_name = "";

static void load_blas(void) {
  const char *env = getenv("KILN_BLAS");
  if (env && strcmp(env, "0") == 0)
    return;
  /* OpenBLAS workers spin about 2^28 cycles after each GEMM, taking the
   * cores from the OpenMP kernels that follow; make them sleep at once.
   * A user's setting wins. */
  setenv("OPENBLAS_THREAD_TIMEOUT", "4", 0);
  static const char *const candidates[] = {"libopenblas.so.0", "libopenblas.so",
                                           "libblas.so.3", NULL};
  for (const char *const *name = candidates; *name; ++name) {
    void *handle = dlopen(*name, RTLD_NOW | RTLD_LOCAL);
    if (!handle)
      continue;
    sgemm_fn s = (sgemm_fn)dlsym(handle, "cblas_sgemm");
    dgemm_fn d = (dgemm_fn)dlsym(handle, "cblas_dgemm");
    if (s && d) {
      blas_sgemm = s;
      blas_dgemm = d;
      blas_name = *name;
      return;
    }
    dlclose(handle);
  }
}

int kiln_rt_blas_available(void) {
  pthread_once(&blas_once, load_blas);
  return blas_sgemm != NULL;
}

const char *kiln_rt_blas_library(void) {
  pthread_once(&blas_once, load_blas);
  return blas_name;
}

/* How a stored matrix (rows x cols, strides s0, s1) reaches a row-major
 * CBLAS: as itself (lead = s0), as the transpose of a row-major matrix
 * (lead = s1, transpose flipped), or not at all. */
typedef struct blas_view {
  int ok, flip;
  int64_t lead;
} blas_view;

static blas_view view_of(int64_t rows, int64_t cols, int64_t s0, int64_t s1) {
  blas_view v = {0, 0, 0};
  if (rows <= 0 || cols <= 0 || rows > INT_MAX || cols > INT_MAX)
    return v;
  /* A unit dim's stride is arbitrary; any lead >= the row length works. */
  if (rows == 1)
    s0 = cols;
  if (cols == 1)
    s1 = 1;
  if (s1 == 1 && s0 >= cols && s0 <= INT_MAX) {
    v.ok = 1;
    v.lead = s0;
    return v;
  }
  if (s0 == 1 && s1 >= rows && s1 <= INT_MAX) {
    v.ok = 1;
    v.flip = 1;
    v.lead = s1;
  }
  return v;
}

/* C (m x n) = op(A) op(B) + (accumulate ? C : 0), with op(A) m x k, on raw
 * strided pointers. Without accumulate, C's old contents are never read. */
#define KILN_RT_DEFINE_GEMM(T, CBLAS)                                          \
  static void gemm_##T(int ta, int tb, int64_t m, int64_t n, int64_t k,        \
                       const T *a, int64_t as0, int64_t as1, const T *b,       \
                       int64_t bs0, int64_t bs1, T *c, int64_t cs0,            \
                       int64_t cs1, int accumulate) {                          \
    if (m == 0 || n == 0)                                                      \
      return;                                                                  \
    if (k == 0) {                                                              \
      if (!accumulate)                                                         \
        for (int64_t i = 0; i < m; ++i)                                        \
          for (int64_t j = 0; j < n; ++j)                                      \
            c[i * cs0 + j * cs1] = 0;                                          \
      return;                                                                  \
    }                                                                          \
    if (kiln_rt_blas_available()) {                                            \
      blas_view va = view_of(ta ? k : m, ta ? m : k, as0, as1);                \
      blas_view vb = view_of(tb ? n : k, tb ? k : n, bs0, bs1);                \
      blas_view vc = view_of(m, n, cs0, cs1);                                  \
      if (va.ok && vb.ok && vc.ok && !vc.flip) {                               \
        CBLAS(CBLAS_ROW_MAJOR, (ta ^ va.flip) ? CBLAS_TRANS : CBLAS_NO_TRANS,  \
              (tb ^ vb.flip) ? CBLAS_TRANS : CBLAS_NO_TRANS, (int)m, (int)n,   \
              (int)k, (T)1, a, (int)va.lead, b, (int)vb.lead,                  \
              (T)(accumulate ? 1 : 0), c, (int)vc.lead);                       \
        return;                                                                \
      }                                                                        \
    }                                                                          \
    for (int64_t i = 0; i < m; ++i)                                            \
      for (int64_t j = 0; j < n; ++j) {                                        \
        T sum = 0;                                                             \
        for (int64_t p = 0; p < k; ++p) {                                      \
          T x = ta ? a[p * as0 + i * as1] : a[i * as0 + p * as1];              \
          T y = tb ? b[j * bs0 + p * bs1] : b[p * bs0 + j * bs1];              \
          sum += x * y;                                                        \
        }                                                                      \
        T *out = &c[i * cs0 + j * cs1];                                        \
        *out = accumulate ? *out + sum : sum;                                  \
      }                                                                        \
  }

#define blas_call_sgemm(...) blas_sgemm(__VA_ARGS__)
#define blas_call_dgemm(...) blas_dgemm(__VA_ARGS__)
KILN_RT_DEFINE_GEMM(float, blas_call_sgemm)
KILN_RT_DEFINE_GEMM(double, blas_call_dgemm)

#define KILN_RT_DEFINE_MATMUL_VARIANT(T, CT, NAME, TA, TB, ACC)                \
  void _mlir_ciface_kiln_rt_matmul_##T##_##NAME(kiln_rt_memref2d_##T *a,       \
                                                kiln_rt_memref2d_##T *b,       \
                                                kiln_rt_memref2d_##T *c) {     \
    int64_t k = TA ? a->sizes[0] : a->sizes[1];                                \
    gemm_##CT(TA, TB, c->sizes[0], c->sizes[1], k, a->aligned + a->offset,     \
              a->strides[0], a->strides[1], b->aligned + b->offset,            \
              b->strides[0], b->strides[1], c->aligned + c->offset,            \
              c->strides[0], c->strides[1], ACC);                              \
  }                                                                            \
  void _mlir_ciface_kiln_rt_batch_matmul_##T##_##NAME(                         \
      kiln_rt_memref3d_##T *a, kiln_rt_memref3d_##T *b,                        \
      kiln_rt_memref3d_##T *c) {                                               \
    int64_t k = TA ? a->sizes[1] : a->sizes[2];                                \
    for (int64_t batch = 0; batch < c->sizes[0]; ++batch)                      \
      gemm_##CT(TA, TB, c->sizes[1], c->sizes[2], k,                           \
                a->aligned + a->offset + batch * a->strides[0], a->strides[1], \
                a->strides[2], b->aligned + b->offset + batch * b->strides[0], \
                b->strides[1], b->strides[2],                                  \
                c->aligned + c->offset + batch * c->strides[0], c->strides[1], \
                c->strides[2], ACC);                                           \
  }

#define KILN_RT_DEFINE_MATMUL(T, CT, FLAGS, TA, TB)                            \
  KILN_RT_DEFINE_MATMUL_VARIANT(T, CT, FLAGS, TA, TB, 1)                       \
  KILN_RT_DEFINE_MATMUL_VARIANT(T, CT, FLAGS##_set, TA, TB, 0)

KILN_RT_DEFINE_MATMUL(f32, float, nn, 0, 0)
KILN_RT_DEFINE_MATMUL(f32, float, nt, 0, 1)
KILN_RT_DEFINE_MATMUL(f32, float, tn, 1, 0)
KILN_RT_DEFINE_MATMUL(f32, float, tt, 1, 1)
KILN_RT_DEFINE_MATMUL(f64, double, nn, 0, 0)
KILN_RT_DEFINE_MATMUL(f64, double, nt, 0, 1)
KILN_RT_DEFINE_MATMUL(f64, double, tn, 1, 0)
KILN_RT_DEFINE_MATMUL(f64, double, tt, 1, 1)

typedef struct entry_point {
  const char *name;
  void *entry;
} entry_point;

#define KILN_RT_ENTRY_VARIANT(T, NAME)                                         \
  {"kiln_rt_matmul_" #T "_" #NAME,                                             \
   (void *)_mlir_ciface_kiln_rt_matmul_##T##_##NAME},                          \
      {"kiln_rt_batch_matmul_" #T "_" #NAME,                                   \
       (void *)_mlir_ciface_kiln_rt_batch_matmul_##T##_##NAME},
#define KILN_RT_ENTRY(T, FLAGS)                                                \
  KILN_RT_ENTRY_VARIANT(T, FLAGS) KILN_RT_ENTRY_VARIANT(T, FLAGS##_set)

static const entry_point entry_points[] = {
    KILN_RT_ENTRY(f32, nn) KILN_RT_ENTRY(f32, nt) KILN_RT_ENTRY(f32, tn)
        KILN_RT_ENTRY(f32, tt) KILN_RT_ENTRY(f64, nn) KILN_RT_ENTRY(f64, nt)
            KILN_RT_ENTRY(f64, tn) KILN_RT_ENTRY(f64, tt)};

void *kiln_rt_blas_lookup(const char *name) {
  if (!name)
    return NULL;
  for (size_t i = 0; i < sizeof(entry_points) / sizeof(entry_points[0]); ++i)
    if (strcmp(entry_points[i].name, name) == 0)
      return entry_points[i].entry;
  return NULL;
}
