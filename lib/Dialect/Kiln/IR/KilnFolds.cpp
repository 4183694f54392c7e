//===- KilnFolds.cpp - kiln op folders --------------------------------------===//
//
// Constant folding and the algebraic identities that `-canonicalize` applies
// through folders. Float math folds in double and rounds once to the element
// type, as the reference interpreter and the f16/bf16-in-f32 lowering do.
//
//===----------------------------------------------------------------------===//

#include "kiln/Dialect/Kiln/IR/KilnOps.h"

#include "mlir/Dialect/CommonFolders.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/APFloat.h"

#include <cmath>

using namespace mlir;
using namespace kiln;

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

namespace {
using UnaryFn = double (*)(double);
using BinaryFn = double (*)(double, double);
} // namespace

/// Rounds `value` to the semantics of `like`.
static APFloat roundTo(double value, const APFloat &like) {
  APFloat result(value);
  bool losesInfo = false;
  result.convert(like.getSemantics(), APFloat::rmNearestTiesToEven,
                 &losesInfo);
  return result;
}

static OpFoldResult foldUnary(ArrayRef<Attribute> operands, Type type,
                              UnaryFn fn) {
  return constFoldUnaryOp<FloatAttr>(operands, type, [&](const APFloat &a) {
    return roundTo(fn(a.convertToDouble()), a);
  });
}

static OpFoldResult foldBinary(ArrayRef<Attribute> operands, Type type,
                               BinaryFn fn) {
  return constFoldBinaryOp<FloatAttr>(
      operands, type, [&](const APFloat &a, const APFloat &b) {
        return roundTo(fn(a.convertToDouble(), b.convertToDouble()), a);
      });
}

