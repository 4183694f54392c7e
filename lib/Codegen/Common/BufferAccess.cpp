//===- BufferAccess.cpp - how host code accesses buffers ------------------===//
//
// See BufferAccess.h.
//
//===----------------------------------------------------------------------===//

#include "BufferAccess.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

using namespace mlir;

bool kiln::isWholeBuffer(Value value, Value root) {
  while (value != root) {
    Operation *def = value.getDefiningOp();
    if (auto cast = dyn_cast_or_null<memref::CastOp>(def))
      value = cast.getSource();
    else if (auto expand = dyn_cast_or_null<memref::ExpandShapeOp>(def))
      value = expand.getSrc();
    else if (auto collapse = dyn_cast_or_null<memref::CollapseShapeOp>(def))
      value = collapse.getSrc();
    else
      return false;
  }
  return true;
}

Value kiln::getViewedBuffer(Operation *op, Value view) {
  if (auto cast = dyn_cast<memref::CastOp>(op))
    return cast.getSource();
  if (auto transpose = dyn_cast<memref::TransposeOp>(op))
    return transpose.getIn();
  auto viewLike = dyn_cast<ViewLikeOpInterface>(op);
  if (!viewLike || viewLike.getViewDest() != view)
    return {};
  return viewLike.getViewSource();
}

Value kiln::getRootBuffer(Value value) {
  while (Operation *def = value.getDefiningOp()) {
    Value viewed = getViewedBuffer(def, value);
    if (!viewed)
      return value;
    value = viewed;
  }
  return value;
}

Value kiln::getRootArgument(Value value) {
  Value root = getRootBuffer(value);
  return isa<BlockArgument>(root) ? root : Value();
}

/// Whether `kernel` reads its parameter `input` and writes its parameter
/// `output` in place: each has one use, one all-parallel linalg.generic
/// that reads the input and writes the output through one permutation map
/// and never reads the output's old value. With `reductions`, the generic
/// may also reduce over some of its loops (its lowering runs the body once
/// per point: the permutation map still gives each element one point).
static bool writesInPlace(func::FuncOp kernel, unsigned input, unsigned output,
                          bool reductions) {
  if (kernel.isExternal() || input >= kernel.getNumArguments() ||
      output >= kernel.getNumArguments())
    return false;
  Value in = kernel.getArgument(input), out = kernel.getArgument(output);
  if (!in.hasOneUse() || !out.hasOneUse() || in.getType() != out.getType())
    return false;
  // At the kernel's top level: a loop around it would run it again, on
  // what it wrote.
  auto generic = dyn_cast<linalg::GenericOp>(in.use_begin()->getOwner());
  if (!generic || generic->getParentOp() != kernel.getOperation() ||
      out.use_begin()->getOwner() != generic.getOperation() ||
      (!reductions && generic.getNumParallelLoops() != generic.getNumLoops()))
    return false;
  OpOperand *read = &*in.use_begin(), *written = &*out.use_begin();
  if (!generic.isDpsInput(read) || !generic.isDpsInit(written) ||
      generic.payloadUsesValueFromOperand(written))
    return false;
  AffineMap readMap = generic.getMatchingIndexingMap(read);
  return readMap == generic.getMatchingIndexingMap(written) &&
         readMap.isPermutation();
}

bool kiln::isInPlace(Operation *op, Value input, Value result,
                     bool reductions) {
  if (auto copy = dyn_cast<memref::CopyOp>(op))
    return isWholeBuffer(copy.getSource(), input) &&
           isWholeBuffer(copy.getTarget(), result);
  auto call = dyn_cast<func::CallOp>(op);
  if (!call)
    return false;
  std::optional<unsigned> in, out;
  for (auto [i, operand] : llvm::enumerate(call.getOperands())) {
    if (!isa<BaseMemRefType>(operand.getType()))
      continue;
    Value root = getRootBuffer(operand);
    if (root != input && root != result)
      continue;
    std::optional<unsigned> &position = root == input ? in : out;
    if (position || !isWholeBuffer(operand, root))
      return false;
    position = i;
  }
  if (!in || !out)
    return false;
  auto kernel = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(
      call, call.getCalleeAttr());
  return kernel && writesInPlace(kernel, *in, *out, reductions);
}
