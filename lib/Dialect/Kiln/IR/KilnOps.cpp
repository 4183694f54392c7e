//===- KilnOps.cpp - kiln op verifiers and result-type inference ----------===//
//
// Every constraint of docs/Dialect.md is checked here or by the ODS type
// constraints. Inference functions validate their inputs themselves: the
// parser calls them before the op is verified, and Debian's LLVM has no
// assertions to catch a bad access.
//
//===----------------------------------------------------------------------===//

#include "kiln/Dialect/Kiln/IR/KilnOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/STLExtras.h"

#include <cmath> // the scalar semantics that KilnOps.td defines

using namespace mlir;
using namespace kiln;

std::optional<int64_t> kiln::getStaticElementCount(ShapedType type) {
  if (!type.hasStaticShape())
    return std::nullopt;
  return type.getNumElements();
}

/// Whether `value` is in memory whether or not a matmul accumulates onto
/// it: an argument, a product, a group's output, or an elementwise value
/// that other ops read too. A broadcast or a splat is not: materializing
/// one for the GEMM to read costs a kernel and a full write, where the add
/// in a group reads the small operand alone.
static bool isMaterializedAnyway(Value value) {
  Operation *def = value.getDefiningOp();
  if (!def)
    return true;
  if (isa<BroadcastInDimOp>(def))
    return false;
  if (auto constant = dyn_cast<ConstantOp>(def))
    return !isa<SplatElementsAttr>(constant.getValue());
  if (auto add = dyn_cast<AddOp>(def); add && getAccumulatedMatmul(add))
    return true;
  bool fusible = def->hasTrait<OpTrait::Elementwise>() ||
                 isa<SliceOp, ConcatOp, ReduceSumOp, ReduceMaxOp>(def);
  return !fusible || !value.hasOneUse();
}

MatmulOp kiln::getAccumulatedMatmul(AddOp add) {
  Type element = add.getType().getElementType();
  if ((!element.isF32() && !element.isF64()) || add.getLhs() == add.getRhs())
    return nullptr;
  // The later of two products accumulates into the earlier one.
  for (auto [index, operand] :
       llvm::enumerate(llvm::reverse(add->getOperands()))) {
    auto matmul = operand.getDefiningOp<MatmulOp>();
    Value accumulator = add->getOperand(index); // the other operand
    if (matmul && matmul->hasOneUse() && matmul.getType() == add.getType() &&
        isMaterializedAnyway(accumulator))
      return matmul;
  }
  return nullptr;
}

int64_t kiln::getRowReductionRank(Operation *op) {
  ArrayRef<int64_t> dims;
  if (auto sum = dyn_cast<ReduceSumOp>(op))
    dims = sum.getDims();
  else if (auto max = dyn_cast<ReduceMaxOp>(op))
    dims = max.getDims();
  else
    return 0;
  auto type = cast<RankedTensorType>(op->getOperand(0).getType());
  int64_t k = type.getRank() - static_cast<int64_t>(dims.size());
  if (!type.hasStaticShape() || dims.empty() || k < 1)
    return 0;
  for (auto [i, d] : llvm::enumerate(dims))
    if (d != k + static_cast<int64_t>(i))
      return 0;
  return k;
}

/// Two dim sizes agree when they are equal or either is dynamic.
static bool dimsCompatible(int64_t a, int64_t b) {
  return ShapedType::isDynamic(a) || ShapedType::isDynamic(b) || a == b;
}

/// Inferred and declared result types agree when they differ only where one
/// of them has a dynamic dim: `tensor<?x4xf32>` may be declared as
/// `tensor<5x4xf32>` when the operands pin the size at run time, and the
/// other way round.
static bool areCompatibleResultTypes(TypeRange inferred, TypeRange declared) {
  if (inferred.size() != declared.size())
    return false;
  for (auto [a, b] : llvm::zip(inferred, declared)) {
    auto ta = dyn_cast<RankedTensorType>(a);
    auto tb = dyn_cast<RankedTensorType>(b);
    if (!ta || !tb || ta.getElementType() != tb.getElementType() ||
        failed(verifyCompatibleShape(ta, tb)))
      return false;
  }
  return true;
}

