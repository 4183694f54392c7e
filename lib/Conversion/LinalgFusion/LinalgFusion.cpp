//===- LinalgFusion.cpp - the -kiln-fuse-linalg-elementwise pass -------------===//
//
// Upstream's elementwise fusion patterns with kiln's control function: a
// producer fuses when every use is in the same consumer. A producer with
// uses in several ops would be recomputed in each, so it stays; multi-output
// kernels come from kiln.fusion_group lowering instead.
//
//===----------------------------------------------------------------------===//

#include "kiln/Conversion/Passes.h"

#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace kiln {
#define GEN_PASS_DEF_KILNFUSELINALGELEMENTWISE
#include "kiln/Conversion/Passes.h.inc"
} // namespace kiln

using namespace mlir;

namespace {
struct KilnFuseLinalgElementwisePass
    : kiln::impl::KilnFuseLinalgElementwiseBase<
          KilnFuseLinalgElementwisePass> {
  using Base::Base;

  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    linalg::ControlFusionFn control = [](OpOperand *fusedOperand) {
      Operation *producer = fusedOperand->get().getDefiningOp();
      Operation *consumer = fusedOperand->getOwner();
      return producer &&
             llvm::all_of(producer->getUsers(), [&](Operation *user) {
               return user == consumer;
             });
    };
    linalg::populateElementwiseOpsFusionPatterns(patterns, control);
    linalg::populateEraseUnusedOperandsAndResultsPatterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
