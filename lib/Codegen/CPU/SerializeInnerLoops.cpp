//===- SerializeInnerLoops.cpp - the -kiln-serialize-inner-loops pass -----===//
//
// scf.parallel (i, j) { body }  ->  scf.parallel (i) { scf.for j { body } }
//
// Only outermost parallel loops with two or more dims change. The body moves
// into the new loop unchanged; its reductions (scf.reduce) stay with the
// outer loop, so loops with reductions are left alone.
//
//===----------------------------------------------------------------------===//

#include "RequestVectorization.h"
#include "kiln/Codegen/CPU/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMAttrs.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"

namespace kiln {
#define GEN_PASS_DEF_KILNSERIALIZEINNERLOOPS
#include "kiln/Codegen/CPU/Passes.h.inc"
} // namespace kiln

using namespace mlir;

/// Asks LLVM to vectorize the loop `width` lanes wide, interleaving
/// `interleave` vector iterations, whatever its cost model says: the iterations
/// of a parallel dim are independent, and with several buffers (which might
/// alias, as far as LLVM knows) it otherwise often declines the
/// transcendental-heavy bodies of fused kernels.
void kiln::requestVectorization(scf::ForOp loop, unsigned width,
                                unsigned interleave) {
  // LLVM vectorizes innermost loops only: one around a reduction's loop (a
  // generated matmul's) is left alone, or LLVM warns that it cannot.
  bool hasInnerLoops = false;
  loop.getBody()->walk([&](LoopLikeOpInterface) { hasInnerLoops = true; });
  if (hasInnerLoops)
    return;
  // Nor one that calls libm (f64 erf has neither an LLVM intrinsic nor an
  // expansion): LLVM cannot vectorize the call, and would warn.
  bool callsLibm = false;
  loop.getBody()->walk([&](math::ErfOp erf) {
    callsLibm |= !getElementTypeOrSelf(erf.getType()).isF32();
  });
  if (callsLibm)
    return;
  // Nor one that loads or stores i1 (a byte each in memory, a bit in a
  // vector): LLVM does not vectorize such irregular accesses, and would
  // warn.
  bool touchesBools = false;
  loop.getBody()->walk([&](Operation *op) {
    Value memref;
    if (auto load = dyn_cast<memref::LoadOp>(op))
      memref = load.getMemref();
    else if (auto store = dyn_cast<memref::StoreOp>(op))
      memref = store.getMemref();
    if (memref &&
        cast<MemRefType>(memref.getType()).getElementType().isInteger(1))
      touchesBools = true;
  });
  if (touchesBools)
    return;
  // Nor one that carries a value updated by a select, in its iter_args or
  // in memory (argmax's value and index, updated together): LLVM recognizes
  // no such reduction, and would warn.
  // The same for a NaN-propagating max or min of selected values (a masked
  // softmax's row max): LLVM identifies no reduction there either.
  bool hasSelect = !loop.getBody()->getOps<arith::SelectOp>().empty();
  bool selectsAccumulator = llvm::any_of(
      loop.getBody()->getTerminator()->getOperands(), [&](Value v) {
        return v.getDefiningOp<arith::SelectOp>() ||
               (hasSelect && v.getDefiningOp<arith::MaximumFOp>()) ||
               (hasSelect && v.getDefiningOp<arith::MinimumFOp>());
      });
  loop.getBody()->walk([&](memref::StoreOp store) {
    bool invariant = llvm::all_of(store.getIndices(), [&](Value index) {
      return loop.isDefinedOutsideOfLoop(index);
    });
    if (invariant && store.getValueToStore().getDefiningOp<arith::SelectOp>())
      selectsAccumulator = true;
  });
  if (selectsAccumulator)
    return;
  // A load from the same element on every iteration (a broadcast scalar)
  // moves before the loop: LLVM would not vectorize a loop that reloads it
  // after each store (it cannot tell the buffers apart), and would warn.
  llvm::SmallPtrSet<Value, 8> stored;
  loop.getBody()->walk(
      [&](memref::StoreOp store) { stored.insert(store.getMemref()); });
  SmallVector<memref::LoadOp> invariantLoads;
  for (Operation &op : loop.getBody()->without_terminator())
    if (auto load = dyn_cast<memref::LoadOp>(op))
      if (!stored.contains(load.getMemref()) &&
          loop.isDefinedOutsideOfLoop(load.getMemref()) &&
          llvm::all_of(load.getIndices(), [&](Value index) {
            return loop.isDefinedOutsideOfLoop(index);
          }))
        invariantLoads.push_back(load);
  for (memref::LoadOp load : invariantLoads)
    load->moveBefore(loop);
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
      ctx, {}, vectorize, interleaving, {}, {}, {}, {}, {}, {}, {}, {}, {}, {},
      {}, {group});
  // -convert-scf-to-cf puts it on the back edge, where LLVM looks for it.
  loop->setAttr("llvm.loop_annotation", annotation);
}

