//===- StageSplitting.cpp - a kernel's ops in launches --------------------===//

#include "StageSplitting.h"

using namespace mlir;
using namespace kiln::gpu_mapper;

/// Whether `fill` initializes an output of the reduction `op`: the output's
/// accumulator can start at the fill value.
static std::optional<unsigned> getFilledOutput(linalg::FillOp fill,
                                               linalg::LinalgOp op) {
  if (op.getNumReductionLoops() == 0)
    return std::nullopt;
  Value filled = fill.getOutputs()[0];
  for (OpOperand *input : op.getDpsInputOperands())
    if (input->get() == filled)
      return std::nullopt;
  SmallVector<unsigned> reductionDims;
  op.getReductionDims(reductionDims);
  for (OpOperand &init : op.getDpsInitsMutable()) {
    AffineMap map = op.getMatchingIndexingMap(&init);
    if (init.get() != filled || !map.isProjectedPermutation())
      continue;
    // An output written at every reduction step does not accumulate.
    if (llvm::any_of(reductionDims,
                     [&](unsigned d) { return map.isFunctionOfDim(d); }))
      return std::nullopt;
    return init.getOperandNumber() - op.getNumDpsInputs();
  }
  return std::nullopt;
}

FailureOr<SmallVector<Stage>>
kiln::gpu_mapper::splitIntoStages(func::FuncOp kernel,
                                  const ArgumentAliases &aliases) {
  SmallVector<Stage> stages(1);
  // Inside the kernel: its own views overlap as at a call; arguments as
  // the calls pass them.
  auto conflict = [&](Value a, Value b) {
    if (a == b)
      return true;
    Box boxA = getBox(a), boxB = getBox(b);
    auto argA = dyn_cast<BlockArgument>(boxA.root);
    auto argB = dyn_cast<BlockArgument>(boxB.root);
    if (argA && argB && argA != argB)
      return bool(aliases[argA.getArgNumber()][argB.getArgNumber()]);
    return mayOverlap(boxA, boxB);
  };
  // What the current stage wrote and read: a later op that touches what it
  // wrote, or writes what it read, must wait for the whole grid (another
  // launch).
  struct Accesses {
    SmallVector<Value> values;
    void insert(Value v) {
      if (!llvm::is_contained(values, v))
        values.push_back(v);
    }
    void clear() { values.clear(); }
  } written, read;
  auto touches = [&](const Accesses &accesses, Value buffer) {
    return llvm::any_of(accesses.values,
                        [&](Value v) { return conflict(v, buffer); });
  };
  SmallVector<linalg::LinalgOp> ops;
  for (Operation &op : kernel.getBody().front()) {
    if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op)) {
      if (!linalgOp.hasPureBufferSemantics())
        return kernel.emitError("a kernel op on tensors cannot run on the GPU");
      ops.push_back(linalgOp);
    } else if (op.getNumRegions() != 0) {
      return op.emitError("this op cannot run in a GPU kernel");
    }
  }
  for (size_t i = 0; i < ops.size(); ++i) {
    Nest nest{ops[i], nullptr, 0};
    if (auto fill = dyn_cast<linalg::FillOp>(ops[i].getOperation());
        fill && i + 1 < ops.size()) {
      if (std::optional<unsigned> output = getFilledOutput(fill, ops[i + 1])) {
        nest = Nest{ops[i + 1], fill, *output};
        ++i;
      }
    }
    bool dependent = false;
    SmallVector<Value> reads = getReadBuffers(nest.op);
    for (Value buffer : reads)
      dependent |= touches(written, buffer);
    for (Value init : nest.op.getDpsInits())
      dependent |= touches(written, init) || touches(read, init);
    if (dependent && !stages.back().empty()) {
      stages.emplace_back();
      written.clear();
      read.clear();
    }
    for (Value init : nest.op.getDpsInits())
      written.insert(init);
    for (Value buffer : reads)
      read.insert(buffer);
    stages.back().push_back(nest);
  }
  if (stages.back().empty())
    stages.pop_back();
  return stages;
}
