/*===- blas.c - matrix products for compiled CPU code ---------------------===*
 *
 * A CBLAS is found with dlopen on first use. A matrix operand whose inner
 * stride is 1 (row-major) or whose outer stride is 1 (a transposed view)
 * goes to cblas_?gemm as it is; anything else, or no BLAS, takes the plain
 * loop, which handles every stride.
 *
 * One pool of threads: when the process has the OpenMP runtime that the
 * compiled kernels run on (the JIT loads it), a GEMM large enough to share
 * is split by rows (or columns) of C over that pool, each part a
 * single-threaded BLAS call, and the BLAS's own threads are not used. Two
 * pools spinning and waking on the same cores cost more than the kernels
 * between them on a small machine.
 *
 *===----------------------------------------------------------------------===*/

#define _GNU_SOURCE
#include "../common/half.h"
#include "cpu_work.h"
#include "kiln_rt/kiln_rt_attention.h"
#include "kiln_rt/kiln_rt_blas.h"

#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { CBLAS_ROW_MAJOR = 101, CBLAS_NO_TRANS = 111, CBLAS_TRANS = 112 };

typedef void (*sgemm_fn)(int, int, int, int, int, int, float, const float *,
                         int, const float *, int, float, float *, int);
typedef void (*dgemm_fn)(int, int, int, int, int, int, double, const double *,
                         int, const double *, int, double, double *, int);

typedef void (*omp_parallel_fn)(void (*)(void *), void *, unsigned, unsigned);
typedef int (*omp_int_fn)(void);

static pthread_once_t blas_once = PTHREAD_ONCE_INIT;
static sgemm_fn blas_sgemm;
static dgemm_fn blas_dgemm;
static void (*blas_set_threads)(int);
static const char *blas_name = "";

/* The OpenMP pool: GOMP_parallel (libomp provides it too) and friends, set
 * once the process has the kernels' OpenMP runtime loaded. */
static pthread_mutex_t pool_mutex = PTHREAD_MUTEX_INITIALIZER;
static _Atomic int pool_found;
static omp_parallel_fn omp_parallel;
static omp_int_fn omp_thread_num, omp_num_threads, omp_max_threads;

/* OpenBLAS's own threshold for using threads: m n k products. */
enum { KILN_RT_GEMM_SHARE_MIN = 65536 };

/* Whether the OpenMP pool can run GEMM parts. The JIT loads the runtime
 * when it first compiles parallel kernels, which may be after the first
 * GEMM: until then each shareable GEMM looks again (a dlopen of a loaded
 * library, cheap beside the GEMM). A user's OPENBLAS_NUM_THREADS keeps the
 * BLAS's own threading. */
static int find_openmp_pool(void) {
  if (pool_found)
    return 1;
  if (!blas_set_threads || getenv("OPENBLAS_NUM_THREADS"))
    return 0;
  pthread_mutex_lock(&pool_mutex);
  if (!pool_found) {
    void *omp = dlopen("libomp.so.5", RTLD_NOW | RTLD_NOLOAD);
    if (omp) {
      omp_parallel = (omp_parallel_fn)dlsym(omp, "GOMP_parallel");
      omp_thread_num = (omp_int_fn)dlsym(omp, "omp_get_thread_num");
      omp_num_threads = (omp_int_fn)dlsym(omp, "omp_get_num_threads");
      omp_max_threads = (omp_int_fn)dlsym(omp, "omp_get_max_threads");
      if (omp_parallel && omp_thread_num && omp_num_threads &&
          omp_max_threads) {
        blas_set_threads(1);
        pool_found = 1;
      }
      dlclose(omp); /* the kernels' engine holds it */
    }
  }
  pthread_mutex_unlock(&pool_mutex);
  return pool_found;
}

/* OpenBLAS built for several cores (Debian's 0.3.21) picks its kernels by
 * CPU model, and falls back to its Prescott (SSE3) kernels on a model it
 * does not know, a recent Xeon among them: there the GEMMs of a GPT block
 * ran 2.8x slower than with its AVX-512 kernels. Name the core from the
 * CPU's features instead; on a model OpenBLAS knows this is the same
 * family of kernels. A user's OPENBLAS_CORETYPE wins. */
