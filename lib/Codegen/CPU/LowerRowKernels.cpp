//===- LowerRowKernels.cpp - the -kiln-lower-row-kernels pass -------------===//
//
// A kernel of linalg ops on buffers whose every access is row-local (see
// Passes.td) becomes one scf.parallel over the rows; in it, each op of the
// kernel in turn, on that row:
//   linalg.fill of a row accumulator -> the fill value, as an SSA scalar
//   a phase (reduction) nest         -> scf.for over the row with the
//                                       accumulators as iter_args
//   a nest over the whole domain     -> scf.for over the row, storing
//   a nest over the rows             -> its body, once
// A row value that a later op reads is the scalar itself; each is also
// stored, as the kernel's caller may read the buffer.
//
//===----------------------------------------------------------------------===//

#include "Codegen/Common/RowKernelAnalysis.h"

#include "Codegen/CPU/RequestVectorization.h"
#include "kiln/Codegen/CPU/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringMap.h"

namespace kiln {
#define GEN_PASS_DEF_KILNLOWERROWKERNELS
#include "kiln/Codegen/CPU/Passes.h.inc"
} // namespace kiln

using namespace mlir;
using namespace kiln::row_kernels;

namespace {

/// A row kernel's costly values worth keeping for a later nest: an op of a
/// phase's body (a transcendental, a division) whose very expression, over
/// the same elements, a later nest over the whole row computes again
/// (softmax's exp(x - max), which the sum and then the results need). The
/// phase stores it in a row-sized scratch, the later nest loads it: one
/// exp per element instead of two, the scratch in L1.
struct RowStash {
  /// The phase's op whose value is kept, the later op that loads it.
  llvm::DenseMap<Operation *, unsigned> stored, loaded; // -> scratch index
  SmallVector<MemRefType> scratchTypes;
};

namespace {
/// Structural keys of generic bodies' values: equal keys, equal values at
/// equal loop indices (where the loop ranges agree). A buffer is known by
/// its identity and by how many times the kernel wrote it before.
class ExpressionKeys {
public:
  std::string keyOf(linalg::GenericOp generic, Value value, bool &cacheable);
  /// Counts a write of `buffer`: reads after it see another value.
  void wrote(Value buffer) { ++versions[buffer]; }

private:
  std::string idOf(Value v) {
    auto [it, inserted] = ids.try_emplace(v, ids.size());
    return std::to_string(it->second);
  }
  llvm::DenseMap<Value, size_t> ids;
  llvm::DenseMap<Value, int64_t> versions;
};
} // namespace

std::string ExpressionKeys::keyOf(linalg::GenericOp generic, Value value,
                                  bool &cacheable) {
  Block *body = &generic.getRegion().front();
  if (auto arg = dyn_cast<BlockArgument>(value)) {
    if (arg.getOwner() != body)
      return "v" + idOf(value);
    OpOperand *operand = generic.getMatchingOpOperand(arg);
    // An output's current value (an accumulator) differs from nest to nest.
    if (generic.isDpsInit(operand))
      cacheable = false;
    std::string key;
    llvm::raw_string_ostream os(key);
    os << "b" << idOf(operand->get()) << "@" << versions.lookup(operand->get())
       << generic.getMatchingIndexingMap(operand);
    return key;
  }
  Operation *op = value.getDefiningOp();
  if (op->getBlock() != body)
    return "v" + idOf(value);
  if (!isPure(op) || op->getNumRegions() != 0 || op->getNumResults() != 1)
    cacheable = false;
  std::string key;
  llvm::raw_string_ostream os(key);
  os << op->getName() << op->getAttrDictionary() << value.getType() << "(";
  for (Value operand : op->getOperands())
    os << keyOf(generic, operand, cacheable) << ",";
  os << ")";
  return key;
}

/// Whether `op` costs enough to keep rather than compute again.
static bool isCostly(Operation *op) {
  return isa<math::MathDialect>(op->getDialect()) ||
         isa<arith::DivFOp, arith::RemFOp>(op);
}

/// Finds the values of `kernel`'s phases that a later nest over the whole
/// row recomputes, where a row of them fits `maxScratchBytes`.
static RowStash findRowStash(const RowKernel &kernel, int64_t maxScratchBytes) {
  RowStash stash;
  ExpressionKeys keys;
  // The costly values of the phases so far, by key, with their row shape.
  llvm::StringMap<std::pair<Operation *, SmallVector<int64_t>>> available;
  for (auto [op, kind] : kernel.ops) {
    auto generic = dyn_cast<linalg::GenericOp>(op);
    if (!generic) {
      keys.wrote(cast<linalg::FillOp>(op).getOutputs()[0]);
      continue;
    }
    SmallVector<int64_t> ranges = generic.getStaticLoopRanges();
    SmallVector<int64_t> inner(ranges.begin() + kernel.k, ranges.end());
    int64_t elements = 1;
    for (int64_t size : inner)
      elements *= size;
    for (Operation &bodyOp : generic.getBody()->without_terminator()) {
      if (!isCostly(&bodyOp) || bodyOp.getNumResults() != 1 ||
          !bodyOp.getResult(0).getType().isIntOrFloat())
        continue;
      bool cacheable = true;
      std::string key = keys.keyOf(generic, bodyOp.getResult(0), cacheable);
      if (!cacheable)
        continue;
      if (kind == NestKind::Phase) {
        unsigned bits = bodyOp.getResult(0).getType().getIntOrFloatBitWidth();
        if (elements * ((bits + 7) / 8) <= maxScratchBytes)
          available.try_emplace(key, &bodyOp, inner);
        continue;
      }
      auto it = available.find(key);
      if (kind != NestKind::Domain || it == available.end() ||
          it->second.second != inner)
        continue;
      Operation *phaseOp = it->second.first;
      auto [slot, inserted] =
          stash.stored.try_emplace(phaseOp, stash.scratchTypes.size());
      if (inserted)
        stash.scratchTypes.push_back(
            MemRefType::get(inner, phaseOp->getResult(0).getType()));
      stash.loaded[&bodyOp] = slot->second;
    }
    for (OpOperand &output : generic.getDpsInitsMutable())
      keys.wrote(output.get());
  }
  return stash;
}

class RowKernelLowering {
public:
  RowKernelLowering(RewriterBase &rewriter, const RowKernel &kernel,
                    const RowStash &stash, unsigned vectorWidth,
                    unsigned interleave)
      : rewriter(rewriter), kernel(kernel), stash(stash),
        vectorWidth(vectorWidth), interleave(interleave) {}

