//===- GeneralizeBatch.cpp - make a static program's batch dim dynamic ----===//
//
// -kiln-generalize-batch: the batch dim of a static entry (dim 0 of its
// first argument of rank >= 1, or of `arg`) becomes dynamic, and with it
// every dim that must follow it. A shape analysis runs to a fixed point:
// each op's result dims are dynamic where its operands' are, and where an
// op needs two sizes equal (elementwise operands, a matmul's contraction,
// a concat's other dims) and only one is dynamic, the other is "forced":
// an argument's dim becomes dynamic, an op passes the force on to its
// operands, and a splat constant or a broadcast's new dim takes the batch
// size as a `sizes` operand. A forced dim must have the batch's size; a
// force that cannot be met (a non-splat constant, a slice of part of the
// batch, a reshape that splits the batch) is an error that names the op.
// Callees of kiln.vjp and func.call are analyzed with their operands'
// dynamic dims and cloned; a callee that needs more of its arguments
// dynamic forces them at the call.
//
// Tests use it to re-run every static Integration program at other batch
// sizes (kiln-run --generalize-batch --dim-sizes ...).
//
//===----------------------------------------------------------------------===//

#include "kiln/Dialect/Kiln/IR/KilnDialect.h"
#include "kiln/Dialect/Kiln/IR/KilnTraits.h"
#include "kiln/Dialect/Kiln/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringMap.h"

#include <functional>
#include <map>
#include <memory>

namespace kiln {
#define GEN_PASS_DEF_KILNGENERALIZEBATCH
#include "kiln/Dialect/Kiln/Transforms/Passes.h.inc"
} // namespace kiln

using namespace mlir;
using namespace kiln;

namespace {

/// Per dim of a tensor: whether it is dynamic.
using Mask = SmallVector<bool, 4>;

static std::string maskKey(ArrayRef<Mask> masks) {
  std::string key;
  for (const Mask &mask : masks) {
    for (bool dynamic : mask)
      key += dynamic ? '?' : 's';
    key += ',';
  }
  return key;
}

static ArrayRef<int64_t> shapeOf(Value value) {
  if (auto type = dyn_cast<RankedTensorType>(value.getType()))
    return type.getShape();
  return {};
}

static Type generalizedType(Type type, const Mask &mask) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || !llvm::is_contained(mask, true))
    return type;
  SmallVector<int64_t> shape(tensor.getShape());
  for (auto [i, dynamic] : llvm::enumerate(mask))
    if (dynamic)
      shape[i] = ShapedType::kDynamic;
  return tensor.clone(shape);
}

/// The row-major groups of a reshape: operand dims and result dims of
/// equal element counts, in order. None when the sizes do not split so.
static std::optional<
    SmallVector<std::pair<SmallVector<int64_t>, SmallVector<int64_t>>>>
getReshapeGroups(ArrayRef<int64_t> from, ArrayRef<int64_t> to) {
  SmallVector<std::pair<SmallVector<int64_t>, SmallVector<int64_t>>> groups;
  size_t i = 0, j = 0;
  while (i < from.size() || j < to.size()) {
    SmallVector<int64_t> a, b;
    int64_t pa = 1, pb = 1;
    if (i < from.size())
      pa *= from[i], a.push_back(i++);
    if (j < to.size())
      pb *= to[j], b.push_back(j++);
    while (pa != pb) {
      if (pa < pb && i < from.size())
        pa *= from[i], a.push_back(i++);
      else if (pb < pa && j < to.size())
        pb *= to[j], b.push_back(j++);
      else
        return std::nullopt;
    }
    groups.push_back({std::move(a), std::move(b)});
  }
  return groups;
}

/// The dynamic dims of one function's values, for given dynamic dims of
/// its arguments and forced dims of its results.
struct FunctionPlan {
  func::FuncOp source;
  SmallVector<Mask> argMasks;
  SmallVector<Mask> resultMasks;
  DenseMap<Value, Mask> masks;
  /// The plan of each call's or vjp's callee.
  DenseMap<Operation *, FunctionPlan *> callees;
  /// Set once the function is rewritten: the generalized function.
  func::FuncOp generalized;

