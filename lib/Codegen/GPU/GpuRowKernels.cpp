//===- GpuRowKernels.cpp - a row kernel as a warp or a block per row ------===//
//
// A row kernel (RowKernelAnalysis.h) runs in one launch: a warp (rows
// shorter than kBlockReductionMinLength) or a block takes a row at a time,
// grid-striding over the rows, and runs the kernel's ops on it in order:
//   linalg.fill of a row value  -> the fill value, an SSA scalar
//   a phase (reduction) nest    -> each thread's share of the row, then
//                                  shuffles (and shared memory, for a block)
//   a nest over the row         -> the threads stride over it, storing
//   a nest over the rows        -> its body, in every thread
// Row values are SSA scalars every thread of the unit holds; its first
// thread also stores them, for the kernel's caller. Every nest walks the
// row alike (element j by thread j mod the unit's size), and a buffer the
// kernel writes over the row is read at the same element only, so a thread
// reads only what it wrote itself: no barrier between nests.
//
//===----------------------------------------------------------------------===//

#include "KernelBuilder.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;
using namespace kiln::gpu_mapper;
using kiln::row_kernels::NestKind;
using kiln::row_kernels::RowKernel;

/// The combining op of each output of a phase nest and its reduction kind,
/// when each accumulator is combined once with a shuffle-reducible op whose
/// result is that output.
static std::optional<
    SmallVector<std::pair<Operation *, gpu::AllReduceOperation>>>
getCombiners(linalg::GenericOp op) {
  Block &body = *op.getBody();
  Operation *yield = body.getTerminator();
  SmallVector<std::pair<Operation *, gpu::AllReduceOperation>> combiners;
  for (OpOperand &init : op.getDpsInitsMutable()) {
    BlockArgument accumulator = op.getMatchingBlockArgument(&init);
    unsigned output = init.getOperandNumber() - op.getNumDpsInputs();
    Operation *combiner = yield->getOperand(output).getDefiningOp();
    if (!accumulator.getType().isF32() || !accumulator.hasOneUse() ||
        !combiner || *accumulator.getUsers().begin() != combiner ||
        combiner->getNumOperands() != 2 || !combiner->hasOneUse())
      return std::nullopt;
    std::optional<gpu::AllReduceOperation> kind = getCombinerKind(combiner);
    if (!kind)
      return std::nullopt;
    combiners.push_back({combiner, *kind});
  }
  return combiners;
}

/// Whether `map` is (d0, ..., d(k-1)): a row value.
static bool isRowIdentity(AffineMap map, int64_t k) {
  if (static_cast<int64_t>(map.getNumResults()) != k)
    return false;
  for (int64_t d = 0; d < k; ++d) {
    auto dim = dyn_cast<AffineDimExpr>(map.getResult(d));
    if (!dim || dim.getPosition() != d)
      return false;
  }
  return true;
}

