//===- SerializeInnerLoops.cpp - the -kiln-serialize-inner-loops pass --------===//
//
// scf.parallel (i, j) { body }  ->  scf.parallel (i) { scf.for j { body } }
//
// Only outermost parallel loops with two or more dims change. The body moves
// into the new loop unchanged; its reductions (scf.reduce) stay with the
// outer loop, so loops with reductions are left alone.
//
//===----------------------------------------------------------------------===//

#include "kiln/Conversion/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMAttrs.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"

namespace kiln {
#define GEN_PASS_DEF_KILNSERIALIZEINNERLOOPS
#include "kiln/Conversion/Passes.h.inc"
} // namespace kiln

using namespace mlir;

/// Asks LLVM to vectorize the loop `width` lanes wide, interleaving
/// `interleave` vector iterations, whatever its cost model says: the iterations of a parallel dim are independent, and with
/// several buffers (which might alias, as far as LLVM knows) it otherwise
/// often declines the transcendental-heavy bodies of fused kernels.
static void requestVectorization(scf::ForOp loop, unsigned width,
                                 unsigned interleave) {
  MLIRContext *ctx = loop.getContext();
  auto i32 = IntegerType::get(ctx, 32);
  auto vectorize = LLVM::LoopVectorizeAttr::get(
      ctx, /*disable=*/BoolAttr::get(ctx, false), {}, {},
      IntegerAttr::get(i32, width), {}, {}, {});
  // Many buffers leave fewer registers for the interleaved iterations.
  llvm::SmallPtrSet<Value, 16> buffers;
  loop.walk([&](Operation *op) {
    if (auto load = dyn_cast<memref::LoadOp>(op))
      buffers.insert(load.getMemref());
    else if (auto store = dyn_cast<memref::StoreOp>(op))
      buffers.insert(store.getMemref());
  });
  if (buffers.size() > 8 && interleave > 1)
    interleave /= 2;
  // Never ask for more lanes than the loop has iterations: LLVM would warn
  // that it cannot, and leave the loop scalar.
  if (std::optional<APInt> trip = loop.getStaticTripCount()) {
    uint64_t iterations = trip->getZExtValue();
    if (iterations < width)
      return;
    interleave = std::min<uint64_t>(interleave, iterations / width);
  }
  LLVM::LoopInterleaveAttr interleaving;
  if (interleave > 0)
    interleaving =
        LLVM::LoopInterleaveAttr::get(ctx, IntegerAttr::get(i32, interleave));
  // Its iterations touch different elements: the loop's loads and stores
  // (which -kiln-attach-loop-annotations tags with this group) carry no
  // dependence across them, so LLVM needs no run-time alias checks, which
  // it otherwise emits for every pair of buffers and which fail whenever two
  // buffers share an allocation.
  auto group = LLVM::AccessGroupAttr::get(ctx);
  auto annotation = LLVM::LoopAnnotationAttr::get(
      ctx, {}, vectorize, interleaving, {}, {}, {}, {}, {}, {}, {}, {}, {},
      {}, {}, {group});
  // -convert-scf-to-cf puts it on the back edge, where LLVM looks for it.
  loop->setAttr("llvm.loop_annotation", annotation);
}

/// Rewrites `loop` as described above; returns false when it does not
/// apply.
static bool serializeInnermostDim(RewriterBase &rewriter,
                                  scf::ParallelOp loop, unsigned vectorWidth,
                                  unsigned interleave) {
  unsigned numDims = loop.getNumLoops();
  if (numDims < 2 || loop.getNumReductions() != 0)
    return false;
  Location loc = loop.getLoc();
  rewriter.setInsertionPoint(loop);
  auto outer = scf::ParallelOp::create(
      rewriter, loc, loop.getLowerBound().drop_back(),
      loop.getUpperBound().drop_back(), loop.getStep().drop_back());
  rewriter.setInsertionPointToStart(outer.getBody());
  auto inner = scf::ForOp::create(rewriter, loc, loop.getLowerBound().back(),
                                  loop.getUpperBound().back(),
                                  loop.getStep().back());
  // Move the body over, mapping the induction variables.
  Block *body = loop.getBody();
  SmallVector<Value> ivs(outer.getInductionVars());
  ivs.push_back(inner.getInductionVar());
  rewriter.eraseOp(body->getTerminator());
  rewriter.inlineBlockBefore(body, inner.getBody()->getTerminator(), ivs);
  rewriter.eraseOp(loop);
  if (vectorWidth > 1)
    requestVectorization(inner, vectorWidth, interleave);
  return true;
}

namespace {
struct KilnSerializeInnerLoopsPass
    : kiln::impl::KilnSerializeInnerLoopsBase<KilnSerializeInnerLoopsPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<scf::ParallelOp> loops;
    getOperation().walk([&](scf::ParallelOp loop) {
      if (!loop->getParentOfType<scf::ParallelOp>())
        loops.push_back(loop);
    });
    IRRewriter rewriter(&getContext());
    for (scf::ParallelOp loop : loops)
      serializeInnermostDim(rewriter, loop, vectorWidth, interleave);
  }
};
} // namespace
