//===- SubsetKernels.h - run a kernel as a larger one that contains it ----===//
//
// An unrolled loop's first or last step often needs one output fewer than
// the others (the gradient of an initial state nobody asked for): its
// kernel is the common one minus that output and the ops only it needs.
// Running it as the common kernel, the extra output written to scratch,
// compiles one kernel fewer for a little more work.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_LIB_CONVERSION_OUTLINEKERNELS_SUBSETKERNELS_H
#define KILN_LIB_CONVERSION_OUTLINEKERNELS_SUBSETKERNELS_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/MapVector.h"

namespace kiln {

/// The calls of each kernel, by kernel, in the order the kernels were made.
using KernelCalls =
    llvm::MapVector<mlir::func::FuncOp, llvm::SmallVector<mlir::func::CallOp>>;

/// Folds each kernel of `calls` that another one contains (the same ops on
/// the same inputs, some outputs and the ops only they need removed) into
/// it, when the larger kernel is called at least as often and does at most
/// a quarter more work (bytes written, ops). Its calls pass scratch buffers
/// for the extra outputs; the folded kernels are erased and removed from
/// `calls`. Returns how many were folded.
int64_t foldSubsetKernels(KernelCalls &calls);

} // namespace kiln

#endif // KILN_LIB_CONVERSION_OUTLINEKERNELS_SUBSETKERNELS_H
