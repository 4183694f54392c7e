//===- KilnFolds.cpp - kiln op folders ------------------------------------===//
//
// The algebraic identities and shape folds that `-canonicalize` applies
// through folders. Elementwise ops with constant operands fold through their
// scalar semantics instead (FoldsConstantElements, KilnScalarSemantics.cpp).
//
//===----------------------------------------------------------------------===//

#include "kiln/Dialect/Kiln/IR/KilnOps.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace kiln;

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

/// The splat value of a constant float tensor, if `attr` is one.
static std::optional<double> getSplatFloat(Attribute attr) {
  auto dense = dyn_cast_or_null<DenseElementsAttr>(attr);
  if (!dense || !dense.isSplat() || !isa<FloatType>(dense.getElementType()))
    return std::nullopt;
  return dense.getSplatValue<APFloat>().convertToDouble();
}

static bool isSplatFloat(Attribute attr, double value) {
  std::optional<double> splat = getSplatFloat(attr);
  return splat && *splat == value;
}

/// Splat `attr` re-shaped to `type` (static shapes only).
static Attribute reshapeSplat(Attribute attr, Type type) {
  auto dense = dyn_cast_or_null<DenseElementsAttr>(attr);
  auto shaped = dyn_cast<ShapedType>(type);
  if (!dense || !dense.isSplat() || !shaped || !shaped.hasStaticShape() ||
      shaped.getElementType() != dense.getElementType())
    return {};
  return DenseElementsAttr::get(shaped, dense.getSplatValue<Attribute>());
}

//===----------------------------------------------------------------------===//
// Constant
//===----------------------------------------------------------------------===//

OpFoldResult ConstantOp::fold(FoldAdaptor) { return getValue(); }

//===----------------------------------------------------------------------===//
// Unary ops
//===----------------------------------------------------------------------===//

// Constant operands fold through the ops' scalar semantics
// (FoldsConstantElements, KilnScalarSemantics.cpp); these are the identities.

OpFoldResult NegOp::fold(FoldAdaptor) {
  if (auto inner = getOperand().getDefiningOp<NegOp>())
    return inner.getOperand();
  return {};
}

OpFoldResult ReluOp::fold(FoldAdaptor) {
  if (getOperand().getDefiningOp<ReluOp>())
    return getOperand();
  return {};
}

OpFoldResult AbsOp::fold(FoldAdaptor) {
  if (getOperand().getDefiningOp<AbsOp>())
    return getOperand();
  return {};
}

OpFoldResult ReciprocalOp::fold(FoldAdaptor) {
  if (auto inner = getOperand().getDefiningOp<ReciprocalOp>())
    return inner.getOperand();
  return {};
}

//===----------------------------------------------------------------------===//
// Binary ops
//===----------------------------------------------------------------------===//

// `x + 0 -> x` ignores that (-0) + (+0) is +0, as XLA and Inductor do.
// `x * 0` is never folded: it is NaN for x = NaN or inf.
OpFoldResult AddOp::fold(FoldAdaptor adaptor) {
  if (isSplatFloat(adaptor.getRhs(), 0.0))
    return getLhs();
  return {};
}

OpFoldResult SubOp::fold(FoldAdaptor adaptor) {
  if (isSplatFloat(adaptor.getRhs(), 0.0))
    return getLhs();
  return {};
}

OpFoldResult MulOp::fold(FoldAdaptor adaptor) {
  if (isSplatFloat(adaptor.getRhs(), 1.0))
    return getLhs();
  return {};
}

OpFoldResult DivOp::fold(FoldAdaptor adaptor) {
  if (isSplatFloat(adaptor.getRhs(), 1.0))
    return getLhs();
  return {};
}

OpFoldResult MaxOp::fold(FoldAdaptor) {
  if (getLhs() == getRhs())
    return getLhs();
  return {};
}

OpFoldResult MinOp::fold(FoldAdaptor) {
  if (getLhs() == getRhs())
    return getLhs();
  return {};
}

OpFoldResult PowOp::fold(FoldAdaptor adaptor) {
  if (isSplatFloat(adaptor.getRhs(), 1.0))
    return getLhs();
  return {};
}

//===----------------------------------------------------------------------===//
// Compare, select, convert
//===----------------------------------------------------------------------===//

OpFoldResult SelectOp::fold(FoldAdaptor adaptor) {
  if (getOnTrue() == getOnFalse())
    return getOnTrue();
  auto pred = dyn_cast_or_null<DenseElementsAttr>(adaptor.getPred());
  if (pred && pred.isSplat())
    return pred.getSplatValue<bool>() ? getOnTrue() : getOnFalse();
  return {};
}

OpFoldResult ConvertOp::fold(FoldAdaptor) {
  if (getOperand().getType() == getType())
    return getOperand();
  return {};
}