static void choose_openblas_core(void) {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  if (getenv("OPENBLAS_CORETYPE"))
    return;
  __builtin_cpu_init();
  const char *core = NULL;
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
      __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl"))
    core = "SkylakeX";
  else if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
    core = "Haswell";
  if (core)
    setenv("OPENBLAS_CORETYPE", core, 0);
#endif
}

static void load_blas(void) {
  const char *env = getenv("KILN_BLAS");
  if (env && strcmp(env, "0") == 0)
    return;
  choose_openblas_core();
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
      blas_set_threads =
          (void (*)(int))dlsym(handle, "openblas_set_num_threads");
      return;
    }
    dlclose(handle);
  }
}

int kiln_rt_blas_available(void) {
  pthread_once(&blas_once, load_blas);
  return blas_sgemm != NULL;
}

int kiln_rt_blas_uses_openmp_pool(void) { return pool_found; }

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

/* The parts a GEMM is split into over the OpenMP pool (1: not split). */
static int gemm_parts(int64_t m, int64_t n, int64_t k) {
  if ((double)m * (double)n * (double)k < KILN_RT_GEMM_SHARE_MIN ||
      !find_openmp_pool())
    return 1;
  int64_t threads = omp_max_threads();
  int64_t most = m > n ? m : n;
  return (int)(threads < most ? threads : most);
}

/* C (m x n) = op(A) op(B) + (accumulate ? C : 0), with op(A) m x k, on raw
 * strided pointers. Without accumulate, C's old contents are never read.
 * `shared`: split over the OpenMP pool where it pays. */
#define KILN_RT_DEFINE_GEMM(T, CBLAS)                                          \
  static void gemm_##T(int ta, int tb, int64_t m, int64_t n, int64_t k,        \
                       const T *a, int64_t as0, int64_t as1, const T *b,       \
                       int64_t bs0, int64_t bs1, T *c, int64_t cs0,            \
                       int64_t cs1, int accumulate, int shared);               \
  typedef struct gemm_job_##T {                                                \
    int ta, tb, accumulate;                                                    \
    int64_t m, n, k, as0, as1, bs0, bs1, cs0, cs1;                             \
    const T *a, *b;                                                            \
    T *c;                                                                      \
  } gemm_job_##T;                                                              \
  /* One thread's rows of C (or columns, when C is wider than tall). */        \
  static void gemm_part_##T(void *data) {                                      \
    const gemm_job_##T *j = (const gemm_job_##T *)data;                        \
    int64_t part = omp_thread_num(), parts = omp_num_threads();                \
    int by_rows = j->m >= j->n;                                                \
    int64_t size = by_rows ? j->m : j->n;                                      \
    int64_t lo = size * part / parts, hi = size * (part + 1) / parts;          \
    if (lo >= hi)                                                              \
      return;                                                                  \
    if (by_rows)                                                               \
      gemm_##T(j->ta, j->tb, hi - lo, j->n, j->k,                              \
               j->a + lo * (j->ta ? j->as1 : j->as0), j->as0, j->as1, j->b,    \
               j->bs0, j->bs1, j->c + lo * j->cs0, j->cs0, j->cs1,             \
               j->accumulate, 0);                                              \
    else                                                                       \
      gemm_##T(j->ta, j->tb, j->m, hi - lo, j->k, j->a, j->as0, j->as1,        \
               j->b + lo * (j->tb ? j->bs0 : j->bs1), j->bs0, j->bs1,          \
               j->c + lo * j->cs1, j->cs0, j->cs1, j->accumulate, 0);          \
  }                                                                            \
  static void gemm_##T(int ta, int tb, int64_t m, int64_t n, int64_t k,        \
                       const T *a, int64_t as0, int64_t as1, const T *b,       \
                       int64_t bs0, int64_t bs1, T *c, int64_t cs0,            \
                       int64_t cs1, int accumulate, int shared) {              \
    if (m == 0 || n == 0)                                                      \
      return;                                                                  \
    /* C stored by columns (a matmul writing a transposed layout): the BLAS    \
     * writes rows, so compute C^T = op(B)^T op(A)^T instead. */               \
    if (cs0 == 1 && cs1 != 1 && m > 1 && n > 1) {                              \
      gemm_##T(!tb, !ta, n, m, k, b, bs0, bs1, a, as0, as1, c, cs1, cs0,       \
               accumulate, shared);                                            \
      return;                                                                  \
    }                                                                          \
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
        int parts = shared ? gemm_parts(m, n, k) : 1;                          \
        if (parts > 1) {                                                       \
          gemm_job_##T job = {ta,  tb,  accumulate, m,   n, k, as0, as1,       \
                              bs0, bs1, cs0,        cs1, a, b, c};             \
          omp_parallel(gemm_part_##T, &job, (unsigned)parts, 0);               \
          return;                                                              \
        }                                                                      \
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

