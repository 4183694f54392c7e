//===- GpuReductions.cpp - warp and block reductions of a GPU kernel ------===//
//
// Row reductions with a warp (or a block) per output: each lane strides
// over the row, the warp combines with a subgroup reduction (shuffles on the
// GPU), and a block's warps combine through shared memory.
//
//===----------------------------------------------------------------------===//

#include "KernelBuilder.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "llvm/ADT/TypeSwitch.h"

#include <limits>

using namespace mlir;
using namespace kiln::gpu_mapper;

std::optional<gpu::AllReduceOperation>
kiln::gpu_mapper::getCombinerKind(Operation *combiner) {
  return llvm::TypeSwitch<Operation *, std::optional<gpu::AllReduceOperation>>(
             combiner)
      .Case([](arith::AddFOp) { return gpu::AllReduceOperation::ADD; })
      .Case([](arith::MulFOp) { return gpu::AllReduceOperation::MUL; })
      .Case([](arith::MaximumFOp) { return gpu::AllReduceOperation::MAXIMUMF; })
      .Case([](arith::MinimumFOp) { return gpu::AllReduceOperation::MINIMUMF; })
      .Case([](arith::MaxNumFOp) { return gpu::AllReduceOperation::MAXNUMF; })
      .Case([](arith::MinNumFOp) { return gpu::AllReduceOperation::MINNUMF; })
      .Default([](Operation *) { return std::nullopt; });
}

std::optional<std::pair<Operation *, gpu::AllReduceOperation>>
kiln::gpu_mapper::getShuffleReduction(linalg::LinalgOp op,
                                      ArrayRef<int64_t> ranges,
                                      unsigned blockSize) {
  unsigned numLoops = op.getNumLoops();
  // Whole warps only: lane ids and warp indices must agree.
  if (blockSize % 32 != 0 || numLoops == 0 || op.getNumReductionLoops() == 0 ||
      op.getNumDpsInits() != 1 ||
      !isa<linalg::GenericOp, linalg::ReduceOp>(op.getOperation()))
    return std::nullopt;
  // Parallel dims first, then the reduction dims.
  unsigned firstReduction = getFirstReductionDim(op);
  for (auto [d, type] : llvm::enumerate(op.getIteratorTypesArray()))
    if ((type == utils::IteratorType::reduction) != (d >= firstReduction))
      return std::nullopt;
  // The output is indexed by the parallel dims alone.
  AffineMap outputMap = op.getMatchingIndexingMap(&op.getDpsInitsMutable()[0]);
  if (!outputMap.isProjectedPermutation())
    return std::nullopt;
  for (unsigned d = firstReduction; d < numLoops; ++d)
    if (outputMap.isFunctionOfDim(d))
      return std::nullopt;
  // At least a warp of elements per output.
  if (getReductionLength(op, ranges) < 32)
    return std::nullopt;
  Block &body = op->getRegion(0).front();
  BlockArgument accumulator = body.getArguments().back();
  // 32-bit values: warp shuffles move 32 bits.
  if (!accumulator.getType().isF32())
    return std::nullopt;
  if (!accumulator.hasOneUse())
    return std::nullopt;
  Operation *combiner = body.getTerminator()->getOperand(0).getDefiningOp();
  if (!combiner || combiner != *accumulator.getUsers().begin() ||
      combiner->getNumOperands() != 2)
    return std::nullopt;
  std::optional<gpu::AllReduceOperation> kind = getCombinerKind(combiner);
  if (!kind)
    return std::nullopt;
  return std::make_pair(combiner, *kind);
}

unsigned kiln::gpu_mapper::getFirstReductionDim(linalg::LinalgOp op) {
  unsigned first = op.getNumLoops();
  while (first > 0 && op.getIteratorTypesArray()[first - 1] ==
                          utils::IteratorType::reduction)
    --first;
  return first;
}

int64_t kiln::gpu_mapper::getReductionLength(linalg::LinalgOp op,
                                             ArrayRef<int64_t> ranges) {
  int64_t length = 1;
  for (unsigned d = getFirstReductionDim(op); d < ranges.size(); ++d)
    length *= ranges[d];
  return length;
}

