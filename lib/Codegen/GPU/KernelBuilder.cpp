//===- KernelBuilder.cpp - grid-stride loops of a GPU kernel --------------===//

#include "KernelBuilder.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace kiln::gpu_mapper;

void KernelBuilder::delinearize(Value linear, ArrayRef<int64_t> dims,
                                ArrayRef<int64_t> ranges,
                                SmallVectorImpl<Value> &ivs) {
  delinearize(linear, dims, getAsIndexOpFoldResult(b.getContext(), ranges),
              ivs);
}

Value KernelBuilder::materialize(OpFoldResult size) {
  if (std::optional<int64_t> constant = getConstantIntValue(size))
    return index(*constant);
  return cast<Value>(size);
}

void KernelBuilder::delinearize(Value linear, ArrayRef<int64_t> dims,
                                ArrayRef<OpFoldResult> ranges,
                                SmallVectorImpl<Value> &ivs) {
  // The innermost dim varies fastest.
  Value rest = linear;
  for (size_t i = dims.size(); i-- > 0;) {
    if (i == 0) {
      ivs[dims[i]] = rest;
      break;
    }
    Value size_v = materialize(ranges[dims[i]]);
    ivs[dims[i]] = arith::RemUIOp::create(b, loc, rest, size_v);
    rest = arith::DivUIOp::create(b, loc, rest, size_v);
  }
}

SmallVector<Value> KernelBuilder::applyMap(AffineMap map, ArrayRef<Value> ivs) {
  SmallVector<Value> indices;
  for (AffineExpr expr : map.getResults()) {
    if (auto dim = dyn_cast<AffineDimExpr>(expr))
      indices.push_back(ivs[dim.getPosition()]);
    else if (auto constant = dyn_cast<AffineConstantExpr>(expr))
      indices.push_back(index(constant.getValue()));
    else {
      // Dims the expression does not use may have no value yet here.
      SmallVector<Value> operands;
      for (auto [d, iv] : llvm::enumerate(ivs))
        operands.push_back(iv && expr.isFunctionOfDim(d) ? iv : index(0));
      indices.push_back(affine::AffineApplyOp::create(
          b, loc, AffineMap::get(map.getNumDims(), 0, expr), operands));
    }
  }
  return indices;
}

bool KernelBuilder::isContiguous(linalg::LinalgOp op, OpOperand &operand) {
  AffineMap map = op.getMatchingIndexingMap(&operand);
  unsigned innermost = op.getNumLoops() - 1;
  return map.getNumResults() > 0 &&
         llvm::any_of(map.getResults(), [&](AffineExpr e) {
           return e.isFunctionOfDim(innermost);
         });
}

bool KernelBuilder::isVectorizableOperand(linalg::LinalgOp op,
                                          OpOperand &operand) {
  auto type = dyn_cast<MemRefType>(operand.get().getType());
  if (!type)
    return op.isDpsInput(&operand); // a scalar (a fill's value)
  if (!type.getElementType().isF32())
    return false;
  if (!isContiguous(op, operand))
    return true; // a broadcast: one scalar per group
  // The innermost dim is the last index, alone, with unit stride; the
  // other strides keep each row's start aligned.
  unsigned innermost = op.getNumLoops() - 1;
  AffineMap map = op.getMatchingIndexingMap(&operand);
  auto last = dyn_cast<AffineDimExpr>(map.getResults().back());
  if (!last || last.getPosition() != innermost)
    return false;
  for (AffineExpr e : map.getResults().drop_back())
    if (e.isFunctionOfDim(innermost))
      return false;
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(type.getStridesAndOffset(strides, offset)) || strides.back() != 1)
    return false;
  for (int64_t stride : ArrayRef<int64_t>(strides).drop_back())
    if (ShapedType::isDynamic(stride) || stride % vectorWidth != 0)
      return false;
  return true;
}

bool KernelBuilder::canVectorize(linalg::LinalgOp op,
                                 ArrayRef<int64_t> ranges) {
  unsigned numLoops = op.getNumLoops();
  // The innermost size static (the outer ones may be dynamic: a batch).
  if (vectorWidth <= 1 || numLoops == 0 || op.getNumReductionLoops() != 0 ||
      ShapedType::isDynamic(ranges.back()) || ranges.back() % vectorWidth != 0)
    return false;
  for (OpOperand &operand : op->getOpOperands())
    if (!isVectorizableOperand(op, operand) ||
        // Every output element is written.
        (op.isDpsInit(&operand) && !isContiguous(op, operand)))
      return false;
  return true;
}

