//===- PlanDonation.cpp - the -kiln-plan-donation pass --------------------===//
//
// After the buffer stage a host function is one block of allocations,
// views, kernel calls, runtime calls and copies; its results are
// out-params. A result may be written into a donated input's buffer when
// the input is read for the last time before the result is first used, or
// when one operation does both element by element (an optimizer's update:
// `p_new = p - lr * g` reads p[i] and writes p_new[i] and nothing else).
//
//===----------------------------------------------------------------------===//

#include "Support/PassStatistics.h"
#include "kiln/Codegen/Common/Passes.h"
#include "kiln/Dialect/Kiln/IR/KilnDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

namespace kiln {
#define GEN_PASS_DEF_KILNPLANDONATION
#define GEN_PASS_DEF_KILNSCHEDULEDONATION
#include "kiln/Codegen/Common/Passes.h.inc"
} // namespace kiln

#include "kiln/Codegen/Common/PassStatistics.h.inc"

using namespace mlir;

namespace {

/// Whether `value` is the whole of its root buffer: the root itself, or a
/// chain of memref.casts of it (which change only the layout's type).
bool isWholeBuffer(Value value, Value root) {
  while (value != root) {
    auto cast = value.getDefiningOp<memref::CastOp>();
    if (!cast)
      return false;
    value = cast.getSource();
  }
  return true;
}

/// The buffer that `view` (the result of `op`) views: memref.cast and
/// memref.transpose (not ViewLikeOpInterface ops in MLIR 22), and the
/// ViewLikeOpInterface ops; null for anything else.
Value getViewedBuffer(Operation *op, Value view) {
  if (auto cast = dyn_cast<memref::CastOp>(op))
    return cast.getSource();
  if (auto transpose = dyn_cast<memref::TransposeOp>(op))
    return transpose.getIn();
  auto viewLike = dyn_cast<ViewLikeOpInterface>(op);
  if (!viewLike || viewLike.getViewDest() != view)
    return {};
  return viewLike.getViewSource();
}

/// The function argument a value views (through view ops), or null.
Value getRootArgument(Value value) {
  while (Operation *def = value.getDefiningOp()) {
    value = getViewedBuffer(def, value);
    if (!value)
      return {};
  }
  return isa<BlockArgument>(value) ? value : Value();
}

/// Whether `kernel` reads its parameter `input` and writes its parameter
/// `output` in place: each has one use, one all-parallel linalg.generic
/// that reads the input and writes the output through one permutation map
/// and never reads the output's old value.
bool writesInPlace(func::FuncOp kernel, unsigned input, unsigned output) {
  if (kernel.isExternal() || input >= kernel.getNumArguments() ||
      output >= kernel.getNumArguments())
    return false;
  Value in = kernel.getArgument(input), out = kernel.getArgument(output);
  if (!in.hasOneUse() || !out.hasOneUse() || in.getType() != out.getType())
    return false;
  auto generic = dyn_cast<linalg::GenericOp>(in.use_begin()->getOwner());
  if (!generic || out.use_begin()->getOwner() != generic.getOperation() ||
      generic.getNumParallelLoops() != generic.getNumLoops())
    return false;
  OpOperand *read = &*in.use_begin(), *written = &*out.use_begin();
  if (!generic.isDpsInput(read) || !generic.isDpsInit(written) ||
      generic.payloadUsesValueFromOperand(written))
    return false;
  AffineMap readMap = generic.getMatchingIndexingMap(read);
  return readMap == generic.getMatchingIndexingMap(written) &&
         readMap.isPermutation();
}

/// Whether `op`, which reads input `input` and writes result `result`
/// (arguments `inputArg`, `resultArg`), does so element by element.
bool isInPlace(Operation *op, Value inputArg, Value resultArg) {
  if (auto copy = dyn_cast<memref::CopyOp>(op))
    return isWholeBuffer(copy.getSource(), inputArg) &&
           isWholeBuffer(copy.getTarget(), resultArg);
  auto call = dyn_cast<func::CallOp>(op);
  if (!call)
    return false;
  std::optional<unsigned> in, out;
  for (auto [i, operand] : llvm::enumerate(call.getOperands())) {
    Value root = getRootArgument(operand);
    if (root != inputArg && root != resultArg)
      continue;
    std::optional<unsigned> &position = root == inputArg ? in : out;
    if (position || !isWholeBuffer(operand, root))
      return false;
    position = i;
  }
  if (!in || !out)
    return false;
  auto kernel = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(
      call, call.getCalleeAttr());
  return kernel && writesInPlace(kernel, *in, *out);
}

/// Calls `visit` with every top-level operation of `body` that uses `arg`
/// or a view of it. A view is not an access; what uses it is. An operation
/// that returns a buffer from one (a loop carrying it, an unknown view)
/// hides later accesses: it is reported as null, an access everywhere.
template <typename Visit>
void forEachAccess(Block &body, Value arg, Visit &&visit) {
  SmallVector<Value> worklist{arg};
  while (!worklist.empty()) {
    Value value = worklist.pop_back_val();
    for (Operation *user : value.getUsers()) {
      if (user->getNumResults() == 1 &&
          getViewedBuffer(user, user->getResult(0)) == value) {
        worklist.push_back(user->getResult(0));
        continue;
      }
      bool returnsBuffer = llvm::any_of(user->getResultTypes(), [](Type t) {
        return isa<BaseMemRefType>(t);
      });
      visit(returnsBuffer ? nullptr : body.findAncestorOpInBlock(*user));
    }
  }
}

} // namespace