double kiln::gpu_mapper::getReductionIdentity(gpu::AllReduceOperation kind) {
  switch (kind) {
  case gpu::AllReduceOperation::MUL:
    return 1.0;
  case gpu::AllReduceOperation::MAXIMUMF:
  case gpu::AllReduceOperation::MAXNUMF:
    return -std::numeric_limits<double>::infinity();
  case gpu::AllReduceOperation::MINIMUMF:
  case gpu::AllReduceOperation::MINNUMF:
    return std::numeric_limits<double>::infinity();
  default:
    return 0.0;
  }
}

Value KernelBuilder::getWarpSlots() {
  if (!warpSlots) {
    auto workgroup = gpu::AddressSpaceAttr::get(b.getContext(),
                                                gpu::AddressSpace::Workgroup);
    warpSlots = func.addWorkgroupAttribution(
        MemRefType::get({kMaxWarpsPerBlock}, b.getF32Type(),
                        MemRefLayoutAttrInterface(), workgroup),
        loc);
  }
  return warpSlots;
}

Value KernelBuilder::emitCrossWarpReduction(Value warpTotal, Value identity,
                                            gpu::AllReduceOperation kind) {
  Value slots = getWarpSlots();
  Value warpSize = gpu::SubgroupSizeOp::create(b, loc, /*upper_bound=*/nullptr);
  Value lane = gpu::LaneIdOp::create(b, loc, /*upper_bound=*/nullptr);
  Value thread = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  Value blockDim = gpu::BlockDimOp::create(b, loc, gpu::Dimension::x);
  Value warp = arith::DivUIOp::create(b, loc, thread, warpSize);
  Value warps = arith::CeilDivUIOp::create(b, loc, blockDim, warpSize);
  Value isFirstLane =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, lane, index(0));
  {
    auto publish = scf::IfOp::create(b, loc, isFirstLane, /*withElse=*/false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(publish.thenBlock());
    memref::StoreOp::create(b, loc, warpTotal, slots, ValueRange{warp});
  }
  gpu::BarrierOp::create(b, loc);
  // Lane i takes warp i's total (lanes past the block's warps the identity;
  // a block has at most a warp of warps).
  Value slot =
      arith::MinUIOp::create(b, loc, lane, index(kMaxWarpsPerBlock - 1));
  Value published = memref::LoadOp::create(b, loc, slots, ValueRange{slot});
  Value hasWarp =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, lane, warps);
  Value share = arith::SelectOp::create(b, loc, hasWarp, published, identity);
  Value total = gpu::SubgroupReduceOp::create(b, loc, share, kind,
                                              /*uniform=*/true);
  gpu::BarrierOp::create(b, loc);
  return total;
}

KernelBuilder::ReductionUnit KernelBuilder::emitReductionUnit(bool perBlock) {
  ReductionUnit result;
  if (perBlock) {
    result.unit = gpu::BlockIdOp::create(b, loc, gpu::Dimension::x);
    result.units = gpu::GridDimOp::create(b, loc, gpu::Dimension::x);
    result.member = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
    result.size = gpu::BlockDimOp::create(b, loc, gpu::Dimension::x);
    return result;
  }
  result.size = gpu::SubgroupSizeOp::create(b, loc, /*upper_bound=*/nullptr);
  result.unit = arith::DivUIOp::create(b, loc, first, result.size);
  result.units = arith::DivUIOp::create(b, loc, stride, result.size);
  result.member = gpu::LaneIdOp::create(b, loc, /*upper_bound=*/nullptr);
  return result;
}

SmallVector<Value> KernelBuilder::loadInputs(linalg::LinalgOp op,
                                             IRMapping &mapping,
                                             ArrayRef<Value> ivs) {
  SmallVector<Value> values;
  for (OpOperand *input : op.getDpsInputOperands())
    values.push_back(memref::LoadOp::create(
        b, loc, mapping.lookupOrDefault(input->get()),
        applyMap(op.getMatchingIndexingMap(input), ivs)));
  return values;
}

