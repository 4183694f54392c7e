//===- Rematerialize.cpp - recomputing forward values in the derivative ---===//
//
// After the reverse sweep, the derivative ops read forward values, which
// are kept from the forward to the backward: the peak of a training step.
// Two ways to keep less, both by copying forward ops to just before the
// first derivative op that reads them (marked kiln.recomputed, so that CSE
// keeps the copies apart and -kiln-fuse keeps them out of the forward):
//  - checkpointing (kiln.utils.checkpoint.checkpoint): every value of a
//    checkpointed segment is recomputed from the segment's inputs;
//  - automatic rematerialization (remat=auto): a value of cheap elementwise
//    ops is recomputed from values that are kept anyway when that keeps
//    fewer bytes, and the arithmetic it repeats is small for the bytes it
//    saves; the derivative's cheap ops that read only forward values are
//    marked as well, so that they stay in the backward too.
//
//===----------------------------------------------------------------------===//

#include "AutodiffInternals.h"
#include "kiln/Dialect/Kiln/IR/KilnDialect.h"

#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;
using namespace kiln;

/// Where an op after the forward (the derivative) reads a value for which
/// `recomputable` returns its defining op, it reads a copy instead, made
/// with the copies of the recomputable values that op reads (recursively)
/// just before the first derivative op that needs it. Returns how many ops
/// were copied.
static int64_t
recomputeInDerivative(Block &body, const ForwardIndex &forwardIndex,
                      llvm::function_ref<Operation *(Value)> recomputable) {
  SmallVector<Operation *> derivative;
  for (Operation &op : body)
    if (!forwardIndex.count(&op))
      derivative.push_back(&op);
  IRMapping copies;
  int64_t copied = 0;
  for (Operation *user : derivative) {
    for (OpOperand &use : user->getOpOperands()) {
      Operation *root = recomputable(use.get());
      if (!root)
        continue;
      if (!copies.contains(use.get())) {
        // The ops this value needs that are not copied yet, copied in
        // forward order (an explicit stack: segments may be long).
        llvm::SetVector<Operation *> needed;
        SmallVector<Operation *> stack = {root};
        while (!stack.empty()) {
          Operation *op = stack.pop_back_val();
          if (!needed.insert(op))
            continue;
          for (Value operand : op->getOperands())
            if (Operation *def = recomputable(operand))
              if (!copies.contains(operand))
                stack.push_back(def);
        }
        SmallVector<Operation *> order(needed.begin(), needed.end());
        llvm::sort(order, [&](Operation *a, Operation *b) {
          return forwardIndex.lookup(a) < forwardIndex.lookup(b);
        });
        OpBuilder b(user);
        for (Operation *op : order) {
          Operation *copy = b.clone(*op, copies);
          copy->removeAttr(kCheckpointAttrName);
          copy->setAttr(kRecomputedAttrName, b.getUnitAttr());
          ++copied;
        }
      }
      use.set(copies.lookup(use.get()));
    }
  }
  return copied;
}

int64_t kiln::recomputeCheckpointed(Block &body,
                                    const ForwardIndex &forwardIndex) {
  // A value inside a segment: its op is checkpointed, and no forward op of
  // another segment (or of none) reads it. A segment's outputs are kept,
  // as the results of torch's checkpoint are: they bound every recompute.
  return recomputeInDerivative(
      body, forwardIndex, [&](Value value) -> Operation * {
        Operation *def = value.getDefiningOp();
        if (!def || !forwardIndex.count(def))
          return nullptr;
        Attribute segment = def->getAttr(kCheckpointAttrName);
        if (!segment)
          return nullptr;
        for (Operation *user : value.getUsers())
          if (forwardIndex.count(user) &&
              user->getAttr(kCheckpointAttrName) != segment)
            return nullptr;
        return def;
      });
}

