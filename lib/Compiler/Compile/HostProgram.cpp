//===- HostProgram.cpp - the entry's host code as a list of steps ---------===//

#include "Compiler/Compile/HostProgram.h"
#include "Compiler/Compile/ShapeFunction.h"
#include "Support/RuntimeError.h"
#include "kiln/Codegen/CPU/CompactKernelAbi.h"
#include "kiln/Conversion/CollectiveCalls.h"
#include "kiln/Dialect/Kiln/IR/KilnDialect.h"
#include "kiln_rt/kiln_rt.h"
#include "kiln_rt/kiln_rt_blas.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallBitVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace kiln;

static llvm::Error unsupported(Operation *op, const llvm::Twine &why) {
  std::string name = op->getName().getStringRef().str();
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 name + ": " + why);
}

/// Bytes of one element as compiled code stores it.
static int64_t getElementBytes(Type type) {
  if (!type.isIntOrFloat())
    return 0;
  return (type.getIntOrFloatBitWidth() + 7) / 8;
}

/// The data of a dense constant as compiled code lays it out, if kiln can.
static std::optional<std::vector<char>> getConstantData(DenseElementsAttr attr,
                                                        int64_t elementBytes) {
  int64_t count = attr.getNumElements();
  std::vector<char> data(count * elementBytes);
  Type element = attr.getElementType();
  if (element.isInteger(1)) {
    int64_t i = 0;
    for (bool value : attr.getValues<bool>())
      data[i++] = value ? 1 : 0;
    return data;
  }
  if (!element.isIntOrFloat() ||
      element.getIntOrFloatBitWidth() != elementBytes * 8)
    return std::nullopt;
  ArrayRef<char> raw = attr.getRawData();
  if (attr.isSplat()) {
    for (int64_t i = 0; i < count; ++i)
      std::memcpy(data.data() + i * elementBytes, raw.data(), elementBytes);
  } else {
    if (static_cast<int64_t>(raw.size()) != count * elementBytes)
      return std::nullopt;
    std::memcpy(data.data(), raw.data(), raw.size());
  }
  return data;
}

/// The index of `name` in `names`, added when new.
static int32_t indexOf(StringRef name, llvm::StringMap<int32_t> &index,
                       std::vector<std::string> &names) {
  auto [it, inserted] = index.try_emplace(name, names.size());
  if (inserted)
    names.push_back(name.str());
  return it->second;
}

namespace kiln {

/// Builds a HostProgram from an entry's host code, one op at a time.
class HostProgramBuilder {
public:
  using Operand = HostProgram::Operand;
  using View = HostProgram::View;
  using Step = HostProgram::Step;
  using StepKind = HostProgram::StepKind;
  using IndexOp = HostProgram::IndexOp;

  HostProgramBuilder(func::FuncOp entry) : entry(entry) {}
  llvm::Expected<HostProgram> build(unsigned numInputs,
                                    const ShapeFunction *shapes);

private:
  // Sizes.
  /// A register holding `lhs op rhs`, or the constant when both are.
  Operand compute(IndexOp op, Operand lhs, Operand rhs);
  Operand constant(int64_t value);
  Operand getSize(const SizeExpr &size);
  std::optional<Operand> getIndex(Value value);
  std::optional<SmallVector<Operand>> getIndices(ArrayRef<OpFoldResult> values);
  /// Row-major strides of `sizes`.
  SmallVector<Operand> getIdentityStrides(ArrayRef<Operand> sizes);

  // Views.
  const View *lookupView(Value value) {
    auto it = views.find(value);
    return it == views.end() ? nullptr : &it->second;
  }
  std::optional<View> getWholeView(MemRefType type, int32_t slot,
                                   ArrayRef<Operand> sizes);
  llvm::Error addArguments(unsigned numInputs, const ShapeFunction *shapes);
  llvm::Error addOp(Operation &op);

  func::FuncOp entry;
  HostProgram program;
  int32_t numRegisters = 0;
  llvm::DenseMap<Value, View> views;
  llvm::DenseMap<Value, int32_t> allocSlot;
  llvm::DenseMap<Value, Operand> indices;
  llvm::DenseMap<const void *, Operand> sizeExprs;
  llvm::StringMap<int32_t> kernelIndex, runtimeIndex;
  SymbolTableCollection symbols;
};

} // namespace kiln