void KernelBuilder::emitShuffleReduction(
    const Nest &nest, ArrayRef<int64_t> ranges, IRMapping &mapping,
    Operation *combiner, gpu::AllReduceOperation kind, bool perBlock) {
  linalg::LinalgOp op = nest.op;
  unsigned innermost = op.getNumLoops() - 1;
  unsigned firstReduction = getFirstReductionDim(op);
  SmallVector<int64_t> parallelDims;
  for (unsigned d = 0; d < firstReduction; ++d)
    parallelDims.push_back(d);
  int64_t outputs = 1;
  for (int64_t d : parallelDims)
    outputs *= ranges[d];
  bool parts = nest.phase == Nest::Phase::Parts;
  int64_t length = getReductionLength(op, ranges);
  // A part's elements (the last part may have fewer).
  int64_t chunk = parts ? (length + nest.parts - 1) / nest.parts : length;
  auto [unit, units, member, unitSize] = emitReductionUnit(perBlock);
  auto loop = scf::ForOp::create(
      b, loc, unit, index(outputs * (parts ? nest.parts : 1)), units);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(loop.getBody());
  SmallVector<Value> ivs(op.getNumLoops());
  Value output = loop.getInductionVar(), begin = member, end = index(length);
  if (parts) {
    // Unit u takes part u % parts of output u / parts.
    Value count = index(nest.parts);
    output = arith::DivUIOp::create(b, loc, loop.getInductionVar(), count);
    Value offset = arith::MulIOp::create(
        b, loc, arith::RemUIOp::create(b, loc, loop.getInductionVar(), count),
        index(chunk));
    begin = arith::AddIOp::create(b, loc, offset, member);
    end = arith::MinUIOp::create(
        b, loc, arith::AddIOp::create(b, loc, offset, index(chunk)), end);
  }
  if (!parallelDims.empty())
    delinearize(output, parallelDims, ranges, ivs);

  OpOperand &init = op.getDpsInitsMutable()[0];
  Type type = cast<MemRefType>(init.get().getType()).getElementType();
  Value start = parts ? Value() : emitStart(nest, mapping, ivs);
  Value identity = arith::ConstantOp::create(
      b, loc, b.getFloatAttr(type, getReductionIdentity(kind)));
  // Each thread's share: the payload from the identity, striding by the
  // unit's size over the reduction dims flattened (the innermost varies
  // fastest: adjacent lanes read adjacent elements, and a short innermost
  // dim leaves no lane idle).
  SmallVector<int64_t> reductionDims;
  for (unsigned d = firstReduction; d <= innermost; ++d)
    reductionDims.push_back(d);
  auto shares =
      scf::ForOp::create(b, loc, begin, end, unitSize, ValueRange{identity});
  {
    OpBuilder::InsertionGuard inner(b);
    b.setInsertionPointToStart(shares.getBody());
    delinearize(shares.getInductionVar(), reductionDims, ranges, ivs);
    SmallVector<Value> args = loadInputs(op, mapping, ivs);
    args.push_back(shares.getRegionIterArgs()[0]);
    scf::YieldOp::create(b, loc, emitPayload(op, args, mapping));
  }
  Value share = shares.getResult(0);
  Value total =
      gpu::SubgroupReduceOp::create(b, loc, share, kind, /*uniform=*/true);
  if (perBlock)
    total = emitCrossWarpReduction(total, identity, kind);
  // The output's own value joins once, by the same op (a part's total is
  // stored as it is).
  Value result = parts ? total : emitCombine(combiner, start, total);
  Value isFirst =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, member, index(0));
  auto store = scf::IfOp::create(b, loc, isFirst, /*withElse=*/false);
  b.setInsertionPointToStart(store.thenBlock());
  if (parts)
    memref::StoreOp::create(b, loc, result, func.getArgument(nest.partials),
                            ValueRange{loop.getInductionVar()});
  else
    memref::StoreOp::create(b, loc, result, mapping.lookupOrDefault(init.get()),
                            applyMap(op.getMatchingIndexingMap(&init), ivs));
}

Value KernelBuilder::emitCombine(Operation *combiner, Value lhs, Value rhs) {
  OperationState state(loc, combiner->getName());
  state.addOperands({lhs, rhs});
  state.addTypes(lhs.getType());
  state.addAttributes(combiner->getAttrs());
  return b.create(state)->getResult(0);
}