static RankedTensorType getRankedTensor(Type type) {
  return dyn_cast_or_null<RankedTensorType>(type);
}

/// Checks that `dims` is sorted, unique and within [0, rank).
static LogicalResult verifySortedDims(std::optional<Location> loc,
                                      ArrayRef<int64_t> dims, int64_t rank,
                                      StringRef what) {
  for (auto [i, d] : llvm::enumerate(dims)) {
    if (d < 0 || d >= rank)
      return emitOptionalError(loc, what, " ", d, " is out of range for rank ",
                               rank);
    if (i > 0 && dims[i - 1] >= d)
      return emitOptionalError(loc, what, " must be sorted and unique, got [",
                               llvm::make_range(dims.begin(), dims.end()), "]");
  }
  return success();
}

//===----------------------------------------------------------------------===//
// ConstantOp
//===----------------------------------------------------------------------===//

LogicalResult ConstantOp::inferReturnTypes(MLIRContext *,
                                           std::optional<Location> loc,
                                           Adaptor adaptor,
                                           SmallVectorImpl<Type> &types) {
  auto value = dyn_cast_or_null<ElementsAttr>(adaptor.getValueAttr());
  if (!value)
    return emitOptionalError(loc, "requires an elements attribute 'value'");
  types.push_back(value.getType());
  return success();
}

LogicalResult ConstantOp::verify() {
  if (getValue().getType() != getType())
    return emitOpError("value type ")
           << getValue().getType() << " does not match result type "
           << getType();
  return success();
}

//===----------------------------------------------------------------------===//
// CmpOp, SelectOp, ConvertOp
//===----------------------------------------------------------------------===//

LogicalResult CmpOp::inferReturnTypes(MLIRContext *context,
                                      std::optional<Location> loc,
                                      Adaptor adaptor,
                                      SmallVectorImpl<Type> &types) {
  auto lhs = getRankedTensor(adaptor.getLhs().getType());
  if (!lhs)
    return emitOptionalError(loc, "expects ranked tensor operands");
  types.push_back(lhs.clone(IntegerType::get(context, 1)));
  return success();
}

LogicalResult SelectOp::verify() {
  if (getPred().getType().getShape() != getType().getShape())
    return emitOpError("predicate shape ")
           << getPred().getType() << " does not match result type "
           << getType();
  return success();
}

LogicalResult ConvertOp::verify() {
  if (getOperand().getType().getShape() != getType().getShape())
    return emitOpError("operand type ")
           << getOperand().getType() << " and result type " << getType()
           << " differ in shape";
  return success();
}

//===----------------------------------------------------------------------===//
// Collectives
//===----------------------------------------------------------------------===//

/// The checks the collectives share: a group handle, and for all_gather
/// and reduce_scatter a `dim` in range along which the `whole` tensor is a
/// multiple of the `part` (the number of ranks, known only at run time),
/// the other dims equal.
static LogicalResult verifyCollective(Operation *op, int64_t group,
                                      std::optional<int64_t> dim,
                                      RankedTensorType part,
                                      RankedTensorType whole) {
  if (group < 0)
    return op->emitOpError("group ") << group << " is not a communicator";
  if (!dim)
    return success();
  if (part.getElementType() != whole.getElementType())
    return op->emitOpError("operand and result element types differ");
  if (part.getRank() != whole.getRank())
    return op->emitOpError("operand and result ranks differ");
  if (*dim < 0 || *dim >= part.getRank())
    return op->emitOpError("dim ")
           << *dim << " is out of range for rank " << part.getRank();
  for (int64_t d = 0; d < part.getRank(); ++d) {
    int64_t a = part.getDimSize(d), b = whole.getDimSize(d);
    if (ShapedType::isDynamic(a) || ShapedType::isDynamic(b))
      continue;
    if (d != *dim && a != b)
      return op->emitOpError("operand and result differ at dim ")
             << d << ", which is not the collective's dim " << *dim;
    if (d == *dim && (a == 0 ? b != 0 : b % a != 0))
      return op->emitOpError("size ")
             << b << " at dim " << d << " is not a whole multiple of " << a;
  }
  return success();
}