Value KernelBuilder::emitAlignmentCheck(linalg::LinalgOp op,
                                        IRMapping &mapping) {
  Value aligned = arith::ConstantIntOp::create(b, loc, 1, 1);
  int64_t bytes = static_cast<int64_t>(vectorWidth) * 4;
  for (OpOperand &operand : op->getOpOperands()) {
    if (!isa<MemRefType>(operand.get().getType()) || !isContiguous(op, operand))
      continue;
    Value buffer = mapping.lookup(operand.get());
    Value base = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, buffer);
    auto metadata = memref::ExtractStridedMetadataOp::create(b, loc, buffer);
    Value offsetBytes =
        arith::MulIOp::create(b, loc, metadata.getOffset(), index(4));
    Value address = arith::AddIOp::create(b, loc, base, offsetBytes);
    Value remainder = arith::RemUIOp::create(b, loc, address, index(bytes));
    Value isAligned = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                            remainder, index(0));
    aligned = arith::AndIOp::create(b, loc, aligned, isAligned);
  }
  return aligned;
}

SmallVector<Value> KernelBuilder::emitPayload(linalg::LinalgOp op,
                                              ArrayRef<Value> args,
                                              IRMapping &mapping,
                                              ArrayRef<Value> ivs) {
  Block &body = op->getRegion(0).front();
  IRMapping payload = mapping;
  for (auto [arg, value] : llvm::zip(body.getArguments(), args))
    if (value)
      payload.map(arg, value);
  for (Operation &inner : body.without_terminator()) {
    // linalg.index is the loop's induction variable (only the scalar loop,
    // which passes them, takes bodies that read it: emitNest).
    if (auto index = dyn_cast<linalg::IndexOp>(inner);
        index && index.getDim() < ivs.size()) {
      payload.map(index.getResult(), ivs[index.getDim()]);
      continue;
    }
    b.clone(inner, payload);
  }
  SmallVector<Value> yields;
  for (Value v : body.getTerminator()->getOperands())
    yields.push_back(payload.lookupOrDefault(v));
  return yields;
}

