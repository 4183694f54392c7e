//===- ReuseBuffers.cpp - the -kiln-reuse-buffers pass --------------------===//
//
// A kernel that reads a temporary for the last time and writes a new one
// element by element (`y[i] = f(x[i], ...)`) may write into the buffer it
// reads: each element is read before it is overwritten, and by the
// iteration that overwrites it alone. The new temporary then takes the old
// one's buffer, and the two are never live at once: an activation's
// gradient written over the gradient it came from, a GELU over the product
// it reads.
//
//===----------------------------------------------------------------------===//

#include "BufferAccess.h"
#include "Support/PassStatistics.h"
#include "kiln/Codegen/Common/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

namespace kiln {
#define GEN_PASS_DEF_KILNREUSEBUFFERS
#include "kiln/Codegen/Common/Passes.h.inc"
} // namespace kiln

#include "kiln/Codegen/Common/PassStatistics.h.inc"

using namespace mlir;
using namespace kiln;

namespace {

/// The allocation of `buffer` in `body`, if it is one there.
memref::AllocOp getAllocation(Value buffer, Block &body) {
  auto alloc = buffer.getDefiningOp<memref::AllocOp>();
  return alloc && alloc->getBlock() == &body ? alloc : memref::AllocOp();
}

/// The first and last operations of `body` that access `buffer` (or a view
/// of it), and its deallocation; none when an access is hidden.
struct Accesses {
  Operation *first = nullptr, *last = nullptr;
  memref::DeallocOp dealloc;
  bool known = true;
};

Accesses getAccesses(Block &body, Value buffer) {
  Accesses accesses;
  forEachAccess(body, buffer, [&](Operation *op) {
    if (!op) {
      accesses.known = false;
      return;
    }
    if (auto dealloc = dyn_cast<memref::DeallocOp>(op)) {
      if (dealloc.getMemref() != buffer)
        accesses.known = false;
      accesses.dealloc = dealloc;
      return;
    }
    if (!accesses.first || op->isBeforeInBlock(accesses.first))
      accesses.first = op;
    if (!accesses.last || accesses.last->isBeforeInBlock(op))
      accesses.last = op;
  });
  return accesses;
}

/// Whether `a` and `b` allocate buffers of the same elements: of one type
/// and size, or of static shapes with as many elements of one type, in
/// the identity layout (a reshape of one is the other).
bool isSameAllocation(memref::AllocOp a, memref::AllocOp b) {
  MemRefType x = a.getType(), y = b.getType();
  if (!a.getSymbolOperands().empty() || !b.getSymbolOperands().empty() ||
      a.getAlignment() != b.getAlignment())
    return false;
  if (x == y)
    return a.getDynamicSizes() == b.getDynamicSizes();
  return x.hasStaticShape() && y.hasStaticShape() && x.getRank() > 0 &&
         y.getRank() > 0 && x.getLayout().isIdentity() &&
         y.getLayout().isIdentity() &&
         x.getElementType() == y.getElementType() &&
         x.getMemorySpace() == y.getMemorySpace() &&
         x.getNumElements() == y.getNumElements();
}

/// `buffer` (of the identity layout and a static shape) as a memref of
/// `type` with as many elements: collapsed to one dim, then expanded.
Value reshapeTo(OpBuilder &b, Location loc, Value buffer, MemRefType type) {
  auto from = cast<MemRefType>(buffer.getType());
  if (from == type)
    return buffer;
  auto allDims = [](int64_t rank) {
    ReassociationIndices dims;
    for (int64_t d = 0; d < rank; ++d)
      dims.push_back(d);
    return SmallVector<ReassociationIndices>{dims};
  };
  Value flat = buffer;
  if (from.getRank() != 1)
    flat = memref::CollapseShapeOp::create(b, loc, buffer,
                                           allDims(from.getRank()));
  if (type.getRank() == 1)
    return flat;
  return memref::ExpandShapeOp::create(b, loc, type.getShape(), flat,
                                       allDims(type.getRank()));
}

/// Gives each kernel call's new temporaries the buffers of the temporaries
/// it reads last, where it works element by element. Returns how many.
unsigned reuseBuffers(func::FuncOp func, bool reductions) {
  if (func.isExternal() || !func.getBody().hasOneBlock())
    return 0;
  Block &body = func.getBody().front();
  SmallVector<func::CallOp> calls(body.getOps<func::CallOp>());
  unsigned reused = 0;
  for (func::CallOp call : calls) {
    // The temporaries it reads last (freed after it) and those it writes
    // first (freed later: a buffer they take is freed with them), in
    // operand order.
    SmallVector<std::pair<memref::AllocOp, memref::DeallocOp>> dying;
    SmallVector<memref::AllocOp> fresh;
    for (Value operand : call.getOperands()) {
      if (!isa<BaseMemRefType>(operand.getType()))
        continue;
      memref::AllocOp alloc = getAllocation(getRootBuffer(operand), body);
      if (!alloc)
        continue;
      Accesses accesses = getAccesses(body, alloc);
      if (!accesses.known)
        continue;
      if (accesses.last == call && accesses.dealloc &&
          call->isBeforeInBlock(accesses.dealloc))
        dying.push_back({alloc, accesses.dealloc});
      else if (accesses.first == call && accesses.dealloc)
        fresh.push_back(alloc);
    }
    for (memref::AllocOp result : fresh) {
      auto *taken = llvm::find_if(dying, [&](auto &input) {
        return input.first && isSameAllocation(input.first, result) &&
               isInPlace(call, input.first, result, reductions);
      });
      if (taken == dying.end())
        continue;
      auto [input, inputDealloc] = *taken;
      // The result's views may come before the input's allocation (its
      // sizes, when dynamic, are the result's operands).
      if (result->isBeforeInBlock(input))
        input->moveBefore(result);
      OpBuilder b(result);
      Value view = reshapeTo(b, result.getLoc(), input, result.getType());
      for (OpOperand &use : llvm::make_early_inc_range(result->getUses()))
        use.set(isa<memref::DeallocOp>(use.getOwner()) ? input.getResult()
                                                       : view);
      result.erase();
      inputDealloc.erase();
      taken->first = nullptr;
      ++reused;
    }
  }
  return reused;
}

struct KilnReuseBuffersPass
    : kiln::impl::KilnReuseBuffersBase<KilnReuseBuffersPass> {
  using Base::Base;

  void runOnOperation() override {
    unsigned reused = 0;
    for (auto func : getOperation().getOps<func::FuncOp>())
      reused += reuseBuffers(func, reductions);
    kiln::addPassStatistic(*this, numReused, reused, kPassStatistics);
  }
};
} // namespace
