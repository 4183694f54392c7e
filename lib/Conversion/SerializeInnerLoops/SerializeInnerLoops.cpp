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

#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"

namespace kiln {
#define GEN_PASS_DEF_KILNSERIALIZEINNERLOOPS
#include "kiln/Conversion/Passes.h.inc"
} // namespace kiln

using namespace mlir;

/// Rewrites `loop` as described above; returns false when it does not
/// apply.
static bool serializeInnermostDim(RewriterBase &rewriter,
                                  scf::ParallelOp loop) {
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
      serializeInnermostDim(rewriter, loop);
  }
};
} // namespace
