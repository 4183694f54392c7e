//===- LinalgFusion.cpp - the -kiln-fuse-linalg-elementwise pass ----------===//
//
// Upstream's elementwise fusion patterns with kiln's control function: a
// producer fuses when every use is in the same consumer and that consumer
// reads each of its elements once (a permutation map: no broadcast, no
// contraction, no library call). Otherwise the fused kernel would compute
// the producer again per use or per read; multi-output kernels come from
// kiln.fusion_group lowering instead.
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
    : kiln::impl::KilnFuseLinalgElementwiseBase<KilnFuseLinalgElementwisePass> {
  using Base::Base;

  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    linalg::ControlFusionFn control = [](OpOperand *fusedOperand) {
      Operation *producer = fusedOperand->get().getDefiningOp();
      auto consumer = dyn_cast<linalg::GenericOp>(fusedOperand->getOwner());
      if (!producer || !consumer || consumer.getLibraryCallAttr())
        return false;
      // Each producer element must be read once: through a broadcast or a
      // contraction (a matmul reads each element N times) the producer
      // would be recomputed per read.
      if (!consumer.getMatchingIndexingMap(fusedOperand).isPermutation())
        return false;
      return llvm::all_of(producer->getUsers(),
                          [&](Operation *user) { return user == consumer; });
    };
    linalg::populateElementwiseOpsFusionPatterns(patterns, control);
    linalg::populateEraseUnusedOperandsAndResultsPatterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns)))) {
      getOperation()->emitError(
          "pattern rewriting did not converge within the iteration limit");
      return signalPassFailure();
    }
  }
};
} // namespace