  bool isDynamic() const {
    for (const auto &[value, mask] : masks)
      if (llvm::is_contained(mask, true))
        return true;
    return false;
  }
};

class Generalizer {
public:
  Generalizer(ModuleOp module, int64_t batchSize)
      : module(module), symbols(module), batchSize(batchSize) {}

  /// The plan of `func` with `argMasks` dynamic and `resultForces` forced;
  /// `argMasks` grows by the arguments the function needs dynamic too.
  FailureOr<FunctionPlan *> analyze(func::FuncOp func,
                                    SmallVector<Mask> &argMasks,
                                    ArrayRef<Mask> resultForces);

  /// Rewrites the plan's function (a clone of its source, named `name`)
  /// and the callees it needs, innermost first.
  FailureOr<func::FuncOp> rewrite(FunctionPlan &plan, StringRef name);

  /// The functions that rewrite() cloned, in the order it did.
  ArrayRef<func::FuncOp> getClonedSources() const { return clonedSources; }

private:
  LogicalResult analyzeOnce(FunctionPlan &plan, ArrayRef<Mask> resultForces,
                            DenseMap<Value, Mask> &forces, bool &changed);
  Value getBatchSize(OpBuilder &b, func::FuncOp func, const FunctionPlan &plan);

  ModuleOp module;
  SymbolTable symbols;
  int64_t batchSize;
  std::map<std::string, std::unique_ptr<FunctionPlan>> plans;
  SmallVector<func::FuncOp> active;
  SmallVector<func::FuncOp> clonedSources;
  unsigned numClones = 0;
};

FailureOr<FunctionPlan *> Generalizer::analyze(func::FuncOp func,
                                               SmallVector<Mask> &argMasks,
                                               ArrayRef<Mask> resultForces) {
  if (llvm::is_contained(active, func))
    return func.emitError("cannot generalize the batch of a recursive "
                          "function");
  if (func.isExternal())
    return func.emitError("cannot generalize the batch of an external "
                          "function");
  std::string key = func.getSymName().str() + "(" + maskKey(argMasks) + ")(" +
                    maskKey(resultForces) + ")";
  if (auto it = plans.find(key); it != plans.end()) {
    argMasks = it->second->argMasks;
    return it->second.get();
  }
  auto plan = std::make_unique<FunctionPlan>();
  plan->source = func;
  plan->argMasks = argMasks;
  active.push_back(func);
  DenseMap<Value, Mask> forces;
  // Each round may force dims defined earlier; masks only grow, so this
  // ends (a bound guards against a bug).
  LogicalResult result = success();
  for (int round = 0;; ++round) {
    bool changed = false;
    if (round > 10000) {
      result = func.emitError("batch generalization did not converge");
      break;
    }
    if (failed(analyzeOnce(*plan, resultForces, forces, changed))) {
      result = failure();
      break;
    }
    if (!changed)
      break;
  }
  active.pop_back();
  if (failed(result))
    return failure();
  argMasks = plan->argMasks;
  FunctionPlan *raw = plan.get();
  plans[key] = std::move(plan);
  return raw;
}

