//===- Autodiff.cpp - the -kiln-autodiff pass -----------------------------===//
//
// Each kiln.vjp expands in four steps:
//  1. Flatten: clone the callee into a scratch function with its calls and
//     fusion groups inlined, so the body is one block of kiln ops.
//  2. Analyse: activity (ActivityAnalysis.cpp) over that body.
//  3. Sweep: walk the body backwards and apply the VJP rule of every op
//     with a non-zero result adjoint (VjpRules.cpp), appending the adjoint
//     ops to the scratch function, which then returns the gradients.
//  4. Inline the scratch function at the vjp and erase it.
// vjps are expanded innermost first: a vjp waits until nothing it calls
// contains a vjp, so gradients of gradients differentiate plain kiln ops.
//
//===----------------------------------------------------------------------===//

#include "AutodiffInternals.h"
#include "Support/PassStatistics.h"
#include "kiln/Dialect/Kiln/Transforms/AttentionDecomposition.h"
#include "kiln/Dialect/Kiln/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SetVector.h"

namespace kiln {
#define GEN_PASS_DEF_KILNAUTODIFF
#include "kiln/Dialect/Kiln/Transforms/Passes.h.inc"
} // namespace kiln

#include "kiln/Dialect/Kiln/Transforms/PassStatistics.h.inc"

using namespace mlir;
using namespace kiln;

namespace {

/// The function `name` resolves to as seen from `from`: the nearest
/// enclosing symbol table, so that programs in nested modules work.
func::FuncOp lookupFunction(Operation *from, StringRef name) {
  return SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(
      from, StringAttr::get(from->getContext(), name));
}

/// Counts the ops a builder inserts.
struct CountingListener : public OpBuilder::Listener {
  void notifyOperationInserted(Operation *, OpBuilder::InsertPoint) override {
    ++count;
  }
  int64_t count = 0;
};

struct ExpansionStats {
  int64_t adjointOps = 0;
  int64_t recomputedOps = 0;
  int64_t rematerializedOps = 0;
  int64_t prunedEdges = 0;
  int64_t prunedOps = 0;
};

class Expander {
public:
  Expander(bool prune, bool autoRemat, int64_t rematMinBytes)
      : prune(prune), autoRemat(autoRemat), rematMinBytes(rematMinBytes) {}

  /// The functions `root` reaches through func.call and kiln.vjp, or
  /// failure (with a diagnostic on `user`) for recursion and calls to
  /// functions without a body.
  FailureOr<SmallVector<func::FuncOp>> getClosure(func::FuncOp root,
                                                  Operation *user);
  /// getClosure of `vjp`'s callee, or failure (with a diagnostic) when it
  /// does not resolve.
  FailureOr<SmallVector<func::FuncOp>> getVjpClosure(VjpOp vjp);

  /// Whether anything `vjp` differentiates still contains a vjp.
  FailureOr<bool> isReady(VjpOp vjp);

  /// Notes the functions that some vjp of `module` differentiates (their
  /// own vjps' derivatives are differentiated again).
  LogicalResult findDifferentiated(ModuleOp module);

  LogicalResult expand(VjpOp vjp, ExpansionStats &stats);

private:
  FailureOr<func::FuncOp> flatten(VjpOp vjp, func::FuncOp callee);
  LogicalResult buildGradients(VjpOp vjp, func::FuncOp scratch,
                               bool rematerialize, ExpansionStats &stats);

  bool prune;
  bool autoRemat;
  int64_t rematMinBytes;
  /// The functions in which a vjp was expanded: a vjp of one of them is a
  /// derivative of a derivative.
  llvm::DenseSet<Operation *> differentiating;
  /// The functions some vjp differentiates (findDifferentiated).
  llvm::DenseSet<Operation *> differentiated;
};

} // namespace