std::optional<CollectiveAttributes>
kiln::getCollectiveAttributes(Operation *op) {
  CollectiveAttributes attributes;
  if (auto allReduce = dyn_cast<AllReduceOp>(op)) {
    attributes.reduction = static_cast<int64_t>(allReduce.getReduction());
    attributes.group = allReduce.getGroup();
  } else if (auto gather = dyn_cast<AllGatherOp>(op)) {
    attributes.dim = gather.getDim();
    attributes.group = gather.getGroup();
  } else if (auto scatter = dyn_cast<ReduceScatterOp>(op)) {
    attributes.reduction = static_cast<int64_t>(scatter.getReduction());
    attributes.dim = scatter.getDim();
    attributes.group = scatter.getGroup();
  } else {
    return std::nullopt;
  }
  return attributes;
}

LogicalResult AllReduceOp::verify() {
  return verifyCollective(*this, getGroup(), std::nullopt, getType(),
                          getType());
}

LogicalResult AllGatherOp::verify() {
  return verifyCollective(*this, getGroup(), getDim(), getOperand().getType(),
                          getType());
}

LogicalResult ReduceScatterOp::verify() {
  return verifyCollective(*this, getGroup(), getDim(), getType(),
                          getOperand().getType());
}

//===----------------------------------------------------------------------===//
// BroadcastInDimOp
//===----------------------------------------------------------------------===//

LogicalResult BroadcastInDimOp::verify() {
  RankedTensorType operandType = getOperand().getType();
  RankedTensorType resultType = getType();
  if (operandType.getElementType() != resultType.getElementType())
    return emitOpError("operand and result element types differ");
  ArrayRef<int64_t> dims = getDims();
  if (static_cast<int64_t>(dims.size()) != operandType.getRank())
    return emitOpError("dims has ")
           << dims.size() << " entries but the operand has rank "
           << operandType.getRank();
  for (auto [i, d] : llvm::enumerate(dims)) {
    if (d < 0 || d >= resultType.getRank())
      return emitOpError("dim ") << d << " is out of range for result rank "
                                 << resultType.getRank();
    if (i > 0 && dims[i - 1] >= d)
      return emitOpError("dims must be strictly increasing");
    int64_t from = operandType.getDimSize(i);
    int64_t to = resultType.getDimSize(d);
    if (from != 1 && !dimsCompatible(from, to))
      return emitOpError("operand dim ")
             << i << " of size " << from << " cannot broadcast to result dim "
             << d << " of size " << to;
    if (ShapedType::isDynamic(from) && !resultType.isDynamicDim(d))
      return emitOpError("dynamic operand dim ")
             << i << " maps to static result dim " << d
             << ": a dynamic dim is never broadcast";
  }
  int64_t dynamic = resultType.getNumDynamicDims();
  if (static_cast<int64_t>(getSizes().size()) != dynamic)
    return emitOpError("has ")
           << getSizes().size() << " sizes but the result " << resultType
           << " has " << dynamic << " dynamic dims";
  return success();
}

OpFoldResult BroadcastInDimOp::getResultSize(OpBuilder &b, int64_t dim) {
  RankedTensorType type = getType();
  if (!type.isDynamicDim(dim))
    return b.getIndexAttr(type.getDimSize(dim));
  return getSizes()[type.getDynamicDimIndex(dim)];
}

