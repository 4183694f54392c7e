//===- RowKernelAnalysis.cpp - which kernels run row by row ---------------===//

#include "RowKernelAnalysis.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "llvm/ADT/DenseSet.h"

using namespace mlir;
using namespace kiln::row_kernels;

/// Whether `map` reads row-locally: its first k results are d0..dk-1 and
/// the rest use no row dim (`rowPrefixed`), or no result uses a row dim;
/// results are dims or constants.
bool kiln::row_kernels::classifyMap(AffineMap map, int64_t k,
                                    bool &rowPrefixed) {
  auto usesRowDim = [&](AffineExpr e) {
    auto dim = dyn_cast<AffineDimExpr>(e);
    return dim && dim.getPosition() < k;
  };
  for (AffineExpr e : map.getResults())
    if (!isa<AffineDimExpr, AffineConstantExpr>(e))
      return false;
  rowPrefixed = static_cast<int64_t>(map.getNumResults()) >= k;
  for (int64_t d = 0; rowPrefixed && d < k; ++d) {
    auto dim = dyn_cast<AffineDimExpr>(map.getResult(d));
    rowPrefixed = dim && dim.getPosition() == d;
  }
  ArrayRef<AffineExpr> rest = map.getResults();
  if (rowPrefixed)
    rest = rest.drop_front(k);
  return llvm::none_of(rest, usesRowDim);
}

/// Whether every result of `map` is a dim or a constant.
bool kiln::row_kernels::isDimsOrConstants(AffineMap map) {
  return llvm::all_of(map.getResults(), [](AffineExpr e) {
    return isa<AffineDimExpr, AffineConstantExpr>(e);
  });
}

/// The row kernel `func` is, if it is one.
std::optional<RowKernel> kiln::row_kernels::matchRowKernel(func::FuncOp func) {
  if (func.isExternal() || !func.getBody().hasOneBlock())
    return std::nullopt;
  RowKernel kernel;
  // The row rank: the leading parallel dims of the reduction nests.
  for (Operation &op : func.getBody().front()) {
    auto generic = dyn_cast<linalg::GenericOp>(op);
    if (!generic || generic.getNumReductionLoops() == 0)
      continue;
    SmallVector<utils::IteratorType> iterators =
        generic.getIteratorTypesArray();
    int64_t k = 0;
    while (k < static_cast<int64_t>(iterators.size()) &&
           iterators[k] == utils::IteratorType::parallel)
      ++k;
    for (size_t d = k; d < iterators.size(); ++d)
      if (iterators[d] != utils::IteratorType::reduction)
        return std::nullopt;
    SmallVector<int64_t> ranges = generic.getStaticLoopRanges();
    SmallVector<int64_t> rows(ranges.begin(), ranges.begin() + k);
    if (k == 0 || (kernel.k != 0 && (k != kernel.k || rows != kernel.rows)) ||
        llvm::any_of(ranges, ShapedType::isDynamic))
      return std::nullopt;
    kernel.k = k;
    kernel.rows = rows;
  }
  if (kernel.k == 0)
    return std::nullopt;
  int64_t k = kernel.k;
  llvm::DenseSet<Value> written;
  for (Operation &op : func.getBody().front()) {
    if (isa<func::ReturnOp>(op) || isa<arith::ConstantOp>(op))
      continue;
    if (auto fill = dyn_cast<linalg::FillOp>(op)) {
      auto type = dyn_cast<MemRefType>(fill.getOutputs()[0].getType());
      if (!type || type.getShape() != ArrayRef<int64_t>(kernel.rows))
        return std::nullopt;
      written.insert(fill.getOutputs()[0]);
      kernel.ops.push_back({&op, NestKind::Fill});
      continue;
    }
    auto generic = dyn_cast<linalg::GenericOp>(op);
    // A body may read its loop indices (an iota): the row nests map
    // linalg.index to their induction variables.
    if (!generic || !generic.hasPureBufferSemantics())
      return std::nullopt;
    SmallVector<int64_t> ranges = generic.getStaticLoopRanges();
    int64_t loops = ranges.size();
    if (loops < k || ArrayRef<int64_t>(ranges).take_front(k) !=
                         ArrayRef<int64_t>(kernel.rows))
      return std::nullopt;
    NestKind kind = generic.getNumReductionLoops() > 0 ? NestKind::Phase
                    : loops == k                       ? NestKind::Rows
                                                       : NestKind::Domain;
    for (OpOperand &output : generic.getDpsInitsMutable()) {
      bool rowPrefixed = false;
      AffineMap map = generic.getMatchingIndexingMap(&output);
      if (!classifyMap(map, k, rowPrefixed) || !rowPrefixed ||
          (kind == NestKind::Phase &&
           static_cast<int64_t>(map.getNumResults()) != k))
        return std::nullopt;
      written.insert(output.get());
    }
    kernel.ops.push_back({&op, kind});
  }
  // The rows are what the largest buffers store contiguously: where their
  // contiguous dim is a row dim, a row is a column of them, a whole row of
  // the buffer apart element to element (a bias gradient's sum over the
  // rows: -kiln-lower-column-reductions' case).
  int64_t largest = 0;
  for (auto [op, kind] : kernel.ops)
    for (Value operand : op->getOperands())
      if (auto type = dyn_cast<MemRefType>(operand.getType());
          type && type.hasStaticShape())
        largest = std::max(largest, type.getNumElements());
  for (auto [op, kind] : kernel.ops) {
    auto generic = dyn_cast<linalg::GenericOp>(op);
    if (!generic)
      continue;
    for (OpOperand &operand : generic->getOpOperands()) {
      auto type = dyn_cast<MemRefType>(operand.get().getType());
      if (!type || !type.hasStaticShape() || type.getRank() == 0 ||
          type.getNumElements() != largest)
        continue;
      AffineMap map = generic.getMatchingIndexingMap(&operand);
      auto last = dyn_cast<AffineDimExpr>(map.getResults().back());
      if (last && last.getPosition() < k)
        return std::nullopt;
    }
  }
  // Inputs: a buffer the kernel writes is read on the same row only; one
  // it never writes may be read anywhere (a mask broadcast over heads).
  for (auto [op, kind] : kernel.ops) {
    auto generic = dyn_cast<linalg::GenericOp>(op);
    if (!generic)
      continue;
    for (OpOperand *input : generic.getDpsInputOperands()) {
      AffineMap map = generic.getMatchingIndexingMap(input);
      bool rowPrefixed = false;
      if (!isa<MemRefType>(input->get().getType()) || !isDimsOrConstants(map) ||
          (written.contains(input->get()) &&
           !(classifyMap(map, k, rowPrefixed) && rowPrefixed)))
        return std::nullopt;
    }
  }
  return kernel;
}
