//===- ElideCopies.cpp - the -kiln-elide-copies pass ----------------------===//
//
//   %t = memref.alloc()                       %v = memref.subview %d[o][s][1]
//   linalg.generic ... outs(..., %t, ...)  -> linalg.generic outs(..., %v, ...)
//   %v = memref.subview %d[o][s][1]
//   memref.copy %t, %v
//
// Safe when: %t is used only by ops before the copy (which write it) and by
// the copy; %d is a memref.alloc in the same block (moved up when it comes
// after %t's first use and has no operands); between %t's first use
// and the copy, %d is used only through static unit-stride subviews that are
// disjoint from %v (so moving the writes earlier cannot be observed).
//
// The target may also be an expand_shape of such a subview: a copy out of
// a collapse_shape of %t is first turned into a copy of %t itself into the
// matching expand_shape of its target.
//
// and, first, forwards whole-buffer copies out of dead buffers:
//
//   memref.copy %a, %b      ->   (uses of %b use %a)
//
// Safe when %a and %b are allocations of one type in the copy's block, %b
// is not used before the copy and %a (or any view of it) is not used after
// it. Copy-before-write bufferization leaves one such copy wherever it
// could have written in place.
//
//===----------------------------------------------------------------------===//

#include "kiln/Codegen/Common/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

namespace kiln {
#define GEN_PASS_DEF_KILNELIDECOPIES
#include "kiln/Codegen/Common/Passes.h.inc"
} // namespace kiln

using namespace mlir;

