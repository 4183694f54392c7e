//===- CudaSide.cpp - the toolkit's declarations of the same names --------===//

#include "Signature.h"

#include <cstddef>

#include <cublas_v2.h>
#include <cuda.h>

// Only the lists (not driver.h, whose typedefs clash with cuda.h's).
#include "cuda/cublas_functions.h"
#include "cuda/driver_functions.h"

#define KILN_EXPANDED_NAME(name) #name

std::vector<kiln::test::Signature> kiln::test::getToolkitSignatures() {
  std::vector<Signature> all;
#define KILN_SIGNATURE(name, result, params)                                   \
  all.push_back(                                                               \
      SignatureOf<decltype(&name)>::get(#name, KILN_EXPANDED_NAME(name)));
  KILN_CUDA_DRIVER_FUNCTIONS(KILN_SIGNATURE)
  KILN_CUDA_GRAPH_FUNCTIONS(KILN_SIGNATURE)
  KILN_CUBLAS_FUNCTIONS(KILN_SIGNATURE)
#undef KILN_SIGNATURE
  return all;
}

kiln::test::Layout kiln::test::getToolkitLayouts() {
  KILN_LAYOUT_OF(CUDA_KERNEL_NODE_PARAMS, CUgraphExecUpdateResultInfo,
                 CUDA_MEMCPY2D)
}
