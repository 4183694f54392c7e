//===- Collectives.cpp - collectives as calls of the runtime --------------===//
//
//   %r = kiln.all_reduce mean, %x group = 0 : tensor<4x8xf32>
// ->
//   %in = bufferization.to_buffer %x read_only
//   %out = memref.alloc() : memref<4x8xf32>
//   func.call @kiln_rt_all_reduce_f32_r2(cast %in, cast %out)
//       {kiln.reduction = 1, kiln.dim = 0, kiln.group = 0}
//   %r = bufferization.to_tensor %out restrict writable
//
// The call is a step of the host program (HostProgram.cpp), which the
// runtime's executor runs with kiln_rt_dist (runtime/dist/). A call has
// unknown effects, so no pass merges, drops or reorders it.
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"
#include "kiln/Dialect/Kiln/IR/KilnOps.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/SymbolTable.h"

using namespace mlir;
using namespace kiln;

/// memref<?x...x?xT, strided<[?, ...], offset: ?>> of `rank`.
static MemRefType getAnyView(int64_t rank, Type element) {
  SmallVector<int64_t> dynamic(rank, ShapedType::kDynamic);
  auto layout = StridedLayoutAttr::get(element.getContext(),
                                       ShapedType::kDynamic, dynamic);
  return MemRefType::get(dynamic, element, layout);
}

/// `shape` with a strided layout of unknown strides and offset.
static MemRefType getStridedView(ArrayRef<int64_t> shape, Type element) {
  SmallVector<int64_t> strides(shape.size(), ShapedType::kDynamic);
  auto layout = StridedLayoutAttr::get(element.getContext(),
                                       ShapedType::kDynamic, strides);
  return MemRefType::get(shape, element, layout);
}

static LogicalResult lowerCollective(RewriterBase &rewriter,
                                     SymbolTable &symbols, Operation *op) {
  auto input = cast<TypedValue<RankedTensorType>>(op->getOperand(0));
  auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
  Type element = resultType.getElementType();
  if (!element.isF32() && !element.isF64())
    return op->emitOpError("on ")
           << element << " cannot run: collectives take f32 or f64";
  CollectiveAttributes attributes = *getCollectiveAttributes(op);
  int64_t reduction = attributes.reduction, dim = attributes.dim,
          group = attributes.group;
  if (!isa<AllReduceOp>(op) &&
      (resultType.isDynamicDim(dim) || input.getType().isDynamicDim(dim)))
    return op->emitOpError("along dynamic dim ")
           << dim << " cannot run: its size over the ranks is unknown";

  Location loc = op->getLoc();
  int64_t rank = resultType.getRank();
  std::string name =
      ("kiln_rt_" + op->getName().getStringRef().drop_front(strlen("kiln.")) +
       (element.isF32() ? "_f32_r" : "_f64_r") + Twine(rank))
          .str();
  MemRefType viewType = getAnyView(rank, element);
  auto callee = symbols.lookup<func::FuncOp>(name);
  if (!callee) {
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointToStart(
        &cast<ModuleOp>(symbols.getOp()).getBodyRegion().front());
    callee = func::FuncOp::create(
        rewriter, loc, name,
        rewriter.getFunctionType({viewType, viewType}, {}));
    callee.setPrivate();
    symbols.insert(callee);
  }

  rewriter.setInsertionPoint(op);
  Value in = bufferization::ToBufferOp::create(
      rewriter, loc, getStridedView(input.getType().getShape(), element), input,
      /*read_only=*/true);
  // The result's dynamic dims are the operand's (never `dim`'s).
  SmallVector<Value> sizes;
  for (int64_t d = 0; d < rank; ++d)
    if (resultType.isDynamicDim(d))
      sizes.push_back(tensor::DimOp::create(rewriter, loc, input, d));
  auto outType = MemRefType::get(resultType.getShape(), element);
  Value out = memref::AllocOp::create(rewriter, loc, outType, sizes);
  auto call = func::CallOp::create(
      rewriter, loc, callee,
      ValueRange{memref::CastOp::create(rewriter, loc, viewType, in),
                 memref::CastOp::create(rewriter, loc, viewType, out)});
  call->setAttr("kiln.reduction", rewriter.getI64IntegerAttr(reduction));
  call->setAttr("kiln.dim", rewriter.getI64IntegerAttr(dim));
  call->setAttr("kiln.group", rewriter.getI64IntegerAttr(group));
  Value result = bufferization::ToTensorOp::create(
      rewriter, loc, resultType, out, /*restrict=*/true, /*writable=*/true);
  rewriter.replaceOp(op, result);
  return success();
}

LogicalResult kiln::lowerCollectives(RewriterBase &rewriter, ModuleOp module) {
  SmallVector<Operation *> collectives;
  module.walk([&](Operation *op) {
    if (isa<AllReduceOp, AllGatherOp, ReduceScatterOp>(op))
      collectives.push_back(op);
  });
  if (collectives.empty())
    return success();
  SymbolTable symbols(module);
  for (Operation *op : collectives)
    if (failed(lowerCollective(rewriter, symbols, op)))
      return failure();
  return success();
}
