//===- CudaSide.cpp - the toolkit's declarations of the same names --------===//

#include "Signature.h"

#include <cstddef>

#include <cublas_v2.h>
#include <cuda.h>

// Only the lists (not driver.h, whose typedefs clash with cuda.h's).
#include "cuda/cublas_functions.h"
#include "cuda/driver_functions.h"

#define KILN_EXPANDED_NAME(name) #name

// The type of each cuBLAS entry point's exported symbol. cublas_api.h
// overloads some names in C++ with inline wrappers (one of
// cublasGemmStridedBatchedEx takes the legacy cudaDataType compute type):
// those are named by the exported overload's type, which the static_cast
// checks exists.
using ToolkitType_cublasCreate_v2 = decltype(&cublasCreate_v2);
using ToolkitType_cublasDestroy_v2 = decltype(&cublasDestroy_v2);
using ToolkitType_cublasSetStream_v2 = decltype(&cublasSetStream_v2);
using ToolkitType_cublasSgemmStridedBatched =
    decltype(&cublasSgemmStridedBatched);
using ToolkitType_cublasDgemmStridedBatched =
    decltype(&cublasDgemmStridedBatched);
using ToolkitType_cublasGemmStridedBatchedEx = cublasStatus_t (*)(
    cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int,
    const void *, const void *, cudaDataType, int, long long, const void *,
    cudaDataType, int, long long, const void *, void *, cudaDataType, int,
    long long, int, cublasComputeType_t, cublasGemmAlgo_t);
[[maybe_unused]] static const ToolkitType_cublasGemmStridedBatchedEx
    exportedGemmStridedBatchedEx =
        static_cast<ToolkitType_cublasGemmStridedBatchedEx>(
            &cublasGemmStridedBatchedEx);

std::vector<kiln::test::Signature> kiln::test::getToolkitSignatures() {
  std::vector<Signature> all;
#define KILN_SIGNATURE(name, result, params)                                   \
  all.push_back(                                                               \
      SignatureOf<decltype(&name)>::get(#name, KILN_EXPANDED_NAME(name)));
  KILN_CUDA_DRIVER_FUNCTIONS(KILN_SIGNATURE)
  KILN_CUDA_GRAPH_FUNCTIONS(KILN_SIGNATURE)
#undef KILN_SIGNATURE
#define KILN_SIGNATURE(name, result, params)                                   \
  all.push_back(SignatureOf<ToolkitType_##name>::get(#name, #name));
  KILN_CUBLAS_FUNCTIONS(KILN_SIGNATURE)
#undef KILN_SIGNATURE
  return all;
}

kiln::test::Layout kiln::test::getToolkitLayouts() {
  KILN_LAYOUT_OF(CUDA_KERNEL_NODE_PARAMS, CUgraphExecUpdateResultInfo,
                 CUDA_MEMCPY2D)
}
