//===- BufferAliases.cpp - which buffers a kernel may share ---------------===//

#include "BufferAliases.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

using namespace mlir;
using namespace kiln::gpu_mapper;

Box kiln::gpu_mapper::getBox(Value value) {
  Box box;
  SmallVector<memref::SubViewOp> subviews; // from the view to the root
  bool known = true;
  while (Operation *def = value.getDefiningOp()) {
    if (auto cast = dyn_cast<memref::CastOp>(def)) {
      value = cast.getSource();
    } else if (auto subview = dyn_cast<memref::SubViewOp>(def)) {
      subviews.push_back(subview);
      value = subview.getSource();
    } else if (auto view = dyn_cast<ViewLikeOpInterface>(def)) {
      known = false; // a view of unknown extent
      value = view.getViewSource();
    } else {
      break;
    }
  }
  box.root = value;
  auto rootType = dyn_cast<MemRefType>(value.getType());
  if (!known || !rootType || !rootType.hasStaticShape())
    return box;
  SmallVector<int64_t> offsets(rootType.getRank(), 0);
  SmallVector<int64_t> sizes = llvm::to_vector(rootType.getShape());
  for (memref::SubViewOp subview : llvm::reverse(subviews)) {
    ArrayRef<int64_t> subOffsets = subview.getStaticOffsets(),
                      subSizes = subview.getStaticSizes(),
                      subStrides = subview.getStaticStrides();
    if (subview.getType().getRank() != rootType.getRank() ||
        llvm::any_of(subOffsets, ShapedType::isDynamic) ||
        llvm::any_of(subSizes, ShapedType::isDynamic) ||
        llvm::any_of(subStrides, [](int64_t s) { return s != 1; }))
      return box;
    for (int64_t d = 0; d < rootType.getRank(); ++d) {
      offsets[d] += subOffsets[d];
      sizes[d] = subSizes[d];
    }
  }
  box.offsets = std::move(offsets);
  box.sizes = std::move(sizes);
  return box;
}

bool kiln::gpu_mapper::mayOverlap(const Box &boxA, const Box &boxB) {
  if (boxA.root != boxB.root)
    return false;
  if (!boxA.offsets || !boxB.offsets)
    return true;
  for (size_t d = 0; d < boxA.offsets->size(); ++d) {
    int64_t startA = (*boxA.offsets)[d], endA = startA + (*boxA.sizes)[d];
    int64_t startB = (*boxB.offsets)[d], endB = startB + (*boxB.sizes)[d];
    if (endA <= startB || endB <= startA)
      return false;
  }
  return true;
}

ArgumentAliases
kiln::gpu_mapper::getArgumentAliases(func::FuncOp kernel,
                                     ArrayRef<func::CallOp> calls) {
  unsigned n = kernel.getNumArguments();
  ArgumentAliases aliases(n, llvm::SmallBitVector(n));
  for (unsigned i = 0; i < n; ++i)
    aliases[i].set(i);
  for (func::CallOp call : calls)
    for (unsigned i = 0; i < n; ++i)
      for (unsigned j = i + 1; j < n; ++j)
        if (isa<MemRefType>(call.getOperand(i).getType()) &&
            (call.getOperand(i) == call.getOperand(j) ||
             mayOverlap(getBox(call.getOperand(i)),
                        getBox(call.getOperand(j))))) {
          aliases[i].set(j);
          aliases[j].set(i);
        }
  return aliases;
}

SmallVector<Value> kiln::gpu_mapper::getReadBuffers(linalg::LinalgOp op) {
  SmallVector<Value> reads;
  for (OpOperand *input : op.getDpsInputOperands())
    reads.push_back(input->get());
  for (OpOperand &init : op.getDpsInitsMutable())
    if (op.payloadUsesValueFromOperand(&init))
      reads.push_back(init.get());
  return reads;
}
