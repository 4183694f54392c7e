//===- LinalgFusion.cpp - the -kiln-fuse-linalg-elementwise pass ----------===//
//
// Upstream's elementwise fusion patterns with kiln's control function: a
// producer fuses when every use is in the same consumer and that consumer
// reads each of its elements once (a permutation map: no broadcast, no
// contraction, no library call). Otherwise the fused kernel would compute
// the producer again per use or per read; multi-output kernels come from
// kiln.fusion_group lowering instead. A linalg.reduce reads its input once
// per element too, so one whose input such a producer computes becomes a
// linalg.generic first (upstream fuses into generics only): a loss or a
// norm then reads its operands, never a stored intermediate.
//
//===----------------------------------------------------------------------===//

#include "kiln/Codegen/Common/Passes.h"
#include "kiln/Dialect/Kiln/IR/KilnDialect.h"

#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace kiln {
#define GEN_PASS_DEF_KILNFUSELINALGELEMENTWISE
#include "kiln/Codegen/Common/Passes.h.inc"
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
    generalizeFusableReductions();
    linalg::populateElementwiseOpsFusionPatterns(patterns, control);
    linalg::populateEraseUnusedOperandsAndResultsPatterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns)))) {
      getOperation()->emitError(
          "pattern rewriting did not converge within the iteration limit");
      return signalPassFailure();
    }
    restoreReductionKernelIds();
  }

private:
  /// Each linalg.reduce with an input that the control fuses (an
  /// elementwise generic that only the reduction reads: a reduce reads its
  /// inputs with identity maps) becomes a linalg.generic, with the reduce's
  /// attributes (its kernel id). The others stay named ops.
  void generalizeFusableReductions() {
    SmallVector<linalg::ReduceOp> reductions;
    getOperation().walk([&](linalg::ReduceOp reduce) {
      if (llvm::any_of(reduce.getDpsInputOperands(), [&](OpOperand *input) {
            auto producer = input->get().getDefiningOp<linalg::GenericOp>();
            return producer && !producer.getLibraryCallAttr() &&
                   producer.getNumLoops() == producer.getNumParallelLoops() &&
                   llvm::all_of(producer->getUsers(), [&](Operation *user) {
                     return user == reduce.getOperation();
                   });
          }))
        reductions.push_back(reduce);
    });
    IRRewriter rewriter(&getContext());
    for (linalg::ReduceOp reduce : reductions) {
      SmallVector<NamedAttribute> attributes(reduce->getDiscardableAttrs());
      rewriter.setInsertionPoint(reduce);
      FailureOr<linalg::GenericOp> generic =
          linalg::generalizeNamedOp(rewriter, reduce);
      if (failed(generic))
        continue;
      for (NamedAttribute attribute : attributes)
        (*generic)->setAttr(attribute.getName(), attribute.getValue());
    }
  }

  /// A fused op replaces its consumer without the consumer's attributes: a
  /// reduction takes back its kernel id from the fill of its accumulator
  /// that it alone uses, which carried the same id (a kernel fills what it
  /// accumulates: -kiln-lower-to-linalg tags the two together).
  void restoreReductionKernelIds() {
    StringRef kernelId = kiln::KilnDialect::KernelIdAttrHelper::getNameStr();
    getOperation().walk([&](linalg::GenericOp generic) {
      if (generic->hasAttr(kernelId) || generic.getNumReductionLoops() == 0)
        return;
      for (Value init : generic.getDpsInits())
        if (auto fill = init.getDefiningOp<linalg::FillOp>();
            fill && fill->hasOneUse())
          if (Attribute id = fill->getAttr(kernelId)) {
            generic->setAttr(kernelId, id);
            return;
          }
    });
  }
};
} // namespace