//===----------------------------------------------------------------------===//
// ReshapeOp
//===----------------------------------------------------------------------===//

LogicalResult ReshapeOp::verify() {
  RankedTensorType operandType = getOperand().getType();
  RankedTensorType resultType = getType();
  if (operandType.getElementType() != resultType.getElementType())
    return emitOpError("operand and result element types differ");
  // A static zero dim makes the count zero whatever the dynamic dims are.
  auto count = [](RankedTensorType type) -> std::optional<int64_t> {
    if (llvm::is_contained(type.getShape(), 0))
      return 0;
    return getStaticElementCount(type);
  };
  std::optional<int64_t> from = count(operandType);
  std::optional<int64_t> to = count(resultType);
  if (from && to && *from != *to)
    return emitOpError("operand has ")
           << *from << " elements but the result has " << *to;
  return success();
}

//===----------------------------------------------------------------------===//
// TransposeOp
//===----------------------------------------------------------------------===//

LogicalResult TransposeOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &types) {
  auto operandType = getRankedTensor(adaptor.getOperand().getType());
  if (!operandType || !adaptor.getPermAttr())
    return emitOptionalError(loc, "expects a ranked tensor and a 'perm'");
  ArrayRef<int64_t> perm = adaptor.getPerm();
  int64_t rank = operandType.getRank();
  if (static_cast<int64_t>(perm.size()) != rank)
    return emitOptionalError(loc, "perm has ", perm.size(),
                             " entries but the operand has rank ", rank);
  SmallVector<bool> seen(rank, false);
  SmallVector<int64_t> shape;
  for (int64_t p : perm) {
    if (p < 0 || p >= rank || seen[p])
      return emitOptionalError(loc, "perm is not a permutation of [0, ", rank,
                               ")");
    seen[p] = true;
    shape.push_back(operandType.getDimSize(p));
  }
  types.push_back(operandType.clone(shape));
  return success();
}

//===----------------------------------------------------------------------===//
// SliceOp
//===----------------------------------------------------------------------===//

LogicalResult SliceOp::inferReturnTypes(MLIRContext *,
                                        std::optional<Location> loc,
                                        Adaptor adaptor,
                                        SmallVectorImpl<Type> &types) {
  auto operandType = getRankedTensor(adaptor.getOperand().getType());
  if (!operandType || !adaptor.getOffsetsAttr() || !adaptor.getSizesAttr())
    return emitOptionalError(loc,
                             "expects a ranked tensor, 'offsets' and 'sizes'");
  ArrayRef<int64_t> offsets = adaptor.getOffsets();
  ArrayRef<int64_t> sizes = adaptor.getSizes();
  int64_t rank = operandType.getRank();
  if (static_cast<int64_t>(offsets.size()) != rank ||
      static_cast<int64_t>(sizes.size()) != rank)
    return emitOptionalError(loc, "offsets and sizes need ", rank,
                             " entries, one per operand dim");
  SmallVector<int64_t> shape(sizes);
  for (int64_t i = 0; i < rank; ++i) {
    int64_t dim = operandType.getDimSize(i);
    if (sizes[i] == -1) {
      // The whole dim.
      if (offsets[i] != 0)
        return emitOptionalError(loc, "slice dim ", i,
                                 " is taken whole (size -1) but its offset "
                                 "is ",
                                 offsets[i], ", not 0");
      shape[i] = dim;
      continue;
    }
    if (offsets[i] < 0 || sizes[i] < 0)
      return emitOptionalError(loc, "slice dim ", i,
                               " has a negative offset or size");
    // Written to avoid overflowing offset + size.
    if (!ShapedType::isDynamic(dim) &&
        (offsets[i] > dim || sizes[i] > dim - offsets[i]))
      return emitOptionalError(loc, "slice dim ", i, " at offset ", offsets[i],
                               " of size ", sizes[i],
                               " is out of bounds for size ", dim);
  }
  types.push_back(operandType.clone(shape));
  return success();
}

