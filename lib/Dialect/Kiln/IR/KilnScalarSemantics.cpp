//===- KilnScalarSemantics.cpp - elementwise ops at one element -----------===//
//
// The one definition of each elementwise kiln op's scalar math
// (ScalarSemanticsOpInterface), in double: the unary and binary math ops
// state theirs in KilnOps.td, next to their formulas; here are cmp, select
// and convert, and the NaN rules of max and min. The constant folder below and
// the reference interpreter both evaluate ops through it, so they cannot drift
// apart; the lowerings (Elementwise.cpp) are checked against it by the
// reference tests.
//
//===----------------------------------------------------------------------===//

#include "kiln/Dialect/Kiln/IR/KilnOps.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/TypeUtilities.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cmath>

using namespace mlir;
using namespace kiln;

#include "kiln/Dialect/Kiln/IR/KilnInterfaces.cpp.inc"

//===----------------------------------------------------------------------===//
// Unary and binary math: in KilnOps.td (Kiln_ScalarSemantics)
//===----------------------------------------------------------------------===//

double kiln::maximumOf(double a, double b) {
  return std::isnan(a) || std::isnan(b) ? NAN : std::fmax(a, b);
}

double kiln::minimumOf(double a, double b) {
  return std::isnan(a) || std::isnan(b) ? NAN : std::fmin(a, b);
}

//===----------------------------------------------------------------------===//
// Compare, select, convert
//===----------------------------------------------------------------------===//

double CmpOp::evaluateScalar(ArrayRef<double> x) {
  double a = x[0], b = x[1];
  // Ordered, except `ne`, which is true when either side is NaN.
  switch (getPredicate()) {
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
  llvm_unreachable("unknown kiln.cmp predicate");
}

double SelectOp::evaluateScalar(ArrayRef<double> x) {
  return x[0] != 0.0 ? x[1] : x[2];
}

// The element keeps its value; rounding to the result type (an i1 is
// `x != 0`) is the caller's.
double ConvertOp::evaluateScalar(ArrayRef<double> x) { return x[0]; }

//===----------------------------------------------------------------------===//
// Integers
//===----------------------------------------------------------------------===//

std::optional<int64_t> kiln::evaluateIntegerScalar(Operation *op,
                                                   ArrayRef<int64_t> x) {
  // Unsigned arithmetic wraps around where signed would overflow.
  auto u = [](int64_t v) { return static_cast<uint64_t>(v); };
  auto s = [](uint64_t v) { return static_cast<int64_t>(v); };
  return llvm::TypeSwitch<Operation *, std::optional<int64_t>>(op)
      .Case([&](NegOp) { return s(0 - u(x[0])); })
      .Case([&](AbsOp) { return x[0] < 0 ? s(0 - u(x[0])) : x[0]; })
      .Case([&](AddOp) { return s(u(x[0]) + u(x[1])); })
      .Case([&](SubOp) { return s(u(x[0]) - u(x[1])); })
      .Case([&](MulOp) { return s(u(x[0]) * u(x[1])); })
      .Case([&](MaxOp) { return std::max(x[0], x[1]); })
      .Case([&](MinOp) { return std::min(x[0], x[1]); })
      .Case([&](CmpOp cmp) -> int64_t {
        switch (cmp.getPredicate()) {
        case CmpPredicate::eq:
          return x[0] == x[1];
        case CmpPredicate::ne:
          return x[0] != x[1];
        case CmpPredicate::lt:
          return x[0] < x[1];
        case CmpPredicate::le:
          return x[0] <= x[1];
        case CmpPredicate::gt:
          return x[0] > x[1];
        case CmpPredicate::ge:
          return x[0] >= x[1];
        }
        llvm_unreachable("unknown kiln.cmp predicate");
      })
      .Case([&](SelectOp) { return x[0] != 0 ? x[1] : x[2]; })
      .Case([&](ConvertOp) { return x[0]; })
      .Default([](Operation *) { return std::nullopt; });
}

//===----------------------------------------------------------------------===//
// Shapes
//===----------------------------------------------------------------------===//

LogicalResult kiln::verifyElementwiseShapes(Operation *op) {
  auto shapedTypes = [](auto values) {
    SmallVector<std::pair<unsigned, ShapedType>> shaped;
    for (auto [i, value] : llvm::enumerate(values))
      if (auto type = dyn_cast<ShapedType>(value.getType());
          type && type.hasRank())
        shaped.emplace_back(i, type);
    return shaped;
  };
  auto operands = shapedTypes(op->getOperands());
  auto results = shapedTypes(op->getResults());
  if (operands.empty())
    return success();
  auto [firstIndex, first] = operands.front();
  for (auto [i, type] : llvm::drop_begin(operands))
    if (failed(verifyCompatibleShape(first.getShape(), type.getShape())))
      return op->emitOpError()
             << "operands #" << firstIndex << " and #" << i
             << " have different shapes, " << first << " and " << type
             << ": elementwise ops never broadcast; make them one shape "
                "with kiln.broadcast_in_dim";
  for (auto [i, type] : results)
    if (failed(verifyCompatibleShape(first.getShape(), type.getShape())))
      return op->emitOpError()
             << "result #" << i << " has shape " << type
             << ", but the operands have " << first
             << ": elementwise ops keep their operands' shape";
  return success();
}

//===----------------------------------------------------------------------===//
// Constant folding
//===----------------------------------------------------------------------===//

/// Element `index` of `attr` as a double (splats repeat).
static double getElement(DenseElementsAttr attr, int64_t index) {
  int64_t i = attr.isSplat() ? 0 : index;
  if (attr.getElementType().isInteger(1))
    return attr.getValues<bool>()[i] ? 1.0 : 0.0;
  return attr.getValues<APFloat>()[i].convertToDouble();
}

OpFoldResult kiln::foldConstantElements(Operation *op,
                                        ArrayRef<Attribute> operands) {
  auto semantics = dyn_cast<ScalarSemanticsOpInterface>(op);
  auto type = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  if (!semantics || !type || !type.hasStaticShape() || operands.empty())
    return {};
  SmallVector<DenseElementsAttr> constants;
  bool allSplat = true;
  for (Attribute operand : operands) {
    auto dense = dyn_cast_or_null<DenseElementsAttr>(operand);
    if (!dense || !(dense.getElementType().isInteger(1) ||
                    isa<FloatType>(dense.getElementType())))
      return {};
    allSplat &= dense.isSplat();
    constants.push_back(dense);
  }
  Type elementType = type.getElementType();
  auto floatType = dyn_cast<FloatType>(elementType);
  if (!floatType && !elementType.isInteger(1))
    return {};

  int64_t count = allSplat ? 1 : type.getNumElements();
  SmallVector<double, 4> args(constants.size());
  SmallVector<APFloat> floats;
  SmallVector<bool> bools;
  for (int64_t i = 0; i < count; ++i) {
    for (auto [k, dense] : llvm::enumerate(constants))
      args[k] = getElement(dense, i);
    double value = semantics.evaluateScalar(args);
    if (!floatType) {
      bools.push_back(value != 0.0);
      continue;
    }
    APFloat rounded(value);
    bool losesInfo = false;
    rounded.convert(floatType.getFloatSemantics(), APFloat::rmNearestTiesToEven,
                    &losesInfo);
    floats.push_back(rounded);
  }
  if (!floatType)
    return allSplat ? DenseElementsAttr::get(type, bools.front())
                    : DenseElementsAttr::get(type, bools);
  return allSplat ? DenseElementsAttr::get(type, floats.front())
                  : DenseElementsAttr::get(type, floats);
}
