//===- CompactKernelAbi.h - how kernels take their buffers ------*- C++ -*-===//
//
// -kiln-compact-kernel-abi passes a kernel buffer of static sizes and
// strides as one pointer; any other buffer keeps its memref descriptor.
// Callers that are not compiled (the runtime's host programs) pass each
// argument the same way.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_CODEGEN_CPU_COMPACTKERNELABI_H
#define KILN_CODEGEN_CPU_COMPACTKERNELABI_H

#include "mlir/IR/BuiltinTypes.h"

namespace kiln {

/// Whether a kernel argument of `type` is passed as one pointer to its
/// first element (the caller adds the offset), rather than as its memref
/// descriptor.
bool isCompactKernelArgument(mlir::MemRefType type);

} // namespace kiln

#endif // KILN_CODEGEN_CPU_COMPACTKERNELABI_H
