/*===- blas.c - matrix products through cuBLAS, loaded at run time --------===*
 *
 * cuBLAS is column-major; kiln's buffers are row-major. A row-major C =
 * op(A) op(B) is the column-major C^T = op(B)^T op(A)^T, so each product
 * goes to cuBLAS with the operands (and their ops) swapped and m, n
 * exchanged; no data moves.
 *
 *===----------------------------------------------------------------------===*/

#include "driver.h"

#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>

typedef int cublasStatus_t;
typedef struct cublasContext *cublasHandle_t;
enum { CUBLAS_OP_N = 0, CUBLAS_OP_T = 1 };
/* cudaDataType, cublasComputeType_t and cublasGemmAlgo_t values
 * (library_types.h, cublas_api.h). */
enum { CUDA_R_32F = 0, CUDA_R_16F = 2, CUDA_R_16BF = 14 };
enum {
  CUBLAS_COMPUTE_32F = 68,
  CUBLAS_COMPUTE_32F_FAST_16BF = 75,
  CUBLAS_COMPUTE_32F_FAST_TF32 = 77
};
enum { CUBLAS_GEMM_DEFAULT = -1 };

#include "cublas_functions.h"

static struct {
#define KILN_CUBLAS_DECLARE(name, result, params) result(*name) params;
  KILN_CUBLAS_FUNCTIONS(KILN_CUBLAS_DECLARE)
#undef KILN_CUBLAS_DECLARE
} cublas;

static pthread_mutex_t blas_mutex = PTHREAD_MUTEX_INITIALIZER;
static void *library;
static cublasHandle_t handle;
static int tried, loaded;

static const char *status_name(cublasStatus_t status) {
  switch (status) {
  case 1:
    return "CUBLAS_STATUS_NOT_INITIALIZED";
  case 3:
    return "CUBLAS_STATUS_ALLOC_FAILED";
  case 7:
    return "CUBLAS_STATUS_INVALID_VALUE";
  case 8:
    return "CUBLAS_STATUS_ARCH_MISMATCH";
  case 11:
    return "CUBLAS_STATUS_MAPPING_ERROR";
  case 13:
    return "CUBLAS_STATUS_EXECUTION_FAILED";
  case 14:
    return "CUBLAS_STATUS_INTERNAL_ERROR";
  case 15:
    return "CUBLAS_STATUS_NOT_SUPPORTED";
  }
  return "an unknown cuBLAS status";
}

static kiln_rt_status check_cublas(cublasStatus_t status, const char *call) {
  if (status == 0)
    return KILN_RT_SUCCESS;
  return kiln_rt_status_make(status == 7 ? KILN_RT_INVALID_ARGUMENT
                                         : KILN_RT_DEVICE_ERROR,
                             "%s: %s (%d)", call, status_name(status), status);
}

/* Calls the cuBLAS function `fn` with `args` (in parentheses); a failure's
   message names `fn` from the same token that makes the call. */
#define KILN_CUBLAS_CALL(fn, args) check_cublas(cublas.fn args, #fn)