void KernelBuilder::emitScalarLoop(const Nest &nest,
                                   ArrayRef<OpFoldResult> ranges,
                                   IRMapping &mapping) {
  linalg::LinalgOp op = nest.op;
  SmallVector<unsigned> parallel, reduction;
  op.getParallelDims(parallel);
  op.getReductionDims(reduction);
  SmallVector<int64_t> parallelDims(parallel.begin(), parallel.end());
  SmallVector<int64_t> reductionDims(reduction.begin(), reduction.end());
  // The static sizes' product, times each dynamic one.
  int64_t staticElements = 1;
  SmallVector<Value> dynamicSizes;
  for (int64_t d : parallelDims) {
    if (std::optional<int64_t> size = getConstantIntValue(ranges[d]))
      staticElements *= *size;
    else
      dynamicSizes.push_back(cast<Value>(ranges[d]));
  }
  Value elements = index(staticElements);
  for (Value size : dynamicSizes)
    elements = arith::MulIOp::create(b, loc, elements, size);
  auto loop = scf::ForOp::create(b, loc, first, elements, stride);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(loop.getBody());
  SmallVector<Value> ivs(op.getNumLoops());
  delinearize(loop.getInductionVar(), parallelDims, ranges, ivs);

  Block &body = op->getRegion(0).front();
  auto loadOperand = [&](OpOperand &operand, ArrayRef<Value> at) -> Value {
    Value source = mapping.lookupOrDefault(operand.get());
    if (!isa<MemRefType>(source.getType()))
      return source; // a scalar input (a fill's value)
    return memref::LoadOp::create(
        b, loc, source, applyMap(op.getMatchingIndexingMap(&operand), at));
  };

  if (reductionDims.empty()) {
    SmallVector<Value> args;
    for (OpOperand &operand : op->getOpOperands()) {
      bool used = !body.getArgument(operand.getOperandNumber()).use_empty();
      args.push_back(used ? loadOperand(operand, ivs) : Value());
    }
    SmallVector<Value> results = isa<linalg::FillOp>(op.getOperation())
                                     ? SmallVector<Value>{args.front()}
                                     : emitPayload(op, args, mapping, ivs);
    for (auto [init, value] : llvm::zip(op.getDpsInitsMutable(), results))
      memref::StoreOp::create(b, loc, value,
                              mapping.lookupOrDefault(init.get()),
                              applyMap(op.getMatchingIndexingMap(&init), ivs));
    return;
  }

  // Outputs indexed by parallel dims only accumulate over the reduction
  // (from the fill, or from what they hold); the others (a reduction's
  // epilogue writing every element) are written at every step.
  auto involvesReduction = [&](AffineMap map) {
    return llvm::any_of(reductionDims, [&](int64_t d) {
      return llvm::any_of(map.getResults(),
                          [&](AffineExpr e) { return e.isFunctionOfDim(d); });
    });
  };
  SmallVector<OpOperand *> accumulated, perStep;
  SmallVector<Value> accumulators;
  for (auto [i, init] : llvm::enumerate(op.getDpsInitsMutable())) {
    if (involvesReduction(op.getMatchingIndexingMap(&init))) {
      perStep.push_back(&init);
      continue;
    }
    accumulated.push_back(&init);
    if (nest.fill && i == nest.fillOutput)
      accumulators.push_back(
          mapping.lookupOrDefault(linalg::FillOp(nest.fill).getInputs()[0]));
    else
      accumulators.push_back(loadOperand(init, ivs));
  }
  // One sequential loop per reduction dim, the accumulators carried.
  SmallVector<scf::ForOp> loops;
  SmallVector<Value> carried = accumulators;
  for (int64_t d : reductionDims) {
    auto inner = scf::ForOp::create(b, loc, index(0), materialize(ranges[d]),
                                    index(1), carried);
    loops.push_back(inner);
    b.setInsertionPointToStart(inner.getBody());
    ivs[d] = inner.getInductionVar();
    carried.assign(inner.getRegionIterArgs().begin(),
                   inner.getRegionIterArgs().end());
  }
  // Loops without accumulators got their terminator when built.
  if (carried.empty())
    b.setInsertionPoint(loops.back().getBody()->getTerminator());
  SmallVector<Value> args;
  for (OpOperand *input : op.getDpsInputOperands())
    args.push_back(loadOperand(*input, ivs));
  size_t nextCarried = 0;
  for (OpOperand &init : op.getDpsInitsMutable()) {
    if (llvm::is_contained(accumulated, &init))
      args.push_back(carried[nextCarried++]);
    else
      args.push_back(op.payloadUsesValueFromOperand(&init)
                         ? loadOperand(init, ivs)
                         : Value());
  }
  SmallVector<Value> results = emitPayload(op, args, mapping, ivs);
  SmallVector<Value> carriedResults;
  for (auto [init, value] : llvm::zip(op.getDpsInitsMutable(), results)) {
    if (llvm::is_contained(accumulated, &init))
      carriedResults.push_back(value);
    else
      memref::StoreOp::create(b, loc, value,
                              mapping.lookupOrDefault(init.get()),
                              applyMap(op.getMatchingIndexingMap(&init), ivs));
  }
  if (!carried.empty()) {
    scf::YieldOp::create(b, loc, carriedResults);
    for (size_t i = loops.size() - 1; i > 0; --i) {
      b.setInsertionPointToEnd(loops[i - 1].getBody());
      scf::YieldOp::create(b, loc, loops[i].getResults());
    }
  }
  b.setInsertionPointAfter(loops.front());
  for (auto [init, value] : llvm::zip(accumulated, loops.front().getResults()))
    memref::StoreOp::create(b, loc, value, mapping.lookupOrDefault(init->get()),
                            applyMap(op.getMatchingIndexingMap(init), ivs));
}

