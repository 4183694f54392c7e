//===- CudaError.cpp - the CUDA runtime's failures as llvm::Error ---------===//

#include "Compiler/Device/CudaError.h"
#include "kiln_rt/kiln_rt_cuda.h"

#include <string>

using namespace kiln;

llvm::Error kiln::getCudaError(kiln_rt_status status) {
  std::string why = kiln_rt_cuda_last_error();
  return llvm::createStringError(
      llvm::inconvertibleErrorCode(),
      why.empty() ? std::string(kiln_rt_status_string(status)) : why);
}
