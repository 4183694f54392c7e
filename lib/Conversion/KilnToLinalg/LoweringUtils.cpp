//===- LoweringUtils.cpp - shared helpers of the kiln lowering ------------===//

#include "LoweringUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace kiln;

Type kiln::getComputeType(Type elementType) {
  if (elementType.isF16() || elementType.isBF16())
    return Float32Type::get(elementType.getContext());
  return elementType;
}

Value kiln::extendToCompute(OpBuilder &b, Location loc, Value scalar) {
  return convertScalar(b, loc, scalar, getComputeType(scalar.getType()));
}

/// A float converted to signed integer type `to` as kiln.convert does:
/// toward zero, saturating at the type's range, NaN to 0 (fptosi alone is
/// poison outside the range).
static Value convertFloatToInteger(OpBuilder &b, Location loc, Value scalar,
                                   IntegerType to) {
  Value x = extendToCompute(b, loc, scalar);
  Type from = x.getType();
  unsigned width = to.getWidth();
  // -2^(w-1) and 2^(w-1): exact in every float type that is computed.
  double low = -std::ldexp(1.0, width - 1), high = std::ldexp(1.0, width - 1);
  auto floatConstant = [&](double v) -> Value {
    return arith::ConstantOp::create(b, loc, b.getFloatAttr(from, v));
  };
  auto intConstant = [&](const APInt &v) -> Value {
    return arith::ConstantOp::create(b, loc, b.getIntegerAttr(to, v));
  };
  Value tooLow = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLE, x,
                                       floatConstant(low));
  Value tooHigh = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGE, x,
                                        floatConstant(high));
  Value isNan = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, x, x);
  Value outside = arith::OrIOp::create(
      b, loc, arith::OrIOp::create(b, loc, tooLow, tooHigh), isNan);
  Value safe = arith::SelectOp::create(b, loc, outside, floatConstant(0.0), x);
  Value value = arith::FPToSIOp::create(b, loc, to, safe);
  value = arith::SelectOp::create(
      b, loc, tooHigh, intConstant(APInt::getSignedMaxValue(width)), value);
  return arith::SelectOp::create(
      b, loc, tooLow, intConstant(APInt::getSignedMinValue(width)), value);
}

Value kiln::convertScalar(OpBuilder &b, Location loc, Value scalar, Type to) {
  Type from = scalar.getType();
  if (from == to)
    return scalar;
  auto fromFloat = dyn_cast<FloatType>(from);
  auto toFloat = dyn_cast<FloatType>(to);
  if (fromFloat && toFloat) {
    // f16 <-> bf16 has no direct instruction: go through f32.
    if (fromFloat.getWidth() == toFloat.getWidth()) {
      Value wide = arith::ExtFOp::create(b, loc, b.getF32Type(), scalar);
      return arith::TruncFOp::create(b, loc, to, wide);
    }
    if (fromFloat.getWidth() < toFloat.getWidth())
      return arith::ExtFOp::create(b, loc, to, scalar);
    return arith::TruncFOp::create(b, loc, to, scalar);
  }
  auto fromInt = dyn_cast<IntegerType>(from);
  auto toInt = dyn_cast<IntegerType>(to);
  if (toFloat) {
    // i1 -> float is 0.0 or 1.0; i32/i64 are signed (nearest even).
    if (fromInt && fromInt.getWidth() == 1)
      return arith::UIToFPOp::create(b, loc, to, scalar);
    return arith::SIToFPOp::create(b, loc, to, scalar);
  }
  if (fromInt && toInt) {
    if (toInt.getWidth() == 1) {
      Value zero = arith::ConstantOp::create(b, loc, b.getIntegerAttr(from, 0));
      return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, scalar,
                                   zero);
    }
    if (fromInt.getWidth() == 1)
      return arith::ExtUIOp::create(b, loc, to, scalar);
    if (fromInt.getWidth() < toInt.getWidth())
      return arith::ExtSIOp::create(b, loc, to, scalar);
    // Narrower: the low bits (two's complement).
    return arith::TruncIOp::create(b, loc, to, scalar);
  }
  if (toInt && toInt.getWidth() > 1)
    return convertFloatToInteger(b, loc, scalar, toInt);
  // float -> i1 is `x != 0` (NaN converts to true, as in C).
  Value zero = arith::ConstantOp::create(b, loc, b.getFloatAttr(from, 0.0));
  return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNE, scalar, zero);
}

Value kiln::createEmpty(OpBuilder &b, Location loc, RankedTensorType type,
                        Value shapeSource, ArrayRef<int64_t> sourceDims) {
  SmallVector<Value> dynamicSizes;
  for (int64_t d = 0; d < type.getRank(); ++d)
    if (type.isDynamicDim(d))
      dynamicSizes.push_back(
          tensor::DimOp::create(b, loc, shapeSource, sourceDims[d]));
  return createDestination(b, loc, type, dynamicSizes);
}

std::optional<double> kiln::getSplatValue(Value v) {
  mlir::DenseElementsAttr dense;
  if (!mlir::matchPattern(v, mlir::m_Constant(&dense)) || !dense.isSplat() ||
      !mlir::isa<mlir::FloatType>(dense.getElementType()))
    return std::nullopt;
  return dense.getSplatValue<llvm::APFloat>().convertToDouble();
}