//===----------------------------------------------------------------------===//
// ConcatOp
//===----------------------------------------------------------------------===//

LogicalResult ConcatOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &types) {
  if (adaptor.getInputs().empty())
    return emitOptionalError(loc, "expects at least one operand");
  if (!adaptor.getDimAttr())
    return emitOptionalError(loc, "expects a 'dim' attribute");
  auto first = getRankedTensor(adaptor.getInputs().front().getType());
  if (!first)
    return emitOptionalError(loc, "expects ranked tensor operands");
  int64_t rank = first.getRank();
  int64_t dim = adaptor.getDim();
  if (dim < 0 || dim >= rank)
    return emitOptionalError(loc, "dim ", dim, " is out of range for rank ",
                             rank);
  SmallVector<int64_t> shape(first.getShape());
  shape[dim] = 0;
  for (auto [index, value] : llvm::enumerate(adaptor.getInputs())) {
    auto type = getRankedTensor(value.getType());
    if (!type || type.getRank() != rank ||
        type.getElementType() != first.getElementType())
      return emitOptionalError(loc, "operand ", index,
                               " differs from operand 0 in rank or element "
                               "type");
    for (int64_t d = 0; d < rank; ++d) {
      int64_t size = type.getDimSize(d);
      if (d == dim) {
        shape[d] =
            ShapedType::isDynamic(shape[d]) || ShapedType::isDynamic(size)
                ? ShapedType::kDynamic
                : shape[d] + size;
        continue;
      }
      if (!dimsCompatible(shape[d], size))
        return emitOptionalError(loc, "operand ", index, " has size ", size,
                                 " in dim ", d, " but operand 0 has ",
                                 shape[d]);
      if (ShapedType::isDynamic(shape[d]))
        shape[d] = size;
    }
  }
  types.push_back(first.clone(shape));
  return success();
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

static LogicalResult inferReduceType(std::optional<Location> loc, Type operand,
                                     DenseI64ArrayAttr dimsAttr,
                                     SmallVectorImpl<Type> &types) {
  auto operandType = getRankedTensor(operand);
  if (!operandType || !dimsAttr)
    return emitOptionalError(loc, "expects a ranked tensor and 'dims'");
  ArrayRef<int64_t> dims = dimsAttr.asArrayRef();
  if (failed(
          verifySortedDims(loc, dims, operandType.getRank(), "reduction dim")))
    return failure();
  SmallVector<int64_t> shape;
  for (int64_t d = 0; d < operandType.getRank(); ++d)
    if (!llvm::is_contained(dims, d))
      shape.push_back(operandType.getDimSize(d));
  types.push_back(operandType.clone(shape));
  return success();
}

LogicalResult ReduceSumOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &types) {
  return inferReduceType(loc, adaptor.getOperand().getType(),
                         adaptor.getDimsAttr(), types);
}

LogicalResult ReduceMaxOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &types) {
  return inferReduceType(loc, adaptor.getOperand().getType(),
                         adaptor.getDimsAttr(), types);
}

//===----------------------------------------------------------------------===//
// MatmulOp
//===----------------------------------------------------------------------===//

