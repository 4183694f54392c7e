//===- ActivityAnalysis.cpp - which values get adjoints -------------------===//
//
// Varied: forward from the wrt arguments through differentiable edges.
// Useful: backward from the live results through differentiable edges.
// Active (prune): varied and useful, as in Enzyme; a value outside that set
// can only carry a zero derivative to the requested gradients, so its
// adjoint, and every forward value only it would need, is never built.
//
//===----------------------------------------------------------------------===//

#include "AutodiffInternals.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

using namespace mlir;
using namespace kiln;

static bool isFloatTensor(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && isa<FloatType>(tensor.getElementType());
}

bool kiln::isDifferentiableOperand(Operation *op, unsigned index) {
  if (index >= op->getNumOperands() ||
      !isFloatTensor(op->getOperand(index).getType()))
    return false;
  if (isa<CmpOp, ConstantOp>(op))
    return false;
  if (isa<SelectOp>(op))
    return index != 0;
  if (auto convert = dyn_cast<ConvertOp>(op))
    return isFloatTensor(convert.getType());
  return llvm::any_of(op->getResultTypes(), isFloatTensor);
}

bool kiln::hasVjpRule(Operation *op) {
  return isa<KilnDialect>(op->getDialect()) &&
         !isa<VjpOp, FusionGroupOp, YieldOp, AttentionGradOp>(op);
}

ActivityAnalysis::ActivityAnalysis(Block &body, ArrayRef<int64_t> wrt,
                                   ArrayRef<bool> liveResults, bool prune)
    : prune(prune) {
  for (int64_t index : wrt)
    varied.insert(body.getArgument(index));
  for (Operation &op : body) {
    bool anyVaried = false;
    for (unsigned i = 0; i < op.getNumOperands(); ++i)
      anyVaried |=
          isDifferentiableOperand(&op, i) && varied.contains(op.getOperand(i));
    if (!anyVaried)
      continue;
    for (Value result : op.getResults())
      if (isFloatTensor(result.getType()))
        varied.insert(result);
  }

  auto ret = cast<func::ReturnOp>(body.getTerminator());
  for (auto [value, live] : llvm::zip(ret.getOperands(), liveResults))
    if (live && isFloatTensor(value.getType()))
      useful.insert(value);
  for (Operation &op : llvm::reverse(body.without_terminator())) {
    if (!llvm::any_of(op.getResults(),
                      [&](Value r) { return useful.contains(r); }))
      continue;
    for (unsigned i = 0; i < op.getNumOperands(); ++i)
      if (isDifferentiableOperand(&op, i))
        useful.insert(op.getOperand(i));
  }
}
