//===- KilnSide.cpp - the runtime's hand declarations, as signatures ------===//

#include "Signature.h"

#include <cstddef>

#include "cuda/driver.h"

// blas.c's own types for the cuBLAS list.
typedef int cublasStatus_t;
typedef struct cublasContext *cublasHandle_t;
#include "cuda/cublas_functions.h"

std::vector<kiln::test::Signature> kiln::test::getKilnSignatures() {
  std::vector<Signature> all;
#define KILN_SIGNATURE(name, result, params)                                   \
  all.push_back(SignatureOf<result(*) params>::get(#name, #name));
  KILN_CUDA_DRIVER_FUNCTIONS(KILN_SIGNATURE)
  KILN_CUDA_GRAPH_FUNCTIONS(KILN_SIGNATURE)
  KILN_CUBLAS_FUNCTIONS(KILN_SIGNATURE)
#undef KILN_SIGNATURE
  return all;
}

kiln::test::Layout kiln::test::getKilnLayouts() {
  KILN_LAYOUT_OF(CUDA_KERNEL_NODE_PARAMS, CUgraphExecUpdateResultInfo,
                 CUDA_MEMCPY2D)
}
