//===- HostProgram.cpp - the entry's host code as a list of steps ---------===//

#include "Compiler/HostProgram.h"
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

/// The whole of a buffer of static, identity-layout `type` in `slot`.
static std::optional<HostProgram::View> getWholeView(MemRefType type,
                                                     int32_t slot) {
  SmallVector<int64_t> strides;
  int64_t offset;
  if (!type.hasStaticShape() || !type.getLayout().isIdentity() ||
      failed(type.getStridesAndOffset(strides, offset)) ||
      getElementBytes(type.getElementType()) == 0)
    return std::nullopt;
  HostProgram::View view;
  view.slot = slot;
  view.sizes.assign(type.getShape().begin(), type.getShape().end());
  view.strides.assign(strides.begin(), strides.end());
  view.elementBytes = getElementBytes(type.getElementType());
  return view;
}

/// `source` seen through a static subview.
static std::optional<HostProgram::View>
getSubView(const HostProgram::View &source, memref::SubViewOp subview) {
  ArrayRef<int64_t> offsets = subview.getStaticOffsets();
  ArrayRef<int64_t> sizes = subview.getStaticSizes();
  ArrayRef<int64_t> strides = subview.getStaticStrides();
  if (llvm::any_of(offsets, ShapedType::isDynamic) ||
      llvm::any_of(sizes, ShapedType::isDynamic) ||
      llvm::any_of(strides, ShapedType::isDynamic) ||
      offsets.size() != source.sizes.size())
    return std::nullopt;
  llvm::SmallBitVector dropped = subview.getDroppedDims();
  HostProgram::View view;
  view.slot = source.slot;
  view.elementBytes = source.elementBytes;
  view.offset = source.offset;
  for (size_t d = 0; d < offsets.size(); ++d) {
    view.offset += offsets[d] * source.strides[d];
    if (dropped.test(d))
      continue;
    view.sizes.push_back(sizes[d]);
    view.strides.push_back(strides[d] * source.strides[d]);
  }
  return view;
}