//===----------------------------------------------------------------------===//
// Shape and layout ops
//===----------------------------------------------------------------------===//

static bool isIota(ArrayRef<int64_t> values) {
  for (auto [i, v] : llvm::enumerate(values))
    if (v != static_cast<int64_t>(i))
      return false;
  return true;
}

OpFoldResult BroadcastInDimOp::fold(FoldAdaptor adaptor) {
  if (getOperand().getType() == getType() && isIota(getDims()))
    return getOperand();
  if (Attribute splat = reshapeSplat(adaptor.getOperand(), getType()))
    return splat;
  // broadcast(broadcast(x, inner), outer) == broadcast(x, outer o inner).
  if (auto inner = getOperand().getDefiningOp<BroadcastInDimOp>()) {
    SmallVector<int64_t> dims;
    for (int64_t d : inner.getDims())
      dims.push_back(getDims()[d]);
    // The result's dynamic dims are this op's sizes, whatever the inner
    // broadcast's were.
    getOperandMutable().assign(inner.getOperand());
    setDims(dims);
    return getResult();
  }
  return {};
}

OpFoldResult ReshapeOp::fold(FoldAdaptor adaptor) {
  if (getOperand().getType() == getType())
    return getOperand();
  if (auto inner = getOperand().getDefiningOp<ReshapeOp>()) {
    getOperandMutable().assign(inner.getOperand());
    return getResult();
  }
  auto dense = dyn_cast_or_null<DenseElementsAttr>(adaptor.getOperand());
  if (dense && getType().hasStaticShape())
    return dense.reshape(getType());
  return {};
}

OpFoldResult TransposeOp::fold(FoldAdaptor adaptor) {
  if (isIota(getPerm()))
    return getOperand();
  if (Attribute splat = reshapeSplat(adaptor.getOperand(), getType()))
    return splat;
  // transpose(transpose(x, inner), outer) == transpose(x, inner o outer).
  if (auto inner = getOperand().getDefiningOp<TransposeOp>()) {
    SmallVector<int64_t> perm;
    for (int64_t p : getPerm())
      perm.push_back(inner.getPerm()[p]);
    getOperandMutable().assign(inner.getOperand());
    setPerm(perm);
    if (isIota(perm))
      return getOperand();
    return getResult();
  }
  return {};
}

OpFoldResult SliceOp::fold(FoldAdaptor adaptor) {
  RankedTensorType operandType = getOperand().getType();
  // An empty slice reads nothing (whatever its offsets): an empty constant.
  if (getType().hasStaticShape() && getType().getNumElements() == 0)
    return DenseElementsAttr::get(getType(), ArrayRef<Attribute>());
  if (operandType == getType() &&
      llvm::all_of(getOffsets(), [](int64_t o) { return o == 0; }))
    return getOperand();
  if (Attribute splat = reshapeSplat(adaptor.getOperand(), getType()))
    return splat;
  // A slice that selects exactly one operand of a concat is that operand.
  if (auto concat = getOperand().getDefiningOp<ConcatOp>()) {
    int64_t dim = concat.getDim();
    int64_t start = 0;
    for (Value input : concat.getInputs()) {
      int64_t size = cast<RankedTensorType>(input.getType()).getDimSize(dim);
      if (ShapedType::isDynamic(size))
        break;
      if (getOffsets()[dim] == start && input.getType() == getType() &&
          llvm::all_of(llvm::enumerate(getOffsets()), [&](auto it) {
            return static_cast<int64_t>(it.index()) == dim || it.value() == 0;
          }))
        return input;
      start += size;
    }
  }
  // slice(slice(x)) is one slice with the offsets added (and the sizes
  // resolved: a -1 took the inner slice's dim whole, not x's).
  if (auto inner = getOperand().getDefiningOp<SliceOp>();
      inner && getType().hasStaticShape()) {
    SmallVector<int64_t> offsets;
    for (auto [a, b] : llvm::zip(inner.getOffsets(), getOffsets()))
      offsets.push_back(a + b);
    getOperandMutable().assign(inner.getOperand());
    setOffsets(offsets);
    setSizes(getType().getShape());
    return getResult();
  }
  return {};
}

OpFoldResult ConcatOp::fold(FoldAdaptor) {
  if (getInputs().size() == 1 && getInputs().front().getType() == getType())
    return getInputs().front();
  return {};
}

OpFoldResult ReduceSumOp::fold(FoldAdaptor) {
  if (getDims().empty() && getOperand().getType() == getType())
    return getOperand();
  return {};
}

OpFoldResult ReduceMaxOp::fold(FoldAdaptor) {
  if (getDims().empty() && getOperand().getType() == getType())
    return getOperand();
  return {};
}
