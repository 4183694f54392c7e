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
} // namespace

void BroadcastInDimOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                                   MLIRContext *context) {
  results.add<BroadcastAsReshape>(context);
}
