//===- DeallocateBuffers.cpp - the -kiln-deallocate-buffers pass ----------===//
//
// %a = memref.alloc()          %a = memref.alloc()
// %v = memref.subview %a  ->   %v = memref.subview %a
// use(%v)                      use(%v)
//                              memref.dealloc %a
//
//===----------------------------------------------------------------------===//

#include "Support/PassStatistics.h"
#include "kiln/Codegen/Common/Passes.h"

#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "mlir/Pass/PassManager.h"

namespace kiln {
#define GEN_PASS_DEF_KILNDEALLOCATEBUFFERS
#include "kiln/Codegen/Common/Passes.h.inc"
} // namespace kiln

#include "kiln/Codegen/Common/PassStatistics.h.inc"

using namespace mlir;

/// For each top-level alloc of `func`, the op after which it can be freed:
/// the last top-level op that uses it or a view of it. Nothing when `func`
/// is not straight-line code whose buffers stay inside.
static std::optional<SmallVector<std::pair<memref::AllocOp, Operation *>>>
planDeallocations(func::FuncOp func) {
  if (!func.getBody().hasOneBlock())
    return std::nullopt;
  Block &block = func.getBody().front();
  SmallVector<std::pair<memref::AllocOp, Operation *>> plan;
  // Existing deallocations or allocations in nested regions: leave the
  // whole function to upstream's analysis.
  WalkResult walk = func.walk([&](Operation *op) {
    if (isa<memref::DeallocOp, bufferization::DeallocOp>(op))
      return WalkResult::interrupt();
    if (isa<memref::AllocOp>(op) && op->getBlock() != &block)
      return WalkResult::interrupt();
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return std::nullopt;

  for (auto alloc : block.getOps<memref::AllocOp>()) {
    Operation *last = alloc;
    SmallVector<Value> aliases = {alloc.getResult()};
    while (!aliases.empty()) {
      Value alias = aliases.pop_back_val();
      for (OpOperand &use : alias.getUses()) {
        // Uses inside a region (a loop nest's body) count at the op that
        // holds the region in this block.
        Operation *user = block.findAncestorOpInBlock(*use.getOwner());
        if (!user)
          return std::nullopt;
        // Returned, or yielded out of a region (into results this walk
        // does not follow): not straight-line ownership.
        if (use.getOwner()->hasTrait<OpTrait::IsTerminator>())
          return std::nullopt;
        // Back to a tensor (which would alias the buffer).
        if (llvm::any_of(use.getOwner()->getResultTypes(),
                         llvm::IsaPred<TensorType>))
          return std::nullopt;
        // Storing the buffer itself somewhere lets it escape.
        if (auto store = dyn_cast<memref::StoreOp>(use.getOwner()))
          if (store.getValueToStore() == alias)
            return std::nullopt;
        if (auto view = dyn_cast<ViewLikeOpInterface>(use.getOwner());
            view && view.getViewSource() == alias) {
          llvm::append_range(aliases, view->getResults());
        } else if (isa<memref::TransposeOp>(use.getOwner())) {
          // A view, though not a ViewLikeOpInterface.
          llvm::append_range(aliases, use.getOwner()->getResults());
        } else if (llvm::any_of(use.getOwner()->getResultTypes(),
                                llvm::IsaPred<BaseMemRefType>)) {
          // A buffer from something that is not a view may alias this one.
          return std::nullopt;
        }
        if (last->isBeforeInBlock(user))
          last = user;
      }
    }
    plan.emplace_back(alloc, last);
  }
  return plan;
}

namespace {
struct KilnDeallocateBuffersPass
    : kiln::impl::KilnDeallocateBuffersBase<KilnDeallocateBuffersPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<std::pair<memref::AllocOp, Operation *>> plan;
    bool straightLine = true;
    for (auto func : module.getOps<func::FuncOp>()) {
      if (func.isExternal())
        continue;
      auto funcPlan = planDeallocations(func);
      if (!funcPlan) {
        straightLine = false;
        break;
      }
      llvm::append_range(plan, *funcPlan);
    }

    if (!straightLine) {
      OpPassManager upstream(ModuleOp::getOperationName());
      bufferization::buildBufferDeallocationPipeline(upstream);
      kiln::addPassStatistic(*this, numFallbacks, 1, kPassStatistics);
      if (failed(runPipeline(upstream, module)))
        signalPassFailure();
      return;
    }
    for (auto [alloc, last] : plan) {
      OpBuilder b(last->getContext());
      b.setInsertionPointAfter(last);
      memref::DeallocOp::create(b, alloc.getLoc(), alloc.getResult());
    }
    kiln::addPassStatistic(*this, numDeallocs, plan.size(), kPassStatistics);
  }
};
} // namespace