namespace {

/// What automatic rematerialization may repeat per element of a value it
/// no longer keeps, in the units of getCost: 8 per byte saved, 32 for an
/// f32 element (a GELU costs 8, a LayerNorm's output from its centred
/// input and row statistics 2).
constexpr int64_t kCostPerByteSaved = 8;
/// The most ops one value is recomputed with.
constexpr size_t kMaxRecomputedOps = 32;
/// How many times the smallest value it considers (remat-min-bytes) a
/// recomputation must save to take a kernel of its own: no derivative
/// kernel can take it in (every derivative op that reads it is a product,
/// a gather, ...). By default values from 64 KiB are considered, and a
/// kernel of its own takes 1 MiB saved: a smaller value lowers no peak
/// worth a launch or a fusion given up (an unrolled LSTM at 16 x 64 ran
/// 4.6% slower, its recomputed values of 4 KiB in kernels of their own).
constexpr int64_t kOwnKernelFactor = 16;

/// Bytes of a statically shaped tensor (an i1 as a byte), if it is one.
std::optional<int64_t> getBytes(Value value) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  if (!type || !type.hasStaticShape() || !type.getElementType().isIntOrFloat())
    return std::nullopt;
  int64_t bits = type.getElementType().getIntOrFloatBitWidth();
  return type.getNumElements() * std::max<int64_t>(1, bits / 8);
}

/// The arithmetic of one element of `op`'s result: 0 for a broadcast, a
/// reshape or a slice (a kernel reads its operand through a view), 8 for a
/// transcendental function (Kiln_Transcendental), 4 for a random number
/// (Philox's 10 rounds make 4 of them), 1 otherwise (a transpose's copy
/// included).
int64_t getCost(Operation *op) {
  if (isa<BroadcastInDimOp, ReshapeOp, SliceOp>(op))
    return 0;
  if (op->hasTrait<OpTrait::kiln::Transcendental>())
    return 8;
  if (isa<RngUniformOp>(op))
    return 4;
  return 1;
}

/// Whether automatic rematerialization may repeat `op`: an elementwise op,
/// a broadcast, a reshape, a transpose, a slice or a counter-based random
/// number (a function of its key), one statically shaped result.
bool isCheap(Operation *op) {
  if (op->getNumResults() != 1 || op->getNumRegions() != 0 || !isPure(op) ||
      !getBytes(op->getResult(0)))
    return false;
  return op->hasTrait<OpTrait::Elementwise>() ||
         isa<BroadcastInDimOp, ReshapeOp, TransposeOp, SliceOp, RngUniformOp>(
             op);
}

/// Whether a derivative kernel could take `op` in next to a recomputation
/// that it reads: a cheap op, or a row reduction (which shares its rows'
/// kernel).
bool isFusible(Operation *op) {
  return isCheap(op) || getRowReductionRank(op) != 0;
}

} // namespace