Value KernelBuilder::emitStart(const Nest &nest, IRMapping &mapping,
                               ArrayRef<Value> ivs) {
  linalg::LinalgOp op = nest.op;
  OpOperand &init = op.getDpsInitsMutable()[0];
  if (nest.fill)
    return mapping.lookupOrDefault(linalg::FillOp(nest.fill).getInputs()[0]);
  return memref::LoadOp::create(
      b, loc, mapping.lookupOrDefault(init.get()),
      applyMap(op.getMatchingIndexingMap(&init), ivs));
}

void KernelBuilder::emitSplitTotal(const Nest &nest, ArrayRef<int64_t> ranges,
                                   IRMapping &mapping, Operation *combiner,
                                   gpu::AllReduceOperation kind) {
  linalg::LinalgOp op = nest.op;
  SmallVector<int64_t> parallelDims;
  int64_t outputs = 1;
  for (unsigned d = 0; d < getFirstReductionDim(op); ++d) {
    parallelDims.push_back(d);
    outputs *= ranges[d];
  }
  auto [unit, units, member, unitSize] = emitReductionUnit(/*perBlock=*/true);
  auto loop = scf::ForOp::create(b, loc, unit, index(outputs), units);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(loop.getBody());
  SmallVector<Value> ivs(op.getNumLoops());
  if (!parallelDims.empty())
    delinearize(loop.getInductionVar(), parallelDims, ranges, ivs);
  Value start = emitStart(nest, mapping, ivs);
  Value identity = arith::ConstantOp::create(
      b, loc, b.getFloatAttr(start.getType(), getReductionIdentity(kind)));
  // The output's partials are adjacent: [output * parts, + parts).
  Value partials = func.getArgument(nest.partials);
  Value base =
      arith::MulIOp::create(b, loc, loop.getInductionVar(), index(nest.parts));
  auto shares = scf::ForOp::create(b, loc, member, index(nest.parts), unitSize,
                                   ValueRange{identity});
  {
    OpBuilder::InsertionGuard inner(b);
    b.setInsertionPointToStart(shares.getBody());
    Value partial =
        memref::LoadOp::create(b, loc, partials,
                               ValueRange{arith::AddIOp::create(
                                   b, loc, base, shares.getInductionVar())});
    scf::YieldOp::create(
        b, loc, emitCombine(combiner, partial, shares.getRegionIterArgs()[0]));
  }
  Value total = gpu::SubgroupReduceOp::create(b, loc, shares.getResult(0), kind,
                                              /*uniform=*/true);
  total = emitCrossWarpReduction(total, identity, kind);
  Value result = emitCombine(combiner, start, total);
  Value isFirst =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, member, index(0));
  auto store = scf::IfOp::create(b, loc, isFirst, /*withElse=*/false);
  b.setInsertionPointToStart(store.thenBlock());
  OpOperand &init = op.getDpsInitsMutable()[0];
  memref::StoreOp::create(b, loc, result, mapping.lookupOrDefault(init.get()),
                          applyMap(op.getMatchingIndexingMap(&init), ivs));
}