/* A batch of GEMMs (C_i = op(A_i) op(B_i)), strides between items as0, ...:
 * with as many items as threads, each thread takes whole items, one
 * single-threaded BLAS call each, behind one fork of the pool; else the
 * items one after another, each split where it pays. Heads of attention
 * (32 products of 128 x 128 x 64) ran half as fast split one by one. */
#define KILN_RT_DEFINE_BATCH_GEMM(T)                                           \
  typedef struct batch_job_##T {                                               \
    gemm_job_##T item;                                                         \
    int64_t count, a_step, b_step, c_step;                                     \
    /* Items i = outer * inner_count + inner (inner_count 1: one dim). */      \
    int64_t inner_count, a_inner, b_inner, c_inner;                            \
  } batch_job_##T;                                                             \
  static void batch_item_##T(const batch_job_##T *j, int64_t i, int shared) {  \
    const gemm_job_##T *g = &j->item;                                          \
    int64_t o = i / j->inner_count, p = i % j->inner_count;                    \
    gemm_##T(g->ta, g->tb, g->m, g->n, g->k,                                   \
             g->a + o * j->a_step + p * j->a_inner, g->as0, g->as1,            \
             g->b + o * j->b_step + p * j->b_inner, g->bs0, g->bs1,            \
             g->c + o * j->c_step + p * j->c_inner, g->cs0, g->cs1,            \
             g->accumulate, shared);                                           \
  }                                                                            \
  static void batch_part_##T(void *data) {                                     \
    const batch_job_##T *j = (const batch_job_##T *)data;                      \
    int64_t part = omp_thread_num(), parts = omp_num_threads();                \
    for (int64_t i = j->count * part / parts;                                  \
         i < j->count * (part + 1) / parts; ++i)                               \
      batch_item_##T(j, i, 0);                                                 \
  }                                                                            \
  static void batch_gemm_##T(batch_job_##T *j) {                               \
    const gemm_job_##T *g = &j->item;                                          \
    double work = (double)g->m * (double)g->n * (double)g->k;                  \
    if (j->count > 1 && work * (double)j->count >= KILN_RT_GEMM_SHARE_MIN &&   \
        kiln_rt_blas_available() && find_openmp_pool()) {                      \
      int64_t threads = omp_max_threads();                                     \
      if (j->count >= threads) {                                               \
        omp_parallel(batch_part_##T, j, (unsigned)threads, 0);                 \
        return;                                                                \
      }                                                                        \
    }                                                                          \
    for (int64_t i = 0; i < j->count; ++i)                                     \
      batch_item_##T(j, i, 1);                                                 \
  }

#define blas_call_sgemm(...) blas_sgemm(__VA_ARGS__)
#define blas_call_dgemm(...) blas_dgemm(__VA_ARGS__)
KILN_RT_DEFINE_GEMM(float, blas_call_sgemm)
KILN_RT_DEFINE_GEMM(double, blas_call_dgemm)
KILN_RT_DEFINE_BATCH_GEMM(float)
KILN_RT_DEFINE_BATCH_GEMM(double)

