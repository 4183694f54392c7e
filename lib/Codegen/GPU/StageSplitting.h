//===- StageSplitting.h - a kernel's ops in launches -----------*- C++ -*-===//
//
// -kiln-map-kernels-to-gpu runs an outlined kernel's linalg ops as loops of
// GPU kernels. Ops that may run in one launch form a stage; a new stage
// starts where an op depends on what an earlier op of the stage wrote,
// since only the end of a launch orders every thread of the grid.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_CONVERSION_GPUKERNELS_STAGESPLITTING_H
#define KILN_CONVERSION_GPUKERNELS_STAGESPLITTING_H

#include "BufferAliases.h"

#include "mlir/Support/LLVM.h"

namespace kiln::gpu_mapper {

/// One loop of a GPU kernel: a linalg op, and the fill it absorbs (the
/// output its accumulator starts from).
struct Nest {
  mlir::linalg::LinalgOp op;
  mlir::linalg::FillOp fill; // or null
  unsigned fillOutput = 0;   // which output of `op` the fill initializes
  /// A reduction split across the grid (ReductionSplitting.h): its phase,
  /// the parts of each output, and the kernel argument of the partials.
  enum class Phase { Whole, Parts, Total } phase = Phase::Whole;
  int64_t parts = 1;
  unsigned partials = 0;
  /// Whether the split is of a column reduction (its parts split the rows;
  /// partials [part][column]) rather than of the shuffle form.
  bool columns = false;
};

/// The ops of a kernel that run in one launch.
using Stage = llvm::SmallVector<Nest>;

/// Splits a kernel's ops into stages: a new one starts where an op reads or
/// writes a buffer an earlier op of the stage wrote, or writes one it read
/// (a fill followed by the reduction it initializes is one nest instead).
/// Buffers are the same where `aliases` says the kernel's arguments may
/// share elements. Fails, with an error on the op, on ops on tensors and
/// ops with regions that are not linalg ops.
mlir::FailureOr<llvm::SmallVector<Stage>>
splitIntoStages(mlir::func::FuncOp kernel, const ArgumentAliases &aliases);

} // namespace kiln::gpu_mapper

#endif // KILN_CONVERSION_GPUKERNELS_STAGESPLITTING_H
