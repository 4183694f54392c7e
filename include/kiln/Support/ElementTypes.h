//===- ElementTypes.h - kiln dtypes as MLIR types ---------------*- C++ -*-===//
//
// The mapping between HostTensor's DType and MLIR element types, and the
// check that a host tensor fits a tensor type: shared by the compiler, the
// importer, the reference interpreter and the tools.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_SUPPORT_ELEMENTTYPES_H
#define KILN_SUPPORT_ELEMENTTYPES_H

#include "kiln/Support/HostTensor.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Types.h"
#include "llvm/Support/Error.h"

namespace kiln {

/// The DType of a kiln element type, or an error naming the type.
llvm::Expected<DType> getDType(mlir::Type elementType);

/// The element type of `dtype` (the inverse of getDType).
mlir::Type getElementType(mlir::MLIRContext &context, DType dtype);

/// Checks that `value` can be passed where `type` is expected: same element
/// type and rank, equal static dims. The error names `what`.
llvm::Error checkMatchesType(const HostTensor &value, mlir::Type type,
                             llvm::StringRef what);

} // namespace kiln

#endif // KILN_SUPPORT_ELEMENTTYPES_H