void kiln_cpu_gemm_f32(int ta, int tb, int64_t m, int64_t n, int64_t k,
                       const float *a, int64_t as0, int64_t as1, const float *b,
                       int64_t bs0, int64_t bs1, float *c, int64_t cs0,
                       int64_t cs1, int accumulate) {
  gemm_float(ta, tb, m, n, k, a, as0, as1, b, bs0, bs1, c, cs0, cs1, accumulate,
             0);
}

typedef struct parallel_job {
  int64_t count;
  void (*body)(void *, int64_t, int64_t);
  void *context;
} parallel_job;

static void parallel_part(void *data) {
  const parallel_job *job = (const parallel_job *)data;
  int64_t part = omp_thread_num(), parts = omp_num_threads();
  int64_t begin = job->count * part / parts;
  int64_t end = job->count * (part + 1) / parts;
  if (begin < end)
    job->body(job->context, begin, end);
}

typedef struct thread_part {
  parallel_job *job;
  int64_t begin, end;
} thread_part;

static void *run_thread_part(void *data) {
  thread_part *part = (thread_part *)data;
  part->job->body(part->job->context, part->begin, part->end);
  return NULL;
}

/* Threads for a program that has no OpenMP pool (no compiled parallel
 * kernel loaded it): OMP_NUM_THREADS if set, else the online CPUs. */
static int64_t fallback_threads(void) {
  const char *env = getenv("OMP_NUM_THREADS");
  long n = env ? strtol(env, NULL, 10) : sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? (n < 64 ? n : 64) : 1;
}

void kiln_cpu_parallel_for(int64_t count,
                           void (*body)(void *context, int64_t begin,
                                        int64_t end),
                           void *context) {
  if (count <= 0)
    return;
  parallel_job job = {count, body, context};
  if (count > 1 && kiln_rt_blas_available() && find_openmp_pool()) {
    int64_t threads = omp_max_threads();
    omp_parallel(parallel_part, &job,
                 (unsigned)(threads < count ? threads : count), 0);
    return;
  }
  int64_t threads = fallback_threads();
  if (threads > count)
    threads = count;
  thread_part parts[64];
  pthread_t ids[64];
  int started[64] = {0};
  for (int64_t t = 1; t < threads; ++t) {
    parts[t] =
        (thread_part){&job, count * t / threads, count * (t + 1) / threads};
    started[t] = pthread_create(&ids[t], NULL, run_thread_part, &parts[t]) == 0;
    if (!started[t]) /* no thread: this one runs the part itself */
      run_thread_part(&parts[t]);
  }
  body(context, 0, count / threads);
  for (int64_t t = 1; t < threads; ++t)
    if (started[t])
      pthread_join(ids[t], NULL);
}