/// `source` reshaped to `type` (expand or collapse of contiguous groups):
/// the static layout of the result type, at the source's offset.
static std::optional<HostProgram::View>
getReshapedView(const HostProgram::View &source, MemRefType type) {
  SmallVector<int64_t> strides;
  int64_t offset;
  if (!type.hasStaticShape() ||
      failed(type.getStridesAndOffset(strides, offset)) ||
      llvm::any_of(strides, ShapedType::isDynamic))
    return std::nullopt;
  HostProgram::View view = source;
  view.sizes.assign(type.getShape().begin(), type.getShape().end());
  view.strides.assign(strides.begin(), strides.end());
  return view;
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

llvm::Expected<HostProgram> HostProgram::build(func::FuncOp entry) {
  HostProgram program;
  if (!entry.getBody().hasOneBlock())
    return unsupported(entry, "control flow");
  if (entry.getNumResults() != 0)
    return unsupported(entry, "results that are not out-params");
  llvm::DenseMap<Value, View> views;
  llvm::DenseMap<Value, int32_t> allocSlot;
  llvm::StringMap<int32_t> kernelIndex, runtimeIndex;
  Block &body = entry.getBody().front();
  for (BlockArgument arg : body.getArguments()) {
    auto type = dyn_cast<MemRefType>(arg.getType());
    std::optional<View> view =
        type ? getWholeView(type, program.numSlots) : std::nullopt;
    if (!view)
      return unsupported(entry, "an argument that is not a static buffer");
    views[arg] = *view;
    ++program.numSlots;
  }
  program.numArguments = program.numSlots;
  SymbolTableCollection symbols;

  // The pointers it returns are invalidated by insertions into `views`.
  auto lookupView = [&](Value value) -> const View * {
    auto it = views.find(value);
    return it == views.end() ? nullptr : &it->second;
  };
  for (Operation &op : body) {
    if (isa<func::ReturnOp>(op))
      break;
    if (auto constant = dyn_cast<arith::ConstantOp>(op)) {
      // Scalars only feed ops that would have failed here otherwise.
      if (isa<MemRefType>(constant.getType()))
        return unsupported(&op, "a memref constant");
      continue;
    }
    if (auto alloc = dyn_cast<memref::AllocOp>(op)) {
      std::optional<View> view =
          getWholeView(alloc.getType(), program.numSlots);
      if (!view)
        return unsupported(&op, "a dynamic or non-identity allocation");
      // The runtime's buffers are 64-byte aligned.
      if (alloc.getAlignment().value_or(64) > 64)
        return unsupported(&op, "an alignment above 64 bytes");
      Step step{StepKind::Alloc};
      step.slot = program.numSlots++;
      step.bytes = view->getNumElements() * view->elementBytes;
      program.steps.push_back(std::move(step));
      views[alloc.getResult()] = *view;
      allocSlot[alloc.getResult()] = view->slot;
      continue;
    }
    if (auto dealloc = dyn_cast<memref::DeallocOp>(op)) {
      auto it = allocSlot.find(dealloc.getMemref());
      if (it == allocSlot.end())
        return unsupported(&op, "a free of something not allocated here");
      Step step{StepKind::Free};
      step.slot = it->second;
      program.steps.push_back(std::move(step));
      continue;
    }
    if (auto global = dyn_cast<memref::GetGlobalOp>(op)) {
      auto decl = symbols.lookupNearestSymbolFrom<memref::GlobalOp>(
          &op, global.getNameAttr());
      auto value =
          decl ? dyn_cast_or_null<DenseElementsAttr>(decl.getInitialValueAttr())
               : nullptr;
      std::optional<View> view =
          getWholeView(global.getType(), program.numSlots);
      // Runs share the data: it must be constant.
      if (!value || !view || !decl.getConstant())
        return unsupported(&op, "a global without constant dense data");
      std::optional<std::vector<char>> data =
          getConstantData(value, view->elementBytes);
      if (!data)
        return unsupported(&op, "a constant of an unsupported element type");
      program.constants.push_back({program.numSlots++, std::move(*data)});
      views[global.getResult()] = *view;
      continue;
    }
    if (auto subview = dyn_cast<memref::SubViewOp>(op)) {
      const View *source = lookupView(subview.getSource());
      std::optional<View> view =
          source ? getSubView(*source, subview) : std::nullopt;
      if (!view)
        return unsupported(&op, "a dynamic view");
      views[subview.getResult()] = *view;
      continue;
    }
    if (isa<memref::CastOp>(op)) {
      const View *source = lookupView(op.getOperand(0));
      if (!source)
        return unsupported(&op, "a cast of an unknown buffer");
      // Copied first: inserting may move the map's entries.
      View view = *source;
      views[op.getResult(0)] = std::move(view);
      continue;
    }
    if (auto cast = dyn_cast<memref::ReinterpretCastOp>(op)) {
      // Static offset (from the buffer's start), sizes and strides: the
      // scratch outputs of -kiln-outline-kernels' subset kernels.
      const View *source = lookupView(cast.getSource());
      ArrayRef<int64_t> offsets = cast.getStaticOffsets();
      ArrayRef<int64_t> sizes = cast.getStaticSizes();
      ArrayRef<int64_t> strides = cast.getStaticStrides();
      if (!source || offsets.size() != 1 || ShapedType::isDynamic(offsets[0]) ||
          llvm::any_of(sizes, ShapedType::isDynamic) ||
          llvm::any_of(strides, ShapedType::isDynamic))
        return unsupported(&op, "a dynamic reinterpret_cast");
      View view = *source;
      view.offset = offsets[0];
      view.sizes.assign(sizes.begin(), sizes.end());
      view.strides.assign(strides.begin(), strides.end());
      views[cast.getResult()] = std::move(view);
      continue;
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
      continue;
    }
    if (isa<memref::ExpandShapeOp, memref::CollapseShapeOp>(op)) {
      const View *source = lookupView(op.getOperand(0));
      std::optional<View> view =
          source ? getReshapedView(*source,
                                   cast<MemRefType>(op.getResult(0).getType()))
                 : std::nullopt;
      if (!view)
        return unsupported(&op, "a dynamic reshape");
      views[op.getResult(0)] = *view;
      continue;
    }
    if (auto copy = dyn_cast<memref::CopyOp>(op)) {
      const View *source = lookupView(copy.getSource());
      const View *target = lookupView(copy.getTarget());
      if (!source || !target || source->sizes != target->sizes)
        return unsupported(&op, "a copy between unknown buffers");
      Step step{StepKind::Copy};
      step.views = {*source, *target};
      program.steps.push_back(std::move(step));
      continue;
    }
    if (auto launch = dyn_cast<gpu::LaunchFuncOp>(op)) {
      Step step{StepKind::Launch};
      step.callee =
          indexOf(launch.getKernelName(), kernelIndex, program.kernelNames);
      gpu::KernelDim3 grid = launch.getGridSizeOperandValues();
      gpu::KernelDim3 block = launch.getBlockSizeOperandValues();
      Value dims[6] = {grid.x, grid.y, grid.z, block.x, block.y, block.z};
      for (int d = 0; d < 6; ++d) {
        std::optional<int64_t> size = getConstantIntValue(dims[d]);
        if (!size || *size <= 0 || *size > INT32_MAX)
          return unsupported(&op, "a launch of a dynamic or empty grid");
        (d < 3 ? step.grid[d] : step.block[d - 3]) =
            static_cast<unsigned>(*size);
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
      continue;
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
      } else if (callee.isExternal() &&
                 kiln_rt_blas_lookup(name.str().c_str()) &&
                 call.getNumOperands() >= 1 && call.getNumOperands() <= 4) {
        step.kind = StepKind::RuntimeCall;
        step.callee = indexOf(name, runtimeIndex, program.runtimeNames);
      } else {
        return unsupported(&op, "a call of @" + name);
      }
      for (Value operand : call.getOperands()) {
        const View *view = lookupView(operand);
        if (!view)
          return unsupported(&op, "an argument that is not a known buffer");
        // Descriptors hold four dims at most (Descriptor below).
        if (step.kind == StepKind::RuntimeCall && view->sizes.size() > 4)
          return unsupported(&op, "a runtime call on a view of rank > 4");
        step.views.push_back(*view);
      }
      program.steps.push_back(std::move(step));
      continue;
    }
    return unsupported(&op, "not a host step");
  }
  return program;
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
    return getRuntimeProgramError(status);
  return RuntimeProgram(program);
}

llvm::Error kiln::getRuntimeProgramError(kiln_rt_status status) {
  std::string why = kiln_rt_last_error();
  return llvm::createStringError(
      llvm::inconvertibleErrorCode(),
      why.empty() ? std::string(kiln_rt_status_string(status)) : why);
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