void KernelBuilder::emitVectorLoop(const Nest &nest,
                                   ArrayRef<OpFoldResult> ranges,
                                   IRMapping &mapping) {
  linalg::LinalgOp op = nest.op;
  unsigned numLoops = op.getNumLoops();
  SmallVector<int64_t> dims;
  for (unsigned d = 0; d < numLoops; ++d)
    dims.push_back(d);
  // Groups of `width`: the static sizes' product (the innermost one, a
  // multiple of the width, among them) over the width, times each dynamic
  // size.
  int64_t width = vectorWidth;
  int64_t staticElements = 1;
  SmallVector<Value> dynamicSizes;
  for (OpFoldResult r : ranges) {
    if (std::optional<int64_t> size = getConstantIntValue(r))
      staticElements *= *size;
    else
      dynamicSizes.push_back(cast<Value>(r));
  }
  Value groups = index(staticElements / width);
  for (Value size : dynamicSizes)
    groups = arith::MulIOp::create(b, loc, groups, size);
  auto loop = scf::ForOp::create(b, loc, first, groups, stride);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(loop.getBody());
  Value linear =
      arith::MulIOp::create(b, loc, loop.getInductionVar(), index(width));
  SmallVector<Value> ivs(numLoops);
  delinearize(linear, dims, ranges, ivs);
  auto alignment = llvm::MaybeAlign(width * 4);
  auto vectorType = VectorType::get({width}, b.getF32Type());

  // Per operand: a vector (contiguous) or one scalar for the group.
  Block &body = op->getRegion(0).front();
  SmallVector<Value> loaded;
  SmallVector<bool> isVector;
  for (OpOperand &operand : op->getOpOperands()) {
    bool used = !body.getArgument(operand.getOperandNumber()).use_empty() ||
                isa<linalg::FillOp>(op.getOperation());
    Value source = mapping.lookupOrDefault(operand.get());
    bool contiguous =
        isa<MemRefType>(source.getType()) && isContiguous(op, operand);
    isVector.push_back(contiguous);
    if (!used ||
        (op.isDpsInit(&operand) && !op.payloadUsesValueFromOperand(&operand))) {
      loaded.push_back(Value());
      continue;
    }
    if (!isa<MemRefType>(source.getType()))
      loaded.push_back(source);
    else if (contiguous)
      loaded.push_back(vector::LoadOp::create(
          b, loc, vectorType, source,
          applyMap(op.getMatchingIndexingMap(&operand), ivs), false,
          alignment));
    else
      loaded.push_back(memref::LoadOp::create(
          b, loc, source, applyMap(op.getMatchingIndexingMap(&operand), ivs)));
  }
  // The payload once per lane.
  unsigned numOutputs = op.getNumDpsInits();
  SmallVector<SmallVector<Value>> lanes(numOutputs);
  for (int64_t lane = 0; lane < width; ++lane) {
    SmallVector<Value> args;
    for (auto [value, vector] : llvm::zip(loaded, isVector))
      args.push_back(value && vector
                         ? Value(vector::ExtractOp::create(b, loc, value, lane))
                         : value);
    SmallVector<Value> results = isa<linalg::FillOp>(op.getOperation())
                                     ? SmallVector<Value>{args.front()}
                                     : emitPayload(op, args, mapping);
    for (unsigned o = 0; o < numOutputs; ++o)
      lanes[o].push_back(results[o]);
  }
  for (auto [o, init] : llvm::enumerate(op.getDpsInitsMutable())) {
    Value vector = vector::FromElementsOp::create(b, loc, vectorType, lanes[o]);
    vector::StoreOp::create(b, loc, vector, mapping.lookupOrDefault(init.get()),
                            applyMap(op.getMatchingIndexingMap(&init), ivs),
                            false, alignment);
  }
}

std::optional<SmallVector<OpFoldResult>>
KernelBuilder::getDynamicRanges(linalg::LinalgOp op, DynamicWork &work) {
  SmallVector<int64_t> staticRanges = op.getStaticLoopRanges();
  SmallVector<OpFoldResult> ranges;
  for (auto [d, size] : llvm::enumerate(staticRanges)) {
    bool parallel =
        op.getIteratorTypesArray()[d] == utils::IteratorType::parallel;
    if (!ShapedType::isDynamic(size)) {
      ranges.push_back(b.getIndexAttr(size));
      if (parallel)
        work.constant *= size;
      continue;
    }
    // An operand of the kernel's arguments whose index `r` is the loop dim
    // itself: its size there.
    std::optional<std::pair<unsigned, unsigned>> source;
    for (OpOperand &operand : op->getOpOperands()) {
      auto arg = dyn_cast<BlockArgument>(operand.get());
      if (!arg || !isa<MemRefType>(arg.getType()))
        continue;
      for (auto [r, e] :
           llvm::enumerate(op.getMatchingIndexingMap(&operand).getResults()))
        if (auto dim = dyn_cast<AffineDimExpr>(e);
            dim && dim.getPosition() == d && !source)
          source = {arg.getArgNumber(), static_cast<unsigned>(r)};
    }
    if (!source)
      return std::nullopt;
    Value buffer = func.getArgument(source->first);
    ranges.push_back(
        memref::DimOp::create(b, loc, buffer, source->second).getResult());
    if (parallel)
      work.dims.push_back(*source);
  }
  return ranges;
}