namespace {

struct Box {
  SmallVector<int64_t> offsets, sizes;
};

/// The region a static, unit-stride subview covers in its source.
std::optional<Box> getBox(memref::SubViewOp view) {
  Box box;
  SmallVector<OpFoldResult> offsets = view.getMixedOffsets();
  SmallVector<OpFoldResult> sizes = view.getMixedSizes();
  SmallVector<OpFoldResult> strides = view.getMixedStrides();
  for (auto [offset, size, stride] : llvm::zip(offsets, sizes, strides)) {
    std::optional<int64_t> o = getConstantIntValue(offset);
    std::optional<int64_t> s = getConstantIntValue(size);
    std::optional<int64_t> t = getConstantIntValue(stride);
    if (!o || !s || t != 1)
      return std::nullopt;
    box.offsets.push_back(*o);
    box.sizes.push_back(*s);
  }
  return box;
}

bool areDisjoint(const Box &a, const Box &b) {
  for (size_t d = 0; d < a.offsets.size(); ++d)
    if (a.offsets[d] + a.sizes[d] <= b.offsets[d] ||
        b.offsets[d] + b.sizes[d] <= a.offsets[d])
      return true;
  return false;
}

/// The allocation `v` views and the absolute box it covers there, following
/// static unit-stride subviews; none for anything else.
std::optional<std::pair<Value, Box>> getRootBox(Value v) {
  SmallVector<memref::SubViewOp> chain;
  while (auto view = v.getDefiningOp<memref::SubViewOp>()) {
    chain.push_back(view);
    v = view.getSource();
  }
  auto type = dyn_cast<MemRefType>(v.getType());
  if (!type || !type.hasStaticShape())
    return std::nullopt;
  Box box;
  box.offsets.assign(type.getRank(), 0);
  box.sizes.assign(type.getShape().begin(), type.getShape().end());
  for (memref::SubViewOp view : llvm::reverse(chain)) {
    std::optional<Box> inner = getBox(view);
    // Rank-reducing views are not followed.
    if (!inner || inner->offsets.size() != box.offsets.size())
      return std::nullopt;
    for (size_t d = 0; d < box.offsets.size(); ++d) {
      box.offsets[d] += inner->offsets[d];
      box.sizes[d] = inner->sizes[d];
    }
  }
  return std::make_pair(v, box);
}

/// Whether `root`, or a view of it, is used by an op after `point` in its
/// block (or nested in one). Any other op that makes a memref from it (a
/// call that returns it, a select) could make an alias this cannot follow:
/// that counts as a use after.
bool isUsedAfter(Value root, Operation *point) {
  SmallVector<Value> worklist = {root};
  while (!worklist.empty()) {
    Value value = worklist.pop_back_val();
    for (Operation *user : value.getUsers()) {
      Operation *inBlock = point->getBlock()->findAncestorOpInBlock(*user);
      if (!inBlock || (inBlock != point && point->isBeforeInBlock(inBlock)))
        return true;
      auto view = dyn_cast<ViewLikeOpInterface>(user);
      if (view && view.getViewSource() == value) {
        llvm::append_range(worklist, user->getResults());
        continue;
      }
      if (llvm::any_of(user->getResultTypes(),
                       [](Type type) { return isa<BaseMemRefType>(type); }))
        return true;
    }
  }
  return false;
}

/// Forwards a whole-buffer copy out of a buffer that dies there.
bool forward(memref::CopyOp copy) {
  auto source = copy.getSource().getDefiningOp<memref::AllocOp>();
  auto target = copy.getTarget().getDefiningOp<memref::AllocOp>();
  if (!source || !target || source->getBlock() != copy->getBlock() ||
      target->getBlock() != copy->getBlock() ||
      source.getType() != target.getType())
    return false;
  for (Operation *user : target->getUsers()) {
    Operation *inBlock = copy->getBlock()->findAncestorOpInBlock(*user);
    if (user != copy && (!inBlock || !copy->isBeforeInBlock(inBlock)))
      return false;
  }
  if (isUsedAfter(source.getResult(), copy))
    return false;
  // The target's uses all follow the copy, which the source dominates.
  copy->erase();
  target.getResult().replaceAllUsesWith(source.getResult());
  target->erase();
  return true;
}

/// Moves `op` before `point` as a clone that replaces it: Operation::moveBefore
/// invalidates the order of the whole block, and recomputing it on the next
/// query made the pass quadratic in a long straight-line function.
Operation *moveBeforeByCloning(Operation *op, Operation *point) {
  OpBuilder b(point);
  Operation *clone = b.clone(*op);
  op->replaceAllUsesWith(clone);
  op->erase();
  return clone;
}

/// `memref.copy (collapse_shape %t), %v` -> `memref.copy %t, (expand_shape
/// %v)`, the same elements, when the collapse has no other use: `elide`
/// then sees the temporary itself (a kernel writing a transposed layout
/// into a concat's part).
void moveReshapeToTarget(memref::CopyOp copy) {
  auto collapse = copy.getSource().getDefiningOp<memref::CollapseShapeOp>();
  if (!collapse || !collapse->hasOneUse() ||
      !copy.getTarget().getDefiningOp<memref::SubViewOp>() ||
      !collapse.getSrcType().hasStaticShape())
    return;
  auto targetType = cast<MemRefType>(copy.getTarget().getType());
  FailureOr<MemRefType> expanded = memref::ExpandShapeOp::computeExpandedType(
      targetType, collapse.getSrcType().getShape(),
      collapse.getReassociationIndices());
  if (failed(expanded))
    return;
  OpBuilder b(copy);
  auto expand = memref::ExpandShapeOp::create(
      b, copy.getLoc(), *expanded, copy.getTarget(),
      collapse.getReassociationIndices());
  copy.getSourceMutable().assign(collapse.getSrc());
  copy.getTargetMutable().assign(expand.getResult());
  collapse->erase();
}

bool elide(memref::CopyOp copy) {
  auto temp = copy.getSource().getDefiningOp<memref::AllocOp>();
  // The target: a subview, or an expand_shape of one (moveReshapeToTarget).
  auto reshape = copy.getTarget().getDefiningOp<memref::ExpandShapeOp>();
  auto view = (reshape ? reshape.getSrc() : copy.getTarget())
                  .getDefiningOp<memref::SubViewOp>();
  auto targetType = cast<MemRefType>(copy.getTarget().getType());
  if (!temp || !view || temp->getBlock() != copy->getBlock() ||
      view->getBlock() != copy->getBlock() ||
      (reshape && reshape->getBlock() != copy->getBlock()) ||
      temp.getType().getShape() != targetType.getShape())
    return false;
  // A view type differs from the temporary's in its layout, which linalg
  // ops accept whatever it is; other users (and views read by others, or
  // rank-reducing ones) would need their types fixed.
  auto takesAnyLayout = [](Operation *user) {
    return isa<linalg::LinalgOp>(user);
  };
  if (temp.getType() != targetType)
    for (Operation *user : temp->getUsers()) {
      if (user == copy || takesAnyLayout(user))
        continue;
      auto sub = dyn_cast<memref::SubViewOp>(user);
      if (!sub || sub.getType().getRank() != temp.getType().getRank() ||
          !llvm::all_of(sub->getUsers(), takesAnyLayout))
        return false;
    }
  std::optional<std::pair<Value, Box>> target = getRootBox(view);
  if (!target || !target->first.getDefiningOp<memref::AllocOp>())
    return false;
  Value dest = target->first;
  // The temporary's first use; all its uses come before the copy.
  Operation *first = nullptr;
  for (Operation *user : temp->getUsers()) {
    if (user == copy)
      continue;
    if (user->getBlock() != copy->getBlock() || !user->isBeforeInBlock(copy))
      return false;
    if (!first || user->isBeforeInBlock(first))
      first = user;
  }
  // Nor may a view of it be read after the copy: that reader would then
  // see the destination, which later ops may write.
  if (!first || isUsedAfter(temp.getResult(), copy))
    return false;
  // A destination allocated later (a concat of earlier kernels' results)
  // moves up when it has no operands: where an allocation happens is not
  // observable.
  Operation *destAlloc = dest.getDefiningOp();
  if (destAlloc->getBlock() != copy->getBlock())
    return false;
  bool hoistDest = !destAlloc->isBeforeInBlock(first);
  if (hoistDest && destAlloc->getNumOperands() != 0)
    return false;
  // Nothing from the first use to the copy may touch the destination's
  // target region: every operand there that views the destination must
  // view a disjoint static box.
  for (Operation *op = first; op != copy.getOperation();
       op = op->getNextNode()) {
    if (op == reshape.getOperation())
      continue;
    WalkResult walk = op->walk([&](Operation *nested) {
      for (Value operand : nested->getOperands()) {
        if (operand == copy.getTarget() && op != view.getOperation() &&
            op != reshape.getOperation())
          return WalkResult::interrupt();
        std::optional<std::pair<Value, Box>> root = getRootBox(operand);
        if (root && root->first == dest &&
            !areDisjoint(root->second, target->second) &&
            !isa<memref::SubViewOp>(nested))
          return WalkResult::interrupt();
        if (!root && operand != temp.getResult()) {
          // An unknown alias of the destination is not safe.
          Value base = operand;
          while (auto v = base.getDefiningOp<memref::SubViewOp>())
            base = v.getSource();
          if (base == dest)
            return WalkResult::interrupt();
        }
      }
      return WalkResult::advance();
    });
    if (walk.wasInterrupted())
      return false;
  }
  // The view (and the views it is taken from) must exist before the first
  // use of the temporary: they move up, which needs their other operands
  // (sizes, offsets) defined before it. Everything is checked before the
  // IR changes.
  SmallVector<memref::SubViewOp> chain;
  for (Value v = view.getResult();
       auto sub = v.getDefiningOp<memref::SubViewOp>(); v = sub.getSource())
    chain.push_back(sub);
  for (memref::SubViewOp sub : chain) {
    if (sub->isBeforeInBlock(first))
      continue;
    for (Value operand : sub->getOperands())
      if (Operation *def = operand.getDefiningOp())
        if (def->getBlock() == copy->getBlock() &&
            !def->isBeforeInBlock(first) && !isa<memref::SubViewOp>(def) &&
            def != destAlloc)
          return false;
  }
  if (hoistDest)
    moveBeforeByCloning(destAlloc, first);
  for (memref::SubViewOp &sub : llvm::reverse(chain))
    if (!sub->isBeforeInBlock(first))
      sub = cast<memref::SubViewOp>(moveBeforeByCloning(sub, first));
  view = chain.front();
  Value written = view.getResult();
  if (reshape) {
    if (!reshape->isBeforeInBlock(first))
      reshape =
          cast<memref::ExpandShapeOp>(moveBeforeByCloning(reshape, first));
    written = reshape.getResult();
  }
  // Views of the temporary (the loop nests of a kernel writing its parts)
  // are taken of the target instead.
  for (Operation *user : llvm::make_early_inc_range(temp->getUsers())) {
    auto sub = dyn_cast<memref::SubViewOp>(user);
    if (!sub || temp.getType() == targetType)
      continue;
    OpBuilder b(sub);
    auto moved = memref::SubViewOp::create(
        b, sub.getLoc(), written, sub.getMixedOffsets(), sub.getMixedSizes(),
        sub.getMixedStrides());
    sub.getResult().replaceAllUsesWith(moved.getResult());
    sub->erase();
  }
  temp.getResult().replaceUsesWithIf(
      written, [&](OpOperand &use) { return use.getOwner() != copy; });
  copy->erase();
  temp->erase();
  return true;
}

} // namespace

namespace {
struct KilnElideCopiesPass
    : kiln::impl::KilnElideCopiesBase<KilnElideCopiesPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<memref::CopyOp> copies;
    getOperation().walk([&](memref::CopyOp copy) { copies.push_back(copy); });
    // Forwarding first: it turns chains of copies into the single
    // temporary-to-view copies that `elide` then removes.
    SmallVector<memref::CopyOp> remaining;
    for (memref::CopyOp copy : copies)
      if (!forward(copy)) {
        moveReshapeToTarget(copy);
        remaining.push_back(copy);
      }
    for (memref::CopyOp copy : remaining)
      elide(copy);
  }
};

} // namespace
