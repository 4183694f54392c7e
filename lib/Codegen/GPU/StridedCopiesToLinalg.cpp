//===- StridedCopiesToLinalg.cpp - the -kiln-strided-copies-to-linalg pass ===//
//
// memref.copy between buffers that are not both contiguous -> linalg.copy,
// which -kiln-outline-kernels makes a kernel. See Passes.td.
//
//===----------------------------------------------------------------------===//

#include "kiln/Codegen/GPU/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

namespace kiln {
#define GEN_PASS_DEF_KILNSTRIDEDCOPIESTOLINALG
#include "kiln/Codegen/GPU/Passes.h.inc"
} // namespace kiln

using namespace mlir;

/// Whether `type` is one block of memory in row-major order (its offset may
/// be anything): dims of size 1 take any stride. An identity layout is,
/// whatever its sizes; otherwise only the outermost dim may be dynamic (a
/// batch): inner dynamic sizes leave the strides unknown.
static bool isContiguous(MemRefType type) {
  if (type.getLayout().isIdentity())
    return true;
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(type.getStridesAndOffset(strides, offset)))
    return false;
  int64_t expected = 1;
  for (int64_t d = type.getRank() - 1; d >= 0; --d) {
    int64_t size = type.getDimSize(d);
    if (ShapedType::isDynamic(size)) {
      if (d != 0 || strides[d] != expected)
        return false;
      continue;
    }
    if (size != 1 && strides[d] != expected)
      return false;
    expected *= size;
  }
  return true;
}

namespace {
struct KilnStridedCopiesToLinalgPass
    : kiln::impl::KilnStridedCopiesToLinalgBase<KilnStridedCopiesToLinalgPass> {
  void runOnOperation() override {
    SmallVector<memref::CopyOp> copies;
    getOperation().walk([&](memref::CopyOp copy) {
      auto source = dyn_cast<MemRefType>(copy.getSource().getType());
      auto target = dyn_cast<MemRefType>(copy.getTarget().getType());
      if (source && target && !(isContiguous(source) && isContiguous(target)))
        copies.push_back(copy);
    });
    for (memref::CopyOp copy : copies) {
      OpBuilder b(copy);
      linalg::CopyOp::create(b, copy.getLoc(), copy.getSource(),
                             copy.getTarget());
      copy.erase();
    }
  }
};
} // namespace
