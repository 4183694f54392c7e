//===- BufferAliases.h - which buffers a kernel may share ------*- C++ -*-===//
//
// The alias analysis of -kiln-map-kernels-to-gpu: a view as a box of the
// buffer it comes from, whether two boxes may share an element, and which
// arguments of a kernel may share elements at some call. Conservative:
// "may overlap" wherever it cannot prove otherwise.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_CONVERSION_GPUKERNELS_BUFFERALIASES_H
#define KILN_CONVERSION_GPUKERNELS_BUFFERALIASES_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/SmallBitVector.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>

namespace kiln::gpu_mapper {

/// A view as a box of its root buffer: the buffer it comes from (through
/// casts and subviews) and, where known, the index ranges of the root it
/// covers (subviews of unit steps and static offsets and sizes compose; the
/// root itself covers all of it).
struct Box {
  mlir::Value root;
  std::optional<llvm::SmallVector<int64_t>> offsets, sizes;
};

/// The box `value` (a memref) covers.
Box getBox(mlir::Value value);

/// Whether two boxes may share an element: the same root, unless they are
/// apart along some dim.
bool mayOverlap(const Box &boxA, const Box &boxB);

/// For each argument of a kernel, the arguments it may share elements with
/// (itself included).
using ArgumentAliases = llvm::SmallVector<llvm::SmallBitVector>;

/// Which arguments of `kernel` may share elements at some of `calls`: the
/// calls pass views of one buffer that are not provably apart.
ArgumentAliases getArgumentAliases(mlir::func::FuncOp kernel,
                                   llvm::ArrayRef<mlir::func::CallOp> calls);

/// The buffers `op` reads (inputs, and inits whose value it uses).
llvm::SmallVector<mlir::Value> getReadBuffers(mlir::linalg::LinalgOp op);

} // namespace kiln::gpu_mapper

#endif // KILN_CONVERSION_GPUKERNELS_BUFFERALIASES_H