LogicalResult MatmulOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &types) {
  auto lhs = getRankedTensor(adaptor.getLhs().getType());
  auto rhs = getRankedTensor(adaptor.getRhs().getType());
  if (!lhs || !rhs)
    return emitOptionalError(loc, "expects ranked tensor operands");
  if (lhs.getElementType() != rhs.getElementType())
    return emitOptionalError(
        loc, "operand element types differ: ", lhs.getElementType(), " vs ",
        rhs.getElementType());
  int64_t rank = lhs.getRank();
  if ((rank != 2 && rank != 3) || rhs.getRank() != rank)
    return emitOptionalError(loc, "expects two 2-D or two 3-D operands, got ",
                             lhs, " and ", rhs);
  bool transposeA =
      adaptor.getTransposeAAttr() && adaptor.getTransposeAAttr().getValue();
  bool transposeB =
      adaptor.getTransposeBAttr() && adaptor.getTransposeBAttr().getValue();
  int64_t m = lhs.getDimSize(rank - (transposeA ? 1 : 2));
  int64_t kA = lhs.getDimSize(rank - (transposeA ? 2 : 1));
  int64_t kB = rhs.getDimSize(rank - (transposeB ? 1 : 2));
  int64_t n = rhs.getDimSize(rank - (transposeB ? 2 : 1));
  if (!dimsCompatible(kA, kB))
    return emitOptionalError(loc, "contraction sizes differ: ", kA, " vs ", kB);
  SmallVector<int64_t> shape;
  if (rank == 3) {
    int64_t batchA = lhs.getDimSize(0), batchB = rhs.getDimSize(0);
    if (!dimsCompatible(batchA, batchB))
      return emitOptionalError(loc, "batch sizes differ: ", batchA, " vs ",
                               batchB);
    shape.push_back(ShapedType::isDynamic(batchA) ? batchB : batchA);
  }
  shape.push_back(m);
  shape.push_back(n);
  types.push_back(lhs.clone(shape));
  return success();
}

//===----------------------------------------------------------------------===//
// VjpOp
//===----------------------------------------------------------------------===//

LogicalResult VjpOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  auto callee =
      symbolTable.lookupNearestSymbolFrom<func::FuncOp>(*this, getCalleeAttr());
  if (!callee)
    return emitOpError("callee '")
           << getCallee() << "' does not name a func.func";
  FunctionType type = callee.getFunctionType();
  size_t numArgs = type.getNumInputs(), numResults = type.getNumResults();
  if (getOperands().size() != numArgs + numResults)
    return emitOpError("expects ")
           << numArgs << " arguments and " << numResults
           << " cotangents for callee '" << getCallee() << "', got "
           << getOperands().size() << " operands";
  for (auto [i, value] : llvm::enumerate(getOperands())) {
    Type expected =
        i < numArgs ? type.getInput(i) : type.getResult(i - numArgs);
    if (value.getType() != expected)
      return emitOpError(i < numArgs ? "argument " : "cotangent ")
             << (i < numArgs ? i : i - numArgs) << " has type "
             << value.getType() << " but the callee expects " << expected;
  }
  ArrayRef<int64_t> wrt = getWrt();
  for (auto [i, index] : llvm::enumerate(wrt)) {
    if (index < 0 || index >= static_cast<int64_t>(numArgs))
      return emitOpError("wrt index ")
             << index << " is out of range for a callee with " << numArgs
             << " arguments";
    if (i > 0 && wrt[i - 1] >= index)
      return emitOpError("wrt indices must be sorted and unique");
  }
  if (wrt.size() != getNumResults())
    return emitOpError("expects one result per wrt index (")
           << wrt.size() << "), got " << getNumResults();
  for (auto [index, result] : llvm::zip(wrt, getResults())) {
    Type argType = type.getInput(index);
    if (!isa<FloatType>(cast<ShapedType>(argType).getElementType()))
      return emitOpError("cannot differentiate with respect to argument ")
             << index << " of non-float type " << argType;
    if (result.getType() != argType)
      return emitOpError("gradient for argument ")
             << index << " has type " << result.getType()
             << " but the argument has type " << argType;
  }
  return success();
}

//===----------------------------------------------------------------------===//
// FusionGroupOp
//===----------------------------------------------------------------------===//

