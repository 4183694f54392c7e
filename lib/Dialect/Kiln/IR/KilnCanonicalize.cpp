//===- KilnCanonicalize.cpp - kiln canonicalization patterns --------------===//
//
// Rewrites that replace an op by a different op; identities that only return
// an existing value are folders (KilnFolds.cpp).
//
//===----------------------------------------------------------------------===//

#include "kiln/Dialect/Kiln/IR/KilnOps.h"

#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace kiln;

namespace {
/// A broadcast that adds only unit dims moves no data: it is a reshape, which
/// later passes treat as a view.
struct BroadcastAsReshape : OpRewritePattern<BroadcastInDimOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(BroadcastInDimOp op,
                                PatternRewriter &rewriter) const override {
    std::optional<int64_t> from =
        getStaticElementCount(op.getOperand().getType());
    std::optional<int64_t> to = getStaticElementCount(op.getType());
    if (!from || !to || *from != *to)
      return rewriter.notifyMatchFailure(op, "broadcast expands data");
    rewriter.replaceOpWithNewOp<ReshapeOp>(op, op.getType(), op.getOperand());
    return success();
  }
};

/// broadcast_in_dim(reshape(x)) -> broadcast_in_dim(x) when the reshape only
/// inserts unit dims (x of [512] as [512, 1] to [512, 5000]): the broadcast
/// then reads a row value straight from its producer, so that a row group
/// (softmax's max, a cross-entropy's label) fuses across it.
struct BroadcastOfUnitReshape : OpRewritePattern<BroadcastInDimOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(BroadcastInDimOp op,
                                PatternRewriter &rewriter) const override {
    auto reshape = op.getOperand().getDefiningOp<ReshapeOp>();
    if (!reshape || !op.getSizes().empty())
      return rewriter.notifyMatchFailure(op, "not a static broadcast of a "
                                             "reshape");
    auto from = cast<RankedTensorType>(reshape.getOperand().getType());
    auto to = cast<RankedTensorType>(reshape.getType());
    if (!from.hasStaticShape() || !to.hasStaticShape())
      return rewriter.notifyMatchFailure(op, "dynamic reshape");
    // Each dim of `from`, in order, is a dim of `to`; the others are 1s.
    SmallVector<int64_t> dims;
    ArrayRef<int64_t> source = from.getShape();
    size_t next = 0;
    for (auto [i, size] : llvm::enumerate(to.getShape())) {
      if (next < source.size() && source[next] == size) {
        dims.push_back(op.getDims()[i]);
        ++next;
      } else if (size != 1) {
        return rewriter.notifyMatchFailure(op, "the reshape moves data");
      }
    }
    if (next != source.size())
      return rewriter.notifyMatchFailure(op, "the reshape drops dims");
    rewriter.replaceOpWithNewOp<BroadcastInDimOp>(
        op, op.getType(), reshape.getOperand(), ValueRange{},
        rewriter.getDenseI64ArrayAttr(dims));
    return success();
  }
};

/// Whether reading `value` costs no more than reading values that are in
/// memory anyway: an argument, a product, a value with other readers (so
/// it is stored), or a sum of such values.
bool isStoredOrSumOfStored(Value value, int depth = 0) {
  if (isa<BlockArgument>(value) || value.getDefiningOp<MatmulOp>() ||
      !value.hasOneUse())
    return true;
  auto add = value.getDefiningOp<AddOp>();
  // A long chain is a sum over steps; past the bound, treat it as stored.
  return add &&
         (depth > 64 || (isStoredOrSumOfStored(add.getLhs(), depth + 1) &&
                         isStoredOrSumOfStored(add.getRhs(), depth + 1)));
}

/// reduce_sum(x, dims) + reduce_sum(y, dims) -> reduce_sum(x + y, dims),
/// where x and y are stored anyway: a gradient summed over the steps of an
/// unrolled network (a bias's, each step's reduced over the batch) is then
/// one kernel that reads each step's tensor once, rather than a reduction
/// kernel per step and a kernel adding their results. Sums may be computed
/// in any order (docs/Reliability.md).
struct SumOfReductions : OpRewritePattern<AddOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(AddOp op,
                                PatternRewriter &rewriter) const override {
    auto lhs = op.getLhs().getDefiningOp<ReduceSumOp>();
    auto rhs = op.getRhs().getDefiningOp<ReduceSumOp>();
    if (!lhs || !rhs || lhs == rhs || !lhs->hasOneUse() || !rhs->hasOneUse())
      return rewriter.notifyMatchFailure(op, "not a sum of two reductions");
    if (lhs.getDims() != rhs.getDims() ||
        lhs.getOperand().getType() != rhs.getOperand().getType())
      return rewriter.notifyMatchFailure(op, "the reductions differ");
    if (!isStoredOrSumOfStored(lhs.getOperand()) ||
        !isStoredOrSumOfStored(rhs.getOperand()))
      return rewriter.notifyMatchFailure(
          op, "an operand would be stored only for the sum");
    Value sum = AddOp::create(rewriter, op.getLoc(), lhs.getOperand(),
                              rhs.getOperand());
    rewriter.replaceOpWithNewOp<ReduceSumOp>(op, op.getType(), sum,
                                             lhs.getDimsAttr());
    return success();
  }
};
} // namespace

void AddOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                        MLIRContext *context) {
  results.add<SumOfReductions>(context);
}

void BroadcastInDimOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                                   MLIRContext *context) {
  results.add<BroadcastAsReshape, BroadcastOfUnitReshape>(context);
}