HostProgram::Operand HostProgramBuilder::constant(int64_t value) {
  if (value >= 0)
    return value;
  // Operands below zero are registers: a negative constant is computed.
  if (value == INT64_MIN)
    return compute(IndexOp::Sub, compute(IndexOp::Sub, 0, INT64_MAX), 1);
  return compute(IndexOp::Sub, 0, -value);
}

HostProgram::Operand HostProgramBuilder::compute(IndexOp op, Operand lhs,
                                                 Operand rhs) {
  if (lhs >= 0 && rhs >= 0) {
    int64_t value = 0;
    bool folded = true;
    switch (op) {
    case IndexOp::Add:
      folded = !llvm::AddOverflow(lhs, rhs, value);
      break;
    case IndexOp::Sub:
      value = lhs - rhs;
      break;
    case IndexOp::Mul:
      folded = !llvm::MulOverflow(lhs, rhs, value);
      break;
    case IndexOp::FloorDiv:
      folded = rhs != 0 && (value = lhs / rhs, true);
      break;
    case IndexOp::CeilDiv:
      folded = rhs != 0 && (value = llvm::divideCeil(lhs, rhs), true);
      break;
    case IndexOp::Rem:
      folded = rhs != 0 && (value = lhs % rhs, true);
      break;
    case IndexOp::Min:
      value = std::min(lhs, rhs);
      break;
    case IndexOp::Max:
      value = std::max(lhs, rhs);
      break;
    }
    // Division by zero and overflow are the run's errors; a negative
    // value is a register too.
    if (folded && value >= 0)
      return value;
  }
  if ((op == IndexOp::Mul && (lhs == 1 || rhs == 1)) ||
      ((op == IndexOp::Add || op == IndexOp::Sub) && rhs == 0) ||
      (op == IndexOp::Add && lhs == 0) || (op == IndexOp::FloorDiv && rhs == 1))
    return op == IndexOp::Mul && rhs == 1   ? lhs
           : op == IndexOp::Mul             ? rhs
           : op == IndexOp::Add && lhs == 0 ? rhs
                                            : lhs;
  Step step{StepKind::Index};
  step.op = static_cast<uint8_t>(op);
  step.slot = numRegisters++;
  step.lhs = lhs;
  step.rhs = rhs;
  program.steps.push_back(std::move(step));
  return HostProgram::getRegisterOperand(numRegisters - 1);
}

HostProgram::Operand HostProgramBuilder::getSize(const SizeExpr &size) {
  auto it = sizeExprs.find(size.getIdentity());
  if (it != sizeExprs.end())
    return it->second;
  Operand result = 0;
  switch (size.getKind()) {
  case SizeExpr::Kind::Constant:
    result = constant(*size.getConstant());
    break;
  case SizeExpr::Kind::InputDim:
    result = program.arguments[size.getInput()].dims[size.getDim()];
    break;
  default: {
    Operand lhs = getSize(size.getLhs()), rhs = getSize(size.getRhs());
    IndexOp op = size.getKind() == SizeExpr::Kind::Add   ? IndexOp::Add
                 : size.getKind() == SizeExpr::Kind::Sub ? IndexOp::Sub
                 : size.getKind() == SizeExpr::Kind::Mul ? IndexOp::Mul
                                                         : IndexOp::FloorDiv;
    result = compute(op, lhs, rhs);
    break;
  }
  }
  sizeExprs[size.getIdentity()] = result;
  return result;
}

std::optional<HostProgram::Operand> HostProgramBuilder::getIndex(Value value) {
  if (std::optional<int64_t> c = getConstantIntValue(value))
    return constant(*c);
  auto it = indices.find(value);
  if (it == indices.end())
    return std::nullopt;
  return it->second;
}

std::optional<SmallVector<HostProgram::Operand>>
HostProgramBuilder::getIndices(ArrayRef<OpFoldResult> values) {
  SmallVector<Operand> operands;
  for (OpFoldResult value : values) {
    std::optional<Operand> operand;
    if (auto attr = dyn_cast<Attribute>(value)) {
      if (auto integer = dyn_cast<IntegerAttr>(attr))
        operand = constant(integer.getInt());
    } else {
      operand = getIndex(cast<Value>(value));
    }
    if (!operand)
      return std::nullopt;
    operands.push_back(*operand);
  }
  return operands;
}