/// The splat value of a constant float tensor, if `attr` is one.
static std::optional<double> getSplatFloat(Attribute attr) {
  auto dense = dyn_cast_or_null<DenseElementsAttr>(attr);
  if (!dense || !dense.isSplat() ||
      !isa<FloatType>(dense.getElementType()))
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

OpFoldResult NegOp::fold(FoldAdaptor adaptor) {
  if (auto inner = getOperand().getDefiningOp<NegOp>())
    return inner.getOperand();
  return foldUnary(adaptor.getOperands(), getType(),
                   [](double x) { return -x; });
}

OpFoldResult ExpOp::fold(FoldAdaptor adaptor) {
  return foldUnary(adaptor.getOperands(), getType(),
                   [](double x) { return std::exp(x); });
}

OpFoldResult LogOp::fold(FoldAdaptor adaptor) {
  return foldUnary(adaptor.getOperands(), getType(),
                   [](double x) { return std::log(x); });
}

OpFoldResult TanhOp::fold(FoldAdaptor adaptor) {
  return foldUnary(adaptor.getOperands(), getType(),
                   [](double x) { return std::tanh(x); });
}

OpFoldResult SigmoidOp::fold(FoldAdaptor adaptor) {
  return foldUnary(adaptor.getOperands(), getType(),
                   [](double x) { return 1.0 / (1.0 + std::exp(-x)); });
}

OpFoldResult ReluOp::fold(FoldAdaptor adaptor) {
  if (getOperand().getDefiningOp<ReluOp>())
    return getOperand();
  // NaN propagates, and -0 becomes +0, as max(x, +0) does.
  return foldUnary(adaptor.getOperands(), getType(), [](double x) {
    return std::isnan(x) ? x : (std::signbit(x) ? 0.0 : x);
  });
}

OpFoldResult SqrtOp::fold(FoldAdaptor adaptor) {
  return foldUnary(adaptor.getOperands(), getType(),
                   [](double x) { return std::sqrt(x); });
}

OpFoldResult RsqrtOp::fold(FoldAdaptor adaptor) {
  return foldUnary(adaptor.getOperands(), getType(),
                   [](double x) { return 1.0 / std::sqrt(x); });
}

OpFoldResult AbsOp::fold(FoldAdaptor adaptor) {
  if (getOperand().getDefiningOp<AbsOp>())
    return getOperand();
  return foldUnary(adaptor.getOperands(), getType(),
                   [](double x) { return std::fabs(x); });
}

OpFoldResult SinOp::fold(FoldAdaptor adaptor) {
  return foldUnary(adaptor.getOperands(), getType(),
                   [](double x) { return std::sin(x); });
}

OpFoldResult CosOp::fold(FoldAdaptor adaptor) {
  return foldUnary(adaptor.getOperands(), getType(),
                   [](double x) { return std::cos(x); });
}

OpFoldResult ReciprocalOp::fold(FoldAdaptor adaptor) {
  if (auto inner = getOperand().getDefiningOp<ReciprocalOp>())
    return inner.getOperand();
  return foldUnary(adaptor.getOperands(), getType(),
                   [](double x) { return 1.0 / x; });
}

//===----------------------------------------------------------------------===//
// Binary ops
//===----------------------------------------------------------------------===//

// `x + 0 -> x` ignores that (-0) + (+0) is +0, as XLA and Inductor do.
// `x * 0` is never folded: it is NaN for x = NaN or inf.
OpFoldResult AddOp::fold(FoldAdaptor adaptor) {
  if (isSplatFloat(adaptor.getRhs(), 0.0))
    return getLhs();
  return foldBinary(adaptor.getOperands(), getType(),
                    [](double a, double b) { return a + b; });
}

OpFoldResult SubOp::fold(FoldAdaptor adaptor) {
  if (isSplatFloat(adaptor.getRhs(), 0.0))
    return getLhs();
  return foldBinary(adaptor.getOperands(), getType(),
                    [](double a, double b) { return a - b; });
}

OpFoldResult MulOp::fold(FoldAdaptor adaptor) {
  if (isSplatFloat(adaptor.getRhs(), 1.0))
    return getLhs();
  return foldBinary(adaptor.getOperands(), getType(),
                    [](double a, double b) { return a * b; });
}

OpFoldResult DivOp::fold(FoldAdaptor adaptor) {
  if (isSplatFloat(adaptor.getRhs(), 1.0))
    return getLhs();
  return foldBinary(adaptor.getOperands(), getType(),
                    [](double a, double b) { return a / b; });
}

static double nanMax(double a, double b) {
  return std::isnan(a) || std::isnan(b) ? NAN : std::fmax(a, b);
}
static double nanMin(double a, double b) {
  return std::isnan(a) || std::isnan(b) ? NAN : std::fmin(a, b);
}

OpFoldResult MaxOp::fold(FoldAdaptor adaptor) {
  if (getLhs() == getRhs())
    return getLhs();
  return foldBinary(adaptor.getOperands(), getType(), nanMax);
}

OpFoldResult MinOp::fold(FoldAdaptor adaptor) {
  if (getLhs() == getRhs())
    return getLhs();
  return foldBinary(adaptor.getOperands(), getType(), nanMin);
}

OpFoldResult PowOp::fold(FoldAdaptor adaptor) {
  if (isSplatFloat(adaptor.getRhs(), 1.0))
    return getLhs();
  return foldBinary(adaptor.getOperands(), getType(),
                    [](double a, double b) { return std::pow(a, b); });
}

//===----------------------------------------------------------------------===//
// Compare, select, convert
//===----------------------------------------------------------------------===//

/// Ordered comparison, except `ne`, which is true when either side is NaN.
static bool compare(CmpPredicate predicate, double a, double b) {
  switch (predicate) {
  case CmpPredicate::eq:
    return a == b;
  case CmpPredicate::ne:
    return !(a == b);
  case CmpPredicate::lt:
    return a < b;
  case CmpPredicate::le:
    return a <= b;
  case CmpPredicate::gt:
    return a > b;
  case CmpPredicate::ge:
    return a >= b;
  }
  return false;
}

OpFoldResult CmpOp::fold(FoldAdaptor adaptor) {
  CmpPredicate predicate = getPredicate();
  return constFoldBinaryOp<FloatAttr, APFloat, ub::PoisonAttr, IntegerAttr>(
      adaptor.getOperands(), getType(),
      [&](const APFloat &a, const APFloat &b) {
        return APInt(1, compare(predicate, a.convertToDouble(),
                                b.convertToDouble()));
      });
}

OpFoldResult SelectOp::fold(FoldAdaptor adaptor) {
  if (getOnTrue() == getOnFalse())
    return getOnTrue();
  auto pred = dyn_cast_or_null<DenseElementsAttr>(adaptor.getPred());
  if (pred && pred.isSplat())
    return pred.getSplatValue<bool>() ? getOnTrue() : getOnFalse();
  return {};
}

OpFoldResult ConvertOp::fold(FoldAdaptor adaptor) {
  if (getOperand().getType() == getType())
    return getOperand();
  auto toType = dyn_cast<FloatType>(getType().getElementType());
  if (!toType ||
      !isa<FloatType>(getOperand().getType().getElementType()))
    return {};
  return constFoldCastOp<FloatAttr, FloatAttr>(
      adaptor.getOperands(), getType(), [&](const APFloat &a, bool &ok) {
        APFloat result = a;
        bool losesInfo = false;
        ok = result.convert(toType.getFloatSemantics(),
                            APFloat::rmNearestTiesToEven, &losesInfo) !=
             APFloat::opInvalidOp;
        return result;
      });
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
    // A dynamic result dim must keep a source of its size: an operand dim
    // of size other than 1 mapped to it. The intermediate may have been
    // that source (tensor<5x8> -> tensor<?x8>).
    RankedTensorType innerType = inner.getOperand().getType();
    for (int64_t d = 0; d < getType().getRank(); ++d) {
      if (!getType().isDynamicDim(d))
        continue;
      const int64_t *it = llvm::find(dims, d);
      if (it == dims.end() || innerType.getDimSize(it - dims.begin()) == 1)
        return {};
    }
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
  if (operandType == getType() && llvm::all_of(getOffsets(), [](int64_t o) {
        return o == 0;
      }))
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
  // slice(slice(x)) is one slice with the offsets added.
  if (auto inner = getOperand().getDefiningOp<SliceOp>()) {
    SmallVector<int64_t> offsets;
    for (auto [a, b] : llvm::zip(inner.getOffsets(), getOffsets()))
      offsets.push_back(a + b);
    getOperandMutable().assign(inner.getOperand());
    setOffsets(offsets);
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