FailureOr<SmallVector<func::FuncOp>> Expander::getClosure(func::FuncOp root,
                                                          Operation *user) {
  SmallVector<func::FuncOp> order;
  llvm::SmallPtrSet<Operation *, 8> done, onStack;
  // Depth-first, with the stack kept explicit to report the cycle.
  std::function<LogicalResult(func::FuncOp)> visit =
      [&](func::FuncOp func) -> LogicalResult {
    if (done.contains(func))
      return success();
    if (!onStack.insert(func).second)
      return user->emitOpError("cannot differentiate recursive function @")
             << func.getSymName();
    if (func.isExternal())
      return user->emitOpError("cannot differentiate through @")
             << func.getSymName() << ", which has no body";
    WalkResult walk = func.walk([&](Operation *op) {
      StringRef callee;
      if (auto call = dyn_cast<func::CallOp>(op))
        callee = call.getCallee();
      else if (auto vjp = dyn_cast<VjpOp>(op))
        callee = vjp.getCallee();
      else if (isa<CallOpInterface>(op)) {
        op->emitOpError("is a call that -kiln-autodiff cannot follow");
        return WalkResult::interrupt();
      } else
        return WalkResult::advance();
      auto target = lookupFunction(op, callee);
      if (!target) {
        user->emitOpError("cannot differentiate through unknown function @")
            << callee;
        return WalkResult::interrupt();
      }
      return failed(visit(target)) ? WalkResult::interrupt()
                                   : WalkResult::advance();
    });
    onStack.erase(func);
    if (walk.wasInterrupted())
      return failure();
    done.insert(func);
    order.push_back(func);
    return success();
  };
  if (failed(visit(root)))
    return failure();
  return order;
}

FailureOr<SmallVector<func::FuncOp>> Expander::getVjpClosure(VjpOp vjp) {
  auto callee = lookupFunction(vjp, vjp.getCallee());
  if (!callee)
    return vjp.emitOpError("callee @") << vjp.getCallee() << " not found";
  return getClosure(callee, vjp);
}

LogicalResult Expander::findDifferentiated(ModuleOp module) {
  SmallVector<VjpOp> vjps;
  module.walk([&](VjpOp vjp) { vjps.push_back(vjp); });
  for (VjpOp vjp : vjps) {
    FailureOr<SmallVector<func::FuncOp>> closure = getVjpClosure(vjp);
    if (failed(closure))
      return failure();
    for (func::FuncOp func : *closure)
      differentiated.insert(func);
  }
  return success();
}

FailureOr<bool> Expander::isReady(VjpOp vjp) {
  FailureOr<SmallVector<func::FuncOp>> closure = getVjpClosure(vjp);
  if (failed(closure))
    return failure();
  for (func::FuncOp func : *closure) {
    bool hasVjp = false;
    func.walk([&](VjpOp) { hasVjp = true; });
    if (hasVjp)
      return false;
  }
  return true;
}

/// Replaces `site` by a copy of `body`'s ops with its arguments bound to
/// `inputs`; `site`'s results become the values `body` yields or returns.
static void inlineBlockAt(Operation *site, Block &body, ValueRange inputs) {
  OpBuilder b(site);
  IRMapping mapping;
  mapping.map(body.getArguments(), inputs);
  for (Operation &op : body.without_terminator())
    b.clone(op, mapping);
  for (auto [result, value] :
       llvm::zip(site->getResults(), body.getTerminator()->getOperands()))
    result.replaceAllUsesWith(mapping.lookupOrDefault(value));
  site->erase();
}