LogicalResult FusionGroupOp::verify() {
  Block &body = getBody().front();
  if (body.getNumArguments() != getInputs().size())
    return emitOpError("body has ")
           << body.getNumArguments() << " arguments but the group has "
           << getInputs().size() << " inputs";
  for (auto [i, input, arg] : llvm::enumerate(getInputs(), body.getArguments()))
    if (input.getType() != arg.getType())
      return emitOpError("body argument ")
             << i << " has type " << arg.getType() << " but input " << i
             << " has type " << input.getType();
  auto yield = body.empty() ? YieldOp() : dyn_cast<YieldOp>(body.back());
  if (!yield)
    return emitOpError("body must end in kiln.yield");
  if (yield.getValues().getTypes() != getResultTypes())
    return emitOpError("yielded types do not match the group's result types");
  return success();
}

//===----------------------------------------------------------------------===//
// Result-type compatibility of the ops with inference
//===----------------------------------------------------------------------===//

bool CmpOp::isCompatibleReturnTypes(TypeRange inferred, TypeRange declared) {
  return areCompatibleResultTypes(inferred, declared);
}

bool TransposeOp::isCompatibleReturnTypes(TypeRange inferred,
                                          TypeRange declared) {
  return areCompatibleResultTypes(inferred, declared);
}

bool ConcatOp::isCompatibleReturnTypes(TypeRange inferred, TypeRange declared) {
  return areCompatibleResultTypes(inferred, declared);
}

bool ReduceSumOp::isCompatibleReturnTypes(TypeRange inferred,
                                          TypeRange declared) {
  return areCompatibleResultTypes(inferred, declared);
}

bool ReduceMaxOp::isCompatibleReturnTypes(TypeRange inferred,
                                          TypeRange declared) {
  return areCompatibleResultTypes(inferred, declared);
}

bool MatmulOp::isCompatibleReturnTypes(TypeRange inferred, TypeRange declared) {
  return areCompatibleResultTypes(inferred, declared);
}

LogicalResult MatmulOp::verify() {
  Type elementType = getLhs().getType().getElementType();
  if (getPrecision() && !elementType.isF32())
    return emitOpError("takes a precision for f32 products only, not ")
           << elementType;
  return success();
}

#define GET_OP_CLASSES
#include "kiln/Dialect/Kiln/IR/KilnOps.cpp.inc"

//===----------------------------------------------------------------------===//
// The dialect's ops, and the constants its folders make
//===----------------------------------------------------------------------===//

void KilnDialect::registerOps() {
  addOperations<
#define GET_OP_LIST
#include "kiln/Dialect/Kiln/IR/KilnOps.cpp.inc"
      >();
}

Operation *KilnDialect::materializeConstant(OpBuilder &builder, Attribute value,
                                            Type type, Location loc) {
  auto elements = dyn_cast<ElementsAttr>(value);
  if (!elements || elements.getType() != type)
    return nullptr;
  return ConstantOp::create(builder, loc, type, elements);
}

//===----------------------------------------------------------------------===//
// Indices, gathers and random numbers
//===----------------------------------------------------------------------===//

/// Checks that `dim` names a dim of a rank-`rank` tensor.
static LogicalResult verifyDim(Operation *op, int64_t dim, int64_t rank,
                               StringRef what) {
  if (dim < 0 || dim >= rank)
    return op->emitOpError("dim ")
           << dim << " is out of range for " << what << " of rank " << rank;
  return success();
}

/// The shape `operand.shape[:dim] + indices.shape + operand.shape[dim+1:]`
/// of kiln.take's result and kiln.scatter_add's updates.
static SmallVector<int64_t> getGatheredShape(RankedTensorType operand,
                                             RankedTensorType indices,
                                             int64_t dim) {
  SmallVector<int64_t> shape(operand.getShape().take_front(dim));
  llvm::append_range(shape, indices.getShape());
  llvm::append_range(shape, operand.getShape().drop_front(dim + 1));
  return shape;
}

/// Whether `actual` may stand for `expected`: equal ranks, and equal dims
/// wherever both are static.
static bool isCompatibleShape(ArrayRef<int64_t> actual,
                              ArrayRef<int64_t> expected) {
  if (actual.size() != expected.size())
    return false;
  for (auto [a, e] : llvm::zip(actual, expected))
    if (!ShapedType::isDynamic(a) && !ShapedType::isDynamic(e) && a != e)
      return false;
  return true;
}

