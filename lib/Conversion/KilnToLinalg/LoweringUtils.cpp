//===- LoweringUtils.cpp - shared helpers of the kiln lowering ------------===//

#include "LoweringUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"

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
  if (toFloat) // i1 -> float is 0.0 or 1.0.
    return arith::UIToFPOp::create(b, loc, to, scalar);
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
  double identity = kind == ReductionKind::Sum
                        ? 0.0
                        : -std::numeric_limits<double>::infinity();
  Value identityValue = arith::ConstantOp::create(
      b, loc, b.getFloatAttr(type.getElementType(), identity));
  return linalg::FillOp::create(b, loc, ValueRange{identityValue},
                                ValueRange{init})
      .getResult(0);
}

Value kiln::combineReduction(OpBuilder &b, Location loc, ReductionKind kind,
                             Value lhs, Value rhs) {
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
