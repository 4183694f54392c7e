//===- Linear.cpp - kiln.matmul to a linalg contraction -------------------===//
//
// matmul becomes a linalg.generic contraction. The transpose flags only swap
// the operand's indexing map, so no transposed copy is ever made. f16/bf16
// accumulate in f32. An add that accumulates a matmul's product
// (getAccumulatedMatmul) is the contraction's init instead of a kernel.
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"
#include "kiln/Dialect/Kiln/IR/KilnOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;
using namespace kiln;

/// The contraction `op` describes, on `lhs` and `rhs`, accumulated into
/// `accumulator` (null: into zeros), of the op's result type.
static Value buildContraction(OpBuilder &b, Location loc, MatmulOp op,
                              Value lhs, Value rhs, Value accumulator,
                              bool libraryCalls) {
  MLIRContext *ctx = b.getContext();
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
  SmallVector<AffineMap> maps = {op.getTransposeA() ? map(k, m) : map(m, k),
                                 op.getTransposeB() ? map(n, k) : map(k, n),
                                 map(m, n)};
  SmallVector<utils::IteratorType> iterators(numLoops,
                                             utils::IteratorType::parallel);
  iterators.back() = utils::IteratorType::reduction;
  auto accType = resultType.clone(computeType);
  Value init = accumulator;
  if (!init) {
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
      dynamicSizes.push_back(
          tensor::DimOp::create(b, loc, fromRhs ? rhs : lhs, sourceDim));
    }
    Value zero =
        arith::ConstantOp::create(b, loc, b.getFloatAttr(computeType, 0.0));
    init = linalg::FillOp::create(
               b, loc, ValueRange{zero},
               ValueRange{createDestination(b, loc, accType, dynamicSizes)})
               .getResult(0);
  }
  auto contraction = linalg::GenericOp::create(
      b, loc, TypeRange{accType}, ValueRange{lhs, rhs}, ValueRange{init}, maps,
      iterators, [](OpBuilder &nb, Location nestedLoc, ValueRange args) {
        Value x = extendToCompute(nb, nestedLoc, args[0]);
        Value y = extendToCompute(nb, nestedLoc, args[1]);
        Value product = arith::MulFOp::create(nb, nestedLoc, x, y);
        Value sum = arith::AddFOp::create(nb, nestedLoc, args[2], product);
        linalg::YieldOp::create(nb, nestedLoc, sum);
      });
  // f32/f64 products go to the runtime's BLAS entry point; the generic
  // stays a complete description of the computation either way.
  if (libraryCalls && computeType == elementType &&
      (elementType.isF32() || elementType.isF64())) {
    std::string name =
        std::string("kiln_rt_") + (batched ? "batch_matmul_" : "matmul_") +
        (elementType.isF32() ? "f32_" : "f64_") +
        (op.getTransposeA() ? "t" : "n") + (op.getTransposeB() ? "t" : "n");
    contraction.setLibraryCallAttr(b.getStringAttr(name));
  }
  Value result = contraction.getResult(0);
  if (computeType != elementType)
    result = buildElementwise(
        b, loc, resultType, {result},
        [&](OpBuilder &nb, Location nestedLoc, ValueRange args) {
          return convertScalar(nb, nestedLoc, args[0], elementType);
        });
  return result;
}

namespace {

struct MatmulLowering : OpConversionPattern<MatmulOp> {
  MatmulLowering(MLIRContext *context, bool libraryCalls)
      : OpConversionPattern(context), libraryCalls(libraryCalls) {}

  LogicalResult
  matchAndRewrite(MatmulOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op,
                       buildContraction(rewriter, op.getLoc(), op,
                                        adaptor.getLhs(), adaptor.getRhs(),
                                        /*accumulator=*/nullptr, libraryCalls));
    return success();
  }

  bool libraryCalls;
};

} // namespace

void kiln::lowerMatmulEpilogues(RewriterBase &rewriter, Operation *root,
                                bool libraryCalls) {
  SmallVector<AddOp> adds;
  root->walk([&](AddOp add) {
    if (getAccumulatedMatmul(add))
      adds.push_back(add);
  });
  for (AddOp add : adds) {
    MatmulOp matmul = getAccumulatedMatmul(add);
    Value accumulator =
        add.getLhs() == matmul.getResult() ? add.getRhs() : add.getLhs();
    rewriter.setInsertionPoint(add);
    Value sum =
        buildContraction(rewriter, add.getLoc(), matmul, matmul.getLhs(),
                         matmul.getRhs(), accumulator, libraryCalls);
    rewriter.replaceOp(add, sum);
    rewriter.eraseOp(matmul);
  }
}

void kiln::populateLinearLoweringPatterns(RewritePatternSet &patterns,
                                          bool matmulLibraryCalls) {
  patterns.add<MatmulLowering>(patterns.getContext(), matmulLibraryCalls);
}