#define KILN_RT_DEFINE_MATMUL_VARIANT(T, CT, NAME, TA, TB, ACC)                \
  void _mlir_ciface_kiln_rt_matmul_##T##_##NAME(kiln_rt_memref2d_##T *a,       \
                                                kiln_rt_memref2d_##T *b,       \
                                                kiln_rt_memref2d_##T *c) {     \
    int64_t k = TA ? a->sizes[0] : a->sizes[1];                                \
    gemm_##CT(TA, TB, c->sizes[0], c->sizes[1], k, a->aligned + a->offset,     \
              a->strides[0], a->strides[1], b->aligned + b->offset,            \
              b->strides[0], b->strides[1], c->aligned + c->offset,            \
              c->strides[0], c->strides[1], ACC, 1);                           \
  }                                                                            \
  void _mlir_ciface_kiln_rt_batch_matmul_##T##_##NAME(                         \
      kiln_rt_memref3d_##T *a, kiln_rt_memref3d_##T *b,                        \
      kiln_rt_memref3d_##T *c) {                                               \
    batch_job_##CT job = {{TA, TB, ACC, c->sizes[1], c->sizes[2],              \
                           TA ? a->sizes[1] : a->sizes[2], a->strides[1],      \
                           a->strides[2], b->strides[1], b->strides[2],        \
                           c->strides[1], c->strides[2],                       \
                           a->aligned + a->offset, b->aligned + b->offset,     \
                           c->aligned + c->offset},                            \
                          c->sizes[0],                                         \
                          a->strides[0],                                       \
                          b->strides[0],                                       \
                          c->strides[0],                                       \
                          1,                                                   \
                          0,                                                   \
                          0,                                                   \
                          0};                                                  \
    batch_gemm_##CT(&job);                                                     \
  }                                                                            \
  void _mlir_ciface_kiln_rt_batch2_matmul_##T##_##NAME(                        \
      kiln_rt_memref4d_##T *a, kiln_rt_memref4d_##T *b,                        \
      kiln_rt_memref4d_##T *c) {                                               \
    batch_job_##CT job = {{TA, TB, ACC, c->sizes[2], c->sizes[3],              \
                           TA ? a->sizes[2] : a->sizes[3], a->strides[2],      \
                           a->strides[3], b->strides[2], b->strides[3],        \
                           c->strides[2], c->strides[3],                       \
                           a->aligned + a->offset, b->aligned + b->offset,     \
                           c->aligned + c->offset},                            \
                          c->sizes[0] * c->sizes[1],                           \
                          a->strides[0],                                       \
                          b->strides[0],                                       \
                          c->strides[0],                                       \
                          c->sizes[1] > 0 ? c->sizes[1] : 1,                   \
                          a->strides[1],                                       \
                          b->strides[1],                                       \
                          c->strides[1]};                                      \
    batch_gemm_##CT(&job);                                                     \
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

/* --- Products of bf16 and f16 operands -------------------------------- */

/* The elements of a strided view of 16-bit floats of `rank` (2 to 4) dims,
 * widened into a new dense row-major f32 array (malloc'ed); NULL when
 * memory runs out. */
static float *widen_view(const uint16_t *base, int rank, const int64_t *sizes,
                         const int64_t *strides, int is_bf16) {
  int64_t count = 1;
  for (int d = 0; d < rank; ++d)
    count *= sizes[d];
  float *dense = malloc((size_t)(count > 0 ? count : 1) * sizeof(float));
  if (!dense)
    return NULL;
  int64_t index[4] = {0, 0, 0, 0};
  for (int64_t i = 0; i < count; ++i) {
    int64_t at = 0;
    for (int d = 0; d < rank; ++d)
      at += index[d] * strides[d];
    dense[i] =
        is_bf16 ? kiln_bf16_to_float(base[at]) : kiln_f16_to_float(base[at]);
    for (int d = rank - 1; d >= 0 && ++index[d] == sizes[d]; --d)
      index[d] = 0;
  }
  return dense;
}

/* The plain loop, where no memory is left to widen into. */
static void narrow_gemm_loop(int ta, int tb, int64_t m, int64_t n, int64_t k,
                             const uint16_t *a, int64_t as0, int64_t as1,
                             const uint16_t *b, int64_t bs0, int64_t bs1,
                             float *c, int64_t cs0, int64_t cs1, int accumulate,
                             int is_bf16) {
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      float sum = 0;
      for (int64_t p = 0; p < k; ++p) {
        uint16_t x = ta ? a[p * as0 + i * as1] : a[i * as0 + p * as1];
        uint16_t y = tb ? b[j * bs0 + p * bs1] : b[p * bs0 + j * bs1];
        sum += is_bf16 ? kiln_bf16_to_float(x) * kiln_bf16_to_float(y)
                       : kiln_f16_to_float(x) * kiln_f16_to_float(y);
      }
      float *out = &c[i * cs0 + j * cs1];
      *out = accumulate ? *out + sum : sum;
    }
}

/* C (f32) = op(A) op(B) over `count` = outer * inner items of rank-`rank`
 * views (rank 2: one item), A and B widened to f32 once. */
