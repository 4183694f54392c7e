//===- BufferAccess.h - how host code accesses buffers ----------*- C++ -*-===//
//
// After the buffer stage a host function is one block of allocations,
// views, kernel calls, runtime calls and copies. These helpers find the
// buffer a value views, the operations that access a buffer, and the
// kernels that read one buffer and write another element by element (so
// that the two may be one): -kiln-plan-donation for the entry's inputs and
// results, -kiln-reuse-buffers for its temporaries.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_LIB_CODEGEN_COMMON_BUFFERACCESS_H
#define KILN_LIB_CODEGEN_COMMON_BUFFERACCESS_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Block.h"

namespace kiln {

/// Whether `value` is the whole of its root buffer: the root itself, or a
/// chain of memref.casts (which change only the layout's type) and
/// reshapes (expand_shape, collapse_shape: the same elements in the same
/// order) of it.
bool isWholeBuffer(mlir::Value value, mlir::Value root);

/// The buffer that `view` (the result of `op`) views: memref.cast and
/// memref.transpose (not ViewLikeOpInterface ops in MLIR 22), and the
/// ViewLikeOpInterface ops; null for anything else.
mlir::Value getViewedBuffer(mlir::Operation *op, mlir::Value view);

/// The buffer a value views (through view ops): a block argument or the
/// result of an op that is not a view (an allocation).
mlir::Value getRootBuffer(mlir::Value value);

/// The function argument a value views (through view ops), or null.
mlir::Value getRootArgument(mlir::Value value);

/// Whether `op`, which reads the buffer `input` and writes the buffer
/// `result`, does so element by element: a copy between the two whole
/// buffers, or a call passing each whole, once, to a kernel whose only use
/// of each is one all-parallel linalg.generic that reads the input and
/// writes the result through one permutation map and never reads the
/// result's old value (with `reductions`, one that also reduces over some
/// loops, where its lowering runs the body once per point). Then `result`
/// may be `input`'s buffer.
bool isInPlace(mlir::Operation *op, mlir::Value input, mlir::Value result,
               bool reductions = false);

/// Calls `visit` with every top-level operation of `body` that uses `buffer`
/// or a view of it. A view is not an access; what uses it is. An operation
/// that returns a buffer from one (a loop carrying it, an unknown view)
/// hides later accesses: it is reported as null, an access everywhere.
template <typename Visit>
void forEachAccess(mlir::Block &body, mlir::Value buffer, Visit &&visit) {
  llvm::SmallVector<mlir::Value> worklist{buffer};
  while (!worklist.empty()) {
    mlir::Value value = worklist.pop_back_val();
    for (mlir::Operation *user : value.getUsers()) {
      if (user->getNumResults() == 1 &&
          getViewedBuffer(user, user->getResult(0)) == value) {
        worklist.push_back(user->getResult(0));
        continue;
      }
      bool returnsBuffer =
          llvm::any_of(user->getResultTypes(), [](mlir::Type t) {
            return llvm::isa<mlir::BaseMemRefType>(t);
          });
      visit(returnsBuffer ? nullptr : body.findAncestorOpInBlock(*user));
    }
  }
}

} // namespace kiln

#endif // KILN_LIB_CODEGEN_COMMON_BUFFERACCESS_H