std::optional<ColumnReduction> kiln::gpu_mapper::getColumnReduction(
    linalg::LinalgOp op, ArrayRef<int64_t> ranges, unsigned blockSize) {
  if (!isa<linalg::GenericOp, linalg::ReduceOp>(op.getOperation()) ||
      blockSize < 64 || blockSize % 32 != 0 ||
      llvm::any_of(ranges, ShapedType::isDynamic))
    return std::nullopt;
  ColumnReduction column;
  unsigned numLoops = op.getNumLoops();
  op.getParallelDims(column.parallel);
  op.getReductionDims(column.reduction);
  if (column.parallel.empty() || column.reduction.empty() ||
      column.parallel.size() + column.reduction.size() != numLoops)
    return std::nullopt;
  auto readsAlongReduction = [&](AffineMap map) {
    return llvm::any_of(column.reduction,
                        [&](unsigned d) { return map.isFunctionOfDim(d); });
  };
  bool anyInput = false;
  for (OpOperand *input : op.getDpsInputOperands()) {
    AffineMap map = op.getMatchingIndexingMap(input);
    if (!readsAlongReduction(map))
      continue;
    auto last = map.getNumResults()
                    ? dyn_cast<AffineDimExpr>(map.getResults().back())
                    : nullptr;
    if (!last || last.getPosition() != column.parallel.back())
      return std::nullopt;
    anyInput = true;
  }
  if (!anyInput)
    return std::nullopt;
  for (unsigned d : column.reduction)
    column.rows *= ranges[d];
  for (unsigned d : column.parallel)
    column.columns *= ranges[d];
  // Worth it where a thread per output would leave most of the device idle
  // (fewer than 256 blocks of 256) and each warp of a block gets rows to
  // itself (8 or more each, at 8 warps).
  if (column.rows < kColumnFormMinRows ||
      column.columns >= kColumnFormMaxColumns)
    return std::nullopt;
  Block &body = op->getRegion(0).front();
  for (OpOperand &init : op.getDpsInitsMutable()) {
    AffineMap map = op.getMatchingIndexingMap(&init);
    if (readsAlongReduction(map)) // written at every step
      continue;
    if (column.accumulated || !map.isProjectedPermutation())
      return std::nullopt;
    column.accumulated = &init;
    unsigned result = init.getOperandNumber() - op.getNumDpsInputs();
    BlockArgument accumulator = body.getArgument(init.getOperandNumber());
    Operation *combiner =
        body.getTerminator()->getOperand(result).getDefiningOp();
    // The running total feeds nothing but the output (another output
    // that read it would see a warp's partial, not the running value).
    if (!combiner || !accumulator.hasOneUse() ||
        *accumulator.getUsers().begin() != combiner ||
        combiner->getNumOperands() != 2 || !getCombinerKind(combiner) ||
        !combiner->getResult(0).hasOneUse())
      return std::nullopt;
    column.combiner = combiner;
    column.kind = *getCombinerKind(combiner);
  }
  if (!column.accumulated)
    return std::nullopt;
  Type type =
      cast<MemRefType>(column.accumulated->get().getType()).getElementType();
  if (!type.isF32() && !type.isF64())
    return std::nullopt;
  return column;
}

