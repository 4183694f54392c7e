//===- Linear.cpp - kiln.matmul to a linalg contraction --------------------===//
//
// matmul becomes a linalg.generic contraction. The transpose flags only swap
// the operand's indexing map, so no transposed copy is ever made. f16/bf16
// accumulate in f32.
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

struct MatmulLowering : OpConversionPattern<MatmulOp> {
  MatmulLowering(MLIRContext *context, bool libraryCalls)
      : OpConversionPattern(context), libraryCalls(libraryCalls) {}

  LogicalResult
  matchAndRewrite(MatmulOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    RankedTensorType resultType = op.getType();
    Type elementType = resultType.getElementType();
    Type computeType = getComputeType(elementType);
    int64_t rank = resultType.getRank();
    bool batched = rank == 3;

    // Loop dims: [b,] m, n, k.
    int64_t numLoops = rank + 1;
    AffineExpr m = getAffineDimExpr(rank - 2, ctx);
    AffineExpr n = getAffineDimExpr(rank - 1, ctx);
    AffineExpr k = getAffineDimExpr(rank, ctx);
    auto map = [&](AffineExpr row, AffineExpr col) {
      SmallVector<AffineExpr> exprs;
      if (batched)
        exprs.push_back(getAffineDimExpr(0, ctx));
      exprs.push_back(row);
      exprs.push_back(col);
      return AffineMap::get(numLoops, 0, exprs, ctx);
    };
    SmallVector<AffineMap> maps = {
        op.getTransposeA() ? map(k, m) : map(m, k),
        op.getTransposeB() ? map(n, k) : map(k, n), map(m, n)};
    SmallVector<utils::IteratorType> iterators(numLoops,
                                               utils::IteratorType::parallel);
    iterators.back() = utils::IteratorType::reduction;

    // Dynamic result sizes: batch from lhs, m from lhs, n from rhs.
    SmallVector<Value> dynamicSizes;
    for (int64_t d = 0; d < rank; ++d) {
      if (!resultType.isDynamicDim(d))
        continue;
      bool fromRhs = d == rank - 1;
      int64_t sourceDim = d;
      if (d == rank - 2 && op.getTransposeA())
        sourceDim = rank - 1;
      if (d == rank - 1)
        sourceDim = op.getTransposeB() ? rank - 2 : rank - 1;
      dynamicSizes.push_back(tensor::DimOp::create(
          rewriter, loc, fromRhs ? adaptor.getRhs() : adaptor.getLhs(),
          sourceDim));
    }
    auto accType = resultType.clone(computeType);
    Value init = createDestination(rewriter, loc, accType, dynamicSizes);
    Value zero = arith::ConstantOp::create(
        rewriter, loc, rewriter.getFloatAttr(computeType, 0.0));
    Value filled = linalg::FillOp::create(rewriter, loc, ValueRange{zero},
                                          ValueRange{init})
                       .getResult(0);
    auto contraction = linalg::GenericOp::create(
        rewriter, loc, TypeRange{accType},
        ValueRange{adaptor.getLhs(), adaptor.getRhs()}, ValueRange{filled},
        maps, iterators,
        [](OpBuilder &b, Location nestedLoc, ValueRange args) {
          Value a = extendToCompute(b, nestedLoc, args[0]);
          Value c = extendToCompute(b, nestedLoc, args[1]);
          Value product = arith::MulFOp::create(b, nestedLoc, a, c);
          Value sum = arith::AddFOp::create(b, nestedLoc, args[2], product);
          linalg::YieldOp::create(b, nestedLoc, sum);
        });
    // f32/f64 products go to the runtime's BLAS entry point; the generic
    // stays a complete description of the computation either way.
    if (libraryCalls && computeType == elementType &&
        (elementType.isF32() || elementType.isF64())) {
      std::string name = std::string("kiln_rt_") +
                         (batched ? "batch_matmul_" : "matmul_") +
                         (elementType.isF32() ? "f32_" : "f64_") +
                         (op.getTransposeA() ? "t" : "n") +
                         (op.getTransposeB() ? "t" : "n");
      contraction.setLibraryCallAttr(rewriter.getStringAttr(name));
    }
    Value result = contraction.getResult(0);
    if (computeType != elementType)
      result = buildElementwise(rewriter, loc, resultType, {result},
                                [&](OpBuilder &b, Location nestedLoc,
                                    ValueRange args) {
                                  return convertScalar(b, nestedLoc, args[0],
                                                       elementType);
                                });
    rewriter.replaceOp(op, result);
    return success();
  }

  bool libraryCalls;
};

} // namespace

void kiln::populateLinearLoweringPatterns(RewritePatternSet &patterns,
                                          bool matmulLibraryCalls) {
  patterns.add<MatmulLowering>(patterns.getContext(), matmulLibraryCalls);
}