std::optional<RowKernel> kiln::gpu_mapper::getGpuRowKernel(
    func::FuncOp func, const ArgumentAliases &aliases, unsigned blockSize) {
  std::optional<RowKernel> kernel = kiln::row_kernels::matchRowKernel(func);
  if (!kernel || blockSize % 32 != 0)
    return std::nullopt;
  // A body that reads its loop indices (an iota) is left to the general
  // nests: the warp's row loop does not map linalg.index.
  for (auto [op, kind] : kernel->ops)
    if (auto generic = dyn_cast<linalg::GenericOp>(op);
        generic && !generic.getBody()->getOps<linalg::IndexOp>().empty())
      return std::nullopt;
  // A lone reduction is a nest of its own (emitNest), with no row values
  // to hand on.
  if (llvm::count_if(kernel->ops, [](auto &entry) {
        return entry.second != NestKind::Fill;
      }) < 2)
    return std::nullopt;
  int64_t k = kernel->k;
  // Arguments that may share elements: one written, the element a thread
  // reads need not be the one it wrote.
  llvm::DenseSet<Value> writtenOverRows, rowValues;
  for (auto [op, kind] : kernel->ops)
    for (OpOperand &init : cast<linalg::LinalgOp>(op).getDpsInitsMutable())
      (kind == NestKind::Domain ? writtenOverRows : rowValues)
          .insert(init.get());
  for (Value v : llvm::concat<Value>(writtenOverRows, rowValues)) {
    auto arg = dyn_cast<BlockArgument>(v);
    if (!arg)
      return std::nullopt;
    for (BlockArgument other : func.getArguments())
      if (other != arg && aliases[arg.getArgNumber()][other.getArgNumber()])
        return std::nullopt;
  }

  std::optional<SmallVector<int64_t>> trailing;
  llvm::DenseSet<Value> rowValuesSoFar;
  for (auto [op, kind] : kernel->ops) {
    if (kind == NestKind::Fill) {
      rowValuesSoFar.insert(cast<linalg::FillOp>(op).getOutputs()[0]);
      continue;
    }
    auto generic = cast<linalg::GenericOp>(op);
    SmallVector<int64_t> ranges = generic.getStaticLoopRanges();
    if (kind != NestKind::Rows) {
      SmallVector<int64_t> rest(ranges.begin() + k, ranges.end());
      if (trailing && *trailing != rest)
        return std::nullopt;
      trailing = rest;
    }
    if (kind == NestKind::Phase && !getCombiners(generic))
      return std::nullopt;
    // A nest over the rows stores its values at the row.
    if (kind == NestKind::Rows)
      for (OpOperand &init : generic.getDpsInitsMutable())
        if (!isRowIdentity(generic.getMatchingIndexingMap(&init), k))
          return std::nullopt;
    for (OpOperand &operand : generic->getOpOperands()) {
      AffineMap map = generic.getMatchingIndexingMap(&operand);
      Value buffer = operand.get();
      // What a nest over the row writes: read and written at the same
      // element only. A row value: read as the SSA value, once written.
      if (writtenOverRows.contains(buffer) && !map.isIdentity())
        return std::nullopt;
      if (rowValues.contains(buffer) && generic.isDpsInput(&operand) &&
          (!isRowIdentity(map, k) || !rowValuesSoFar.contains(buffer)))
        return std::nullopt;
    }
    for (OpOperand &init : generic.getDpsInitsMutable())
      if (kind != NestKind::Domain)
        rowValuesSoFar.insert(init.get());
  }
  if (!trailing)
    return std::nullopt;
  return kernel;
}

/// A row kernel's shape: its rows, the sizes of its trailing dims (those
/// of its nests over the row), and a row's elements.
struct RowShape {
  int64_t rows = 1, rowLength = 1;
  SmallVector<int64_t> trailing;
};
static RowShape getRowShape(const RowKernel &kernel) {
  RowShape shape;
  for (int64_t size : kernel.rows)
    shape.rows *= size;
  for (auto [op, kind] : kernel.ops)
    if (kind == NestKind::Phase || kind == NestKind::Domain) {
      SmallVector<int64_t> ranges =
          cast<linalg::GenericOp>(op).getStaticLoopRanges();
      shape.trailing.assign(ranges.begin() + kernel.k, ranges.end());
      break;
    }
  for (int64_t size : shape.trailing)
    shape.rowLength *= size;
  return shape;
}

/// Whether a row of `rowLength` elements takes a block (else a warp).
static bool isBlockPerRow(int64_t rowLength, unsigned blockSize) {
  return blockSize >= 64 && rowLength >= kBlockReductionMinLength;
}

void KernelBuilder::emitRowKernel(const RowKernel &kernel, IRMapping &mapping) {
  auto [rows, rowLength, trailing] = getRowShape(kernel);
  work = std::max(work, rows * (isBlockPerRow(rowLength, blockSize)
                                    ? static_cast<int64_t>(blockSize)
                                    : 32));

  // Vector accesses where every nest over the row allows them and the
  // buffers are aligned (one uniform branch per launch), else scalar.
  bool vectorize = vectorWidth > 1 && trailing.back() % vectorWidth == 0;
  for (auto [op, kind] : kernel.ops)
    if (vectorize && (kind == NestKind::Phase || kind == NestKind::Domain))
      for (OpOperand &operand : op->getOpOperands())
        vectorize &= isVectorizableOperand(cast<linalg::LinalgOp>(op), operand);
  if (!vectorize) {
    emitRowLoop(kernel, mapping, 1);
    return;
  }
  Value aligned = arith::ConstantIntOp::create(b, loc, 1, 1);
  for (auto [op, kind] : kernel.ops)
    if (kind == NestKind::Phase || kind == NestKind::Domain)
      aligned = arith::AndIOp::create(
          b, loc, aligned,
          emitAlignmentCheck(cast<linalg::LinalgOp>(op), mapping));
  auto branch = scf::IfOp::create(b, loc, aligned, /*withElse=*/true);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(branch.thenBlock());
  emitRowLoop(kernel, mapping, vectorWidth);
  b.setInsertionPointToStart(branch.elseBlock());
  emitRowLoop(kernel, mapping, 1);
}