SmallVector<HostProgram::Operand>
HostProgramBuilder::getIdentityStrides(ArrayRef<Operand> sizes) {
  SmallVector<Operand> strides(sizes.size(), 1);
  for (size_t d = sizes.size(); d-- > 1;)
    strides[d - 1] = compute(IndexOp::Mul, strides[d], sizes[d]);
  return strides;
}

std::optional<HostProgram::View>
HostProgramBuilder::getWholeView(MemRefType type, int32_t slot,
                                 ArrayRef<Operand> sizes) {
  if (!type.getLayout().isIdentity() ||
      getElementBytes(type.getElementType()) == 0 ||
      static_cast<int64_t>(sizes.size()) != type.getRank())
    return std::nullopt;
  View view;
  view.slot = slot;
  view.sizes.assign(sizes.begin(), sizes.end());
  SmallVector<Operand> strides = getIdentityStrides(sizes);
  view.strides.assign(strides.begin(), strides.end());
  view.elementBytes = getElementBytes(type.getElementType());
  return view;
}

/// Where `type`'s layout has static strides, `view` takes them: the verifier
/// computed them from what it knew (a dim of size 1 takes any stride).
static void setStaticStrides(HostProgram::View &view, MemRefType type) {
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(type.getStridesAndOffset(strides, offset)) ||
      strides.size() != view.strides.size())
    return;
  for (size_t d = 0; d < strides.size(); ++d)
    if (!ShapedType::isDynamic(strides[d]))
      view.strides[d] = strides[d];
}

/// A result's dynamic dim until the shape function gives its operand.
constexpr HostProgram::Operand kFromShapeFunction = INT64_MIN;

llvm::Error HostProgramBuilder::addArguments(unsigned numInputs,
                                             const ShapeFunction *shapes) {
  Block &body = entry.getBody().front();
  if (numInputs > body.getNumArguments())
    return unsupported(entry, "fewer arguments than inputs");
  program.numInputs = static_cast<int32_t>(numInputs);
  // The inputs' dynamic dims are the first registers, in order.
  for (BlockArgument arg : body.getArguments()) {
    auto type = dyn_cast<MemRefType>(arg.getType());
    if (!type || getElementBytes(type.getElementType()) == 0)
      return unsupported(entry, "an argument that is not a buffer");
    HostProgram::Argument argument;
    argument.elementBytes = getElementBytes(type.getElementType());
    bool isInput = arg.getArgNumber() < numInputs;
    for (int64_t size : type.getShape()) {
      if (!ShapedType::isDynamic(size))
        argument.dims.push_back(size);
      else if (isInput)
        argument.dims.push_back(
            HostProgram::getRegisterOperand(numRegisters++));
      else
        argument.dims.push_back(kFromShapeFunction);
    }
    program.arguments.push_back(std::move(argument));
  }
  bool dynamicResults = llvm::any_of(
      llvm::drop_begin(program.arguments, numInputs),
      [](const HostProgram::Argument &argument) {
        return llvm::is_contained(argument.dims, kFromShapeFunction);
      });
  if (numRegisters || dynamicResults) {
    if (!shapes || shapes->results.size() != body.getNumArguments() - numInputs)
      return unsupported(entry, "dynamic dims without a shape function");
    std::string prefix = ("@" + entry.getSymName() + ": ").str();
    for (const ShapeCheck &check : shapes->checks) {
      Step step{StepKind::Check};
      step.op =
          static_cast<uint8_t>(check.atMost ? HostProgram::CheckOp::AtMost
                                            : HostProgram::CheckOp::Equal);
      step.lhs = getSize(check.lhs);
      step.rhs = getSize(check.rhs);
      step.message = prefix + check.what;
      program.steps.push_back(std::move(step));
    }
    for (unsigned i = numInputs; i < body.getNumArguments(); ++i) {
      const std::vector<SizeExpr> &dims = shapes->results[i - numInputs];
      std::vector<Operand> &argumentDims = program.arguments[i].dims;
      if (dims.size() != argumentDims.size())
        return unsupported(entry, "a shape function of other ranks");
      for (size_t d = 0; d < dims.size(); ++d)
        if (argumentDims[d] == kFromShapeFunction)
          argumentDims[d] = getSize(dims[d]);
    }
  }
  for (BlockArgument arg : body.getArguments()) {
    std::optional<View> view =
        getWholeView(cast<MemRefType>(arg.getType()), program.numSlots,
                     program.arguments[arg.getArgNumber()].dims);
    if (!view)
      return unsupported(entry, "an argument that is not an identity buffer");
    views[arg] = *view;
    ++program.numSlots;
  }
  program.numArguments = program.numSlots;
  return llvm::Error::success();
}