bool KernelBuilder::emitColumnReduction(const Nest &nest,
                                        ArrayRef<int64_t> ranges,
                                        IRMapping &mapping) {
  linalg::LinalgOp op = nest.op;
  std::optional<ColumnReduction> found =
      getColumnReduction(op, ranges, blockSize);
  if (!found)
    return false;
  if (nest.phase == Nest::Phase::Total) {
    emitColumnTotal(nest, *found, mapping);
    return true;
  }
  unsigned numLoops = op.getNumLoops();
  const SmallVector<unsigned> &parallel = found->parallel;
  const SmallVector<unsigned> &reduction = found->reduction;
  OpOperand *accumulated = found->accumulated;
  Operation *combiner = found->combiner;
  gpu::AllReduceOperation kind = found->kind;
  int64_t rows = found->rows, columns = found->columns;
  Type type = cast<MemRefType>(accumulated->get().getType()).getElementType();
  // A split's parts: each block takes a tile and a part of the rows.
  bool split = nest.phase == Nest::Phase::Parts;
  int64_t parts = split ? nest.parts : 1;
  int64_t chunk = (rows + parts - 1) / parts;

  // Tiles of a warp's width of columns; the block's warps split the rows.
  // In emulation (a block of one thread) a tile is one column, all rows.
  Value width = gpu::SubgroupSizeOp::create(b, loc, /*upper_bound=*/nullptr);
  Value thread = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  Value blockDim = gpu::BlockDimOp::create(b, loc, gpu::Dimension::x);
  Value lane = arith::RemUIOp::create(b, loc, thread, width);
  Value rowLane = arith::DivUIOp::create(b, loc, thread, width);
  Value rowLanes = arith::DivUIOp::create(b, loc, blockDim, width);
  Value tiles = arith::CeilDivUIOp::create(b, loc, index(columns), width);
  Value block = gpu::BlockIdOp::create(b, loc, gpu::Dimension::x);
  Value grid = gpu::GridDimOp::create(b, loc, gpu::Dimension::x);
  work = std::max(work, ((columns + 31) / 32) * parts *
                            static_cast<int64_t>(blockSize));
  auto workgroup =
      gpu::AddressSpaceAttr::get(b.getContext(), gpu::AddressSpace::Workgroup);
  Value slots = func.addWorkgroupAttribution(
      MemRefType::get({blockSize}, type, MemRefLayoutAttrInterface(),
                      workgroup),
      loc);
  Value identity = arith::ConstantOp::create(
      b, loc, b.getFloatAttr(type, getReductionIdentity(kind)));
  auto combine = [&](Value lhs, Value rhs) {
    OperationState state(loc, combiner->getName());
    state.addOperands({lhs, rhs});
    state.addTypes(type);
    state.addAttributes(combiner->getAttrs());
    return b.create(state)->getResult(0);
  };

  // Unsplit, unit u is tile u; split, it takes tile u % tiles of part
  // u / tiles.
  Value units =
      split ? Value(arith::MulIOp::create(b, loc, tiles, index(parts))) : tiles;
  auto unitLoop = scf::ForOp::create(b, loc, block, units, grid);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(unitLoop.getBody());
  Value tile = unitLoop.getInductionVar(), part;
  if (split) {
    part = arith::DivUIOp::create(b, loc, tile, tiles);
    tile = arith::RemUIOp::create(b, loc, tile, tiles);
  }
  Value column = arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, tile, width), lane);
  Value inRange = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                        column, index(columns));
  SmallVector<int64_t> keptDims(parallel.begin(), parallel.end());
  SmallVector<int64_t> reductionDims(reduction.begin(), reduction.end());
  SmallVector<Value> ivs(numLoops);
  delinearize(column, keptDims, ranges, ivs);
  // This lane's rows (its part's, split): from its row lane, striding by
  // the block's row lanes (none past the last column).
  Value rowBegin = rowLane, rowsEnd = index(rows);
  if (split) {
    Value partBegin = arith::MulIOp::create(b, loc, part, index(chunk));
    rowBegin = arith::AddIOp::create(b, loc, partBegin, rowLane);
    rowsEnd = arith::MinUIOp::create(
        b, loc, arith::AddIOp::create(b, loc, partBegin, index(chunk)),
        rowsEnd);
  }
  Value rowEnd = arith::SelectOp::create(b, loc, inRange, rowsEnd, index(0));
  auto rowLoop = scf::ForOp::create(b, loc, rowBegin, rowEnd, rowLanes,
                                    ValueRange{identity});
  {
    OpBuilder::InsertionGuard inner(b);
    b.setInsertionPointToStart(rowLoop.getBody());
    delinearize(rowLoop.getInductionVar(), reductionDims, ranges, ivs);
    SmallVector<Value> args = loadInputs(op, mapping, ivs);
    for (OpOperand &init : op.getDpsInitsMutable())
      args.push_back(&init == accumulated ? rowLoop.getRegionIterArgs()[0]
                     : op.payloadUsesValueFromOperand(&init)
                         ? Value(memref::LoadOp::create(
                               b, loc, mapping.lookupOrDefault(init.get()),
                               applyMap(op.getMatchingIndexingMap(&init), ivs)))
                         : Value());
    SmallVector<Value> results = emitPayload(op, args, mapping);
    Value next;
    for (auto [init, value] : llvm::zip(op.getDpsInitsMutable(), results)) {
      if (&init == accumulated) {
        next = value;
        continue;
      }
      memref::StoreOp::create(b, loc, value,
                              mapping.lookupOrDefault(init.get()),
                              applyMap(op.getMatchingIndexingMap(&init), ivs));
    }
    scf::YieldOp::create(b, loc, next);
  }
  // The row lanes' partials through shared memory; row lane 0 combines them
  // in order (the same result on every run) with the output's start.
  memref::StoreOp::create(b, loc, rowLoop.getResult(0), slots,
                          ValueRange{thread});
  gpu::BarrierOp::create(b, loc);
  Value first = arith::AndIOp::create(
      b, loc, inRange,
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, rowLane,
                            index(0)));
  {
    auto store = scf::IfOp::create(b, loc, first, /*withElse=*/false);
    OpBuilder::InsertionGuard inner(b);
    b.setInsertionPointToStart(store.thenBlock());
    auto partials = scf::ForOp::create(b, loc, index(0), rowLanes, index(1),
                                       ValueRange{identity});
    {
      OpBuilder::InsertionGuard each(b);
      b.setInsertionPointToStart(partials.getBody());
      Value slot = arith::AddIOp::create(
          b, loc,
          arith::MulIOp::create(b, loc, partials.getInductionVar(), width),
          lane);
      Value partial = memref::LoadOp::create(b, loc, slots, ValueRange{slot});
      scf::YieldOp::create(b, loc,
                           combine(partials.getRegionIterArgs()[0], partial));
    }
    if (split) {
      // The part's total, as it is: the start joins in the total phase.
      Value slot = arith::AddIOp::create(
          b, loc, arith::MulIOp::create(b, loc, part, index(columns)), column);
      memref::StoreOp::create(b, loc, partials.getResult(0),
                              func.getArgument(nest.partials),
                              ValueRange{slot});
    } else {
      unsigned output = accumulated->getOperandNumber() - op.getNumDpsInputs();
      SmallVector<Value> at =
          applyMap(op.getMatchingIndexingMap(accumulated), ivs);
      Value start =
          nest.fill && nest.fillOutput == output
              ? mapping.lookupOrDefault(
                    linalg::FillOp(nest.fill).getInputs()[0])
              : Value(memref::LoadOp::create(
                    b, loc, mapping.lookupOrDefault(accumulated->get()), at));
      memref::StoreOp::create(b, loc, combine(start, partials.getResult(0)),
                              mapping.lookupOrDefault(accumulated->get()), at);
    }
  }
  // The slots are read before the next tile writes them.
  gpu::BarrierOp::create(b, loc);
  return true;
}

