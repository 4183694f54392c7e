//===- ReductionSplitting.cpp - long reductions across the grid -----------===//

#include "ReductionSplitting.h"
#include "KernelBuilder.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;
using namespace kiln::gpu_mapper;

/// Whether `op`'s output may share elements with one of its inputs: what
/// such a nest computes depends on the order of its reads and writes,
/// which a split changes.
static bool mayOverlapAnInput(linalg::LinalgOp op, OpOperand &init,
                              const ArgumentAliases &aliases) {
  Box output = getBox(init.get());
  for (OpOperand *input : op.getDpsInputOperands()) {
    if (!isa<MemRefType>(input->get().getType()))
      continue;
    Box box = getBox(input->get());
    auto a = dyn_cast<BlockArgument>(output.root);
    auto b = dyn_cast<BlockArgument>(box.root);
    if (a && b && a != b ? bool(aliases[a.getArgNumber()][b.getArgNumber()])
                         : mayOverlap(output, box))
      return true;
  }
  return false;
}

/// The split of a column reduction `op` (parts of its rows), or none.
static std::optional<ReductionSplit>
getColumnSplit(linalg::LinalgOp op, ArrayRef<int64_t> ranges,
               const ArgumentAliases &aliases, unsigned blockSize) {
  std::optional<ColumnReduction> column =
      getColumnReduction(op, ranges, blockSize);
  if (!column)
    return std::nullopt;
  // Every output of the op: one written at every step is written once per
  // element either way, but must not feed the reads.
  for (OpOperand &init : op.getDpsInitsMutable())
    if (mayOverlapAnInput(op, init, aliases))
      return std::nullopt;
  int64_t tiles = (column->columns + 31) / 32;
  if (tiles >= kSplitTargetBlocks)
    return std::nullopt;
  int64_t parts = std::min({kSplitMaxParts, column->rows / kColumnSplitMinRows,
                            (kSplitTargetBlocks + tiles - 1) / tiles});
  if (parts < 2)
    return std::nullopt;
  ReductionSplit split;
  split.parts = parts;
  split.columns = true;
  return split;
}

/// The split of `op`, if it is a long reduction with few outputs or a
/// column reduction with few tiles.
static std::optional<ReductionSplit> getSplit(linalg::LinalgOp op,
                                              const ArgumentAliases &aliases,
                                              unsigned blockSize) {
  // A body that reads its loop indices runs in the scalar loop, unsplit.
  if (!op.hasPureBufferSemantics() || blockSize < 64 ||
      !op->getRegion(0).front().getOps<linalg::IndexOp>().empty())
    return std::nullopt;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  if (llvm::any_of(ranges, ShapedType::isDynamic))
    return std::nullopt;
  // The column form first, as the kernel builder tries it first.
  if (getColumnReduction(op, ranges, blockSize))
    return getColumnSplit(op, ranges, aliases, blockSize);
  if (!getShuffleReduction(op, ranges, blockSize))
    return std::nullopt;
  // Inputs read along the reduction are read along its innermost dim as
  // their innermost index: a part's threads then read adjacent elements.
  unsigned innermost = op.getNumLoops() - 1;
  for (OpOperand *input : op.getDpsInputOperands()) {
    AffineMap map = op.getMatchingIndexingMap(input);
    bool alongReduction = false;
    for (unsigned d = getFirstReductionDim(op); d <= innermost; ++d)
      alongReduction |= map.isFunctionOfDim(d);
    if (!alongReduction)
      continue;
    auto last = map.getNumResults()
                    ? dyn_cast<AffineDimExpr>(map.getResults().back())
                    : nullptr;
    if (!last || last.getPosition() != innermost)
      return std::nullopt;
  }
  if (mayOverlapAnInput(op, op.getDpsInitsMutable()[0], aliases))
    return std::nullopt;
  int64_t outputs = 1;
  for (unsigned d = 0; d < getFirstReductionDim(op); ++d)
    outputs *= ranges[d];
  int64_t length = getReductionLength(op, ranges);
  if (outputs == 0 || outputs >= kSplitMaxOutputs || length < kSplitMinLength)
    return std::nullopt;
  int64_t parts = std::min(
      {kSplitMaxParts, length / kSplitMinPart, kSplitTargetBlocks / outputs});
  if (parts < 2)
    return std::nullopt;
  ReductionSplit split;
  split.parts = parts;
  return split;
}

llvm::DenseMap<Operation *, ReductionSplit>
kiln::gpu_mapper::splitLongReductions(func::FuncOp kernel,
                                      ArrayRef<func::CallOp> calls,
                                      const ArgumentAliases &aliases,
                                      unsigned blockSize) {
  llvm::DenseMap<Operation *, ReductionSplit> splits;
  for (BlockArgument arg : kernel.getArguments()) {
    auto type = dyn_cast<MemRefType>(arg.getType());
    if (!type || !type.hasStaticShape())
      return splits;
  }
  // A row kernel keeps each row's values in its block.
  if (getGpuRowKernel(kernel, aliases, blockSize))
    return splits;
  SmallVector<std::pair<linalg::LinalgOp, ReductionSplit>> planned;
  for (auto op : kernel.getBody().front().getOps<linalg::LinalgOp>())
    if (std::optional<ReductionSplit> split = getSplit(op, aliases, blockSize))
      planned.emplace_back(op, *split);
  for (auto [op, split] : planned) {
    int64_t outputs = 1;
    SmallVector<int64_t> ranges = op.getStaticLoopRanges();
    Type element = Float32Type::get(kernel.getContext());
    if (split.columns) {
      ColumnReduction column = *getColumnReduction(op, ranges, blockSize);
      outputs = column.columns;
      element = cast<MemRefType>(column.accumulated->get().getType())
                    .getElementType();
    } else {
      for (unsigned d = 0; d < getFirstReductionDim(op); ++d)
        outputs *= ranges[d];
    }
    auto type = MemRefType::get({outputs * split.parts}, element);
    unsigned index = kernel.getNumArguments();
    if (failed(
            kernel.insertArgument(index, type, DictionaryAttr(), op.getLoc())))
      break;
    for (func::CallOp call : calls) {
      OpBuilder b(call);
      Value partials = memref::AllocOp::create(b, call.getLoc(), type);
      call->insertOperands(call->getNumOperands(), partials);
      b.setInsertionPointAfter(call);
      memref::DeallocOp::create(b, call.getLoc(), partials);
    }
    split.partials = index;
    splits[op] = split;
  }
  return splits;
}

void kiln::gpu_mapper::applyReductionSplits(
    SmallVectorImpl<Stage> &stages,
    const llvm::DenseMap<Operation *, ReductionSplit> &splits) {
  if (splits.empty())
    return;
  SmallVector<Stage> result;
  for (Stage &stage : stages) {
    Stage totals;
    for (Nest &nest : stage) {
      auto it = splits.find(nest.op.getOperation());
      if (it == splits.end())
        continue;
      Nest total = nest;
      total.phase = Nest::Phase::Total;
      total.parts = it->second.parts;
      total.partials = it->second.partials;
      total.columns = it->second.columns;
      totals.push_back(total);
      // The parts phase starts from the identity: the fill joins the total.
      nest.phase = Nest::Phase::Parts;
      nest.parts = it->second.parts;
      nest.partials = it->second.partials;
      nest.columns = it->second.columns;
      nest.fill = nullptr;
    }
    result.push_back(std::move(stage));
    if (!totals.empty())
      result.push_back(std::move(totals));
  }
  stages.assign(result.begin(), result.end());
}