unsigned kiln::scheduleForDonation(func::FuncOp func, unsigned numInputs) {
  if (func.isExternal() || !func.getBody().hasOneBlock() ||
      numInputs > func.getNumArguments())
    return 0;
  Block &body = func.getBody().front();
  SmallVector<Operation *> candidates;
  for (Operation &op : body)
    if (isa<func::CallOp, memref::CopyOp>(op))
      candidates.push_back(&op);
  unsigned moved = 0;
  for (Operation *op : candidates) {
    // The inputs it reads and the results it writes: every buffer it takes
    // must be an argument's (a temporary would live longer).
    SmallVector<Value> inputs, results;
    bool onlyArguments = true;
    for (Value operand : op->getOperands()) {
      if (!isa<BaseMemRefType>(operand.getType()))
        continue;
      Value root = getRootArgument(operand);
      if (!root) {
        onlyArguments = false;
        break;
      }
      bool isInput = cast<BlockArgument>(root).getArgNumber() < numInputs;
      (isInput ? inputs : results).push_back(root);
    }
    if (!onlyArguments)
      continue;
    bool updatesInPlace = llvm::any_of(inputs, [&](Value input) {
      return llvm::any_of(results, [&](Value result) {
        return input.getType() == result.getType() &&
               isInPlace(op, input, result);
      });
    });
    if (!updatesInPlace)
      continue;
    // The one other operation after it that reads each of its inputs last:
    // moved just after it, it becomes their last read instead, so that no
    // other result that could take one of them loses it.
    Operation *last = nullptr;
    bool sameLast = true;
    for (Value input : inputs) {
      Operation *lastOfInput = op;
      forEachAccess(body, input, [&](Operation *user) {
        if (!user)
          sameLast = false;
        else if (lastOfInput->isBeforeInBlock(user))
          lastOfInput = user;
      });
      sameLast &= lastOfInput != op && (!last || last == lastOfInput);
      last = lastOfInput;
    }
    if (!sameLast)
      continue;
    // Nothing up to there may use its results.
    bool unused = true;
    for (Value result : results)
      forEachAccess(body, result, [&](Operation *user) {
        unused &= user && (user == op || user->isBeforeInBlock(op) ||
                           last->isBeforeInBlock(user));
      });
    if (!unused)
      continue;
    op->moveAfter(last);
    ++moved;
  }
  return moved;
}

