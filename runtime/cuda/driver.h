/*===- driver.h - the CUDA Driver API, loaded at run time -----*- C -*-===*
 *
 * The few driver types and entry points kiln uses, declared here (no CUDA
 * header is needed to build), resolved with dlsym by kiln_rt_cuda_init.
 * Internal to runtime/cuda.
 *
 *===----------------------------------------------------------------------===*/

#ifndef KILN_RT_CUDA_DRIVER_H
#define KILN_RT_CUDA_DRIVER_H

#include "../common/status.h"
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
typedef struct CUgraph_st *CUgraph;
typedef struct CUgraphNode_st *CUgraphNode;
typedef struct CUgraphExec_st *CUgraphExec;

/* cuda.h's CUDA_KERNEL_NODE_PARAMS (its _v2 layout). */
typedef struct CUDA_KERNEL_NODE_PARAMS {
  CUfunction func;
  unsigned gridDimX, gridDimY, gridDimZ;
  unsigned blockDimX, blockDimY, blockDimZ;
  unsigned sharedMemBytes;
  void **kernelParams;
  void **extra;
  void *kern; /* CUkernel: used only where func is NULL */
  CUcontext ctx;
} CUDA_KERNEL_NODE_PARAMS;

/* cuda.h's CUgraphExecUpdateResultInfo. */
typedef struct CUgraphExecUpdateResultInfo {
  int result;
  CUgraphNode errorNode;
  CUgraphNode errorFromNode;
} CUgraphExecUpdateResultInfo;

/* cuda.h's CUDA_MEMCPY2D (its _v2 layout), for device-to-device copies. */
typedef struct CUDA_MEMCPY2D {
  size_t srcXInBytes, srcY;
  int srcMemoryType; /* CUmemorytype */
  const void *srcHost;
  CUdeviceptr srcDevice;
  void *srcArray;
  size_t srcPitch;
  size_t dstXInBytes, dstY;
  int dstMemoryType;
  void *dstHost;
  CUdeviceptr dstDevice;
  void *dstArray;
  size_t dstPitch;
  size_t WidthInBytes, Height;
} CUDA_MEMCPY2D;

enum { CU_MEMORYTYPE_DEVICE = 2 };

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
  CUDA_ERROR_NOT_READY = 600,
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
enum { CU_EVENT_DISABLE_TIMING = 2 };
enum { CU_STREAM_CAPTURE_MODE_THREAD_LOCAL = 1 };
enum { CU_STREAM_CAPTURE_STATUS_ACTIVE = 1 };

/* The entry points, each named as libcuda exports it. */
#include "driver_functions.h"

typedef struct kiln_cuda_driver {
#define KILN_CUDA_DECLARE(name, result, params) result(*name) params;
  KILN_CUDA_DRIVER_FUNCTIONS(KILN_CUDA_DECLARE)
  KILN_CUDA_GRAPH_FUNCTIONS(KILN_CUDA_DECLARE)
#undef KILN_CUDA_DECLARE
  /* cuStreamGetCaptureInfo_v2 (CUDA 11.3 to 12.2 drivers), where _v3 is
   * missing: _v3's arguments less the edge data. */
  CUresult (*cuStreamGetCaptureInfo_v2)(CUstream, int *, unsigned long long *,
                                        CUgraph *, const CUgraphNode **,
                                        size_t *);
  int has_graphs; /* every graph entry point resolved */
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
 * the calling thread; a failure names `api`. */
kiln_rt_status kiln_cuda_enter(const char *api);

/* Whether kiln_cuda_enter(api) succeeds, its failure dropped: for calls
 * that only ask (is there a device, may this be released). */
int kiln_cuda_entered(const char *api);

/* Success for CUDA_SUCCESS; otherwise a failure, "call: NAME
 * (description)", of the code the CUresult maps to. */
kiln_rt_status kiln_cuda_check(CUresult result, const char *call);

/* Calls the driver function `fn` (a member of kiln_cuda) with `args` (in
   parentheses) and gives its result as a kiln_rt_status. A failure's message
   names `fn` from the same token that makes the call, exactly as called
   (cuStreamDestroy_v2), so that the two cannot drift apart. */
#define KILN_CUDA_CALL(fn, args) kiln_cuda_check(kiln_cuda.fn args, #fn)

/* KILN_CUDA_CALL that returns the failure from the enclosing function. */
#define KILN_CUDA_RETURN_IF_ERROR(fn, args)                                    \
  KILN_RT_RETURN_IF_ERROR(KILN_CUDA_CALL(fn, args))

/* The driver stream of `stream`; NULL stands for the runtime's own stream,
 * created with the context, on which all of kiln's work is ordered (the
 * legacy default stream cannot be captured into a graph). */
CUstream kiln_cuda_stream_handle(kiln_rt_cuda_stream *stream);

/* Whether `stream` is capturing a graph now (0 where the driver has no
 * graphs, or the query fails). */
int kiln_cuda_stream_capturing(CUstream stream);

/* Called first by kiln_rt_cuda_shutdown (before it takes its lock), for
 * the layers above that hold the session's streams and events (NCCL's). */
void kiln_cuda_set_shutdown_hook(void (*hook)(void));

/* Helpers of kiln_rt_cuda_shutdown, in the files that own the state. */
void kiln_cuda_release_graphs(void);
void kiln_cuda_release_capture_streams(void); /* after release_blas */
void kiln_cuda_unload_modules(void);
void kiln_cuda_release_memory(void);
void kiln_cuda_release_blas(void);

#endif /* KILN_RT_CUDA_DRIVER_H */
