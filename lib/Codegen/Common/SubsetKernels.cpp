//===- SubsetKernels.cpp - run a kernel as a larger one that contains it --===//
//
// B is contained in A when A's ops, in order, hold B's as a subsequence
// that reads and writes B's arguments in their places: each op equal up to
// value names, or a linalg.generic with the same inputs and a subset of
// A's outputs whose payload is a subsequence of A's. What A has beyond
// that writes only arguments that B lacks, which B's calls pass as
// scratch.
//
//===----------------------------------------------------------------------===//

#include "SubsetKernels.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallBitVector.h"

using namespace mlir;

namespace {

/// Whether `value` is one of the constants a kernel clones in.
bool isKernelConstant(Value value) {
  Operation *def = value.getDefiningOp();
  return def && def->hasTrait<OpTrait::ConstantLike>() &&
         def->getNumOperands() == 0;
}

/// A one-to-one map from the values of the smaller kernel to the larger's.
class SubsetMatcher {
public:
  /// Whether `small` is contained in `large`; then argOfLarge holds, for
  /// each argument of `large`, the argument of `small` in its place, or
  /// none for scratch.
  bool match(func::FuncOp small, func::FuncOp large) {
    Block &sb = small.getBody().front(), &lb = large.getBody().front();
    if (small.getNumArguments() >= large.getNumArguments())
      return false;
    SmallVector<Operation *> smallOps = getWork(sb), largeOps = getWork(lb);
    size_t next = 0;
    for (Operation *op : smallOps) {
      bool found = false;
      while (!found && next < largeOps.size()) {
        Operation *candidate = largeOps[next++];
        auto saved = std::make_pair(forward, backward);
        if (matchExact(op, candidate) || matchGenericSubset(op, candidate)) {
          found = true;
          break;
        }
        std::tie(forward, backward) = saved;
        // What is skipped must be a loop nest writing scratch.
        if (!isa<linalg::LinalgOp>(candidate))
          return false;
      }
      if (!found)
        return false;
    }
    for (; next < largeOps.size(); ++next)
      if (!isa<linalg::LinalgOp>(largeOps[next]))
        return false;
    // Every argument of `small` in a place of `large`'s. The rest is
    // scratch, which no matched op reads: it maps to nothing.
    argOfLarge.assign(large.getNumArguments(), std::nullopt);
    for (BlockArgument arg : sb.getArguments()) {
      auto it = forward.find(arg);
      auto target =
          it == forward.end() ? nullptr : dyn_cast<BlockArgument>(it->second);
      if (!target || target.getOwner() != &lb)
        return false;
      argOfLarge[target.getArgNumber()] = arg.getArgNumber();
    }
    return true;
  }

  SmallVector<std::optional<unsigned>> argOfLarge;

private:
  /// The ops of a kernel's body that do the work: not the cloned
  /// constants, not the return.
  static SmallVector<Operation *> getWork(Block &body) {
    SmallVector<Operation *> ops;
    for (Operation &op : body.without_terminator())
      if (!(op.hasTrait<OpTrait::ConstantLike>() && op.getNumOperands() == 0))
        ops.push_back(&op);
    return ops;
  }

  bool mapValue(Value small, Value large) {
    if (small.getType() != large.getType())
      return false;
    if (auto it = forward.find(small); it != forward.end())
      return it->second == large;
    if (backward.count(large))
      return false;
    forward[small] = large;
    backward[large] = small;
    return true;
  }

  bool matchOperand(Value small, Value large) {
    if (isKernelConstant(small) || isKernelConstant(large)) {
      if (!isKernelConstant(small) || !isKernelConstant(large))
        return false;
      Operation *s = small.getDefiningOp(), *l = large.getDefiningOp();
      return s->getName() == l->getName() &&
             s->getAttrDictionary() == l->getAttrDictionary() &&
             small.getType() == large.getType();
    }
    return mapValue(small, large);
  }

  bool matchRegion(Region &small, Region &large) {
    if (small.getBlocks().size() != large.getBlocks().size())
      return false;
    for (auto [sb, lb] : llvm::zip(small, large)) {
      if (sb.getNumArguments() != lb.getNumArguments() ||
          sb.getOperations().size() != lb.getOperations().size())
        return false;
      for (auto [sa, la] : llvm::zip(sb.getArguments(), lb.getArguments()))
        if (!mapValue(sa, la))
          return false;
      for (auto [so, lo] : llvm::zip(sb, lb))
        if (!matchExact(&so, &lo))
          return false;
    }
    return true;
  }

