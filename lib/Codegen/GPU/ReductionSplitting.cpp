//===- ReductionSplitting.cpp - long reductions across the grid -----------===//

#include "ReductionSplitting.h"
#include "KernelBuilder.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;
using namespace kiln::gpu_mapper;

/// The parts per output of `op`, if it is a long reduction with few
/// outputs (1 where not).
static int64_t getParts(linalg::LinalgOp op, const ArgumentAliases &aliases,
                        unsigned blockSize) {
  if (!op.hasPureBufferSemantics() || blockSize < 64)
    return 1;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  if (llvm::any_of(ranges, ShapedType::isDynamic) ||
      !getShuffleReduction(op, ranges, blockSize))
    return 1;
  // Inputs read along the reduction are read along its innermost dim as
  // their innermost index: a part's threads then read adjacent elements.
  // (A transposed read is the column form's, coalesced across outputs.)
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
      return 1;
  }
  // Left alone where the output may share elements with an input: what
  // such a nest computes depends on the order of its reads and writes,
  // which the split changes.
  Box output = getBox(op.getDpsInits()[0]);
  for (OpOperand *input : op.getDpsInputOperands()) {
    if (!isa<MemRefType>(input->get().getType()))
      continue;
    Box box = getBox(input->get());
    auto a = dyn_cast<BlockArgument>(output.root);
    auto b = dyn_cast<BlockArgument>(box.root);
    if (a && b && a != b ? bool(aliases[a.getArgNumber()][b.getArgNumber()])
                         : mayOverlap(output, box))
      return 1;
  }
  int64_t outputs = 1;
  for (unsigned d = 0; d < getFirstReductionDim(op); ++d)
    outputs *= ranges[d];
  int64_t length = getReductionLength(op, ranges);
  if (outputs == 0 || outputs >= kSplitMaxOutputs || length < kSplitMinLength)
    return 1;
  int64_t parts = std::min(
      {kSplitMaxParts, length / kSplitMinPart, kSplitTargetBlocks / outputs});
  return std::max<int64_t>(parts, 1);
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
  SmallVector<std::pair<linalg::LinalgOp, int64_t>> planned;
  for (auto op : kernel.getBody().front().getOps<linalg::LinalgOp>())
    if (int64_t parts = getParts(op, aliases, blockSize); parts > 1)
      planned.emplace_back(op, parts);
  for (auto [op, parts] : planned) {
    int64_t outputs = 1;
    SmallVector<int64_t> ranges = op.getStaticLoopRanges();
    for (unsigned d = 0; d < getFirstReductionDim(op); ++d)
      outputs *= ranges[d];
    auto type = MemRefType::get({outputs * parts},
                                Float32Type::get(kernel.getContext()));
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
    splits[op] = ReductionSplit{parts, index};
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
      totals.push_back(total);
      // The parts phase starts from the identity: the fill joins the total.
      nest.phase = Nest::Phase::Parts;
      nest.parts = it->second.parts;
      nest.partials = it->second.partials;
      nest.fill = nullptr;
    }
    result.push_back(std::move(stage));
    if (!totals.empty())
      result.push_back(std::move(totals));
  }
  stages.assign(result.begin(), result.end());
}
