//===- Shape.cpp - kiln constant and layout ops to tensor/linalg ----------===//
//
// broadcast_in_dim is a linalg.generic with a projected input map; reshape is
// collapse_shape + expand_shape; transpose is linalg.transpose; slice is
// tensor.extract_slice. A concat becomes tensor.empty plus one
// tensor.insert_slice per operand: after empty-tensor elimination and
// bufferization each producer writes straight into its part of one buffer
// (upstream tensor.concat bufferizes to one copy per operand).
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"
#include "kiln/Dialect/Kiln/IR/KilnOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;
using namespace kiln;

namespace {

struct ConstantLowering : OpConversionPattern<ConstantOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(ConstantOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto value = dyn_cast<TypedAttr>(op.getValue());
    if (!value)
      return rewriter.notifyMatchFailure(op, "constant value is not typed");
    rewriter.replaceOpWithNewOp<arith::ConstantOp>(op, value);
    return success();
  }
};

struct BroadcastInDimLowering : OpConversionPattern<BroadcastInDimOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(BroadcastInDimOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType operandType = op.getOperand().getType();
    RankedTensorType resultType = op.getType();
    ArrayRef<int64_t> dims = op.getDims();
    MLIRContext *ctx = rewriter.getContext();

    // The result's dynamic dims: a dim the operand maps to is the operand's
    // (a dynamic dim is never broadcast, and reading past the operand must
    // not be possible); a new dim is the op's size for it.
    SmallVector<Value> dynamicSizes;
    for (int64_t d = 0; d < resultType.getRank(); ++d) {
      if (!resultType.isDynamicDim(d))
        continue;
      const int64_t *it = llvm::find(dims, d);
      int64_t from = it == dims.end() ? -1 : it - dims.begin();
      dynamicSizes.push_back(
          from >= 0 && operandType.getDimSize(from) != 1
              ? tensor::DimOp::create(rewriter, loc, adaptor.getOperand(), from)
                    .getResult()
              : adaptor.getSizes()[resultType.getDynamicDimIndex(d)]);
    }
    Value init = createDestination(rewriter, loc, resultType, dynamicSizes);

    // A size-1 operand dim that expands reads index 0.
    SmallVector<AffineExpr> exprs;
    for (auto [i, d] : llvm::enumerate(dims)) {
      bool expands =
          operandType.getDimSize(i) == 1 && resultType.getDimSize(d) != 1;
      exprs.push_back(expands ? getAffineConstantExpr(0, ctx)
                              : getAffineDimExpr(d, ctx));
    }
    SmallVector<AffineMap> maps = {
        AffineMap::get(resultType.getRank(), 0, exprs, ctx),
        AffineMap::getMultiDimIdentityMap(resultType.getRank(), ctx)};
    SmallVector<utils::IteratorType> iterators(resultType.getRank(),
                                               utils::IteratorType::parallel);
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{resultType}, ValueRange{adaptor.getOperand()},
        ValueRange{init}, maps, iterators,
        [](OpBuilder &b, Location nestedLoc, ValueRange args) {
          linalg::YieldOp::create(b, nestedLoc, args[0]);
        });
    rewriter.replaceOp(op, generic.getResult(0));
    return success();
  }
};

/// `value` as `type`, with a tensor.cast only when the types differ.
Value castTo(OpBuilder &b, Location loc, Value value, Type type) {
  if (value.getType() == type)
    return value;
  return tensor::CastOp::create(b, loc, type, value);
}

/// All dims of a rank-`rank` tensor in one reassociation group.
SmallVector<ReassociationIndices> collapseAll(int64_t rank) {
  if (rank == 0)
    return {};
  return {llvm::to_vector(llvm::seq<int64_t>(0, rank))};
}

struct ReshapeLowering : OpConversionPattern<ReshapeOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(ReshapeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType from = op.getOperand().getType();
    RankedTensorType to = op.getType();
    if (to.getNumDynamicDims() > 1)
      return rewriter.notifyMatchFailure(op, "ambiguous dynamic result dims");
    Location loc = op.getLoc();
    Value value = adaptor.getOperand();
    // Row-major order is what collapse/expand preserve: go through 1-D
    // (or 0-D when the tensor has one element and either side is 0-D).
    if (from.getRank() == 0) {
      // One element: expand to the (all-ones) result shape.
      auto staticTo = RankedTensorType::get(
          SmallVector<int64_t>(to.getRank(), 1), to.getElementType());
      value = tensor::ExpandShapeOp::create(rewriter, loc, staticTo, value,
                                            collapseAll(0));
      rewriter.replaceOp(op, castTo(rewriter, loc, value, to));
      return success();
    }
    if (to.getRank() == 0 && from.hasStaticShape()) {
      rewriter.replaceOpWithNewOp<tensor::CollapseShapeOp>(op, to, value,
                                                           collapseAll(0));
      return success();
    }
    int64_t count =
        from.hasStaticShape() ? from.getNumElements() : ShapedType::kDynamic;
    auto flat = RankedTensorType::get({count}, from.getElementType());
    if (from.getRank() != 1)
      value = tensor::CollapseShapeOp::create(rewriter, loc, flat, value,
                                              collapseAll(from.getRank()));
    else
      value = castTo(rewriter, loc, value, flat);
    if (to.getRank() == 0) {
      auto one = RankedTensorType::get({1}, to.getElementType());
      value = castTo(rewriter, loc, value, one);
      rewriter.replaceOpWithNewOp<tensor::CollapseShapeOp>(op, to, value,
                                                           collapseAll(0));
      return success();
    }
    if (to.getRank() == 1) {
      rewriter.replaceOp(op, castTo(rewriter, loc, value, to));
      return success();
    }
    // The one dynamic result dim is the element count over the static dims.
    SmallVector<OpFoldResult> outputShape;
    int64_t staticProduct = 1;
    for (int64_t d : to.getShape())
      if (!ShapedType::isDynamic(d))
        staticProduct *= d;
    for (int64_t d : to.getShape()) {
      if (!ShapedType::isDynamic(d)) {
        outputShape.push_back(rewriter.getIndexAttr(d));
        continue;
      }
      Value total = tensor::DimOp::create(rewriter, loc, value, 0);
      Value divisor =
          arith::ConstantIndexOp::create(rewriter, loc, staticProduct);
      outputShape.push_back(
          arith::DivUIOp::create(rewriter, loc, total, divisor).getResult());
    }
    rewriter.replaceOpWithNewOp<tensor::ExpandShapeOp>(
        op, to, value, collapseAll(to.getRank()), outputShape);
    return success();
  }
};

