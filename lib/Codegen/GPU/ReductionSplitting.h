//===- ReductionSplitting.h - long reductions across the grid --*- C++ -*-===//
//
// A reduction with few outputs and many elements each (a loss, a global
// norm) runs a block per output: a few blocks of the whole device. Such a
// reduction is split in two phases, in two launches: each output's
// elements, flattened, in S parts, a block per part reducing it into a
// buffer of partial results; then a block per output combining its S
// partials, and the value the output starts from, into the output. The
// buffer is a new argument of the kernel that each call allocates.
//
// A column reduction (a bias's or a norm's weight gradient: the sum down
// the rows of [rows, C]) runs a block per tile of 32 outputs: 24 blocks
// for C = 768. It is split the same way along its rows: a block per tile
// and part, then a thread per output over its parts.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_CONVERSION_GPUKERNELS_REDUCTIONSPLITTING_H
#define KILN_CONVERSION_GPUKERNELS_REDUCTIONSPLITTING_H

#include "StageSplitting.h"

#include "llvm/ADT/DenseMap.h"

namespace kiln::gpu_mapper {

/// Outputs at least this many fill the device already.
constexpr int64_t kSplitMaxOutputs = 256;
/// Reductions shorter than this stay a block per output.
constexpr int64_t kSplitMinLength = 32768;
/// The fewest elements each part reduces (16 per thread of a block of 256).
constexpr int64_t kSplitMinPart = 4096;
/// The blocks the parts of all outputs fill at most: several per
/// multiprocessor of a large GPU (132 on an H100).
constexpr int64_t kSplitTargetBlocks = 1024;
/// The most parts per output (the total's block then takes 4 partials per
/// thread).
constexpr int64_t kSplitMaxParts = 1024;

/// How a reduction is split: `parts` per output, their results in kernel
/// argument `partials` (f32, [outputs * parts], an output's parts
/// adjacent).
struct ReductionSplit {
  int64_t parts = 1;
  unsigned partials = 0;
  /// A column reduction's split (getColumnReduction): its parts split the
  /// rows, each block a tile of a warp's width of outputs and a part; the
  /// partials are [parts, outputs] in the accumulator's type.
  bool columns = false;
};

/// A column reduction is split where its tiles (a warp's width of outputs
/// each) are fewer blocks than kSplitTargetBlocks: in parts of at least
/// this many rows (32 per warp of a block of 256).
constexpr int64_t kColumnSplitMinRows = 256;

/// Splits each reduction of `kernel` in the shuffle form
/// (getShuffleReduction: one f32 output indexed by the parallel dims, the
/// reduction dims trailing) with static sizes, fewer than kSplitMaxOutputs
/// outputs and kSplitMinLength elements or more each, whose inputs read
/// along the reduction are read contiguously along its innermost dim and
/// whose output shares no element with an input (`aliases`): S parts per
/// output, the least of kSplitMaxParts, length / kSplitMinPart and
/// kSplitTargetBlocks / outputs (4 or more, given the bounds). Each split
/// adds its partials' buffer as the kernel's last argument, allocated
/// before and freed after each of `calls`. Row kernels and kernels with
/// dynamic sizes are left alone.
llvm::DenseMap<mlir::Operation *, ReductionSplit>
splitLongReductions(mlir::func::FuncOp kernel,
                    llvm::ArrayRef<mlir::func::CallOp> calls,
                    const ArgumentAliases &aliases, unsigned blockSize);

/// The stages with each split reduction in its parts phase, and its total
/// phase in a stage of its own right after.
void applyReductionSplits(
    llvm::SmallVectorImpl<Stage> &stages,
    const llvm::DenseMap<mlir::Operation *, ReductionSplit> &splits);

} // namespace kiln::gpu_mapper

#endif // KILN_CONVERSION_GPUKERNELS_REDUCTIONSPLITTING_H
