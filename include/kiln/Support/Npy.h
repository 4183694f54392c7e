//===- Npy.h - .npy reader and writer ---------------------------*- C++ -*-===//
//
// NumPy's .npy format, versions 1.0 to 3.0: little-endian float32, float64,
// float16 and bool data in C order. Anything else is an error that says what
// the file holds.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_SUPPORT_NPY_H
#define KILN_SUPPORT_NPY_H

#include "kiln/Support/HostTensor.h"

#include "llvm/Support/Error.h"

namespace kiln {

/// Parses the bytes of a .npy file.
llvm::Expected<HostTensor> parseNpy(llvm::StringRef bytes);

/// Reads a .npy file; errors name the file.
llvm::Expected<HostTensor> readNpy(llvm::StringRef path);

/// The bytes of a version 1.0 .npy file holding `tensor`. bf16 is written as
/// float32, which holds it exactly: NumPy has no bfloat16.
std::string serializeNpy(const HostTensor &tensor);

/// Writes `tensor` to `path`.
llvm::Error writeNpy(llvm::StringRef path, const HostTensor &tensor);

} // namespace kiln

#endif // KILN_SUPPORT_NPY_H