/// Whether `op`'s body reads its loop indices (linalg.index).
static bool readsLoopIndices(linalg::LinalgOp op) {
  return !op->getRegion(0).front().getOps<linalg::IndexOp>().empty();
}

FailureOr<bool> KernelBuilder::emitNest(const Nest &nest, IRMapping &mapping) {
  linalg::LinalgOp op = nest.op;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  if (llvm::any_of(ranges, ShapedType::isDynamic)) {
    // Sizes known at the launch: a grid-stride loop over them, with the
    // vector path where the innermost size is static (a batch of rows).
    DynamicWork dynamic;
    std::optional<SmallVector<OpFoldResult>> values =
        getDynamicRanges(op, dynamic);
    if (!values)
      return op->emitError("a GPU kernel reads each dynamic size from one of "
                           "its arguments; this op's is not one");
    if (!canVectorize(op, ranges) || readsLoopIndices(op)) {
      dynamicWork.push_back(std::move(dynamic));
      emitScalarLoop(nest, *values, mapping);
      return false;
    }
    dynamic.constant /= vectorWidth;
    dynamicWork.push_back(std::move(dynamic));
    emitVectorBranch(nest, *values, mapping);
    return true;
  }
  SmallVector<OpFoldResult> sizes =
      getAsIndexOpFoldResult(b.getContext(), ranges);
  int64_t parallelElements = 1;
  for (auto [d, type] : llvm::enumerate(op.getIteratorTypesArray()))
    if (type == utils::IteratorType::parallel)
      parallelElements *= ranges[d];
  if (parallelElements == 0)
    return false;
  // A body that reads its loop indices (iota, argmax, a gather) runs in
  // the scalar loop, the one that passes them to emitPayload.
  if (readsLoopIndices(op)) {
    work = std::max(work, parallelElements);
    emitScalarLoop(nest, sizes, mapping);
    return false;
  }
  // A reduction split across the grid (ReductionSplitting.h): a block per
  // part of each output, then a block per output.
  if (nest.phase != Nest::Phase::Whole && nest.columns) {
    if (!emitColumnReduction(nest, ranges, mapping))
      return op->emitError("a split column reduction must have the column "
                           "form");
    return false;
  }
  if (nest.phase != Nest::Phase::Whole) {
    auto reduction = getShuffleReduction(op, ranges, blockSize);
    if (!reduction)
      return op->emitError("a split reduction must have the shuffle form");
    bool parts = nest.phase == Nest::Phase::Parts;
    work = std::max(work, parallelElements * (parts ? nest.parts : 1) *
                              static_cast<int64_t>(blockSize));
    if (parts)
      emitShuffleReduction(nest, ranges, mapping, reduction->first,
                           reduction->second, /*perBlock=*/true);
    else
      emitSplitTotal(nest, ranges, mapping, reduction->first,
                     reduction->second);
    return false;
  }
  // Reductions down columns first: a thread per column reads coalesced
  // but leaves blocks idle, and the shuffle form would read across rows.
  if (emitColumnReduction(nest, ranges, mapping))
    return false;
  if (auto reduction = getShuffleReduction(op, ranges, blockSize)) {
    // A block per output where rows are long enough to keep a block's
    // warps busy, else a warp per output.
    bool perBlock = blockSize >= 64 &&
                    getReductionLength(op, ranges) >= kBlockReductionMinLength;
    work = std::max(work, parallelElements * (perBlock ? blockSize : 32));
    emitShuffleReduction(nest, ranges, mapping, reduction->first,
                         reduction->second, perBlock);
    return false;
  }
  if (!canVectorize(op, ranges)) {
    work = std::max(work, parallelElements);
    emitScalarLoop(nest, sizes, mapping);
    return false;
  }
  work = std::max(work, parallelElements / vectorWidth);
  emitVectorBranch(nest, sizes, mapping);
  return true;
}

void KernelBuilder::emitVectorBranch(const Nest &nest,
                                     ArrayRef<OpFoldResult> ranges,
                                     IRMapping &mapping) {
  Value aligned = emitAlignmentCheck(nest.op, mapping);
  auto branch = scf::IfOp::create(b, loc, aligned, /*withElse=*/true);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(branch.thenBlock());
  emitVectorLoop(nest, ranges, mapping);
  b.setInsertionPointToStart(branch.elseBlock());
  emitScalarLoop(nest, ranges, mapping);
}