LogicalResult Generalizer::analyzeOnce(FunctionPlan &plan,
                                       ArrayRef<Mask> resultForces,
                                       DenseMap<Value, Mask> &forces,
                                       bool &changed) {
  func::FuncOp func = plan.source;
  plan.masks.clear();
  plan.callees.clear();
  Block &body = func.getBody().front();
  for (auto [arg, mask] : llvm::zip(body.getArguments(), plan.argMasks))
    plan.masks[arg] = mask;

  auto maskOf = [&](Value value) -> Mask {
    auto it = plan.masks.find(value);
    if (it != plan.masks.end())
      return it->second;
    return Mask(shapeOf(value).size(), false);
  };
  // Asks for dim `d` of `value` to be dynamic: the next round honours it.
  std::function<LogicalResult(Operation *, Value, int64_t)> force =
      [&](Operation *user, Value value, int64_t d) -> LogicalResult {
    ArrayRef<int64_t> shape = shapeOf(value);
    if (shape[d] != batchSize)
      return user->emitError("cannot generalize the batch: dim ")
             << d << " of operand " << value.getType() << " (size " << shape[d]
             << ") would have to follow the batch (size " << batchSize << ")";
    if (auto arg = dyn_cast<BlockArgument>(value)) {
      // A fusion group's input: the group's operand.
      if (arg.getOwner() != &body)
        return force(
            user, arg.getOwner()->getParentOp()->getOperand(arg.getArgNumber()),
            d);
      Mask &mask = plan.argMasks[arg.getArgNumber()];
      if (!mask[d]) {
        mask[d] = true;
        changed = true;
      }
      return success();
    }
    Mask &mask = forces[value];
    mask.resize(shape.size(), false);
    if (mask[d])
      return value.getDefiningOp()->emitError(
                 "cannot generalize the batch: dim ")
             << d << " of this result cannot be made dynamic";
    mask[d] = true;
    changed = true;
    return success();
  };

  std::function<LogicalResult(Block &)> walk;
  walk = [&](Block &block) -> LogicalResult {
    for (Operation &op : block) {
      if (changed)
        return success();
      if (isa<YieldOp>(&op))
        continue; // (its group's results)
      Value result = op.getNumResults() == 1 ? op.getResult(0) : Value();
      Mask forced;
      if (result) {
        forced = Mask(shapeOf(result).size(), false);
        if (auto it = forces.find(result); it != forces.end())
          forced = it->second;
      }
      auto setResult = [&](Mask mask) { plan.masks[result] = std::move(mask); };

      if (auto constant = dyn_cast<ConstantOp>(&op)) {
        if (llvm::is_contained(forced, true)) {
          auto dense = dyn_cast<DenseElementsAttr>(constant.getValue());
          if (!dense || !dense.isSplat())
            return op.emitError("cannot generalize the batch: a constant "
                                "that is not a splat meets the batch");
        }
        setResult(forced);
        continue;
      }
      if (op.hasTrait<OpTrait::kiln::ElementwiseShapes>()) {
        Mask mask = forced;
        for (Value operand : op.getOperands())
          for (auto [i, dynamic] : llvm::enumerate(maskOf(operand)))
            mask[i] = mask[i] || dynamic;
        for (Value operand : op.getOperands()) {
          Mask have = maskOf(operand);
          for (size_t i = 0; i < mask.size(); ++i)
            if (mask[i] && !have[i] && failed(force(&op, operand, i)))
              return failure();
        }
        setResult(mask);
        continue;
      }
      if (auto broadcast = dyn_cast<BroadcastInDimOp>(&op)) {
        Mask mask = forced;
        Mask in = maskOf(broadcast.getOperand());
        ArrayRef<int64_t> inShape = shapeOf(broadcast.getOperand());
        for (auto [i, d] : llvm::enumerate(broadcast.getDims())) {
          if (in[i])
            mask[d] = true;
          else if (forced[d] && inShape[i] != 1 &&
                   failed(force(&op, broadcast.getOperand(), i)))
            return failure();
        }
        setResult(mask);
        continue;
      }
      if (auto transpose = dyn_cast<TransposeOp>(&op)) {
        Mask in = maskOf(transpose.getOperand());
        Mask mask = forced;
        for (auto [i, p] : llvm::enumerate(transpose.getPerm())) {
          if (in[p])
            mask[i] = true;
          else if (forced[i] && failed(force(&op, transpose.getOperand(), p)))
            return failure();
        }
        setResult(mask);
        continue;
      }
      if (auto slice = dyn_cast<SliceOp>(&op)) {
        Mask in = maskOf(slice.getOperand());
        ArrayRef<int64_t> inShape = shapeOf(slice.getOperand());
        Mask mask(in.size(), false);
        for (size_t i = 0; i < in.size(); ++i) {
          bool whole =
              slice.getSizes()[i] == -1 ||
              (slice.getOffsets()[i] == 0 && slice.getSizes()[i] == inShape[i]);
          if (whole && in[i])
            mask[i] = true;
          else if (forced[i] && !whole)
            return op.emitError("cannot generalize the batch: a slice of part "
                                "of dim ")
                   << i << " meets the batch";
          else if (forced[i] && failed(force(&op, slice.getOperand(), i)))
            return failure();
        }
        setResult(mask);
        continue;
      }
      if (auto concat = dyn_cast<ConcatOp>(&op)) {
        int64_t axis = concat.getDim();
        Mask mask = forced;
        for (Value operand : concat.getInputs())
          for (auto [i, dynamic] : llvm::enumerate(maskOf(operand)))
            mask[i] = mask[i] || dynamic;
        if (forced[axis] && llvm::none_of(concat.getInputs(), [&](Value v) {
              return maskOf(v)[axis];
            }))
          return op.emitError("cannot generalize the batch: a concat along "
                              "the batch of inputs without it");
        for (Value operand : concat.getInputs()) {
          Mask have = maskOf(operand);
          for (size_t i = 0; i < mask.size(); ++i)
            if (static_cast<int64_t>(i) != axis && mask[i] && !have[i] &&
                failed(force(&op, operand, i)))
              return failure();
        }
        setResult(mask);
        continue;
      }
      if (isa<ReduceSumOp, ReduceMaxOp>(&op)) {
        Value operand = op.getOperand(0);
        ArrayRef<int64_t> reduced =
            cast<DenseI64ArrayAttr>(op.getAttr("dims")).asArrayRef();
        Mask in = maskOf(operand);
        Mask mask;
        for (size_t i = 0; i < in.size(); ++i) {
          if (llvm::is_contained(reduced, static_cast<int64_t>(i)))
            continue;
          if (forced[mask.size()] && !in[i] && failed(force(&op, operand, i)))
            return failure();
          mask.push_back(in[i]);
        }
        setResult(mask);
        continue;
      }
      if (auto matmul = dyn_cast<MatmulOp>(&op)) {
        Value lhs = matmul.getLhs(), rhs = matmul.getRhs();
        Mask a = maskOf(lhs), b = maskOf(rhs);
        int64_t rank = a.size();
        int64_t m = rank - (matmul.getTransposeA() ? 1 : 2);
        int64_t ka = rank - (matmul.getTransposeA() ? 2 : 1);
        int64_t kb = rank - (matmul.getTransposeB() ? 1 : 2);
        int64_t n = rank - (matmul.getTransposeB() ? 2 : 1);
        // (operand, its dim, the result dim) of each free size.
        SmallVector<std::tuple<Value, int64_t, int64_t>> free = {
            {lhs, m, rank - 2}, {rhs, n, rank - 1}};
        Mask mask = forced;
        if (rank == 3) {
          bool dynamic = a[0] || b[0] || forced[0];
          mask[0] = dynamic;
          if (dynamic && !a[0] && failed(force(&op, lhs, 0)))
            return failure();
          if (dynamic && !b[0] && failed(force(&op, rhs, 0)))
            return failure();
        }
        for (auto [operand, d, r] : free) {
          bool in = operand == lhs ? a[d] : b[d];
          if (in)
            mask[r] = true;
          else if (forced[r] && failed(force(&op, operand, d)))
            return failure();
        }
        if (a[ka] && !b[kb] && failed(force(&op, rhs, kb)))
          return failure();
        if (b[kb] && !a[ka] && failed(force(&op, lhs, ka)))
          return failure();
        setResult(mask);
        continue;
      }
      if (auto reshape = dyn_cast<ReshapeOp>(&op)) {
        Value operand = reshape.getOperand();
        ArrayRef<int64_t> from = shapeOf(operand), to = shapeOf(result);
        auto groups = getReshapeGroups(from, to);
        if (!groups || llvm::is_contained(from, 0))
          return op.emitError("cannot generalize the batch of this reshape");
        Mask in = maskOf(operand);
        Mask mask(to.size(), false);
        for (auto &[a, b] : *groups) {
          bool dynamicIn = llvm::any_of(a, [&](int64_t i) { return in[i]; });
          bool forcedOut =
              llvm::any_of(b, [&](int64_t j) { return forced[j]; });
          if (!dynamicIn && !forcedOut)
            continue;
          // The result dim that carries the batch: the group's only one, or
          // the first of the batch's size where one operand dim splits.
          int64_t carrier = -1;
          if (b.size() == 1)
            carrier = b[0];
          else if (a.size() == 1)
            for (int64_t j : b)
              if (to[j] == batchSize) {
                carrier = j;
                break;
              }
          if (carrier < 0 ||
              llvm::any_of(
                  b, [&](int64_t j) { return forced[j] && j != carrier; }))
            return op.emitError("cannot generalize the batch of this reshape: "
                                "it splits or merges the batch");
          if (!dynamicIn) {
            // Forced: the operand dim of the batch's size in the group.
            auto it = llvm::find_if(
                a, [&](int64_t i) { return from[i] == batchSize; });
            if (it == a.end())
              return op.emitError(
                  "cannot generalize the batch of this "
                  "reshape: no operand dim of the batch's size");
            if (failed(force(&op, operand, *it)))
              return failure();
          }
          mask[carrier] = true;
        }
        if (llvm::count(mask, true) > 1)
          return op.emitError("cannot generalize the batch of this reshape: "
                              "it would have several dynamic dims");
        setResult(mask);
        continue;
      }
      if (isa<VjpOp, func::CallOp>(&op)) {
        auto callOp = dyn_cast<func::CallOp>(&op);
        auto vjp = dyn_cast<VjpOp>(&op);
        StringRef name = callOp ? callOp.getCallee() : vjp.getCallee();
        auto callee = symbols.lookup<func::FuncOp>(name);
        if (!callee)
          return op.emitError("cannot generalize the batch: no function @")
                 << name;
        size_t numArgs = callee.getNumArguments();
        SmallVector<Mask> argMasks;
        for (Value operand : op.getOperands().take_front(numArgs))
          argMasks.push_back(maskOf(operand));
        SmallVector<Mask> resultForces;
        if (vjp) {
          // Cotangents have the callee's results' types.
          for (Value ct : op.getOperands().drop_front(numArgs))
            resultForces.push_back(maskOf(ct));
        } else {
          for (Value r : op.getResults()) {
            Mask f(shapeOf(r).size(), false);
            if (auto it = forces.find(r); it != forces.end())
              f = it->second;
            resultForces.push_back(f);
          }
        }
        SmallVector<Mask> grown = argMasks;
        FailureOr<FunctionPlan *> calleePlan =
            analyze(callee, grown, resultForces);
        if (failed(calleePlan))
          return op.emitError("cannot generalize the batch of callee @")
                 << name;
        for (auto [i, before, after] : llvm::enumerate(argMasks, grown))
          for (size_t d = 0; d < after.size(); ++d)
            if (after[d] && !before[d] &&
                failed(force(&op, op.getOperand(i), d)))
              return failure();
        if (changed)
          return success();
        plan.callees[&op] = *calleePlan;
        if (vjp) {
          for (auto [i, ct] :
               llvm::enumerate(op.getOperands().drop_front(numArgs))) {
            const Mask &want = (*calleePlan)->resultMasks[i];
            Mask have = maskOf(ct);
            for (size_t d = 0; d < want.size(); ++d)
              if (want[d] && !have[d] && failed(force(&op, ct, d)))
                return failure();
          }
          for (auto [j, index] : llvm::enumerate(vjp.getWrt())) {
            Mask mask = grown[index];
            Value grad = op.getResult(j);
            if (auto it = forces.find(grad); it != forces.end())
              for (size_t d = 0; d < mask.size(); ++d)
                if (it->second[d] && !mask[d] &&
                    failed(force(&op, op.getOperand(index), d)))
                  return failure();
            plan.masks[grad] = mask;
          }
        } else {
          for (auto [r, mask] :
               llvm::zip(op.getResults(), (*calleePlan)->resultMasks))
            plan.masks[r] = mask;
        }
        continue;
      }
      if (auto group = dyn_cast<FusionGroupOp>(&op)) {
        Block &inner = group.getBody().front();
        for (auto [arg, input] :
             llvm::zip(inner.getArguments(), group.getInputs()))
          plan.masks[arg] = maskOf(input);
        if (failed(walk(inner)))
          return failure();
        if (changed)
          return success();
        Operation *yield = inner.getTerminator();
        for (auto [i, r] : llvm::enumerate(group.getResults())) {
          Value yielded = yield->getOperand(i);
          Mask mask = maskOf(yielded);
          if (auto it = forces.find(r); it != forces.end())
            for (size_t d = 0; d < mask.size(); ++d)
              if (it->second[d] && !mask[d] && failed(force(&op, yielded, d)))
                return failure();
          plan.masks[r] = mask;
        }
        continue;
      }
      if (auto ret = dyn_cast<func::ReturnOp>(&op)) {
        plan.resultMasks.clear();
        for (auto [i, operand] : llvm::enumerate(ret.getOperands())) {
          Mask mask = maskOf(operand);
          if (i < resultForces.size())
            for (size_t d = 0; d < mask.size(); ++d)
              if (resultForces[i][d] && !mask[d] &&
                  failed(force(&op, operand, d)))
                return failure();
          plan.resultMasks.push_back(mask);
        }
        continue;
      }
      return op.emitError("cannot generalize the batch through '")
             << op.getName() << "'";
    }
    return success();
  };
  return walk(body);
}

