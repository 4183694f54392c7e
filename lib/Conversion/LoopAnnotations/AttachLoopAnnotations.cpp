//===- AttachLoopAnnotations.cpp - the -kiln-attach-loop-annotations pass -===//
//
// llvm.br ^bb(..) {llvm.loop_annotation = #a}  ->  llvm.br ^bb(..) {loop_annotation = #a}
//
//===----------------------------------------------------------------------===//

#include "kiln/Conversion/Passes.h"

namespace kiln {
#define GEN_PASS_DEF_KILNATTACHLOOPANNOTATIONS
#include "kiln/Conversion/Passes.h.inc"
} // namespace kiln

using namespace mlir;

static constexpr StringLiteral kDiscardableName = "llvm.loop_annotation";

/// Moves `branch`'s discardable annotation into its property, unless the
/// branch already has one of its own.
template <typename BranchOp>
static void attach(BranchOp branch) {
  auto annotation =
      branch->template getAttrOfType<LLVM::LoopAnnotationAttr>(kDiscardableName);
  if (!annotation)
    return;
  if (!branch.getLoopAnnotationAttr())
    branch.setLoopAnnotationAttr(annotation);
  branch->removeDiscardableAttr(kDiscardableName);
}

namespace {
struct KilnAttachLoopAnnotationsPass
    : kiln::impl::KilnAttachLoopAnnotationsBase<KilnAttachLoopAnnotationsPass> {
  using Base::Base;

  void runOnOperation() override {
    getOperation().walk([](Operation *op) {
      if (auto branch = dyn_cast<LLVM::BrOp>(op))
        attach(branch);
      else if (auto branch = dyn_cast<LLVM::CondBrOp>(op))
        attach(branch);
    });
  }
};
} // namespace
