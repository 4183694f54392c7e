//===- CudaError.h - the CUDA runtime's failures as llvm::Error -*- C++ -*-===//
//
// One place that turns a failed kiln_rt_cuda_* call into an llvm::Error with
// the runtime's message, for the device tensors, the device queue and the
// CUDA executable alike.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_COMPILER_DEVICE_CUDAERROR_H
#define KILN_COMPILER_DEVICE_CUDAERROR_H

#include "kiln_rt/kiln_rt.h"

#include "llvm/Support/Error.h"

namespace kiln {

/// The CUDA runtime's message for a failed call (kiln_rt_cuda_last_error).
llvm::Error getCudaError(kiln_rt_status status);

} // namespace kiln

#endif // KILN_COMPILER_DEVICE_CUDAERROR_H