/// The batch size, read at the function's entry from its first dynamic
/// argument dim.
Value Generalizer::getBatchSize(OpBuilder &b, func::FuncOp func,
                                const FunctionPlan &plan) {
  for (auto [i, mask] : llvm::enumerate(plan.argMasks))
    for (auto [d, dynamic] : llvm::enumerate(mask))
      if (dynamic) {
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPointToStart(&func.getBody().front());
        return tensor::DimOp::create(b, func.getLoc(), func.getArgument(i),
                                     static_cast<int64_t>(d));
      }
  return Value();
}

FailureOr<func::FuncOp> Generalizer::rewrite(FunctionPlan &plan,
                                             StringRef name) {
  if (plan.generalized)
    return plan.generalized;
  func::FuncOp source = plan.source;
  OpBuilder b(source);
  b.setInsertionPointAfter(source);
  IRMapping mapping;
  auto func = cast<func::FuncOp>(b.clone(*source, mapping));
  func.setSymName(name);
  plan.generalized = func;

  auto maskOf = [&](Value value) {
    auto it = plan.masks.find(value);
    return it != plan.masks.end() ? it->second
                                  : Mask(shapeOf(value).size(), false);
  };
  // Every op, a fusion group before the ops in it; every block's arguments
  // typed first.
  SmallVector<Operation *> ops;
  source.walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (op == source)
      return;
    ops.push_back(op);
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument arg : block.getArguments())
          mapping.lookup(arg).setType(
              generalizedType(arg.getType(), maskOf(arg)));
  });
  Block &body = func.getBody().front();
  for (auto [arg, mask] : llvm::zip(body.getArguments(), plan.argMasks))
    arg.setType(generalizedType(arg.getType(), mask));

  Value batch;
  auto batchSizeValue = [&]() {
    if (!batch)
      batch = getBatchSize(b, func, plan);
    return batch;
  };
  // `op`'s result becomes `wide`, built outside any fusion group (a group
  // reads no sizes from outside): in a group, a new input of it, whose
  // block argument replaces the result.
  auto replaceResult = [&](Operation *op, FusionGroupOp group, Value wide) {
    Value replacement = wide;
    if (group) {
      group->insertOperands(group->getNumOperands(), wide);
      replacement =
          group.getBody().front().addArgument(wide.getType(), op->getLoc());
    }
    op->getResult(0).replaceAllUsesWith(replacement);
    op->erase();
  };

  for (Operation *sourceOp : ops) {
    Operation *op = mapping.lookup(sourceOp);
    auto group = op->getParentOfType<FusionGroupOp>();
    b.setInsertionPoint(group ? group.getOperation() : op);
    Location loc = op->getLoc();
    if (sourceOp->getNumResults() == 1) {
      Value sourceResult = sourceOp->getResult(0);
      Mask mask = maskOf(sourceResult);
      Type type = generalizedType(sourceResult.getType(), mask);
      if (auto constant = dyn_cast<ConstantOp>(op);
          constant && type != sourceResult.getType()) {
        // A splat constant of the batch's size: a scalar broadcast.
        auto dense = cast<DenseElementsAttr>(constant.getValue());
        auto scalarType = RankedTensorType::get({}, dense.getElementType());
        Value scalar =
            ConstantOp::create(b, loc, dense.resizeSplat(scalarType));
        SmallVector<Value> sizes(llvm::count(mask, true), batchSizeValue());
        Value wide = BroadcastInDimOp::create(b, loc, type, scalar, sizes,
                                              ArrayRef<int64_t>{});
        replaceResult(op, group, wide);
        continue;
      }
      if (auto broadcast = dyn_cast<BroadcastInDimOp>(op);
          broadcast && type != sourceResult.getType()) {
        Value operand = broadcast.getOperand();
        if (group) {
          // Broadcast the group's input outside the group.
          auto arg = dyn_cast<BlockArgument>(operand);
          if (arg && arg.getOwner()->getParentOp() == group)
            operand = group->getOperand(arg.getArgNumber());
          else if (auto constant = operand.getDefiningOp<ConstantOp>())
            operand = b.clone(*constant)->getResult(0);
          else
            return sourceOp->emitError(
                "cannot generalize the batch: a broadcast of a value "
                "computed in its fusion group needs the batch size");
        }
        auto operandType = cast<RankedTensorType>(operand.getType());
        SmallVector<Value> sizes;
        for (auto [d, dynamic] : llvm::enumerate(mask)) {
          if (!dynamic)
            continue;
          auto *it = llvm::find(broadcast.getDims(), static_cast<int64_t>(d));
          int64_t i = it - broadcast.getDims().begin();
          if (it != broadcast.getDims().end() && operandType.isDynamicDim(i))
            sizes.push_back(tensor::DimOp::create(b, loc, operand, i));
          else
            sizes.push_back(batchSizeValue());
        }
        Value wide = BroadcastInDimOp::create(b, loc, type, operand, sizes,
                                              broadcast.getDims());
        replaceResult(op, group, wide);
        continue;
      }
      if (auto slice = dyn_cast<SliceOp>(op)) {
        SmallVector<int64_t> sizes(slice.getSizes());
        for (auto [d, dynamic] : llvm::enumerate(mask))
          if (dynamic)
            sizes[d] = -1;
        slice.setSizes(sizes);
      }
    }
    for (auto [sourceResult, result] :
         llvm::zip(sourceOp->getResults(), op->getResults()))
      result.setType(
          generalizedType(sourceResult.getType(), maskOf(sourceResult)));
    if (auto it = plan.callees.find(sourceOp); it != plan.callees.end()) {
      FunctionPlan &calleePlan = *it->second;
      std::string calleeName = calleePlan.source.getSymName().str();
      if (calleePlan.isDynamic()) {
        FailureOr<func::FuncOp> clone =
            calleePlan.generalized
                ? calleePlan.generalized
                : rewrite(calleePlan,
                          calleeName + "_batch" + std::to_string(numClones++));
        if (failed(clone))
          return failure();
        if (!llvm::is_contained(clonedSources, calleePlan.source))
          clonedSources.push_back(calleePlan.source);
        calleeName = clone->getSymName().str();
      }
      auto ref = FlatSymbolRefAttr::get(op->getContext(), calleeName);
      if (auto call = dyn_cast<func::CallOp>(op))
        call.setCalleeAttr(ref);
      else
        cast<VjpOp>(op).setCalleeAttr(ref);
    }
  }
  auto ret = cast<func::ReturnOp>(body.getTerminator());
  func.setFunctionType(FunctionType::get(
      func.getContext(), body.getArgumentTypes(), ret.getOperandTypes()));
  return func;
}

