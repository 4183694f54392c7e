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

#include "BufferAccess.h"
#include "Support/PassStatistics.h"
#include "kiln/Codegen/Common/Passes.h"
#include "kiln/Dialect/Kiln/IR/KilnDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace kiln {
#define GEN_PASS_DEF_KILNPLANDONATION
#define GEN_PASS_DEF_KILNSCHEDULEDONATION
#include "kiln/Codegen/Common/Passes.h.inc"
} // namespace kiln

#include "kiln/Codegen/Common/PassStatistics.h.inc"

using namespace mlir;

using namespace kiln;

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