FailureOr<func::FuncOp> Expander::flatten(VjpOp vjp, func::FuncOp callee) {
  // The scratch copy sits beside the callee, so that the calls it inlines
  // resolve in the callee's symbol table.
  OpBuilder b(callee);
  b.setInsertionPointAfter(callee);
  auto scratch = cast<func::FuncOp>(b.clone(*callee));
  scratch.setPrivate();
  scratch.setSymName((callee.getSymName() + "__kiln_vjp_scratch").str());
  auto fail = [&](const Twine &message) -> FailureOr<func::FuncOp> {
    scratch.erase();
    return vjp.emitOpError(message);
  };
  if (!scratch.getBody().hasOneBlock())
    return fail("callee @" + callee.getSymName() + " must have a single block");

  // Inline until no call or group is left; the closure check ruled out
  // recursion, so this ends.
  while (true) {
    SmallVector<Operation *> pending;
    scratch.walk([&](Operation *op) {
      if (isa<func::CallOp, FusionGroupOp>(op))
        pending.push_back(op);
    });
    if (pending.empty())
      break;
    for (Operation *op : pending) {
      if (auto group = dyn_cast<FusionGroupOp>(op)) {
        inlineBlockAt(group, group.getBody().front(), group.getInputs());
        continue;
      }
      auto call = cast<func::CallOp>(op);
      auto target = lookupFunction(call, call.getCallee());
      if (!target || !target.getBody().hasOneBlock())
        return fail("cannot inline call to @" + call.getCallee());
      inlineBlockAt(call, target.getBody().front(), call.getOperands());
    }
  }

  // A derivative of a derivative: attention_grad differentiates as the ops
  // that compute it.
  SmallVector<AttentionGradOp> attentionGrads;
  scratch.walk([&](AttentionGradOp op) { attentionGrads.push_back(op); });
  IRRewriter rewriter(scratch.getContext());
  for (AttentionGradOp op : attentionGrads)
    decomposeAttentionGrad(rewriter, op);

  for (Operation &op : scratch.getBody().front().without_terminator()) {
    // Sizes (tensor.dim, index arithmetic) carry no derivative.
    if (llvm::all_of(op.getResultTypes(),
                     [](Type type) { return type.isIndex(); }))
      continue;
    if (!hasVjpRule(&op))
      return fail("cannot differentiate '" + op.getName().getStringRef() +
                  "': it has no derivative rule");
    for (Type type : op.getResultTypes())
      if (!isa<RankedTensorType>(type))
        return fail("cannot differentiate '" + op.getName().getStringRef() +
                    "': its results are not tensors");
    // The adjoints of a concat's parts are slices at static offsets.
    if (auto concat = dyn_cast<ConcatOp>(op))
      for (Value input : concat.getInputs())
        if (cast<RankedTensorType>(input.getType())
                .isDynamicDim(concat.getDim()))
          return fail("cannot differentiate 'kiln.concat' along a dynamic "
                      "dim: its parts' offsets are not static");
  }
  for (Type type : scratch.getFunctionType().getInputs())
    if (!isa<RankedTensorType>(type))
      return fail("cannot differentiate @" + callee.getSymName() +
                  ": its arguments must be tensors");
  return scratch;
}

/// Erases the pure ops of `block` whose results are unused; returns how many.
static int64_t eraseDeadOps(Block &block) {
  // Backwards, so that a chain of dead ops goes in one sweep.
  SmallVector<Operation *> ops;
  for (Operation &op : block.without_terminator())
    ops.push_back(&op);
  int64_t erased = 0;
  for (Operation *op : llvm::reverse(ops))
    if (op->use_empty() && isPure(op)) {
      op->erase();
      ++erased;
    }
  return erased;
}

