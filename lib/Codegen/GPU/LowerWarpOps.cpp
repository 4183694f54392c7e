//===- LowerWarpOps.cpp - the -kiln-lower-warp-ops pass -------------------===//
//
// gpu.subgroup_size -> a constant; gpu.subgroup_reduce -> shuffles.
//
//===----------------------------------------------------------------------===//

#include "kiln/Codegen/GPU/Passes.h"

#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace kiln {
#define GEN_PASS_DEF_KILNLOWERWARPOPS
#include "kiln/Codegen/GPU/Passes.h.inc"
} // namespace kiln

using namespace mlir;

namespace {
struct ConstantWarpSize : OpRewritePattern<gpu::SubgroupSizeOp> {
  ConstantWarpSize(MLIRContext *context, unsigned warpSize)
      : OpRewritePattern(context), warpSize(warpSize) {}
  LogicalResult matchAndRewrite(gpu::SubgroupSizeOp op,
                                PatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<arith::ConstantIndexOp>(op, warpSize);
    return success();
  }
  unsigned warpSize;
};

struct KilnLowerWarpOpsPass
    : kiln::impl::KilnLowerWarpOpsBase<KilnLowerWarpOpsPass> {
  using Base::Base;
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<ConstantWarpSize>(&getContext(), warpSize);
    populateGpuBreakDownSubgroupReducePatterns(patterns);
    populateGpuLowerSubgroupReduceToShufflePatterns(patterns, warpSize);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns)))) {
      getOperation()->emitError(
          "pattern rewriting did not converge within the iteration limit");
      return signalPassFailure();
    }
  }
};
} // namespace
