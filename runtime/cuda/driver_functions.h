/*===- driver_functions.h - the CUDA driver entry points kiln loads -------===*
 *
 * One X(name, result, params) per driver function that the runtime looks up
 * with dlsym, under its exact (versioned) symbol name. Only the list: the
 * types it names are driver.h's, so that a test can expand it beside the
 * toolkit's own cuda.h and compare the two (CudaDeclarationsTest).
 *
 *===----------------------------------------------------------------------===*/

#ifndef KILN_RT_CUDA_DRIVER_FUNCTIONS_H
#define KILN_RT_CUDA_DRIVER_FUNCTIONS_H

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
  X(cuEventElapsedTime_v2, CUresult, (float *, CUevent, CUevent))              \
  X(cuEventQuery, CUresult, (CUevent))                                         \
  X(cuStreamWaitEvent, CUresult, (CUstream, CUevent, unsigned))                \
  X(cuMemcpy2DAsync_v2, CUresult, (const CUDA_MEMCPY2D *, CUstream))

/* The graph entry points: optional (kiln_rt_cuda_graphs_available), so that
 * a driver without them still runs everything directly. cuda.h maps
 * cuStreamGetCaptureInfo to _v3 since CUDA 12.3; drivers before it export
 * _v2, the same call without the edge data, which driver.c adapts. */
#define KILN_CUDA_GRAPH_FUNCTIONS(X)                                           \
  X(cuStreamBeginCapture_v2, CUresult, (CUstream, int))                        \
  X(cuStreamEndCapture, CUresult, (CUstream, CUgraph *))                       \
  X(cuStreamGetCaptureInfo_v3, CUresult,                                       \
    (CUstream, int *, unsigned long long *, CUgraph *, const CUgraphNode **,   \
     const void **, size_t *))                                                 \
  X(cuGraphInstantiateWithFlags, CUresult,                                     \
    (CUgraphExec *, CUgraph, unsigned long long))                              \
  X(cuGraphLaunch, CUresult, (CUgraphExec, CUstream))                          \
  X(cuGraphExecKernelNodeSetParams_v2, CUresult,                               \
    (CUgraphExec, CUgraphNode, const CUDA_KERNEL_NODE_PARAMS *))               \
  X(cuGraphExecUpdate_v2, CUresult,                                            \
    (CUgraphExec, CUgraph, CUgraphExecUpdateResultInfo *))                     \
  X(cuGraphExecDestroy, CUresult, (CUgraphExec))                               \
  X(cuGraphDestroy, CUresult, (CUgraph))

#endif /* KILN_RT_CUDA_DRIVER_FUNCTIONS_H */