llvm::Expected<HostProgram> HostProgram::build(func::FuncOp entry,
                                               unsigned numInputs,
                                               const ShapeFunction *shapes) {
  return HostProgramBuilder(entry).build(numInputs, shapes);
}

llvm::Expected<HostProgram>
HostProgramBuilder::build(unsigned numInputs, const ShapeFunction *shapes) {
  if (!entry.getBody().hasOneBlock())
    return unsupported(entry, "control flow");
  if (entry.getNumResults() != 0)
    return unsupported(entry, "results that are not out-params");
  if (llvm::Error e = addArguments(numInputs, shapes))
    return std::move(e);
  for (Operation &op : entry.getBody().front()) {
    if (isa<func::ReturnOp>(op))
      break;
    if (llvm::Error e = addOp(op))
      return std::move(e);
  }
  program.scheduleCollectives();
  return std::move(program);
}

/// The runtime's operation for an arith op on indices.
static std::optional<HostProgram::IndexOp> getIndexOp(Operation &op) {
  using IndexOp = HostProgram::IndexOp;
  // Sizes are never negative: signed and unsigned forms agree on them.
  return llvm::TypeSwitch<Operation *, std::optional<IndexOp>>(&op)
      .Case<arith::AddIOp>([](auto) { return IndexOp::Add; })
      .Case<arith::SubIOp>([](auto) { return IndexOp::Sub; })
      .Case<arith::MulIOp>([](auto) { return IndexOp::Mul; })
      .Case<arith::DivUIOp, arith::DivSIOp, arith::FloorDivSIOp>(
          [](auto) { return IndexOp::FloorDiv; })
      .Case<arith::CeilDivUIOp, arith::CeilDivSIOp>(
          [](auto) { return IndexOp::CeilDiv; })
      .Case<arith::RemUIOp, arith::RemSIOp>([](auto) { return IndexOp::Rem; })
      .Case<arith::MinUIOp, arith::MinSIOp>([](auto) { return IndexOp::Min; })
      .Case<arith::MaxUIOp, arith::MaxSIOp>([](auto) { return IndexOp::Max; })
      .Default([](auto) { return std::nullopt; });
}