/* Loads cuBLAS and makes a handle, once; blas_mutex held. */
static kiln_rt_status load(void) {
  if (loaded)
    return KILN_RT_SUCCESS;
  if (tried)
    return kiln_rt_status_make(KILN_RT_UNAVAILABLE, "cuBLAS is not available");
  tried = 1;
  // KILN_RT_LIBCUBLAS, when set, is the only library tried.
  const char *chosen = getenv("KILN_RT_LIBCUBLAS");
  const char *names[] = {"libcublas.so.13", "libcublas.so.12",
                         "libcublas.so.11", "libcublas.so"};
  if (chosen && *chosen)
    library = dlopen(chosen, RTLD_NOW | RTLD_LOCAL);
  for (size_t i = 0;
       !(chosen && *chosen) && i < sizeof(names) / sizeof(names[0]) && !library;
       ++i)
    library = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
  if (!library)
    return kiln_rt_status_make(KILN_RT_UNAVAILABLE,
                               "dlopen %s: no cuBLAS found",
                               chosen && *chosen ? chosen : "libcublas.so");
#define KILN_CUBLAS_RESOLVE(name, result, params)                              \
  *(void **)(&cublas.name) = dlsym(library, #name);                            \
  if (!cublas.name) {                                                          \
    dlclose(library);                                                          \
    library = NULL;                                                            \
    return kiln_rt_status_make(KILN_RT_UNAVAILABLE, "cuBLAS has no %s",        \
                               #name);                                         \
  }
  KILN_CUBLAS_FUNCTIONS(KILN_CUBLAS_RESOLVE)
#undef KILN_CUBLAS_RESOLVE
  // On failure the library stays loaded (until shutdown): unloading a
  // cuBLAS that started would strand what it allocated.
  KILN_RT_RETURN_IF_ERROR(KILN_CUBLAS_CALL(cublasCreate_v2, (&handle)));
  loaded = 1;
  return KILN_RT_SUCCESS;
}

int kiln_rt_cuda_blas_available(void) {
  if (!kiln_cuda_entered("kiln_rt_cuda_blas_available"))
    return 0;
  pthread_mutex_lock(&blas_mutex);
  kiln_rt_status status = load(); /* only asked: dropped */
  pthread_mutex_unlock(&blas_mutex);
  int available = !status;
  kiln_rt_status_free(status);
  return available;
}

static int fits_int(int64_t value) { return value >= 0 && value <= INT_MAX; }

/* The cudaDataType of A and B, and the compute type, of a product that
 * cublasGemmStridedBatchedEx computes; 0 for the plain S/Dgemm paths and
 * for a `math` that `dtype` does not take. */
static int ex_types(kiln_rt_cuda_dtype dtype, kiln_rt_cuda_math math,
                    int *operand_type, int *compute_type) {
  *compute_type = CUBLAS_COMPUTE_32F;
  switch (dtype) {
  case KILN_RT_CUDA_F32:
    *operand_type = CUDA_R_32F;
    if (math == KILN_RT_CUDA_MATH_TF32)
      *compute_type = CUBLAS_COMPUTE_32F_FAST_TF32;
    else if (math == KILN_RT_CUDA_MATH_BF16)
      *compute_type = CUBLAS_COMPUTE_32F_FAST_16BF;
    return math != KILN_RT_CUDA_MATH_EXACT;
  case KILN_RT_CUDA_F16:
  case KILN_RT_CUDA_BF16:
    *operand_type = dtype == KILN_RT_CUDA_F16 ? CUDA_R_16F : CUDA_R_16BF;
    return math == KILN_RT_CUDA_MATH_EXACT;
  case KILN_RT_CUDA_F64:
    break;
  }
  return 0;
}

kiln_rt_status kiln_rt_cuda_gemm(kiln_rt_cuda_dtype dtype,
                                 kiln_rt_cuda_math math, int trans_a,
                                 int trans_b, int64_t m, int64_t n, int64_t k,
                                 double alpha, const void *a, int64_t lda,
                                 int64_t stride_a, const void *b, int64_t ldb,
                                 int64_t stride_b, double beta, void *c,
                                 int64_t ldc, int64_t stride_c, int64_t batch,
                                 kiln_rt_cuda_stream *stream) {
  kiln_rt_status status = kiln_cuda_enter("kiln_rt_cuda_gemm");
  if (status)
    return status;
  int operand_type = 0, compute_type = 0;
  int ex = ex_types(dtype, math, &operand_type, &compute_type);
  int plain = (dtype == KILN_RT_CUDA_F32 || dtype == KILN_RT_CUDA_F64) &&
              math == KILN_RT_CUDA_MATH_EXACT;
  if (!ex && !plain)
    return kiln_rt_status_make(KILN_RT_INVALID_ARGUMENT,
                               "kiln_rt_cuda_gemm: no product of element type "
                               "%d in math mode %d",
                               (int)dtype, (int)math);
  if (!fits_int(m) || !fits_int(n) || !fits_int(k) || !fits_int(lda) ||
      !fits_int(ldb) || !fits_int(ldc) || batch < 1 || batch > INT_MAX ||
      (m && n && (!a || !b || !c)))
    return kiln_rt_status_make(KILN_RT_INVALID_ARGUMENT,
                               "kiln_rt_cuda_gemm: bad sizes, strides or "
                               "pointers (m=%lld n=%lld k=%lld batch=%lld)",
                               (long long)m, (long long)n, (long long)k,
                               (long long)batch);
  if (m == 0 || n == 0)
    return KILN_RT_SUCCESS;
  pthread_mutex_lock(&blas_mutex);
  status = load();
  if (!status)
    status = KILN_CUBLAS_CALL(cublasSetStream_v2,
                              (handle, kiln_cuda_stream_handle(stream)));
  /* Row-major C = op(A) op(B) is column-major C^T = op(B)^T op(A)^T. */
  int op_a = trans_a ? CUBLAS_OP_T : CUBLAS_OP_N;
  int op_b = trans_b ? CUBLAS_OP_T : CUBLAS_OP_N;
  float alpha32 = (float)alpha, beta32 = (float)beta;
  if (!status && ex) {
    /* C is f32 whatever A and B are; alpha and beta are of the compute
     * type's scale, f32. */
    status = KILN_CUBLAS_CALL(cublasGemmStridedBatchedEx,
                              (handle, op_b, op_a, (int)n, (int)m, (int)k,
                               &alpha32, b, operand_type, (int)ldb, stride_b, a,
                               operand_type, (int)lda, stride_a, &beta32, c,
                               CUDA_R_32F, (int)ldc, stride_c, (int)batch,
                               compute_type, CUBLAS_GEMM_DEFAULT));
  } else if (!status && dtype == KILN_RT_CUDA_F32) {
    status =
        KILN_CUBLAS_CALL(cublasSgemmStridedBatched,
                         (handle, op_b, op_a, (int)n, (int)m, (int)k, &alpha32,
                          b, (int)ldb, stride_b, a, (int)lda, stride_a, &beta32,
                          c, (int)ldc, stride_c, (int)batch));
  } else if (!status) {
    status =
        KILN_CUBLAS_CALL(cublasDgemmStridedBatched,
                         (handle, op_b, op_a, (int)n, (int)m, (int)k, &alpha, b,
                          (int)ldb, stride_b, a, (int)lda, stride_a, &beta, c,
                          (int)ldc, stride_c, (int)batch));
  }
  pthread_mutex_unlock(&blas_mutex);
  return status;
}

void kiln_cuda_release_blas(void) {
  pthread_mutex_lock(&blas_mutex);
  if (loaded)
    cublas.cublasDestroy_v2(handle);
  if (library)
    dlclose(library);
  library = NULL;
  handle = NULL;
  tried = loaded = 0;
  pthread_mutex_unlock(&blas_mutex);
}