Value kiln::createDestination(OpBuilder &b, Location loc, RankedTensorType type,
                              ValueRange dynamicSizes) {
  return bufferization::AllocTensorOp::create(b, loc, type, dynamicSizes);
}

Value kiln::createFilledAccumulator(OpBuilder &b, Location loc,
                                    ReductionKind kind, RankedTensorType type,
                                    ValueRange dynamicSizes) {
  Value init = createDestination(b, loc, type, dynamicSizes);
  Type element = type.getElementType();
  Value identityValue;
  if (auto integer = dyn_cast<IntegerType>(element)) {
    // A sum starts at 0, a maximum at the type's least value.
    APInt identity = kind == ReductionKind::Sum
                         ? APInt::getZero(integer.getWidth())
                         : APInt::getSignedMinValue(integer.getWidth());
    identityValue =
        arith::ConstantOp::create(b, loc, b.getIntegerAttr(element, identity));
  } else {
    double identity = kind == ReductionKind::Sum
                          ? 0.0
                          : -std::numeric_limits<double>::infinity();
    identityValue =
        arith::ConstantOp::create(b, loc, b.getFloatAttr(element, identity));
  }
  return linalg::FillOp::create(b, loc, ValueRange{identityValue},
                                ValueRange{init})
      .getResult(0);
}

Value kiln::combineReduction(OpBuilder &b, Location loc, ReductionKind kind,
                             Value lhs, Value rhs) {
  if (isa<IntegerType>(lhs.getType())) {
    // Integer sums wrap around (two's complement).
    if (kind == ReductionKind::Sum)
      return arith::AddIOp::create(b, loc, lhs, rhs);
    return arith::MaxSIOp::create(b, loc, lhs, rhs);
  }
  if (kind == ReductionKind::Sum)
    return arith::AddFOp::create(b, loc, lhs, rhs);
  return arith::MaximumFOp::create(b, loc, lhs, rhs);
}

Value kiln::createEmptyLike(OpBuilder &b, Location loc, RankedTensorType type,
                            Value like) {
  SmallVector<int64_t> dims =
      llvm::to_vector(llvm::seq<int64_t>(0, type.getRank()));
  return createEmpty(b, loc, type, like, dims);
}

Value kiln::buildElementwise(OpBuilder &b, Location loc,
                             RankedTensorType resultType, ValueRange inputs,
                             ScalarBodyFn body) {
  Value init = createEmptyLike(b, loc, resultType, inputs.front());
  AffineMap identity =
      AffineMap::getMultiDimIdentityMap(resultType.getRank(), b.getContext());
  SmallVector<AffineMap> maps(inputs.size() + 1, identity);
  SmallVector<utils::IteratorType> iterators(resultType.getRank(),
                                             utils::IteratorType::parallel);
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{resultType}, inputs, ValueRange{init}, maps, iterators,
      [&](OpBuilder &nested, Location nestedLoc, ValueRange args) {
        Value result = body(nested, nestedLoc, args.drop_back());
        linalg::YieldOp::create(nested, nestedLoc, result);
      });
  return generic.getResult(0);
}

Value kiln::indexToElement(OpBuilder &b, Location loc, Value index, Type type) {
  if (auto integer = dyn_cast<IntegerType>(type))
    return arith::IndexCastOp::create(b, loc, integer, index);
  Value wide = arith::IndexCastOp::create(b, loc, b.getI64Type(), index);
  return arith::SIToFPOp::create(b, loc, type, wide);
}

Value kiln::emitIotaElement(OpBuilder &b, Location loc, IotaOp iota,
                            int64_t offset) {
  int64_t dim = static_cast<int64_t>(iota.getDim());
  Value index = linalg::IndexOp::create(b, loc, dim);
  if (offset != 0)
    index = arith::AddIOp::create(
        b, loc, index, arith::ConstantIndexOp::create(b, loc, offset));
  return indexToElement(b, loc, index, iota.getType().getElementType());
}

MemRefType kiln::getAnyStridedView(int64_t rank, Type element) {
  SmallVector<int64_t> dynamic(rank, ShapedType::kDynamic);
  auto layout = StridedLayoutAttr::get(element.getContext(),
                                       ShapedType::kDynamic, dynamic);
  return MemRefType::get(dynamic, element, layout);
}

MemRefType kiln::getStridedView(ArrayRef<int64_t> shape, Type element) {
  SmallVector<int64_t> strides(shape.size(), ShapedType::kDynamic);
  auto layout = StridedLayoutAttr::get(element.getContext(),
                                       ShapedType::kDynamic, strides);
  return MemRefType::get(shape, element, layout);
}

func::FuncOp kiln::getOrDeclareRuntimeCall(RewriterBase &rewriter,
                                           SymbolTable &symbols, Location loc,
                                           StringRef name, TypeRange args) {
  if (auto callee = symbols.lookup<func::FuncOp>(name))
    return callee;
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPointToStart(
      &cast<ModuleOp>(symbols.getOp()).getBodyRegion().front());
  auto callee = func::FuncOp::create(rewriter, loc, name,
                                     rewriter.getFunctionType(args, {}));
  callee.setPrivate();
  symbols.insert(callee);
  return callee;
}