llvm::Error HostProgramBuilder::addOp(Operation &op) {
  if (auto constantOp = dyn_cast<arith::ConstantOp>(op)) {
    // Scalars only feed ops that would have failed here otherwise.
    if (isa<MemRefType>(constantOp.getType()))
      return unsupported(&op, "a memref constant");
    return llvm::Error::success();
  }
  if (std::optional<IndexOp> indexOp = getIndexOp(op)) {
    if (!op.getResult(0).getType().isIndex())
      return unsupported(&op, "arithmetic on values that are not sizes");
    std::optional<Operand> lhs = getIndex(op.getOperand(0));
    std::optional<Operand> rhs = getIndex(op.getOperand(1));
    if (!lhs || !rhs)
      return unsupported(&op, "arithmetic on unknown sizes");
    indices[op.getResult(0)] = compute(*indexOp, *lhs, *rhs);
    return llvm::Error::success();
  }
  if (auto dim = dyn_cast<memref::DimOp>(op)) {
    const View *source = lookupView(dim.getSource());
    std::optional<int64_t> d = dim.getConstantIndex();
    if (!source || !d || *d < 0 ||
        *d >= static_cast<int64_t>(source->sizes.size()))
      return unsupported(&op, "a dim of an unknown buffer");
    indices[dim.getResult()] = source->sizes[*d];
    return llvm::Error::success();
  }
  if (auto alloc = dyn_cast<memref::AllocOp>(op)) {
    std::optional<SmallVector<Operand>> sizes =
        getIndices(alloc.getMixedSizes());
    std::optional<View> view =
        sizes ? getWholeView(alloc.getType(), program.numSlots, *sizes)
              : std::nullopt;
    if (!view)
      return unsupported(&op, "an allocation of unknown sizes or layout");
    // The runtime's buffers are 64-byte aligned.
    if (alloc.getAlignment().value_or(64) > 64)
      return unsupported(&op, "an alignment above 64 bytes");
    Step step{StepKind::Alloc};
    step.slot = program.numSlots++;
    step.bytes = view->elementBytes;
    for (Operand size : view->sizes)
      step.bytes = compute(IndexOp::Mul, step.bytes, size);
    program.steps.push_back(std::move(step));
    views[alloc.getResult()] = *view;
    allocSlot[alloc.getResult()] = view->slot;
    return llvm::Error::success();
  }
  if (auto dealloc = dyn_cast<memref::DeallocOp>(op)) {
    auto it = allocSlot.find(dealloc.getMemref());
    if (it == allocSlot.end())
      return unsupported(&op, "a free of something not allocated here");
    Step step{StepKind::Free};
    step.slot = it->second;
    program.steps.push_back(std::move(step));
    return llvm::Error::success();
  }
  if (auto global = dyn_cast<memref::GetGlobalOp>(op)) {
    auto decl = symbols.lookupNearestSymbolFrom<memref::GlobalOp>(
        &op, global.getNameAttr());
    auto value =
        decl ? dyn_cast_or_null<DenseElementsAttr>(decl.getInitialValueAttr())
             : nullptr;
    MemRefType type = global.getType();
    std::optional<View> view =
        type.hasStaticShape()
            ? getWholeView(type, program.numSlots,
                           SmallVector<Operand>(type.getShape()))
            : std::nullopt;
    // Runs share the data: it must be constant.
    if (!value || !view || !decl.getConstant())
      return unsupported(&op, "a global without constant dense data");
    std::optional<std::vector<char>> data =
        getConstantData(value, view->elementBytes);
    if (!data)
      return unsupported(&op, "a constant of an unsupported element type");
    program.constants.push_back({program.numSlots++, std::move(*data)});
    views[global.getResult()] = *view;
    return llvm::Error::success();
  }
  if (auto subview = dyn_cast<memref::SubViewOp>(op)) {
    const View *source = lookupView(subview.getSource());
    auto offsets = getIndices(subview.getMixedOffsets());
    auto sizes = getIndices(subview.getMixedSizes());
    auto strides = getIndices(subview.getMixedStrides());
    if (!source || !offsets || !sizes || !strides ||
        offsets->size() != source->sizes.size())
      return unsupported(&op, "a view of unknown sizes");
    View view;
    view.slot = source->slot;
    view.elementBytes = source->elementBytes;
    view.offset = source->offset;
    llvm::SmallBitVector dropped = subview.getDroppedDims();
    SmallVector<Operand> sourceStrides(source->strides.begin(),
                                       source->strides.end());
    for (size_t d = 0; d < offsets->size(); ++d) {
      view.offset =
          compute(IndexOp::Add, view.offset,
                  compute(IndexOp::Mul, (*offsets)[d], sourceStrides[d]));
      if (dropped.test(d))
        continue;
      view.sizes.push_back((*sizes)[d]);
      view.strides.push_back(
          compute(IndexOp::Mul, (*strides)[d], sourceStrides[d]));
    }
    views[subview.getResult()] = std::move(view);
    return llvm::Error::success();
  }
  if (isa<memref::CastOp>(op)) {
    const View *source = lookupView(op.getOperand(0));
    if (!source)
      return unsupported(&op, "a cast of an unknown buffer");
    // Copied first: inserting may move the map's entries.
    View view = *source;
    views[op.getResult(0)] = std::move(view);
    return llvm::Error::success();
  }
  if (auto cast = dyn_cast<memref::ReinterpretCastOp>(op)) {
    // An offset from the buffer's start, sizes and strides: the scratch
    // outputs of -kiln-outline-kernels' subset kernels.
    const View *source = lookupView(cast.getSource());
    auto offsets = getIndices(cast.getMixedOffsets());
    auto sizes = getIndices(cast.getMixedSizes());
    auto strides = getIndices(cast.getMixedStrides());
    if (!source || !offsets || offsets->size() != 1 || !sizes || !strides)
      return unsupported(&op, "a reinterpret_cast of unknown sizes");
    View view = *source;
    view.offset = (*offsets)[0];
    view.sizes.assign(sizes->begin(), sizes->end());
    view.strides.assign(strides->begin(), strides->end());
    views[cast.getResult()] = std::move(view);
    return llvm::Error::success();
  }
  if (auto transpose = dyn_cast<memref::TransposeOp>(op)) {
    const View *source = lookupView(transpose.getIn());
    if (!source)
      return unsupported(&op, "a transpose of an unknown buffer");
    // Result dim i is source dim permutation(i).
    View view = *source;
    AffineMap permutation = transpose.getPermutation();
    for (unsigned i = 0; i < permutation.getNumResults(); ++i) {
      unsigned from = permutation.getDimPosition(i);
      view.sizes[i] = source->sizes[from];
      view.strides[i] = source->strides[from];
    }
    views[transpose.getResult()] = std::move(view);
    return llvm::Error::success();
  }
  if (auto collapse = dyn_cast<memref::CollapseShapeOp>(op)) {
    // Each group is contiguous (the op requires it): its size is the
    // product, its stride that of its innermost dim not of size 1.
    const View *found = lookupView(collapse.getSrc());
    if (!found)
      return unsupported(&op, "a reshape of an unknown buffer");
    View source = *found;
    View view = source;
    view.sizes.clear();
    view.strides.clear();
    for (const ReassociationIndices &group :
         collapse.getReassociationIndices()) {
      Operand size = 1;
      for (int64_t d : group)
        size = compute(IndexOp::Mul, size, source.sizes[d]);
      view.sizes.push_back(size);
      Operand stride = 1;
      for (int64_t d : llvm::reverse(group)) {
        stride = source.strides[d];
        if (source.sizes[d] != 1)
          break;
      }
      view.strides.push_back(stride);
    }
    setStaticStrides(view, collapse.getResultType());
    views[collapse.getResult()] = std::move(view);
    return llvm::Error::success();
  }
  if (auto expand = dyn_cast<memref::ExpandShapeOp>(op)) {
    const View *found = lookupView(expand.getSrc());
    auto outputSizes = getIndices(expand.getMixedOutputShape());
    if (!found || !outputSizes)
      return unsupported(&op, "a reshape of unknown sizes");
    View source = *found;
    View view = source;
    view.sizes.assign(outputSizes->begin(), outputSizes->end());
    view.strides.assign(outputSizes->size(), 1);
    for (auto [from, group] :
         llvm::enumerate(expand.getReassociationIndices())) {
      Operand stride = source.strides[from];
      for (size_t i = group.size(); i-- > 0;) {
        view.strides[group[i]] = stride;
        stride = compute(IndexOp::Mul, stride, view.sizes[group[i]]);
      }
    }
    setStaticStrides(view, expand.getResultType());
    views[expand.getResult()] = std::move(view);
    return llvm::Error::success();
  }
  if (auto copy = dyn_cast<memref::CopyOp>(op)) {
    const View *source = lookupView(copy.getSource());
    const View *target = lookupView(copy.getTarget());
    if (!source || !target || source->sizes.size() != target->sizes.size())
      return unsupported(&op, "a copy between unknown buffers");
    // Sizes that differ as operands are compared by the run.
    for (size_t d = 0; d < source->sizes.size(); ++d)
      if (source->sizes[d] >= 0 && target->sizes[d] >= 0 &&
          source->sizes[d] != target->sizes[d])
        return unsupported(&op, "a copy between views of different sizes");
    Step step{StepKind::Copy};
    step.views = {*source, *target};
    program.steps.push_back(std::move(step));
    return llvm::Error::success();
  }
  if (auto launch = dyn_cast<gpu::LaunchFuncOp>(op)) {
    Step step{StepKind::Launch};
    step.callee =
        indexOf(launch.getKernelName(), kernelIndex, program.kernelNames);
    gpu::KernelDim3 grid = launch.getGridSizeOperandValues();
    gpu::KernelDim3 block = launch.getBlockSizeOperandValues();
    Value gridDims[3] = {grid.x, grid.y, grid.z};
    Value blockDims[3] = {block.x, block.y, block.z};
    for (int d = 0; d < 3; ++d) {
      std::optional<Operand> size = getIndex(gridDims[d]);
      if (!size || *size == 0)
        return unsupported(&op, "a launch of an unknown or empty grid");
      step.grid[d] = *size;
      std::optional<int64_t> threads = getConstantIntValue(blockDims[d]);
      if (!threads || *threads <= 0 || *threads > 1024)
        return unsupported(&op, "a launch of a dynamic or bad block");
      step.block[d] = static_cast<unsigned>(*threads);
    }
    if (launch.hasClusterSize() || launch.getDynamicSharedMemorySize() ||
        !launch.getAsyncDependencies().empty())
      return unsupported(&op, "a launch with clusters, shared memory or "
                              "async dependencies");
    for (Value operand : launch.getKernelOperands()) {
      const View *view = lookupView(operand);
      if (!view)
        return unsupported(&op, "an argument that is not a known buffer");
      step.views.push_back(*view);
    }
    program.steps.push_back(std::move(step));
    return llvm::Error::success();
  }
  if (auto call = dyn_cast<func::CallOp>(op)) {
    auto callee = symbols.lookupNearestSymbolFrom<func::FuncOp>(
        &op, call.getCalleeAttr());
    if (!callee || call.getNumResults() != 0)
      return unsupported(&op, "a call of an unknown function");
    Step step;
    StringRef name = call.getCallee();
    if (callee->hasAttr(kiln::KilnDialect::KernelAttrHelper::getNameStr())) {
      step.kind = StepKind::Kernel;
      step.callee = indexOf(name, kernelIndex, program.kernelNames);
    } else if (std::optional<kiln::CollectiveCall> collective =
                   kiln::parseCollectiveCallName(name);
               collective && callee.isExternal() &&
               call.getNumOperands() == 2) {
      // Collectives.cpp's call: its name holds the op's attributes.
      step.kind = StepKind::Collective;
      step.callee = collective->kind;
      step.op = static_cast<uint8_t>(collective->reduction);
      step.lhs = collective->dim;
      step.rhs = collective->group;
    } else if (callee.isExternal() &&
               (kiln_rt_blas_lookup(name.str().c_str()) ||
                kiln_rt_program_cuda_runs(name.str().c_str())) &&
               call.getNumOperands() >= 1 && call.getNumOperands() <= 15) {
      step.kind = StepKind::RuntimeCall;
      step.callee = indexOf(name, runtimeIndex, program.runtimeNames);
    } else {
      return unsupported(&op, "a call of @" + name);
    }
    for (auto [operand, type] :
         llvm::zip_equal(call.getOperands(), callee.getArgumentTypes())) {
      const View *found = lookupView(operand);
      auto memref = dyn_cast<MemRefType>(type);
      if (!found || !memref)
        return unsupported(&op, "an argument that is not a known buffer");
      // Descriptors hold four dims at most (program_cpu.c).
      if (step.kind == StepKind::RuntimeCall && found->sizes.size() > 4)
        return unsupported(&op, "a runtime call on a view of rank > 4");
      View view = *found;
      view.descriptor = step.kind == StepKind::Kernel &&
                        !kiln::isCompactKernelArgument(memref);
      step.views.push_back(std::move(view));
    }
    program.steps.push_back(std::move(step));
    return llvm::Error::success();
  }
  return unsupported(&op, "not a host step");
}