  /// Equal up to value names, operands and nested values mapped.
  bool matchExact(Operation *small, Operation *large) {
    if (small->getName() != large->getName() ||
        small->getAttrDictionary() != large->getAttrDictionary() ||
        small->getResultTypes() != large->getResultTypes() ||
        small->getNumOperands() != large->getNumOperands() ||
        small->getNumRegions() != large->getNumRegions())
      return false;
    for (auto [s, l] : llvm::zip(small->getOperands(), large->getOperands()))
      if (!matchOperand(s, l))
        return false;
    for (auto [s, l] : llvm::zip(small->getRegions(), large->getRegions()))
      if (!matchRegion(s, l))
        return false;
    for (auto [s, l] : llvm::zip(small->getResults(), large->getResults()))
      if (!mapValue(s, l))
        return false;
    return true;
  }

  /// The same loops, `small`'s outputs some of `large`'s, each computed
  /// the same way: the payloads match from the yields up, so that the
  /// order ops were placed in (which elementwise fusion decides) and the
  /// order of the inputs do not matter.
  bool matchGenericSubset(Operation *smallOp, Operation *largeOp) {
    auto small = dyn_cast<linalg::GenericOp>(smallOp);
    auto large = dyn_cast<linalg::GenericOp>(largeOp);
    if (!small || !large || small->getNumResults() || large->getNumResults() ||
        small.getNumDpsInits() > large.getNumDpsInits() ||
        small.getIteratorTypes() != large.getIteratorTypes() ||
        small.getDocAttr() != large.getDocAttr() ||
        small.getLibraryCallAttr() != large.getLibraryCallAttr() ||
        small->getDiscardableAttrDictionary() !=
            large->getDiscardableAttrDictionary())
      return false;
    Operation *smallYield = small.getBody()->getTerminator();
    Operation *largeYield = large.getBody()->getTerminator();
    llvm::SmallBitVector taken(large.getNumDpsInits());
    for (unsigned j = 0; j < small.getNumDpsInits(); ++j) {
      OpOperand *smallInit = small.getDpsInitOperand(j);
      bool placed = false;
      for (unsigned k = 0; k < large.getNumDpsInits() && !placed; ++k) {
        OpOperand *largeInit = large.getDpsInitOperand(k);
        if (taken[k])
          continue;
        auto saved = std::make_pair(forward, backward);
        if (matchElement(small, large,
                         small.getMatchingBlockArgument(smallInit),
                         large.getMatchingBlockArgument(largeInit)) &&
            matchPayload(small, large, smallYield->getOperand(j),
                         largeYield->getOperand(k))) {
          taken.set(k);
          placed = true;
        } else {
          std::tie(forward, backward) = saved;
        }
      }
      if (!placed)
        return false;
    }
    return true;
  }

  /// A payload block argument of `small` and one of `large`: the elements
  /// of operands in the same place (both inputs or both outputs, the same
  /// indexing map, the same buffer).
  bool matchElement(linalg::GenericOp small, linalg::GenericOp large,
                    BlockArgument s, BlockArgument l) {
    if (auto it = forward.find(s); it != forward.end())
      return it->second == l;
    OpOperand *so = small.getMatchingOpOperand(s);
    OpOperand *lo = large.getMatchingOpOperand(l);
    return small.isDpsInput(so) == large.isDpsInput(lo) &&
           small.getMatchingIndexingMap(so) ==
               large.getMatchingIndexingMap(lo) &&
           matchOperand(so->get(), lo->get()) && mapValue(s, l);
  }

  /// Whether payload value `s` of `small` is computed as `l` of `large`.
  bool matchPayload(linalg::GenericOp small, linalg::GenericOp large, Value s,
                    Value l) {
    if (auto it = forward.find(s); it != forward.end())
      return it->second == l;
    Block *smallBody = small.getBody(), *largeBody = large.getBody();
    if (auto arg = dyn_cast<BlockArgument>(s)) {
      auto largeArg = dyn_cast<BlockArgument>(l);
      if (arg.getOwner() != smallBody)
        return mapValue(s, l);
      return largeArg && largeArg.getOwner() == largeBody &&
             matchElement(small, large, arg, largeArg);
    }
    Operation *so = s.getDefiningOp(), *lo = l.getDefiningOp();
    // Values from outside the payload: the kernel's constants.
    if (so->getBlock() != smallBody)
      return lo && lo->getBlock() != largeBody && matchOperand(s, l);
    if (!lo || lo->getBlock() != largeBody ||
        cast<OpResult>(s).getResultNumber() !=
            cast<OpResult>(l).getResultNumber() ||
        so->getName() != lo->getName() ||
        so->getAttrDictionary() != lo->getAttrDictionary() ||
        so->getResultTypes() != lo->getResultTypes() ||
        so->getNumOperands() != lo->getNumOperands() || so->getNumRegions() ||
        lo->getNumRegions())
      return false;
    for (auto [a, b] : llvm::zip(so->getOperands(), lo->getOperands()))
      if (!matchPayload(small, large, a, b))
        return false;
    for (auto [a, b] : llvm::zip(so->getResults(), lo->getResults()))
      if (!mapValue(a, b))
        return false;
    return true;
  }