  void run(func::FuncOp func);

private:
  /// `index` as the value of `expr` at the loop indices `ivs`.
  Value indexOf(Location loc, AffineExpr expr, ValueRange ivs) {
    if (auto dim = dyn_cast<AffineDimExpr>(expr))
      return ivs[dim.getPosition()];
    return arith::ConstantIndexOp::create(
        rewriter, loc, cast<AffineConstantExpr>(expr).getValue());
  }
  SmallVector<Value> indicesOf(Location loc, AffineMap map, ValueRange ivs) {
    SmallVector<Value> indices;
    for (AffineExpr e : map.getResults())
      indices.push_back(indexOf(loc, e, ivs));
    return indices;
  }
  /// Whether `map` is (d0..dk-1) -> (d0, ..., dk-1): one element per row.
  bool isRowMap(AffineMap map) {
    bool rowPrefixed = false;
    return static_cast<int64_t>(map.getNumResults()) == kernel.k &&
           classifyMap(map, kernel.k, rowPrefixed) && rowPrefixed;
  }
  /// The scalar of `operand` of `generic` at `ivs`: a row value already
  /// computed, or a load.
  Value read(Location loc, linalg::GenericOp generic, OpOperand *operand,
             ValueRange ivs) {
    AffineMap map = generic.getMatchingIndexingMap(operand);
    if (isRowMap(map))
      if (Value scalar = rowValues.lookup(operand->get()))
        return scalar;
    return memref::LoadOp::create(rewriter, loc, operand->get(),
                                  indicesOf(loc, map, ivs));
  }
  /// An output's scalar for the body: its current value where the body
  /// reads it, else a zero that nothing reads.
  Value readOutput(Location loc, linalg::GenericOp generic, OpOperand &output,
                   ValueRange ivs) {
    BlockArgument arg = generic.getMatchingBlockArgument(&output);
    if (!arg.use_empty())
      return read(loc, generic, &output, ivs);
    return arith::ConstantOp::create(rewriter, loc,
                                     rewriter.getZeroAttr(arg.getType()));
  }
  /// Clones `generic`'s body at the loop indices `ivs` with its block
  /// arguments as `args`; returns the yielded scalars. `reassociate`: sums
  /// into an output accumulate in any order. Values the stash keeps are
  /// stored to, or loaded from, its scratch.
  SmallVector<Value> cloneBody(linalg::GenericOp generic, ValueRange ivs,
                               ValueRange args, bool reassociate);
  /// Nested scf.for loops over dims [k, loops) of `generic`, with
  /// `iterArgs`, whose innermost body `body` fills; returns the outermost
  /// loop's results.
  SmallVector<Value>
  buildRowLoops(Location loc, linalg::GenericOp generic, ValueRange rowIvs,
                ValueRange iterArgs,
                function_ref<SmallVector<Value>(ValueRange, ValueRange)> body);

