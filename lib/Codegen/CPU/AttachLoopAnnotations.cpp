//===- AttachLoopAnnotations.cpp - the -kiln-attach-loop-annotations pass -===//
//
// llvm.br ^bb(..) {llvm.loop_annotation = #a}  ->  llvm.br ^bb(..)
// {loop_annotation = #a}
//
//===----------------------------------------------------------------------===//

#include "kiln/Codegen/CPU/Passes.h"

#include "llvm/ADT/SetVector.h"

namespace kiln {
#define GEN_PASS_DEF_KILNATTACHLOOPANNOTATIONS
#include "kiln/Codegen/CPU/Passes.h.inc"
} // namespace kiln

using namespace mlir;

static constexpr StringLiteral kDiscardableName = "llvm.loop_annotation";

/// The blocks of the natural loop whose back edge goes from `latch` to
/// `header`: those that reach `latch` without passing through `header`.
static llvm::SetVector<Block *> getLoopBlocks(Block *header, Block *latch) {
  llvm::SetVector<Block *> blocks;
  blocks.insert(header);
  SmallVector<Block *> worklist = {latch};
  while (!worklist.empty()) {
    Block *block = worklist.pop_back_val();
    if (!blocks.insert(block))
      continue;
    llvm::append_range(worklist, block->getPredecessors());
  }
  return blocks;
}

/// Adds `groups` to the access groups of every load and store in the loop
/// that `backEdge` closes.
static void tagLoopAccesses(Operation *backEdge, Block *header,
                            ArrayRef<LLVM::AccessGroupAttr> groups) {
  for (Block *block : getLoopBlocks(header, backEdge->getBlock()))
    block->walk([&](LLVM::AccessGroupOpInterface access) {
      SmallVector<Attribute> merged;
      if (ArrayAttr existing = access.getAccessGroupsOrNull())
        llvm::append_range(merged, existing);
      llvm::append_range(merged, groups);
      access.setAccessGroups(ArrayAttr::get(backEdge->getContext(), merged));
    });
}

/// Moves `branch`'s discardable annotation into its property, unless the
/// branch already has one of its own. An annotation that declares the
/// loop's accesses parallel gets them tagged.
template <typename BranchOp> static void attach(BranchOp branch) {
  auto annotation = branch->template getAttrOfType<LLVM::LoopAnnotationAttr>(
      kDiscardableName);
  if (!annotation)
    return;
  branch->removeDiscardableAttr(kDiscardableName);
  if (branch.getLoopAnnotationAttr())
    return;
  branch.setLoopAnnotationAttr(annotation);
  // A back edge has one successor, the loop header.
  if (!annotation.getParallelAccesses().empty() &&
      branch->getNumSuccessors() == 1)
    tagLoopAccesses(branch, branch->getSuccessor(0),
                    annotation.getParallelAccesses());
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