struct TransposeLowering : OpConversionPattern<TransposeOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(TransposeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value init = createEmpty(rewriter, op.getLoc(), op.getType(),
                             adaptor.getOperand(), op.getPerm());
    auto transpose = linalg::TransposeOp::create(
        rewriter, op.getLoc(), adaptor.getOperand(), init, op.getPerm());
    rewriter.replaceOp(op, transpose.getResult());
    return success();
  }
};

struct SliceLowering : OpConversionPattern<SliceOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(SliceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    SmallVector<OpFoldResult> offsets, sizes, strides;
    for (auto [d, offset, size] :
         llvm::enumerate(op.getOffsets(), op.getResolvedSizes())) {
      // An empty dim may start at the end (offset == dim size), which
      // tensor.extract_slice refuses; where it starts does not matter.
      offsets.push_back(rewriter.getIndexAttr(size == 0 ? 0 : offset));
      // A dynamic dim is taken whole.
      sizes.push_back(
          ShapedType::isDynamic(size)
              ? OpFoldResult(tensor::DimOp::create(rewriter, op.getLoc(),
                                                   adaptor.getOperand(),
                                                   static_cast<int64_t>(d))
                                 .getResult())
              : rewriter.getIndexAttr(size));
      strides.push_back(rewriter.getIndexAttr(1));
    }
    rewriter.replaceOpWithNewOp<tensor::ExtractSliceOp>(
        op, op.getType(), adaptor.getOperand(), offsets, sizes, strides);
    return success();
  }
};

struct ConcatLowering : OpConversionPattern<ConcatOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(ConcatOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType resultType = op.getType();
    int64_t dim = op.getDim();
    ValueRange inputs = adaptor.getInputs();

    // The size along `dim` is the sum of the operands' sizes; the other
    // dims are operand 0's.
    SmallVector<Value> dynamicSizes;
    for (int64_t d = 0; d < resultType.getRank(); ++d) {
      if (!resultType.isDynamicDim(d))
        continue;
      if (d != dim) {
        dynamicSizes.push_back(
            tensor::DimOp::create(rewriter, loc, inputs.front(), d));
        continue;
      }
      Value total = arith::ConstantIndexOp::create(rewriter, loc, 0);
      for (Value input : inputs)
        total = arith::AddIOp::create(
            rewriter, loc, total,
            tensor::DimOp::create(rewriter, loc, input, dim));
      dynamicSizes.push_back(total);
    }
    Value result = createDestination(rewriter, loc, resultType, dynamicSizes);

    OpFoldResult offset = rewriter.getIndexAttr(0);
    for (Value input : inputs) {
      SmallVector<OpFoldResult> sizes =
          tensor::getMixedSizes(rewriter, loc, input);
      SmallVector<OpFoldResult> offsets(resultType.getRank(),
                                        rewriter.getIndexAttr(0));
      SmallVector<OpFoldResult> strides(resultType.getRank(),
                                        rewriter.getIndexAttr(1));
      offsets[dim] = offset;
      result = tensor::InsertSliceOp::create(rewriter, loc, input, result,
                                             offsets, sizes, strides);
      std::optional<int64_t> staticOffset = getConstantIntValue(offset);
      std::optional<int64_t> staticSize = getConstantIntValue(sizes[dim]);
      if (staticOffset && staticSize) {
        offset = rewriter.getIndexAttr(*staticOffset + *staticSize);
      } else {
        offset = arith::AddIOp::create(
                     rewriter, loc,
                     getValueOrCreateConstantIndexOp(rewriter, loc, offset),
                     getValueOrCreateConstantIndexOp(rewriter, loc, sizes[dim]))
                     .getResult();
      }
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void kiln::populateShapeLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<ConstantLowering, BroadcastInDimLowering, ReshapeLowering,
               TransposeLowering, SliceLowering, ConcatLowering>(
      patterns.getContext());
}