/// Declares the iterations of `loop`, made from a dim of an scf.parallel,
/// independent, unless requestVectorization already did: its loads and
/// stores get an access group of its own, so that LLVM vectorizes it (or
/// the loop it becomes once its inner loops are unrolled) without run-time
/// alias checks. Those checks fail, and send the whole loop down its scalar
/// version, when a kernel writes an output in place of an input (a donated
/// buffer), or two buffers share an allocation. Not a loop whose body
/// allocates: its scratch moves out of it once it is sequential, and its
/// iterations then share it.
static void declareParallel(scf::ForOp loop) {
  if (loop->hasAttr("llvm.loop_annotation"))
    return;
  bool allocates = false;
  loop.getBody()->walk([&](Operation *op) {
    allocates |=
        isa<memref::AllocaOp, memref::AllocOp, memref::AllocaScopeOp>(op);
  });
  if (allocates)
    return;
  MLIRContext *ctx = loop.getContext();
  loop->setAttr("llvm.loop_annotation",
                LLVM::LoopAnnotationAttr::get(
                    ctx, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {},
                    {LLVM::AccessGroupAttr::get(ctx)}));
}

/// Rewrites `loop` as described above; returns false when it does not
/// apply.
static bool serializeInnermostDim(RewriterBase &rewriter, scf::ParallelOp loop,
                                  unsigned vectorWidth, unsigned interleave) {
  unsigned numDims = loop.getNumLoops();
  if (numDims < 2 || loop.getNumReductions() != 0)
    return false;
  Location loc = loop.getLoc();
  rewriter.setInsertionPoint(loop);
  auto outer = scf::ParallelOp::create(
      rewriter, loc, loop.getLowerBound().drop_back(),
      loop.getUpperBound().drop_back(), loop.getStep().drop_back());
  rewriter.setInsertionPointToStart(outer.getBody());
  auto inner =
      scf::ForOp::create(rewriter, loc, loop.getLowerBound().back(),
                         loop.getUpperBound().back(), loop.getStep().back());
  // Move the body over, mapping the induction variables.
  Block *body = loop.getBody();
  SmallVector<Value> ivs(outer.getInductionVars());
  ivs.push_back(inner.getInductionVar());
  rewriter.eraseOp(body->getTerminator());
  rewriter.inlineBlockBefore(body, inner.getBody()->getTerminator(), ivs);
  rewriter.eraseOp(loop);
  if (vectorWidth > 1)
    kiln::requestVectorization(inner, vectorWidth, interleave);
  declareParallel(inner);
  return true;
}

/// The static trip count of a loop dim, if its bounds are constants.
static std::optional<int64_t> getTripCount(Value lower, Value upper,
                                           Value step) {
  std::optional<int64_t> lb = getConstantIntValue(lower),
                         ub = getConstantIntValue(upper),
                         st = getConstantIntValue(step);
  if (!lb || !ub || !st || *st <= 0)
    return std::nullopt;
  return *ub > *lb ? (*ub - *lb + *st - 1) / *st : 0;
}

static std::optional<int64_t> countIterations(Operation *loop);

/// Executions of the innermost bodies of the loops in `block` (1 when it
/// has none), or nullopt when a trip count is not static.
static std::optional<int64_t> countBodyIterations(Block &block) {
  int64_t total = 0;
  bool hasLoops = false;
  for (Operation &op : block) {
    if (!isa<scf::ForOp, scf::ParallelOp>(op)) {
      // Loops nested in other ops (an scf.if) are not counted; any such op
      // makes the estimate unknown.
      if (op.getNumRegions() != 0)
        return std::nullopt;
      continue;
    }
    hasLoops = true;
    std::optional<int64_t> n = countIterations(&op);
    if (!n)
      return std::nullopt;
    total += *n;
  }
  return hasLoops ? total : 1;
}