static void narrow_matmul(int rank, int ta, int tb, int accumulate, int is_bf16,
                          const uint16_t *a, const int64_t *asz,
                          const int64_t *ast, const uint16_t *b,
                          const int64_t *bsz, const int64_t *bst, float *c,
                          const int64_t *csz, const int64_t *cst) {
  int mat = rank - 2; /* the first matrix dim */
  int64_t m = csz[mat], n = csz[mat + 1], k = ta ? asz[mat] : asz[mat + 1];
  float *wa = widen_view(a, rank, asz, ast, is_bf16);
  float *wb = wa ? widen_view(b, rank, bsz, bst, is_bf16) : NULL;
  int64_t outer = rank == 4 ? csz[0] : rank == 3 ? csz[0] : 1;
  int64_t inner = rank == 4 ? csz[1] : 1;
  if (!wb) {
    free(wa);
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t p = 0; p < inner; ++p) {
        int64_t ao = rank > 2 ? o * ast[0] + (rank == 4 ? p * ast[1] : 0) : 0;
        int64_t bo = rank > 2 ? o * bst[0] + (rank == 4 ? p * bst[1] : 0) : 0;
        int64_t co = rank > 2 ? o * cst[0] + (rank == 4 ? p * cst[1] : 0) : 0;
        narrow_gemm_loop(ta, tb, m, n, k, a + ao, ast[mat], ast[mat + 1],
                         b + bo, bst[mat], bst[mat + 1], c + co, cst[mat],
                         cst[mat + 1], accumulate, is_bf16);
      }
    return;
  }
  /* Dense row-major copies: a matrix's rows are its stored cols apart. */
  int64_t a_cols = asz[mat + 1], b_cols = bsz[mat + 1];
  int64_t a_matrix = asz[mat] * a_cols, b_matrix = bsz[mat] * b_cols;
  batch_job_float job = {{ta, tb, accumulate, m, n, k, a_cols, 1, b_cols, 1,
                          cst[mat], cst[mat + 1], wa, wb, c},
                         outer * inner,
                         a_matrix * inner,
                         b_matrix * inner,
                         rank > 2 ? cst[0] : 0,
                         inner,
                         a_matrix,
                         b_matrix,
                         rank == 4 ? cst[1] : 0};
  if (rank == 2)
    gemm_float(ta, tb, m, n, k, wa, a_cols, 1, wb, b_cols, 1, c, cst[0], cst[1],
               accumulate, 1);
  else
    batch_gemm_float(&job);
  free(wa);
  free(wb);
}

/* One entry point of `RANK` (2: none, 3: batch_, 4: batch2_). */
#define KILN_RT_DEFINE_NARROW_ENTRY(PREFIX, RANK, T, IS_BF16, NAME, TA, TB,    \
                                    ACC)                                       \
  void _mlir_ciface_kiln_rt_##PREFIX##matmul_##T##_##NAME(                     \
      kiln_rt_memref##RANK##d_u16 *a, kiln_rt_memref##RANK##d_u16 *b,          \
      kiln_rt_memref##RANK##d_f32 *c) {                                        \
    narrow_matmul(RANK, TA, TB, ACC, IS_BF16, a->aligned + a->offset,          \
                  a->sizes, a->strides, b->aligned + b->offset, b->sizes,      \
                  b->strides, c->aligned + c->offset, c->sizes, c->strides);   \
  }
#define KILN_RT_DEFINE_NARROW_VARIANT(T, IS_BF16, NAME, TA, TB, ACC)           \
  KILN_RT_DEFINE_NARROW_ENTRY(, 2, T, IS_BF16, NAME, TA, TB, ACC)              \
  KILN_RT_DEFINE_NARROW_ENTRY(batch_, 3, T, IS_BF16, NAME, TA, TB, ACC)        \
  KILN_RT_DEFINE_NARROW_ENTRY(batch2_, 4, T, IS_BF16, NAME, TA, TB, ACC)