static std::string shapeString(ArrayRef<int64_t> shape) {
  std::string s = "[";
  for (auto [i, d] : llvm::enumerate(shape))
    s += (i ? ", " : "") +
         (ShapedType::isDynamic(d) ? std::string("?") : std::to_string(d));
  return s + "]";
}

LogicalResult IotaOp::verify() {
  RankedTensorType type = getType();
  if (failed(verifyDim(*this, getDim(), type.getRank(), "the result")))
    return failure();
  if (static_cast<int64_t>(getSizes().size()) != type.getNumDynamicDims())
    return emitOpError("expects one size per dynamic dim of the result (")
           << type.getNumDynamicDims() << "), got " << getSizes().size();
  return success();
}

LogicalResult TakeOp::verify() {
  auto operand = cast<RankedTensorType>(getOperand().getType());
  auto indices = cast<RankedTensorType>(getIndices().getType());
  RankedTensorType result = getType();
  if (failed(verifyDim(*this, getDim(), operand.getRank(), "the operand")))
    return failure();
  if (result.getElementType() != operand.getElementType())
    return emitOpError("result element type ")
           << result.getElementType() << " differs from the operand's "
           << operand.getElementType();
  SmallVector<int64_t> expected = getGatheredShape(operand, indices, getDim());
  if (!isCompatibleShape(result.getShape(), expected))
    return emitOpError("result shape ")
           << shapeString(result.getShape()) << " should be "
           << shapeString(expected)
           << " (operand.shape[:dim] + indices.shape + "
              "operand.shape[dim+1:])";
  return success();
}

LogicalResult ScatterAddOp::verify() {
  auto operand = cast<RankedTensorType>(getOperand().getType());
  auto indices = cast<RankedTensorType>(getIndices().getType());
  auto updates = cast<RankedTensorType>(getUpdates().getType());
  if (failed(verifyDim(*this, getDim(), operand.getRank(), "the operand")))
    return failure();
  if (updates.getElementType() != operand.getElementType())
    return emitOpError("updates element type ")
           << updates.getElementType() << " differs from the operand's "
           << operand.getElementType();
  SmallVector<int64_t> expected = getGatheredShape(operand, indices, getDim());
  if (!isCompatibleShape(updates.getShape(), expected))
    return emitOpError("updates shape ")
           << shapeString(updates.getShape()) << " should be "
           << shapeString(expected)
           << " (operand.shape[:dim] + indices.shape + "
              "operand.shape[dim+1:])";
  return success();
}

LogicalResult ArgmaxOp::verify() {
  auto operand = cast<RankedTensorType>(getOperand().getType());
  RankedTensorType result = getType();
  if (failed(verifyDim(*this, getDim(), operand.getRank(), "the operand")))
    return failure();
  SmallVector<int64_t> expected(operand.getShape());
  expected.erase(expected.begin() + getDim());
  if (!isCompatibleShape(result.getShape(), expected))
    return emitOpError("result shape ")
           << shapeString(result.getShape()) << " should be "
           << shapeString(expected) << " (the operand's without dim "
           << getDim() << ")";
  return success();
}

LogicalResult RngUniformOp::verify() {
  auto key = cast<RankedTensorType>(getKey().getType());
  if (key.getRank() != 1 || key.getDimSize(0) != 2 ||
      !key.getElementType().isSignlessInteger(64))
    return emitOpError("key must be a tensor<2xi64> holding (seed, offset), "
                       "not ")
           << key;
  if (!getType().getElementType().isF32())
    return emitOpError("result must be f32, not ") << getType();
  if (!getType().hasStaticShape())
    return emitOpError("result must have a static shape, not ") << getType();
  return success();
}
