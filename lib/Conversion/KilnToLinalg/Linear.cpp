//===- Linear.cpp - kiln.matmul to a linalg contraction -------------------===//
//
// matmul becomes a linalg.generic contraction. The transpose flags only swap
// the operand's indexing map, so no transposed copy is ever made. f16/bf16
// accumulate in f32. An add that accumulates a matmul's product
// (getAccumulatedMatmul) is the contraction's init instead of a kernel.
//
// With library calls, a product is marked for the runtime by name:
// kiln_rt_[batch_]matmul_<type>_<flags>, where <type> is f32, f64, f16 or
// bf16 (f16/bf16: operands of that type, the f32 accumulator as result),
// or for tensor-core runtimes f32tf32/f32bf16 (f32 operands that an f32
// matmul's precision lets round to TF32 or bf16).
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"
#include "kiln/Conversion/KilnToLinalg/KilnToLinalg.h"
#include "kiln/Dialect/Kiln/IR/KilnOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;
using namespace kiln;

/// The <type> of `op`'s runtime call (see above), or "" for none.
static StringRef getLibraryCallType(MatmulOp op, bool accumulates,
                                    const KilnToLinalgOptions &options) {
  Type elementType = op.getType().getElementType();
  if (!options.matmulLibraryCalls)
    return "";
  if (elementType.isF64())
    return "f64";
  if (elementType.isF32()) {
    if (!options.tensorCoreCalls)
      return "f32";
    switch (op.getEffectivePrecision()) {
    case MatmulPrecision::highest:
      return "f32";
    case MatmulPrecision::high:
      return "f32tf32";
    case MatmulPrecision::medium:
      return "f32bf16";
    }
  }
  // The call's result is the f32 accumulator, converted afterwards.
  if (!accumulates)
    return elementType.isF16() ? "f16" : elementType.isBF16() ? "bf16" : "";
  return "";
}

/// The contraction `op` describes, on `lhs` and `rhs`, accumulated into
/// `accumulator` (null: into zeros), of the op's result type.
static Value buildContraction(OpBuilder &b, Location loc, MatmulOp op,
                              Value lhs, Value rhs, Value accumulator,
                              const KilnToLinalgOptions &options) {
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
  // Products go to the runtime's BLAS entry point; the generic stays a
  // complete description of the computation either way.
  StringRef callType =
      getLibraryCallType(op, /*accumulates=*/accumulator != nullptr, options);
  if (!callType.empty()) {
    std::string name = std::string("kiln_rt_") +
                       (batched ? "batch_matmul_" : "matmul_") +
                       callType.str() + "_" + (op.getTransposeA() ? "t" : "n") +
                       (op.getTransposeB() ? "t" : "n");
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
  MatmulLowering(MLIRContext *context, const KilnToLinalgOptions &options)
      : OpConversionPattern(context), options(options) {}

  LogicalResult
  matchAndRewrite(MatmulOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, buildContraction(rewriter, op.getLoc(), op,
                                            adaptor.getLhs(), adaptor.getRhs(),
                                            /*accumulator=*/nullptr, options));
    return success();
  }

  KilnToLinalgOptions options;
};

} // namespace

void kiln::lowerMatmulEpilogues(RewriterBase &rewriter, Operation *root,
                                const KilnToLinalgOptions &options) {
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
                         matmul.getRhs(), accumulator, options);
    rewriter.replaceOp(add, sum);
    rewriter.eraseOp(matmul);
  }
}

void kiln::populateLinearLoweringPatterns(RewritePatternSet &patterns,
                                          const KilnToLinalgOptions &options) {
  patterns.add<MatmulLowering>(patterns.getContext(), options);
}