LogicalResult Expander::buildGradients(VjpOp vjp, func::FuncOp scratch,
                                       bool rematerialize,
                                       ExpansionStats &stats) {
  Block &body = scratch.getBody().front();
  auto ret = cast<func::ReturnOp>(body.getTerminator());
  FunctionType type = scratch.getFunctionType();
  unsigned numArgs = type.getNumInputs();

  // A cotangent that is a zero constant at the vjp stays a symbolic zero.
  SmallVector<bool> liveResults;
  for (Value ct : vjp.getOperands().drop_front(numArgs)) {
    DenseElementsAttr dense;
    bool zero = matchPattern(ct, m_Constant(&dense)) && dense.isSplat() &&
                isa<FloatType>(dense.getElementType()) &&
                dense.getSplatValue<APFloat>().isZero();
    liveResults.push_back(!zero);
  }

  SmallVector<int64_t> wrt(vjp.getWrt());
  SmallVector<int64_t> differentiated = wrt;
  if (!prune) // the naive derivation builds every argument's gradient
    differentiated = llvm::to_vector(llvm::seq<int64_t>(0, numArgs));
  std::optional<ActivityAnalysis> analysis;
  analysis.emplace(body, differentiated, liveResults, prune);
  // An attention whose row statistics or score operands (a learned bias)
  // need adjoints differentiates as the ops that compute it; its own rule
  // covers q, k and v.
  SmallVector<AttentionOp> decomposed;
  for (auto attention : body.getOps<AttentionOp>()) {
    bool needsDecomposition = analysis->isActive(attention.getRowMax()) ||
                              analysis->isActive(attention.getRowSum());
    for (Value operand : attention.getScoreOperands())
      needsDecomposition |= analysis->isActive(operand);
    if (needsDecomposition)
      decomposed.push_back(attention);
  }
  if (!decomposed.empty()) {
    IRRewriter rewriter(scratch.getContext());
    for (AttentionOp attention : decomposed)
      decomposeAttention(rewriter, attention);
    analysis.emplace(body, differentiated, liveResults, prune);
  }
  const ActivityAnalysis &activity = *analysis;

  // Cotangents become block arguments after the callee's arguments.
  SmallVector<Value> cotangents;
  for (Type resultType : type.getResults())
    cotangents.push_back(body.addArgument(resultType, scratch.getLoc()));

  // The primal's results: the caller computes them too, and they live as
  // long as it reads them.
  SmallVector<Value> primalResults(ret.getOperands());
  OpBuilder b(ret);
  CountingListener counter;
  b.setListener(&counter);
  AdjointBuilder adjoints(b, activity);
  for (auto [value, ct, live] :
       llvm::zip(ret.getOperands(), cotangents, liveResults))
    if (live && activity.isActive(value))
      adjoints.add(value, ct);

  SmallVector<Operation *> forward;
  for (Operation &op : body.without_terminator())
    forward.push_back(&op);
  for (Operation *op : llvm::reverse(forward)) {
    SmallVector<Value> resultAdjoints;
    bool any = false;
    for (Value result : op->getResults()) {
      FailureOr<Value> adjoint = adjoints.take(result, op->getLoc());
      if (failed(adjoint))
        return vjp.emitOpError("cannot join the adjoints of a sliced value");
      resultAdjoints.push_back(*adjoint);
      any |= static_cast<bool>(*adjoint);
    }
    for (unsigned i = 0; i < op->getNumOperands(); ++i)
      if (isDifferentiableOperand(op, i) &&
          !activity.isActive(op->getOperand(i)))
        ++stats.prunedEdges;
    if (!any)
      continue;
    if (failed(applyVjpRule(op, resultAdjoints, adjoints)))
      return vjp.emitOpError("no VJP rule for '") << op->getName() << "'";
  }

  SmallVector<Value> grads;
  for (int64_t index : wrt) {
    Value arg = body.getArgument(index);
    FailureOr<Value> adjoint = adjoints.take(arg, scratch.getLoc());
    if (failed(adjoint))
      return vjp.emitOpError("cannot join the adjoints of a sliced argument");
    Value grad = *adjoint;
    if (!grad)
      grad = adjoints.zeros(scratch.getLoc(),
                            cast<RankedTensorType>(arg.getType()), arg);
    grads.push_back(grad);
  }
  stats.adjointOps += counter.count;
  b.setListener(nullptr);

  func::ReturnOp::create(b, ret.getLoc(), grads);
  ret.erase();
  SmallVector<Type> gradTypes;
  for (Value g : grads)
    gradTypes.push_back(g.getType());
  scratch.setFunctionType(FunctionType::get(
      scratch.getContext(), body.getArgumentTypes(), gradTypes));
  ForwardIndex forwardIndex;
  for (auto [i, op] : llvm::enumerate(forward))
    forwardIndex[op] = i;
  stats.recomputedOps += recomputeCheckpointed(body, forwardIndex);
  if (rematerialize)
    stats.rematerializedOps += rematerializeCheapValues(
        body, forward, forwardIndex, primalResults, cotangents, rematMinBytes);
  // Forward values that no adjoint needs are never emitted. The naive
  // derivation keeps everything it built.
  if (prune)
    stats.prunedOps += eraseDeadOps(body);
  return success();
}