  RewriterBase &rewriter;
  const RowKernel &kernel;
  const RowStash &stash;
  unsigned vectorWidth, interleave;
  /// The stash's row scratch buffers, on the current row.
  SmallVector<Value> scratch;
  /// Each row value's reciprocal, once made.
  llvm::DenseMap<Value, Value> reciprocals;

  /// Whether `value` is defined outside the loop being filled (a row
  /// value, a constant).
  bool isLoopInvariant(Value value) {
    Operation *loop = rewriter.getInsertionBlock()->getParentOp();
    if (!isa<scf::ForOp>(loop))
      return false;
    Operation *def = value.getDefiningOp();
    if (!def)
      def = cast<BlockArgument>(value).getOwner()->getParentOp();
    return !loop->isAncestor(def);
  }
  /// 1 / `value`, right after `value` is defined.
  Value reciprocalOf(Location loc, Value value) {
    Value &reciprocal = reciprocals[value];
    if (!reciprocal) {
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPointAfterValue(value);
      Value one = arith::ConstantOp::create(
          rewriter, loc, rewriter.getFloatAttr(value.getType(), 1.0));
      reciprocal = arith::DivFOp::create(rewriter, loc, one, value);
    }
    return reciprocal;
  }
  /// Each row buffer's value on the current row, once computed.
  llvm::DenseMap<Value, Value> rowValues;
};

} // namespace

