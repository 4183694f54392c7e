//===- Reduction.cpp - kiln reductions to linalg.reduce -------------------===//
//
// reduce_sum and reduce_max become a linalg.fill of the identity (0 or -inf)
// and a linalg.reduce over the listed dims. f16/bf16 accumulate in f32.
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"
#include "kiln/Dialect/Kiln/IR/KilnOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;
using namespace kiln;

namespace {

/// Converts every element of `value` to `elementType` (a no-op when equal).
Value convertTensor(OpBuilder &b, Location loc, Value value, Type elementType) {
  auto type = cast<RankedTensorType>(value.getType());
  if (type.getElementType() == elementType)
    return value;
  return buildElementwise(
      b, loc, type.clone(elementType), {value},
      [&](OpBuilder &nested, Location nestedLoc, ValueRange args) {
        return convertScalar(nested, nestedLoc, args[0], elementType);
      });
}

template <typename OpTy, ReductionKind kind>
struct ReductionLowering : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;

  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType resultType = op.getType();
    Type elementType = resultType.getElementType();
    Type computeType = getComputeType(elementType);
    Value input =
        convertTensor(rewriter, loc, adaptor.getOperand(), computeType);

    ArrayRef<int64_t> dims = op.getDims();
    SmallVector<int64_t> keptDims;
    for (int64_t d = 0; d < op.getOperand().getType().getRank(); ++d)
      if (!llvm::is_contained(dims, d))
        keptDims.push_back(d);
    auto accType = resultType.clone(computeType);
    SmallVector<Value> dynamicSizes;
    for (auto [d, source] : llvm::enumerate(keptDims))
      if (accType.isDynamicDim(d))
        dynamicSizes.push_back(
            tensor::DimOp::create(rewriter, loc, input, source));
    Value filled =
        createFilledAccumulator(rewriter, loc, kind, accType, dynamicSizes);
    auto reduce = linalg::ReduceOp::create(
        rewriter, loc, ValueRange{input}, ValueRange{filled}, dims,
        [](OpBuilder &b, Location nestedLoc, ValueRange args) {
          linalg::YieldOp::create(
              b, nestedLoc,
              combineReduction(b, nestedLoc, kind, args[0], args[1]));
        });
    rewriter.replaceOp(
        op, convertTensor(rewriter, loc, reduce.getResult(0), elementType));
    return success();
  }
};

} // namespace

void kiln::populateReductionLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<ReductionLowering<ReduceSumOp, ReductionKind::Sum>,
               ReductionLowering<ReduceMaxOp, ReductionKind::Max>>(
      patterns.getContext());
}