LogicalResult Expander::expand(VjpOp vjp, ExpansionStats &stats) {
  auto callee = lookupFunction(vjp, vjp.getCallee());
  // Automatic rematerialization is for first derivatives: neither a
  // derivative that is differentiated again nor one of a derivative (a
  // Hessian of bench/hessian's MLP kept 14% more bytes with either
  // recomputing).
  bool rematerialize = autoRemat && !differentiated.contains(
                                        vjp->getParentOfType<func::FuncOp>());
  if (rematerialize) {
    FailureOr<SmallVector<func::FuncOp>> closure = getVjpClosure(vjp);
    if (failed(closure))
      return failure();
    rematerialize = llvm::none_of(*closure, [&](func::FuncOp func) {
      return differentiating.contains(func);
    });
  }
  FailureOr<func::FuncOp> scratch = flatten(vjp, callee);
  if (failed(scratch))
    return failure();
  if (failed(buildGradients(vjp, *scratch, rematerialize, stats))) {
    scratch->erase();
    return failure();
  }

  // Inline the gradient function at the vjp.
  differentiating.insert(vjp->getParentOfType<func::FuncOp>());
  inlineBlockAt(vjp, scratch->getBody().front(), vjp.getOperands());
  scratch->erase();
  return success();
}

namespace {
struct KilnAutodiffPass : kiln::impl::KilnAutodiffBase<KilnAutodiffPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (remat != "none" && remat != "auto") {
      module.emitError("-kiln-autodiff: remat must be 'none' or 'auto', not '")
          << remat << "'";
      return signalPassFailure();
    }
    if (rematMinBytes < 0) {
      module.emitError("-kiln-autodiff: remat-min-bytes must be at least 0, "
                       "not ")
          << static_cast<int64_t>(rematMinBytes);
      return signalPassFailure();
    }
    Expander expander(prune, remat == "auto", rematMinBytes);
    if (remat == "auto" && failed(expander.findDifferentiated(module)))
      return signalPassFailure();
    ExpansionStats stats;
    int64_t expanded = 0;
    while (true) {
      SmallVector<VjpOp> vjps;
      module.walk([&](VjpOp vjp) { vjps.push_back(vjp); });
      if (vjps.empty())
        break;
      VjpOp next;
      for (VjpOp vjp : vjps) {
        FailureOr<bool> ready = expander.isReady(vjp);
        if (failed(ready))
          return signalPassFailure();
        if (*ready) {
          next = vjp;
          break;
        }
      }
      if (!next) {
        vjps.front().emitOpError(
            "differentiates a function that (transitively) differentiates "
            "itself");
        return signalPassFailure();
      }
      if (failed(expander.expand(next, stats)))
        return signalPassFailure();
      ++expanded;
    }
    kiln::addPassStatistic(*this, numVjpsExpanded, expanded, kPassStatistics);
    kiln::addPassStatistic(*this, numAdjointOps, stats.adjointOps,
                           kPassStatistics);
    kiln::addPassStatistic(*this, numPrunedEdges, stats.prunedEdges,
                           kPassStatistics);
    kiln::addPassStatistic(*this, numPrunedOps, stats.prunedOps,
                           kPassStatistics);
    kiln::addPassStatistic(*this, numRecomputedOps, stats.recomputedOps,
                           kPassStatistics);
    kiln::addPassStatistic(*this, numRematerializedOps, stats.rematerializedOps,
                           kPassStatistics);
  }
};
} // namespace