SmallVector<Value> RowKernelLowering::cloneBody(linalg::GenericOp generic,
                                                ValueRange ivs, ValueRange args,
                                                bool reassociate) {
  Block &body = generic.getRegion().front();
  IRMapping mapping;
  mapping.map(body.getArguments(), args);
  ValueRange rowIndices = ivs.drop_front(kernel.k);
  for (Operation &op : body.without_terminator()) {
    // The loop indices are the row nest's induction variables.
    if (auto index = dyn_cast<linalg::IndexOp>(op)) {
      mapping.map(index.getResult(), ivs[index.getDim()]);
      continue;
    }
    if (auto slot = stash.loaded.find(&op); slot != stash.loaded.end()) {
      mapping.map(op.getResult(0),
                  memref::LoadOp::create(rewriter, op.getLoc(),
                                         scratch[slot->second], rowIndices));
      continue;
    }
    Operation *clone = nullptr;
    if (auto div = dyn_cast<arith::DivFOp>(op);
        div && isLoopInvariant(mapping.lookupOrDefault(div.getRhs())))
      // A division by a row value (softmax's sum): a multiplication by its
      // reciprocal, computed once per row.
      clone = arith::MulFOp::create(
          rewriter, op.getLoc(), mapping.lookupOrDefault(div.getLhs()),
          reciprocalOf(op.getLoc(), mapping.lookupOrDefault(div.getRhs())),
          div.getFastmath());
    else
      clone = rewriter.clone(op, mapping);
    mapping.map(op.getResults(), clone->getResults());
    if (auto slot = stash.stored.find(&op); slot != stash.stored.end())
      memref::StoreOp::create(rewriter, op.getLoc(), clone->getResult(0),
                              scratch[slot->second], rowIndices);
    // The combining add of a sum: reading an output's accumulator.
    if (auto add = dyn_cast<arith::AddFOp>(clone); add && reassociate)
      for (Value operand : op.getOperands())
        if (auto arg = dyn_cast<BlockArgument>(operand);
            arg && arg.getOwner() == &body &&
            arg.getArgNumber() >= generic.getNumDpsInputs())
          add.setFastmath(add.getFastmath() | arith::FastMathFlags::reassoc);
  }
  SmallVector<Value> yielded;
  for (Value v : body.getTerminator()->getOperands())
    yielded.push_back(mapping.lookupOrDefault(v));
  return yielded;
}

SmallVector<Value> RowKernelLowering::buildRowLoops(
    Location loc, linalg::GenericOp generic, ValueRange rowIvs,
    ValueRange iterArgs,
    function_ref<SmallVector<Value>(ValueRange, ValueRange)> body) {
  SmallVector<int64_t> ranges = generic.getStaticLoopRanges();
  int64_t k = kernel.k;
  SmallVector<Value> ivs(rowIvs);
  Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
  Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
  // Build from the outside in, each loop's body yielding the inner one's.
  SmallVector<scf::ForOp> loops;
  SmallVector<Value> carried(iterArgs);
  for (int64_t d = k; d < static_cast<int64_t>(ranges.size()); ++d) {
    Value upper = arith::ConstantIndexOp::create(rewriter, loc, ranges[d]);
    auto loop = scf::ForOp::create(rewriter, loc, zero, upper, one, carried);
    ivs.push_back(loop.getInductionVar());
    carried.assign(loop.getRegionIterArgs().begin(),
                   loop.getRegionIterArgs().end());
    loops.push_back(loop);
    rewriter.setInsertionPointToStart(loop.getBody());
  }
  SmallVector<Value> results = body(ivs, carried);
  for (scf::ForOp loop : llvm::reverse(loops)) {
    rewriter.setInsertionPointToEnd(loop.getBody());
    // An scf.for made with iter_args has a yield to replace.
    if (!loop.getBody()->empty() && isa<scf::YieldOp>(loop.getBody()->back()))
      rewriter.eraseOp(&loop.getBody()->back());
    scf::YieldOp::create(rewriter, loc, results);
    results.assign(loop.getResults().begin(), loop.getResults().end());
    rewriter.setInsertionPointAfter(loop);
  }
  if (!loops.empty() && vectorWidth > 1)
    kiln::requestVectorization(loops.back(), vectorWidth, interleave);
  return results;
}