bool HostProgram::hasCollectives() const {
  return llvm::any_of(steps, [](const Step &step) {
    return step.kind == StepKind::Collective;
  });
}

bool HostProgram::hasLaunches() const {
  return llvm::any_of(
      steps, [](const Step &step) { return step.kind == StepKind::Launch; });
}

std::vector<std::string> HostProgram::getKernelNames() const {
  return kernelNames;
}

std::vector<std::string> HostProgram::getRuntimeFunctionNames() const {
  return runtimeNames;
}

llvm::Expected<RuntimeProgram>
kiln::createRuntimeProgram(llvm::StringRef bytes) {
  kiln_rt_program *program = nullptr;
  if (kiln_rt_status status =
          kiln_rt_program_create(bytes.data(), bytes.size(), &program))
    return takeRuntimeError(status);
  return RuntimeProgram(program);
}

void kiln::setProgramStats(CompileStats &stats,
                           const kiln_rt_program *program) {
  kiln_rt_memory_plan plan = {};
  kiln_rt_program_get_memory_plan(program, &plan);
  stats.hostSteps = program ? kiln_rt_program_num_steps(program) : 0;
  stats.arenaBytes = plan.arena_bytes;
  stats.plannedBuffers = plan.planned_buffers;
  stats.unplannedBuffers = plan.unplanned_buffers;
  stats.livePeakBytes = plan.live_peak_bytes;
  stats.bufferBytes = plan.buffer_bytes;
}

