/*===- cublas_functions.h - the cuBLAS entry points kiln loads ------------===*
 *
 * One X(name, result, params) per cuBLAS function that the runtime looks up
 * with dlsym, under its exact (versioned) symbol name; the types are
 * blas.c's. Only the list, so that CudaDeclarationsTest can expand it
 * beside the toolkit's cublas_v2.h and compare.
 *
 *===----------------------------------------------------------------------===*/

#ifndef KILN_RT_CUDA_CUBLAS_FUNCTIONS_H
#define KILN_RT_CUDA_CUBLAS_FUNCTIONS_H

#define KILN_CUBLAS_FUNCTIONS(X)                                               \
  X(cublasCreate_v2, cublasStatus_t, (cublasHandle_t *))                       \
  X(cublasDestroy_v2, cublasStatus_t, (cublasHandle_t))                        \
  X(cublasSetStream_v2, cublasStatus_t, (cublasHandle_t, CUstream))            \
  X(cublasSgemmStridedBatched, cublasStatus_t,                                 \
    (cublasHandle_t, int, int, int, int, int, const float *, const float *,    \
     int, long long, const float *, int, long long, const float *, float *,    \
     int, long long, int))                                                     \
  X(cublasDgemmStridedBatched, cublasStatus_t,                                 \
    (cublasHandle_t, int, int, int, int, int, const double *, const double *,  \
     int, long long, const double *, int, long long, const double *, double *, \
     int, long long, int))                                                     \
  X(cublasGemmStridedBatchedEx, cublasStatus_t,                                \
    (cublasHandle_t, int, int, int, int, int, const void *, const void *, int, \
     int, long long, const void *, int, int, long long, const void *, void *,  \
     int, int, long long, int, int, int))

#endif /* KILN_RT_CUDA_CUBLAS_FUNCTIONS_H */