#define KILN_RT_DEFINE_NARROW_MATMUL(T, IS_BF16, FLAGS, TA, TB)                \
  KILN_RT_DEFINE_NARROW_VARIANT(T, IS_BF16, FLAGS, TA, TB, 1)                  \
  KILN_RT_DEFINE_NARROW_VARIANT(T, IS_BF16, FLAGS##_set, TA, TB, 0)

KILN_RT_DEFINE_NARROW_MATMUL(bf16, 1, nn, 0, 0)
KILN_RT_DEFINE_NARROW_MATMUL(bf16, 1, nt, 0, 1)
KILN_RT_DEFINE_NARROW_MATMUL(bf16, 1, tn, 1, 0)
KILN_RT_DEFINE_NARROW_MATMUL(bf16, 1, tt, 1, 1)
KILN_RT_DEFINE_NARROW_MATMUL(f16, 0, nn, 0, 0)
KILN_RT_DEFINE_NARROW_MATMUL(f16, 0, nt, 0, 1)
KILN_RT_DEFINE_NARROW_MATMUL(f16, 0, tn, 1, 0)
KILN_RT_DEFINE_NARROW_MATMUL(f16, 0, tt, 1, 1)

typedef struct entry_point {
  const char *name;
  void *entry;
} entry_point;

#define KILN_RT_ENTRY_VARIANT(T, NAME)                                         \
  {"kiln_rt_matmul_" #T "_" #NAME,                                             \
   (void *)_mlir_ciface_kiln_rt_matmul_##T##_##NAME},                          \
      {"kiln_rt_batch_matmul_" #T "_" #NAME,                                   \
       (void *)_mlir_ciface_kiln_rt_batch_matmul_##T##_##NAME},                \
      {"kiln_rt_batch2_matmul_" #T "_" #NAME,                                  \
       (void *)_mlir_ciface_kiln_rt_batch2_matmul_##T##_##NAME},
#define KILN_RT_ENTRY(T, FLAGS)                                                \
  KILN_RT_ENTRY_VARIANT(T, FLAGS) KILN_RT_ENTRY_VARIANT(T, FLAGS##_set)

static const entry_point entry_points[] = {
    KILN_RT_ENTRY(f32, nn) KILN_RT_ENTRY(f32, nt) KILN_RT_ENTRY(f32, tn)
        KILN_RT_ENTRY(f32, tt) KILN_RT_ENTRY(f64, nn) KILN_RT_ENTRY(f64, nt)
            KILN_RT_ENTRY(f64, tn) KILN_RT_ENTRY(f64, tt)
                KILN_RT_ENTRY(bf16, nn) KILN_RT_ENTRY(bf16, nt)
                    KILN_RT_ENTRY(bf16, tn) KILN_RT_ENTRY(bf16, tt)
                        KILN_RT_ENTRY(f16, nn) KILN_RT_ENTRY(f16, nt)
                            KILN_RT_ENTRY(f16, tn) KILN_RT_ENTRY(f16, tt)};

void *kiln_rt_blas_lookup(const char *name) {
  if (!name)
    return NULL;
  for (size_t i = 0; i < sizeof(entry_points) / sizeof(entry_points[0]); ++i)
    if (strcmp(entry_points[i].name, name) == 0)
      return entry_points[i].entry;
  /* The runtime's other kernels for compiled code. */
  if (strcmp(name, "kiln_rt_attention_f32") == 0)
    return (void *)_mlir_ciface_kiln_rt_attention_f32;
  if (strcmp(name, "kiln_rt_attention_grad_f32") == 0)
    return (void *)_mlir_ciface_kiln_rt_attention_grad_f32;
  return NULL;
}

int kiln_cpu_entry_arity(const char *name) {
  if (!kiln_rt_blas_lookup(name))
    return 0;
  if (strcmp(name, "kiln_rt_attention_f32") == 0)
    return 11;
  if (strcmp(name, "kiln_rt_attention_grad_f32") == 0)
    return 15;
  return 3; /* a product: A, B, C */
}