std::vector<int64_t>
kiln::getInputDims(const kiln_rt_program *program,
                   llvm::ArrayRef<llvm::ArrayRef<int64_t>> inputShapes) {
  std::vector<int64_t> dims;
  if (!kiln_rt_program_is_dynamic(program))
    return dims;
  for (llvm::ArrayRef<int64_t> shape : inputShapes)
    llvm::append_range(dims, shape);
  return dims;
}

std::vector<int64_t>
kiln::getInputDims(const kiln_rt_program *program,
                   llvm::ArrayRef<const HostTensor *> inputs) {
  std::vector<llvm::ArrayRef<int64_t>> shapes;
  for (const HostTensor *input : inputs)
    shapes.push_back(input->getShape());
  return getInputDims(program, shapes);
}

llvm::Expected<std::vector<llvm::SmallVector<int64_t, 4>>>
kiln::getProgramResultShapes(
    const kiln_rt_program *program, llvm::ArrayRef<TensorSignature> outputs,
    llvm::ArrayRef<llvm::ArrayRef<int64_t>> inputShapes) {
  std::vector<int64_t> inputDims = getInputDims(program, inputShapes);
  std::vector<int64_t> resultDims;
  if (!inputDims.empty()) {
    size_t count = 0;
    for (const TensorSignature &output : outputs)
      count += output.shape.size();
    resultDims.resize(count + 1);
    if (kiln_rt_status status = kiln_rt_program_result_dims(
            program, inputDims.data(), resultDims.data()))
      return takeRuntimeError(status);
  }
  std::vector<llvm::SmallVector<int64_t, 4>> shapes;
  size_t next = 0;
  for (const TensorSignature &output : outputs) {
    llvm::ArrayRef<int64_t> shape = output.shape;
    if (!inputDims.empty())
      shape = llvm::ArrayRef(resultDims).slice(next, output.shape.size());
    next += output.shape.size();
    shapes.emplace_back(shape.begin(), shape.end());
  }
  return shapes;
}