void KernelBuilder::emitColumnTotal(const Nest &nest,
                                    const ColumnReduction &column,
                                    IRMapping &mapping) {
  linalg::LinalgOp op = nest.op;
  OpOperand *accumulated = column.accumulated;
  Type type = cast<MemRefType>(accumulated->get().getType()).getElementType();
  work = std::max(work, column.columns);
  // A thread per output, grid-striding; its partials are a column of the
  // [part][column] buffer, which adjacent threads read coalesced.
  auto loop = scf::ForOp::create(b, loc, first, index(column.columns), stride);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(loop.getBody());
  Value partials = func.getArgument(nest.partials);
  Value identity = arith::ConstantOp::create(
      b, loc, b.getFloatAttr(type, getReductionIdentity(column.kind)));
  auto sum = scf::ForOp::create(b, loc, index(0), index(nest.parts), index(1),
                                ValueRange{identity});
  {
    OpBuilder::InsertionGuard inner(b);
    b.setInsertionPointToStart(sum.getBody());
    Value slot = arith::AddIOp::create(
        b, loc,
        arith::MulIOp::create(b, loc, sum.getInductionVar(),
                              index(column.columns)),
        loop.getInductionVar());
    Value partial = memref::LoadOp::create(b, loc, partials, ValueRange{slot});
    scf::YieldOp::create(
        b, loc,
        emitCombine(column.combiner, sum.getRegionIterArgs()[0], partial));
  }
  SmallVector<Value> ivs(op.getNumLoops());
  SmallVector<int64_t> keptDims(column.parallel.begin(), column.parallel.end());
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  delinearize(loop.getInductionVar(), keptDims, ranges, ivs);
  unsigned output = accumulated->getOperandNumber() - op.getNumDpsInputs();
  SmallVector<Value> at = applyMap(op.getMatchingIndexingMap(accumulated), ivs);
  Value start =
      nest.fill && nest.fillOutput == output
          ? mapping.lookupOrDefault(linalg::FillOp(nest.fill).getInputs()[0])
          : Value(memref::LoadOp::create(
                b, loc, mapping.lookupOrDefault(accumulated->get()), at));
  memref::StoreOp::create(b, loc,
                          emitCombine(column.combiner, start, sum.getResult(0)),
                          mapping.lookupOrDefault(accumulated->get()), at);
}
