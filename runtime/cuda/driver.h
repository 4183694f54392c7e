/*===- driver.h - the CUDA Driver API, loaded at run time -----*- C -*-===*
 *
 * The few driver types and entry points kiln uses, declared here (no CUDA
 * header is needed to build), resolved with dlsym by kiln_rt_cuda_init.
 * Internal to runtime/cuda.
 *
 *===----------------------------------------------------------------------===*/

#ifndef KILN_RT_CUDA_DRIVER_H
#define KILN_RT_CUDA_DRIVER_H

#include "kiln_rt/kiln_rt_cuda.h"

#include <stddef.h>

typedef int CUresult;
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUstream_st *CUstream;
typedef struct CUevent_st *CUevent;

enum {
  CUDA_SUCCESS = 0,
  CUDA_ERROR_INVALID_VALUE = 1,
  CUDA_ERROR_OUT_OF_MEMORY = 2,
  CUDA_ERROR_NOT_INITIALIZED = 3,
  CUDA_ERROR_DEINITIALIZED = 4,
  CUDA_ERROR_INSUFFICIENT_DRIVER = 35,
  CUDA_ERROR_NO_DEVICE = 100,
  CUDA_ERROR_INVALID_HANDLE = 400,
  CUDA_ERROR_NOT_FOUND = 500,
};

enum {
  CU_JIT_INFO_LOG_BUFFER = 3,
  CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES = 4,
  CU_JIT_ERROR_LOG_BUFFER = 5,
  CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6,
};

enum {
  CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 1,
  CU_DEVICE_ATTRIBUTE_WARP_SIZE = 10,
  CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16,
  CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75,
  CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76,
};

enum { CU_STREAM_NON_BLOCKING = 1 };

/* The entry points, each named as libcuda exports it. */
#define KILN_CUDA_DRIVER_FUNCTIONS(X)                                          \
  X(cuGetErrorName, CUresult, (CUresult, const char **))                       \
  X(cuGetErrorString, CUresult, (CUresult, const char **))                     \
  X(cuInit, CUresult, (unsigned))                                              \
  X(cuDeviceGetCount, CUresult, (int *))                                       \
  X(cuDeviceGet, CUresult, (CUdevice *, int))                                  \
  X(cuDeviceGetName, CUresult, (char *, int, CUdevice))                        \
  X(cuDeviceGetAttribute, CUresult, (int *, int, CUdevice))                    \
  X(cuDeviceTotalMem_v2, CUresult, (size_t *, CUdevice))                       \
  X(cuDevicePrimaryCtxRetain, CUresult, (CUcontext *, CUdevice))               \
  X(cuDevicePrimaryCtxRelease_v2, CUresult, (CUdevice))                        \
  X(cuCtxSetCurrent, CUresult, (CUcontext))                                    \
  X(cuCtxSynchronize, CUresult, (void))                                        \
  X(cuModuleLoadDataEx, CUresult,                                              \
    (CUmodule *, const void *, unsigned, int *, void **))                      \
  X(cuModuleUnload, CUresult, (CUmodule))                                      \
  X(cuModuleGetFunction, CUresult, (CUfunction *, CUmodule, const char *))     \
  X(cuMemAlloc_v2, CUresult, (CUdeviceptr *, size_t))                          \
  X(cuMemFree_v2, CUresult, (CUdeviceptr))                                     \
  X(cuMemcpyHtoDAsync_v2, CUresult,                                            \
    (CUdeviceptr, const void *, size_t, CUstream))                             \
  X(cuMemcpyDtoHAsync_v2, CUresult, (void *, CUdeviceptr, size_t, CUstream))   \
  X(cuMemcpyDtoDAsync_v2, CUresult,                                            \
    (CUdeviceptr, CUdeviceptr, size_t, CUstream))                              \
  X(cuMemsetD8Async, CUresult, (CUdeviceptr, unsigned char, size_t, CUstream)) \
  X(cuStreamCreate, CUresult, (CUstream *, unsigned))                          \
  X(cuStreamDestroy_v2, CUresult, (CUstream))                                  \
  X(cuStreamSynchronize, CUresult, (CUstream))                                 \
  X(cuLaunchKernel, CUresult,                                                  \
    (CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,   \
     unsigned, CUstream, void **, void **))                                    \
  X(cuEventCreate, CUresult, (CUevent *, unsigned))                            \
  X(cuEventDestroy_v2, CUresult, (CUevent))                                    \
  X(cuEventRecord, CUresult, (CUevent, CUstream))                              \
  X(cuEventSynchronize, CUresult, (CUevent))                                   \
  X(cuEventElapsedTime, CUresult, (float *, CUevent, CUevent))

typedef struct kiln_cuda_driver {
#define KILN_CUDA_DECLARE(name, result, params) result(*name) params;
  KILN_CUDA_DRIVER_FUNCTIONS(KILN_CUDA_DECLARE)
#undef KILN_CUDA_DECLARE
} kiln_cuda_driver;

/* The handles behind the public opaque types. */
struct kiln_rt_cuda_function {
  char *name;
  CUfunction handle;
  struct kiln_rt_cuda_function *next;
};
struct kiln_rt_cuda_stream {
  CUstream handle;
};
struct kiln_rt_cuda_event {
  CUevent handle;
};

/* The loaded driver; valid once kiln_cuda_enter has succeeded. */
extern kiln_cuda_driver kiln_cuda;

/* Checks that the runtime is initialized and makes its context current on
 * the calling thread; on failure, sets the error naming `api`. */
kiln_rt_status kiln_cuda_enter(const char *api);

/* Sets the calling thread's error message (printf-style) and returns
 * `status`. */
kiln_rt_status kiln_cuda_fail(kiln_rt_status status, const char *format, ...)
    __attribute__((format(printf, 2, 3)));

/* Appends to the calling thread's error message; returns `status`. */
kiln_rt_status kiln_cuda_append(kiln_rt_status status, const char *format, ...)
    __attribute__((format(printf, 2, 3)));

/* KILN_RT_OK for CUDA_SUCCESS; otherwise sets the error, "call: NAME
 * (description)", and returns the status the CUresult maps to. */
kiln_rt_status kiln_cuda_check(CUresult result, const char *call);

/* Calls the driver function `fn` (a member of kiln_cuda) with `args` (in
   parentheses) and gives its result as a kiln_rt_status. A failure's message
   names `fn` from the same token that makes the call, exactly as called
   (cuStreamDestroy_v2), so that the two cannot drift apart. */
#define KILN_CUDA_CALL(fn, args) kiln_cuda_check(kiln_cuda.fn args, #fn)

/* KILN_CUDA_CALL that returns the failure's status from the enclosing
   function. */
#define KILN_CUDA_RETURN_IF_ERROR(fn, args)                                    \
  do {                                                                         \
    kiln_rt_status kiln_cuda_status_ = KILN_CUDA_CALL(fn, args);               \
    if (kiln_cuda_status_ != KILN_RT_OK)                                       \
      return kiln_cuda_status_;                                                \
  } while (0)

/* Helpers of kiln_rt_cuda_shutdown, in the files that own the state. */
void kiln_cuda_unload_modules(void);
void kiln_cuda_release_memory(void);
void kiln_cuda_release_blas(void);

#endif /* KILN_RT_CUDA_DRIVER_H */