kiln::DonationPlan kiln::planDonation(func::FuncOp func, unsigned numInputs) {
  DonationPlan plan;
  if (func.isExternal() || !func.getBody().hasOneBlock() ||
      numInputs > func.getNumArguments())
    return plan;
  Block &body = func.getBody().front();
  unsigned numResults = func.getNumArguments() - numInputs;
  DenseMap<Operation *, int64_t> position;
  for (auto [i, op] : llvm::enumerate(body))
    position[&op] = static_cast<int64_t>(i);
  int64_t never = static_cast<int64_t>(body.getOperations().size());
  plan.lastReads.assign(numInputs, -1);
  for (unsigned i = 0; i < numInputs; ++i)
    forEachAccess(body, func.getArgument(i), [&](Operation *op) {
      plan.lastReads[i] =
          std::max(plan.lastReads[i], op ? position[op] : never);
    });
  plan.firstWrites.assign(numResults, never);
  for (unsigned r = 0; r < numResults; ++r)
    forEachAccess(body, func.getArgument(numInputs + r), [&](Operation *op) {
      plan.firstWrites[r] =
          std::min(plan.firstWrites[r], op ? position[op] : int64_t(-1));
    });
  // Where one operation is an input's last read and a result's first
  // write, in place only if it reads each element before writing it.
  SmallVector<Operation *> ops(llvm::make_pointer_range(body));
  for (unsigned i = 0; i < numInputs; ++i) {
    int64_t at = plan.lastReads[i];
    if (at < 0 || at >= never)
      continue;
    for (unsigned r = 0; r < numResults; ++r)
      if (plan.firstWrites[r] == at &&
          func.getArgument(i).getType() ==
              func.getArgument(numInputs + r).getType() &&
          isInPlace(ops[at], func.getArgument(i),
                    func.getArgument(numInputs + r)))
        plan.inPlace.push_back(
            {static_cast<int32_t>(i), static_cast<int32_t>(r)});
  }
  return plan;
}

namespace {
struct KilnScheduleDonationPass
    : kiln::impl::KilnScheduleDonationBase<KilnScheduleDonationPass> {
  using Base::Base;

  void runOnOperation() override {
    if (inputs < 0)
      return;
    for (auto func : getOperation().getOps<func::FuncOp>())
      if (!func.isPrivate() &&
          static_cast<unsigned>(inputs) <= func.getNumArguments())
        kiln::addPassStatistic(
            *this, numMoved,
            kiln::scheduleForDonation(func, static_cast<unsigned>(inputs)),
            kPassStatistics);
  }
};

struct KilnPlanDonationPass
    : kiln::impl::KilnPlanDonationBase<KilnPlanDonationPass> {
  using Base::Base;

  void runOnOperation() override {
    if (inputs < 0)
      return;
    Builder b(&getContext());
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      if (func.isPrivate() || func.isExternal() ||
          static_cast<unsigned>(inputs) > func.getNumArguments())
        continue;
      kiln::DonationPlan plan =
          kiln::planDonation(func, static_cast<unsigned>(inputs));
      SmallVector<int64_t> inPlace;
      for (auto [input, result] : plan.inPlace) {
        inPlace.push_back(input);
        inPlace.push_back(result);
      }
      func->setAttr(
          kiln::kDonationAttrName,
          b.getDictionaryAttr({
              b.getNamedAttr("last_reads",
                             b.getDenseI64ArrayAttr(plan.lastReads)),
              b.getNamedAttr("first_writes",
                             b.getDenseI64ArrayAttr(plan.firstWrites)),
              b.getNamedAttr("in_place", b.getDenseI64ArrayAttr(inPlace)),
          }));
    }
  }
};
} // namespace