struct KilnGeneralizeBatchPass
    : kiln::impl::KilnGeneralizeBatchBase<KilnGeneralizeBatchPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<func::FuncOp> entries;
    for (auto func : module.getOps<func::FuncOp>()) {
      if (func.isExternal())
        continue;
      if (entry.empty() ? func.isPublic() : func.getSymName() == entry)
        entries.push_back(func);
    }
    if (!entry.empty() && entries.empty()) {
      module.emitError("no function @") << entry << " to generalize";
      return signalPassFailure();
    }
    SetVector<func::FuncOp> cloned;
    for (func::FuncOp func : entries)
      if (failed(generalize(module, func, cloned)))
        return signalPassFailure();
    // Private callees that only the static originals called go with them
    // (callers first, so that their callees become unused in turn).
    for (bool erased = true; erased;) {
      erased = false;
      for (func::FuncOp func : cloned) {
        if (!func || !func.isPrivate() ||
            !SymbolTable::symbolKnownUseEmpty(func, module))
          continue;
        cloned.remove(func);
        func.erase();
        erased = true;
        break;
      }
    }
  }

  LogicalResult generalize(ModuleOp module, func::FuncOp func,
                           SetVector<func::FuncOp> &cloned) {
    FunctionType type = func.getFunctionType();
    for (Type t : llvm::concat<const Type>(type.getInputs(), type.getResults()))
      if (auto tensor = dyn_cast<RankedTensorType>(t);
          !tensor || !tensor.hasStaticShape())
        return func.emitError("cannot generalize the batch: the signature "
                              "is not static ranked tensors");
    int64_t batchArg = arg;
    if (batchArg < 0) {
      for (auto [i, t] : llvm::enumerate(type.getInputs()))
        if (cast<RankedTensorType>(t).getRank() >= 1) {
          batchArg = i;
          break;
        }
      if (batchArg < 0)
        return func.emitError("cannot generalize the batch: no argument has "
                              "a dim");
    }
    if (batchArg >= static_cast<int64_t>(type.getNumInputs()) ||
        cast<RankedTensorType>(type.getInput(batchArg)).getRank() == 0)
      return func.emitError("cannot generalize the batch: argument ")
             << batchArg << " has no dim 0";
    int64_t batchSize =
        cast<RankedTensorType>(type.getInput(batchArg)).getDimSize(0);

    Generalizer generalizer(module, batchSize);
    SmallVector<Mask> argMasks;
    for (Type t : type.getInputs())
      argMasks.push_back(Mask(cast<RankedTensorType>(t).getRank(), false));
    argMasks[batchArg][0] = true;
    FailureOr<FunctionPlan *> plan =
        generalizer.analyze(func, argMasks, /*resultForces=*/{});
    if (failed(plan))
      return failure();
    std::string name = func.getSymName().str();
    // The original steps aside (its callers follow it), and the
    // generalized entry takes its name.
    std::string staticName = name + "_static";
    if (failed(SymbolTable::replaceAllSymbolUses(
            func, StringAttr::get(func.getContext(), staticName), module)))
      return func.emitError("cannot rename the static function");
    if (failed(generalizer.rewrite(**plan, name)))
      return failure();
    for (func::FuncOp source : generalizer.getClonedSources())
      cloned.insert(source);
    func.setSymName(staticName);
    func.setPrivate();
    if (SymbolTable::symbolKnownUseEmpty(func, module))
      func.erase();
    return success();
  }
};

} // namespace