int64_t kiln::rematerializeCheapValues(Block &body,
                                       ArrayRef<Operation *> forward,
                                       const ForwardIndex &forwardIndex,
                                       ArrayRef<Value> primalResults,
                                       ArrayRef<Value> cotangents,
                                       int64_t minBytes) {
  // The derivative's ops that can run only after one of its kernels that
  // no forward kernel can share (a product, a column reduction, a gather):
  // what they read of the forward is kept across that kernel. What only
  // the others read (the derivative of the last ops, with a cotangent that
  // is an input; a softmax's or a LayerNorm's row reductions, which share
  // the forward's row kernel) may be fused with the forward instead, and is
  // left alone.
  Operation *terminator = body.getTerminator();
  llvm::DenseSet<Operation *> gapped;
  for (Operation &op : body) {
    if (forwardIndex.count(&op) || &op == terminator)
      continue;
    bool opaque = !isFusible(&op) && op.getNumOperands() != 0;
    if (opaque || llvm::any_of(op.getOperands(), [&](Value operand) {
          Operation *def = operand.getDefiningOp();
          return def && gapped.contains(def);
        }))
      gapped.insert(&op);
  }
  // The derivative's cheap ops that read only what the forward computed (a
  // GELU's derivative at its input) and whose values are read after a gap
  // ("late"): what they read counts as read after the gap, and they are
  // marked as recomputations are (at the end). Fused into the forward's
  // kernels, their values would be kept across the gap, next to the values
  // they read, which the recomputations keep anyway.
  llvm::DenseSet<Value> fromCotangent(cotangents.begin(), cotangents.end());
  SmallVector<Operation *> forwardOnly;
  llvm::DenseSet<Operation *> isForwardOnly;
  for (Operation &op : body) {
    if (forwardIndex.count(&op) || &op == terminator || !isCheap(&op) ||
        op.hasAttr(kRecomputedAttrName) ||
        *getBytes(op.getResult(0)) < minBytes)
      continue;
    bool readsForward = llvm::all_of(op.getOperands(), [&](Value operand) {
      if (fromCotangent.contains(operand))
        return false;
      Operation *def = operand.getDefiningOp();
      return !def || forwardIndex.count(def) || isForwardOnly.contains(def) ||
             def->hasAttr(kRecomputedAttrName) ||
             matchPattern(operand, m_Constant());
    });
    if (readsForward) {
      forwardOnly.push_back(&op);
      isForwardOnly.insert(&op);
    }
  }
  // In reverse: an op's users are decided before it.
  llvm::DenseSet<Operation *> late;
  for (Operation *op : llvm::reverse(forwardOnly))
    if (llvm::any_of(op->getUsers(), [&](Operation *user) {
          return gapped.contains(user) || late.contains(user);
        }))
      late.insert(op);
  auto readAfterGap = [&](Value value) {
    return llvm::any_of(value.getUsers(), [&](Operation *user) {
      return gapped.contains(user) || late.contains(user);
    });
  };

  // Kept from the forward to the derivative: the arguments and forward
  // values a derivative op reads, the primal's results (the caller reads
  // them) and the gradients (constants are free). Candidates: the kept
  // forward values read after a gap.
  llvm::DenseSet<Value> kept(primalResults.begin(), primalResults.end());
  for (Value gradient : terminator->getOperands())
    kept.insert(gradient);
  SmallVector<Value> candidates;
  auto readByDerivative = [&](Value value) {
    return llvm::any_of(value.getUsers(), [&](Operation *user) {
      return !forwardIndex.count(user);
    });
  };
  for (BlockArgument argument : body.getArguments())
    if (readByDerivative(argument))
      kept.insert(argument);
  for (Operation *op : forward)
    for (Value result : op->getResults())
      if (readByDerivative(result) && kept.insert(result).second &&
          readAfterGap(result))
        candidates.push_back(result);
  auto isFree = [&](Value value) {
    return kept.contains(value) || matchPattern(value, m_Constant());
  };

  // In forward order, so that whatever a recomputation reads was decided
  // before it: kept, or recomputed itself.
  llvm::DenseSet<Operation *> recomputed;
  for (Value value : candidates) {
    Operation *root = value.getDefiningOp();
    if (!isCheap(root) || *getBytes(value) < minBytes)
      continue;
    // The ops that recompute `value` from kept values, through every cheap
    // forward op that is not kept, and what they read that is not kept.
    llvm::SetVector<Operation *> ops;
    llvm::SetVector<Value> reads;
    SmallVector<Operation *> stack = {root};
    int64_t cost = 0;
    bool tooLong = false;
    while (!stack.empty() && !tooLong) {
      Operation *op = stack.pop_back_val();
      if (!ops.insert(op))
        continue;
      tooLong = ops.size() > kMaxRecomputedOps;
      cost +=
          getCost(op) *
          cast<RankedTensorType>(op->getResult(0).getType()).getNumElements();
      for (Value operand : op->getOperands()) {
        if (isFree(operand))
          continue;
        Operation *def = operand.getDefiningOp();
        if (def && forwardIndex.count(def) && isCheap(def))
          stack.push_back(def);
        else
          reads.insert(operand);
      }
    }
    if (tooLong)
      continue;
    // Kept instead of `value`: what the recomputation reads.
    int64_t saved = *getBytes(value);
    for (Value read : reads) {
      std::optional<int64_t> bytes = getBytes(read);
      saved -= bytes ? *bytes : saved;
    }
    if (saved <= 0 || cost > kCostPerByteSaved * saved)
      continue;
    bool ownKernel = llvm::none_of(value.getUsers(), [&](Operation *user) {
      return !forwardIndex.count(user) && isFusible(user);
    });
    if (ownKernel && saved < kOwnKernelFactor * minBytes)
      continue;
    kept.erase(value);
    for (Value read : reads)
      kept.insert(read);
    recomputed.insert(ops.begin(), ops.end());
  }
  int64_t copied = 0;
  if (!recomputed.empty())
    copied = recomputeInDerivative(
        body, forwardIndex, [&](Value value) -> Operation * {
          Operation *def = value.getDefiningOp();
          return def && recomputed.contains(def) ? def : nullptr;
        });
  bool marked = false;
  for (Operation *op : forwardOnly)
    if (late.contains(op)) {
      op->setAttr(kRecomputedAttrName, UnitAttr::get(op->getContext()));
      marked = true;
    }
  // The fusible derivative ops after a gap may share a kernel with a
  // recomputation placed after them: the kernel runs after the gap.
  if (copied != 0 || marked)
    for (Operation *op : gapped)
      if (isFusible(op))
        op->setAttr(kAfterGapAttrName, UnitAttr::get(op->getContext()));
  return copied;
}