llvm::Expected<std::vector<HostTensor>>
kiln::createProgramResults(const kiln_rt_program *program,
                           llvm::ArrayRef<TensorSignature> outputs,
                           llvm::ArrayRef<const HostTensor *> inputs) {
  std::vector<llvm::ArrayRef<int64_t>> inputShapes;
  for (const HostTensor *input : inputs)
    inputShapes.push_back(input->getShape());
  llvm::Expected<std::vector<llvm::SmallVector<int64_t, 4>>> shapes =
      getProgramResultShapes(program, outputs, inputShapes);
  if (!shapes)
    return shapes.takeError();
  std::vector<HostTensor> results;
  for (auto [output, shape] : llvm::zip(outputs, *shapes)) {
    // The entry writes every element of its results.
    llvm::Expected<HostTensor> result = HostTensor::createUninitialized(
        output.dtype, std::vector<int64_t>(shape.begin(), shape.end()));
    if (!result)
      return result.takeError();
    results.push_back(std::move(*result));
  }
  return results;
}

RuntimeProfile::RuntimeProfile(RunProfile *profile) : profile(profile) {
  if (profile && profile->perCall) {
    counts.on_call = [](void *context, const char *name, double ns) {
      static_cast<RunProfile *>(context)->addCall(name, ns);
    };
    counts.context = profile;
  }
}

RuntimeProfile::~RuntimeProfile() {
  if (!profile)
    return;
  profile->launches += static_cast<int64_t>(counts.calls);
  profile->kernelNs += counts.ns;
}