  llvm::DenseMap<Value, Value> forward, backward;
};

/// Bytes of a static memref; none otherwise.
std::optional<int64_t> getBytes(Type type) {
  auto memref = dyn_cast<MemRefType>(type);
  if (!memref || !memref.hasStaticShape() ||
      !memref.getElementType().isIntOrFloat())
    return std::nullopt;
  return memref.getNumElements() *
         llvm::divideCeil(memref.getElementTypeBitWidth(), 8);
}

int64_t countOps(func::FuncOp kernel) {
  int64_t count = 0;
  kernel.walk([&](Operation *) { ++count; });
  return count;
}

/// Whether running `small`'s calls as `large` costs at most a quarter more
/// than `small`: bytes of the scratch it writes, ops it runs.
bool isCheapEnough(func::FuncOp small, func::FuncOp large,
                   ArrayRef<std::optional<unsigned>> argOfLarge) {
  int64_t smallBytes = 0, scratchBytes = 0;
  for (Type type : small.getArgumentTypes()) {
    std::optional<int64_t> bytes = getBytes(type);
    if (!bytes)
      return false;
    smallBytes += *bytes;
  }
  for (auto [type, place] : llvm::zip(large.getArgumentTypes(), argOfLarge)) {
    std::optional<int64_t> bytes = getBytes(type);
    SmallVector<int64_t> strides;
    int64_t offset;
    if (!bytes ||
        failed(cast<MemRefType>(type).getStridesAndOffset(strides, offset)))
      return false;
    if (!place)
      scratchBytes += *bytes;
  }
  int64_t smallOps = countOps(small), extraOps = countOps(large) - smallOps;
  return 4 * scratchBytes <= smallBytes && 4 * extraOps <= smallOps;
}

/// A buffer of `type`'s shape and strides (offset 0) that nothing reads;
/// `type` has strides (isCheapEnough).
Value createScratch(OpBuilder &b, Location loc, MemRefType type) {
  SmallVector<int64_t> strides;
  int64_t offset;
  (void)type.getStridesAndOffset(strides, offset);
  int64_t span = 1;
  for (auto [size, stride] : llvm::zip(type.getShape(), strides))
    span += (size - 1) * stride;
  Value flat = memref::AllocOp::create(
      b, loc, MemRefType::get({span}, type.getElementType()));
  auto placed =
      MemRefType::get(type.getShape(), type.getElementType(),
                      StridedLayoutAttr::get(b.getContext(), 0, strides));
  Value view = memref::ReinterpretCastOp::create(b, loc, placed, flat, 0,
                                                 type.getShape(), strides);
  return view.getType() == type
             ? view
             : memref::CastOp::create(b, loc, type, view).getResult();
}

} // namespace

int64_t kiln::foldSubsetKernels(KernelCalls &calls) {
  SmallVector<func::FuncOp> kernels;
  for (auto &entry : calls)
    kernels.push_back(entry.first);
  // Which kernels each may run as; it runs as the first of them that does
  // not itself run as another (else it stays).
  llvm::DenseMap<Operation *,
                 SmallVector<std::pair<func::FuncOp,
                                       SmallVector<std::optional<unsigned>>>>>
      containers;
  for (func::FuncOp small : kernels)
    for (func::FuncOp large : kernels) {
      if (small == large || calls[small].size() > calls[large].size())
        continue;
      SubsetMatcher matcher;
      if (matcher.match(small, large) &&
          isCheapEnough(small, large, matcher.argOfLarge))
        containers[small].push_back({large, matcher.argOfLarge});
    }

  int64_t folded = 0;
  for (func::FuncOp small : kernels) {
    auto it = containers.find(small);
    if (it == containers.end())
      continue;
    auto chosen = llvm::find_if(it->second, [&](auto &candidate) {
      return !containers.count(candidate.first);
    });
    if (chosen == it->second.end())
      continue;
    auto &[large, argOfLarge] = *chosen;
    SmallVector<func::CallOp> rewritten;
    for (func::CallOp call : calls[small]) {
      OpBuilder b(call);
      SmallVector<Value> operands;
      for (auto [type, place] :
           llvm::zip(large.getArgumentTypes(), argOfLarge)) {
        if (place) {
          operands.push_back(call.getOperand(*place));
          continue;
        }
        operands.push_back(
            createScratch(b, call.getLoc(), cast<MemRefType>(type)));
      }
      rewritten.push_back(
          func::CallOp::create(b, call.getLoc(), large, operands));
      call.erase();
    }
    calls[large].append(rewritten);
    calls.erase(small);
    small.erase();
    ++folded;
  }
  return folded;
}