void KernelBuilder::emitRowLoop(const RowKernel &kernel, IRMapping &mapping,
                                int64_t width) {
  int64_t k = kernel.k;
  RowShape shape = getRowShape(kernel);
  int64_t rows = shape.rows, rowLength = shape.rowLength;
  ArrayRef<int64_t> trailing = shape.trailing;
  bool perBlock = isBlockPerRow(rowLength, blockSize);
  auto vectorType = VectorType::get({width}, b.getF32Type());
  auto alignment = llvm::MaybeAlign(width * 4);

  auto [unit, units, member, unitSize] = emitReductionUnit(perBlock);
  // A thread's first element of the row and its step: `width` at a time.
  Value firstElement = member, elementStep = unitSize;
  if (width > 1) {
    firstElement = arith::MulIOp::create(b, loc, member, index(width));
    elementStep = arith::MulIOp::create(b, loc, unitSize, index(width));
  }
  auto rowLoop = scf::ForOp::create(b, loc, unit, index(rows), units);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(rowLoop.getBody());
  SmallVector<int64_t> rowDims, trailingDims, loopRanges(kernel.rows);
  for (int64_t d = 0; d < k; ++d)
    rowDims.push_back(d);
  for (auto [i, size] : llvm::enumerate(trailing)) {
    trailingDims.push_back(k + static_cast<int64_t>(i));
    loopRanges.push_back(size);
  }
  SmallVector<Value> rowIvs(k);
  delinearize(rowLoop.getInductionVar(), rowDims, loopRanges, rowIvs);
  Value isFirst =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, member, index(0));

  // The row's values by the kernel's buffer that holds them; fills that
  // no later op overwrites are stored last.
  llvm::DenseMap<Value, Value> rowValues;
  llvm::SetVector<Value> unstoredFills;
  auto storeRowValue = [&](Value buffer, Value value) {
    rowValues[buffer] = value;
    unstoredFills.remove(buffer);
    auto store = scf::IfOp::create(b, loc, isFirst, /*withElse=*/false);
    OpBuilder::InsertionGuard inner(b);
    b.setInsertionPointToStart(store.thenBlock());
    memref::StoreOp::create(b, loc, value, mapping.lookupOrDefault(buffer),
                            rowIvs);
  };
  // `lanes`: the elements of the row a thread takes at once (1 for a nest
  // over the rows, which has no row elements).
  auto load = [&](linalg::GenericOp op, OpOperand &operand, ArrayRef<Value> ivs,
                  int64_t lanes) -> Value {
    Value source = mapping.lookupOrDefault(operand.get());
    if (!isa<MemRefType>(source.getType()))
      return source;
    AffineMap map = op.getMatchingIndexingMap(&operand);
    if (Value known = rowValues.lookup(operand.get());
        known && isRowIdentity(map, k))
      return known;
    if (lanes > 1 && isContiguous(op, operand))
      return vector::LoadOp::create(b, loc, vectorType, source,
                                    applyMap(map, ivs), false, alignment);
    return memref::LoadOp::create(b, loc, source, applyMap(map, ivs));
  };
  // Lane `lane` of an argument: an element of a vector, or the value the
  // lanes share.
  auto laneOf = [&](ArrayRef<Value> args, int64_t lane) {
    SmallVector<Value> result;
    for (Value v : args)
      result.push_back(v && isa<VectorType>(v.getType())
                           ? Value(vector::ExtractOp::create(b, loc, v, lane))
                           : v);
    return result;
  };
  // The payload's arguments at `ivs` (none for those it does not read).
  auto loadArgs = [&](linalg::GenericOp op, ArrayRef<Value> ivs,
                      int64_t lanes) {
    SmallVector<Value> args;
    for (OpOperand &operand : op->getOpOperands())
      args.push_back(
          op.getBody()->getArgument(operand.getOperandNumber()).use_empty()
              ? Value()
              : load(op, operand, ivs, lanes));
    return args;
  };
  // Element `j` of the row: the loop ivs.
  auto rowElement = [&](Value j) {
    SmallVector<Value> ivs(rowIvs);
    ivs.resize(k + trailing.size());
    delinearize(j, trailingDims, loopRanges, ivs);
    return ivs;
  };

  for (auto [op, kind] : kernel.ops) {
    if (kind == NestKind::Fill) {
      auto fill = cast<linalg::FillOp>(op);
      rowValues[fill.getOutputs()[0]] =
          mapping.lookupOrDefault(fill.getInputs()[0]);
      unstoredFills.insert(fill.getOutputs()[0]);
      continue;
    }
    auto generic = cast<linalg::GenericOp>(op);
    if (kind == NestKind::Rows) {
      for (auto [init, value] : llvm::zip(
               generic.getDpsInitsMutable(),
               emitPayload(generic, loadArgs(generic, rowIvs, 1), mapping)))
        storeRowValue(init.get(), value);
      continue;
    }
    if (kind == NestKind::Domain) {
      auto loop = scf::ForOp::create(b, loc, firstElement, index(rowLength),
                                     elementStep);
      OpBuilder::InsertionGuard inner(b);
      b.setInsertionPointToStart(loop.getBody());
      SmallVector<Value> ivs = rowElement(loop.getInductionVar());
      SmallVector<Value> args = loadArgs(generic, ivs, width);
      // The payload once per lane; the outputs (over the whole row,
      // contiguous) stored at once.
      SmallVector<SmallVector<Value>> lanes(generic.getNumDpsInits());
      for (int64_t lane = 0; lane < width; ++lane)
        for (auto [o, value] :
             llvm::enumerate(emitPayload(generic, laneOf(args, lane), mapping)))
          lanes[o].push_back(value);
      for (auto [init, values] :
           llvm::zip(generic.getDpsInitsMutable(), lanes)) {
        Value buffer = mapping.lookupOrDefault(init.get());
        SmallVector<Value> at =
            applyMap(generic.getMatchingIndexingMap(&init), ivs);
        if (width == 1)
          memref::StoreOp::create(b, loc, values.front(), buffer, at);
        else
          vector::StoreOp::create(
              b, loc,
              vector::FromElementsOp::create(b, loc, vectorType, values),
              buffer, at, false, alignment);
      }
      continue;
    }

    // A phase: each thread's share from the identities, then the unit's.
    auto combiners = *getCombiners(generic);
    SmallVector<Value> starts, identities;
    for (auto [init, combiner] :
         llvm::zip(generic.getDpsInitsMutable(), combiners)) {
      Value known = rowValues.lookup(init.get());
      starts.push_back(
          known ? known
                : memref::LoadOp::create(
                      b, loc, mapping.lookupOrDefault(init.get()), rowIvs)
                      .getResult());
      identities.push_back(arith::ConstantOp::create(
          b, loc, b.getF32FloatAttr(getReductionIdentity(combiner.second))));
    }
    auto shares = scf::ForOp::create(b, loc, firstElement, index(rowLength),
                                     elementStep, identities);
    {
      OpBuilder::InsertionGuard inner(b);
      b.setInsertionPointToStart(shares.getBody());
      SmallVector<Value> ivs = rowElement(shares.getInductionVar());
      SmallVector<Value> inputs;
      for (OpOperand *input : generic.getDpsInputOperands())
        inputs.push_back(load(generic, *input, ivs, width));
      // The lanes accumulate one after another.
      SmallVector<Value> accumulators(shares.getRegionIterArgs());
      for (int64_t lane = 0; lane < width; ++lane) {
        SmallVector<Value> args = laneOf(inputs, lane);
        llvm::append_range(args, accumulators);
        accumulators = emitPayload(generic, args, mapping);
      }
      scf::YieldOp::create(b, loc, accumulators);
    }
    for (auto [i, init] : llvm::enumerate(generic.getDpsInitsMutable())) {
      auto [combiner, reduction] = combiners[i];
      Value total = gpu::SubgroupReduceOp::create(b, loc, shares.getResult(i),
                                                  reduction, /*uniform=*/true);
      if (perBlock)
        total = emitCrossWarpReduction(total, identities[i], reduction);
      // The row value's start joins once, by the same op.
      OperationState state(loc, combiner->getName());
      state.addOperands({starts[i], total});
      state.addTypes(total.getType());
      state.addAttributes(combiner->getAttrs());
      storeRowValue(init.get(), b.create(state)->getResult(0));
    }
  }
  for (Value buffer : llvm::to_vector(unstoredFills))
    storeRowValue(buffer, rowValues.lookup(buffer));
}