void RowKernelLowering::run(func::FuncOp func) {
  Location loc = func.getLoc();
  Block &block = func.getBody().front();
  rewriter.setInsertionPoint(block.getTerminator());
  SmallVector<Value> lower, upper, steps;
  for (int64_t size : kernel.rows) {
    lower.push_back(arith::ConstantIndexOp::create(rewriter, loc, 0));
    upper.push_back(arith::ConstantIndexOp::create(rewriter, loc, size));
    steps.push_back(arith::ConstantIndexOp::create(rewriter, loc, 1));
  }
  auto parallel = scf::ParallelOp::create(rewriter, loc, lower, upper, steps);
  rewriter.setInsertionPointToStart(parallel.getBody());
  SmallVector<Value> rowIvs = parallel.getInductionVars();
  if (!stash.scratchTypes.empty()) {
    // The scratch lives for one row: a scope returns its stack each row,
    // whether the loop runs in parallel or, when small, sequentially.
    auto scope = memref::AllocaScopeOp::create(rewriter, loc, TypeRange{});
    Block *scopeBody = rewriter.createBlock(&scope.getBodyRegion());
    rewriter.setInsertionPointToStart(scopeBody);
    memref::AllocaScopeReturnOp::create(rewriter, loc, ValueRange{});
    rewriter.setInsertionPointToStart(scopeBody);
    for (MemRefType type : stash.scratchTypes)
      scratch.push_back(memref::AllocaOp::create(rewriter, loc, type));
  }
  for (auto [op, opKind] : kernel.ops) {
    NestKind kind = opKind; // captured below
    Location opLoc = op->getLoc();
    if (kind == NestKind::Fill) {
      auto fill = cast<linalg::FillOp>(op);
      rowValues[fill.getOutputs()[0]] = fill.getInputs()[0];
      memref::StoreOp::create(rewriter, opLoc, fill.getInputs()[0],
                              fill.getOutputs()[0], rowIvs);
      continue;
    }
    auto generic = cast<linalg::GenericOp>(op);
    auto outputs = generic.getDpsInitsMutable();
    auto readInputs = [&](ValueRange ivs) {
      SmallVector<Value> args;
      for (OpOperand *input : generic.getDpsInputOperands())
        args.push_back(read(opLoc, generic, input, ivs));
      return args;
    };
    if (kind == NestKind::Phase) {
      // The accumulators ride the row loops; each ends as a row value.
      SmallVector<Value> inits;
      for (OpOperand &output : outputs)
        inits.push_back(read(opLoc, generic, &output, rowIvs));
      SmallVector<Value> sums = buildRowLoops(
          opLoc, generic, rowIvs, inits, [&](ValueRange ivs, ValueRange acc) {
            SmallVector<Value> args = readInputs(ivs);
            args.append(acc.begin(), acc.end());
            return cloneBody(generic, ivs, args, /*reassociate=*/true);
          });
      for (auto [output, sum] : llvm::zip(outputs, sums)) {
        rowValues[output.get()] = sum;
        memref::StoreOp::create(rewriter, opLoc, sum, output.get(), rowIvs);
      }
      continue;
    }
    // A nest over the domain stores every element of the row; one over
    // the rows, one element.
    buildRowLoops(
        opLoc, generic, rowIvs, {},
        [&](ValueRange ivs, ValueRange) -> SmallVector<Value> {
          SmallVector<Value> args = readInputs(ivs);
          for (OpOperand &output : outputs)
            args.push_back(readOutput(opLoc, generic, output, ivs));
          SmallVector<Value> values =
              cloneBody(generic, ivs, args, /*reassociate=*/false);
          for (auto [output, value] : llvm::zip(outputs, values)) {
            memref::StoreOp::create(
                rewriter, opLoc, value, output.get(),
                indicesOf(opLoc, generic.getMatchingIndexingMap(&output), ivs));
            if (kind == NestKind::Rows)
              rowValues[output.get()] = value;
          }
          return {};
        });
  }
  for (auto [op, kind] : llvm::reverse(kernel.ops))
    rewriter.eraseOp(op);
}

namespace {
struct KilnLowerRowKernelsPass
    : kiln::impl::KilnLowerRowKernelsBase<KilnLowerRowKernelsPass> {
  using Base::Base;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    std::optional<RowKernel> kernel = matchRowKernel(func);
    if (!kernel)
      return;
    IRRewriter rewriter(&getContext());
    RowStash stash = findRowStash(*kernel, maxScratchBytes);
    RowKernelLowering(rewriter, *kernel, stash, vectorWidth, interleave)
        .run(func);
  }
};
} // namespace
