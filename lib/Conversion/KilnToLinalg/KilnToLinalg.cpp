//===- KilnToLinalg.cpp - the -kiln-lower-to-linalg pass ------------------===//
//
// Inlines fusion groups in place (each group's ops become one kernel after
// linalg elementwise fusion), then lowers every kiln op with the patterns of
// Elementwise.cpp, Shape.cpp, Reduction.cpp and Linear.cpp; collectives and
// attention become calls of the runtime first (Collectives.cpp,
// Attention.cpp).
//
//===----------------------------------------------------------------------===//

#include "kiln/Conversion/KilnToLinalg/KilnToLinalg.h"
#include "LoweringUtils.h"
#include "Support/PassStatistics.h"
#include "kiln/Conversion/Passes.h"
#include "kiln/Dialect/Kiln/IR/KilnOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/PatternMatch.h"

namespace kiln {
#define GEN_PASS_DEF_KILNLOWERTOLINALG
#include "kiln/Conversion/Passes.h.inc"
} // namespace kiln

#include "kiln/Conversion/PassStatistics.h.inc"

using namespace mlir;
using namespace kiln;

void kiln::populateKilnToLinalgPatterns(RewritePatternSet &patterns,
                                        const KilnToLinalgOptions &options) {
  populateElementwiseLoweringPatterns(patterns);
  populateShapeLoweringPatterns(patterns);
  populateReductionLoweringPatterns(patterns);
  populateIndexingLoweringPatterns(patterns, options.parallelScatters);
  populateLinearLoweringPatterns(patterns, options);
}

void kiln::configureKilnToLinalgTarget(ConversionTarget &target) {
  target.addIllegalDialect<KilnDialect>();
  target
      .addLegalDialect<arith::ArithDialect, bufferization::BufferizationDialect,
                       linalg::LinalgDialect, math::MathDialect,
                       scf::SCFDialect, tensor::TensorDialect>();
}

/// Replaces a fusion group by its body, with the block arguments replaced by
/// the group's inputs.
static void inlineFusionGroup(RewriterBase &rewriter, FusionGroupOp group) {
  Block &body = group.getBody().front();
  auto yield = cast<YieldOp>(body.getTerminator());
  SmallVector<Value> results(yield.getValues());
  rewriter.eraseOp(yield);
  rewriter.inlineBlockBefore(&body, group, group.getInputs());
  rewriter.replaceOp(group, results);
}

/// Reports the kiln ops whose dynamic dims leave a size unknowable; the
/// patterns cannot lower them.
static LogicalResult checkLowerable(ModuleOp module) {
  WalkResult result = module.walk([](Operation *op) {
    if (auto reshape = dyn_cast<ReshapeOp>(op)) {
      if (reshape.getType().getNumDynamicDims() > 1) {
        reshape.emitOpError("with more than one dynamic result dim cannot be "
                            "lowered: their sizes are ambiguous");
        return WalkResult::interrupt();
      }
    }
    return WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}

namespace {
/// Marks what replaces a recomputed kiln op (kRecomputedAttrName, made by
/// -kiln-autodiff for a checkpoint) with the same attribute, so that CSE
/// keeps the lowered copy apart from the forward op it repeats: merged, the
/// forward's value would be kept for the derivative after all.
struct RecomputedMarker : RewriterBase::Listener {
  /// The recomputed ops, by address only: the listener never reads them.
  llvm::DenseSet<Operation *> recomputed;

  void notifyOperationReplaced(Operation *op, ValueRange values) override {
    if (!recomputed.contains(op))
      return;
    for (Value value : values)
      if (Operation *def = value.getDefiningOp())
        def->setAttr(kRecomputedAttrName, UnitAttr::get(def->getContext()));
  }
};

struct KilnLowerToLinalgPass
    : kiln::impl::KilnLowerToLinalgBase<KilnLowerToLinalgPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    WalkResult unexpanded = module.walk([](VjpOp op) {
      op.emitOpError("must be expanded by -kiln-autodiff before lowering");
      return WalkResult::interrupt();
    });
    if (unexpanded.wasInterrupted() || failed(checkLowerable(module)))
      return signalPassFailure();

    RecomputedMarker marker;
    module.walk([&](Operation *op) {
      if (op->hasAttr(kRecomputedAttrName))
        marker.recomputed.insert(op);
    });
    IRRewriter rewriter(&getContext(), &marker);
    if (failed(lowerCollectives(rewriter, module)))
      return signalPassFailure();
    lowerAttention(rewriter, module, gpuAttention);
    KilnToLinalgOptions options;
    options.matmulLibraryCalls = blas;
    options.tensorCoreCalls = tensorCoreCalls;
    options.parallelScatters = parallelScatters;
    lowerMatmulEpilogues(rewriter, module, options);
    SmallVector<FusionGroupOp> groups;
    module.walk([&](FusionGroupOp group) { groups.push_back(group); });
    // Inner groups first, so that an outer body is complete when inlined.
    int64_t kernels = 0, nextKernelId = 0;
    for (FusionGroupOp group : llvm::reverse(groups)) {
      if (succeeded(lowerFusionGroupToKernel(rewriter, group, nextKernelId))) {
        ++kernels;
        continue;
      }
      rewriter.setInsertionPoint(group);
      inlineFusionGroup(rewriter, group);
    }
    kiln::addPassStatistic(*this, numKernelGroups, kernels, kPassStatistics);
    kiln::addPassStatistic(*this, numInlinedGroups, groups.size() - kernels,
                           kPassStatistics);

    int64_t kilnOps = 0;
    module.walk([&](Operation *op) {
      if (isa<KilnDialect>(op->getDialect()))
        ++kilnOps;
    });
    kiln::addPassStatistic(*this, numLoweredOps, kilnOps, kPassStatistics);

    ConversionTarget target(getContext());
    configureKilnToLinalgTarget(target);
    target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
    RewritePatternSet patterns(&getContext());
    populateKilnToLinalgPatterns(patterns, options);
    ConversionConfig config;
    config.listener = &marker;
    if (failed(applyPartialConversion(module, target, std::move(patterns),
                                      config)))
      return signalPassFailure();

    // A reduction lowered on its own (a linalg.reduce, or a generic with a
    // reduction loop: argmax, a GPU scatter's chains) fills its
    // accumulator in the same kernel, not in a kernel of its own.
    // Contractions keep theirs apart: a BLAS call absorbs a zero fill.
    auto kernelId = KilnDialect::KernelIdAttrHelper::getNameStr();
    module.walk([&](linalg::LinalgOp reduce) {
      if (reduce->hasAttr(kernelId) || reduce.getNumReductionLoops() == 0 ||
          reduce.getNumDpsInits() == 0 ||
          linalg::isaContractionOpInterface(reduce))
        return;
      SmallVector<Operation *> fills;
      for (OpOperand &init : reduce.getDpsInitsMutable()) {
        Value value = init.get();
        auto fill = value.getDefiningOp<linalg::FillOp>();
        if (!fill || !fill->hasOneUse() || fill->hasAttr(kernelId))
          return;
        fills.push_back(fill);
      }
      IntegerAttr id =
          IntegerAttr::get(IntegerType::get(&getContext(), 64), nextKernelId++);
      reduce->setAttr(kernelId, id);
      for (Operation *fill : fills)
        fill->setAttr(kernelId, id);
    });
  }
};
} // namespace
