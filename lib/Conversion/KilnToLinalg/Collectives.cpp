//===- Collectives.cpp - collectives as calls of the runtime --------------===//
//
//   %r = kiln.all_reduce mean, %x group = 0 : tensor<4x8xf32>
// ->
//   %in = bufferization.to_buffer %x read_only
//   %out = memref.alloc() : memref<4x8xf32>
//   func.call @kiln_rt_all_reduce_f32_r2_mean_d0_g0(cast %in, cast %out)
//   %r = bufferization.to_tensor %out restrict writable
//
// The call is a step of the host program (HostProgram.cpp), which the
// runtime's executor runs with kiln_rt_dist (runtime/dist/); its name holds
// the op's attributes (kiln/Conversion/CollectiveCalls.h). A call has
// unknown effects, so no pass merges, drops or reorders it.
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"
#include "kiln/Conversion/CollectiveCalls.h"
#include "kiln/Dialect/Kiln/IR/KilnOps.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/SymbolTable.h"

using namespace mlir;
using namespace kiln;

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
  CollectiveCall described;
  described.kind = isa<AllReduceOp>(op) ? 0 : isa<AllGatherOp>(op) ? 1 : 2;
  described.isF64 = element.isF64();
  described.rank = rank;
  described.reduction = reduction;
  described.dim = dim;
  described.group = group;
  std::string name = getCollectiveCallName(described);
  MemRefType viewType = getAnyStridedView(rank, element);
  func::FuncOp callee = getOrDeclareRuntimeCall(rewriter, symbols, loc, name,
                                                {viewType, viewType});

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
  func::CallOp::create(
      rewriter, loc, callee,
      ValueRange{memref::CastOp::create(rewriter, loc, viewType, in),
                 memref::CastOp::create(rewriter, loc, viewType, out)});
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

static const char *const kKindNames[] = {"all_reduce", "all_gather",
                                         "reduce_scatter"};
static const char *const kReductionNames[] = {"sum", "mean", "max"};

std::string kiln::getCollectiveCallName(const CollectiveCall &call) {
  return ("kiln_rt_" + Twine(kKindNames[call.kind]) +
          (call.isF64 ? "_f64_r" : "_f32_r") + Twine(call.rank) + "_" +
          kReductionNames[call.reduction] + "_d" + Twine(call.dim) + "_g" +
          Twine(call.group))
      .str();
}

/// Consumes `prefix` and a decimal number after it from `name`.
static std::optional<int64_t> takeNumber(StringRef &name, StringRef prefix) {
  if (!name.consume_front(prefix))
    return std::nullopt;
  size_t digits = name.find_first_not_of("0123456789");
  StringRef text = name.take_front(digits);
  int64_t value = 0;
  if (text.empty() || text.getAsInteger(10, value))
    return std::nullopt;
  name = name.drop_front(text.size());
  return value;
}

std::optional<CollectiveCall> kiln::parseCollectiveCallName(StringRef name) {
  CollectiveCall call;
  if (!name.consume_front("kiln_rt_"))
    return std::nullopt;
  auto kind = llvm::find_if(kKindNames, [&](const char *kindName) {
    return name.starts_with(kindName);
  });
  if (kind == std::end(kKindNames))
    return std::nullopt;
  call.kind = static_cast<int>(kind - std::begin(kKindNames));
  name = name.drop_front(strlen(*kind));
  if (name.consume_front("_f64"))
    call.isF64 = true;
  else if (!name.consume_front("_f32"))
    return std::nullopt;
  std::optional<int64_t> rank = takeNumber(name, "_r");
  if (!rank || !name.consume_front("_"))
    return std::nullopt;
  auto reduction = llvm::find_if(kReductionNames, [&](const char *text) {
    return name.starts_with(text);
  });
  if (reduction == std::end(kReductionNames))
    return std::nullopt;
  call.reduction = reduction - std::begin(kReductionNames);
  name = name.drop_front(strlen(*reduction));
  std::optional<int64_t> dim = takeNumber(name, "_d");
  std::optional<int64_t> group = takeNumber(name, "_g");
  if (!dim || !group || !name.empty())
    return std::nullopt;
  call.rank = *rank;
  call.dim = *dim;
  call.group = *group;
  return call;
}