/// Executions of the innermost bodies of `loop` (scf.for or scf.parallel).
static std::optional<int64_t> countIterations(Operation *loop) {
  int64_t trips = 1;
  auto multiply = [&](std::optional<int64_t> n) {
    if (n && *n > 0 && trips > (int64_t(1) << 40) / *n)
      n = int64_t(1) << 40; // large enough: saturate
    if (n)
      trips *= *n;
    return n.has_value();
  };
  Block *body;
  if (auto forOp = dyn_cast<scf::ForOp>(loop)) {
    if (!multiply(getTripCount(forOp.getLowerBound(), forOp.getUpperBound(),
                               forOp.getStep())))
      return std::nullopt;
    body = forOp.getBody();
  } else {
    auto parallel = cast<scf::ParallelOp>(loop);
    for (auto [lb, ub, step] :
         llvm::zip(parallel.getLowerBound(), parallel.getUpperBound(),
                   parallel.getStep()))
      if (!multiply(getTripCount(lb, ub, step)))
        return std::nullopt;
    body = parallel.getBody();
  }
  if (!multiply(countBodyIterations(*body)))
    return std::nullopt;
  return trips;
}

/// Rewrites a small `loop` as nested scf.for loops, the innermost one
/// vectorized; returns false when it is not small (or has reductions).
static bool sequentializeSmallLoop(RewriterBase &rewriter, scf::ParallelOp loop,
                                   int64_t minParallelIterations,
                                   unsigned vectorWidth, unsigned interleave) {
  if (loop.getNumReductions() != 0)
    return false;
  std::optional<int64_t> iterations = countIterations(loop);
  if (!iterations || *iterations >= minParallelIterations)
    return false;
  Location loc = loop.getLoc();
  rewriter.setInsertionPoint(loop);
  SmallVector<Value> ivs;
  SmallVector<scf::ForOp> nest;
  for (auto [lb, ub, step] :
       llvm::zip(loop.getLowerBound(), loop.getUpperBound(), loop.getStep())) {
    nest.push_back(scf::ForOp::create(rewriter, loc, lb, ub, step));
    ivs.push_back(nest.back().getInductionVar());
    rewriter.setInsertionPointToStart(nest.back().getBody());
  }
  scf::ForOp innermost = nest.back();
  Block *body = loop.getBody();
  rewriter.eraseOp(body->getTerminator());
  rewriter.inlineBlockBefore(body, innermost.getBody()->getTerminator(), ivs);
  rewriter.eraseOp(loop);
  if (vectorWidth > 1)
    kiln::requestVectorization(innermost, vectorWidth, interleave);
  for (scf::ForOp made : nest)
    declareParallel(made);
  return true;
}

/// A row kernel's scratch is allocated in a memref.alloca_scope, once per
/// row. When its loop has become sequential (an scf.for), the canonicalizer
/// inlines the scope (scf.for is an automatic allocation scope), but the
/// lowering to LLVM frees nothing per iteration: the stack grew by the
/// scratch every row, and 1024 rows of 1024 floats overflowed it (a softmax
/// backward on [1, 1024, 1024] crashed). The rows of a sequential loop run
/// one after another, so one scratch before the loop serves them all; in a
/// parallel loop each iteration keeps its own.
static void hoistScratchOutOfSequentialLoops(func::FuncOp func) {
  SmallVector<memref::AllocaOp> allocas;
  func.walk([&](memref::AllocaOp alloca) {
    if (alloca->getNumOperands() == 0 && alloca.getType().hasStaticShape())
      allocas.push_back(alloca);
  });
  for (memref::AllocaOp alloca : allocas) {
    Operation *outermost = nullptr;
    for (Operation *parent = alloca->getParentOp();
         parent && !isa<func::FuncOp, scf::ParallelOp>(parent);
         parent = parent->getParentOp())
      if (isa<scf::ForOp>(parent))
        outermost = parent;
    if (outermost)
      alloca->moveBefore(outermost);
  }
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
      if (!sequentializeSmallLoop(rewriter, loop, minParallelIterations,
                                  vectorWidth, interleave))
        serializeInnermostDim(rewriter, loop, vectorWidth, interleave);
    hoistScratchOutOfSequentialLoops(getOperation());
  }
};
} // namespace
