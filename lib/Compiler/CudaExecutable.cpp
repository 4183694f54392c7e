//===- CudaExecutable.cpp - a kiln function compiled for a GPU ------------===//

#include "Compiler/CudaExecutable.h"
#include "kiln/Dialect/Kiln/IR/KilnDialect.h"
#include "kiln/Pipelines/Pipelines.h"
#include "kiln_rt/kiln_rt_cuda.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/FileSystem.h"

#include <chrono>
#include <cstdlib>

using namespace mlir;
using namespace kiln;

static llvm::Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

/// The runtime's message for a failed call.
static llvm::Error runtimeError(kiln_rt_status status) {
  std::string why = kiln_rt_cuda_last_error();
  return makeError(why.empty() ? std::string(kiln_rt_status_string(status))
                               : why);
}

/// Whether `view` is dense and row-major: a copy of it is one memcpy.
static bool isDense(const HostProgram::View &view) {
  int64_t stride = 1;
  for (size_t d = view.sizes.size(); d-- > 0;) {
    if (view.sizes[d] != 1 && view.strides[d] != stride)
      return false;
    stride *= view.sizes[d];
  }
  return true;
}

namespace {
/// A runtime call of the CPU pipeline's BLAS shim (kiln_rt_blas.h), as a
/// cuBLAS product: C = op(A) op(B) (+ C unless `_set`).
struct GemmCall {
  kiln_rt_cuda_dtype dtype;
  bool transA, transB, accumulate;
  int64_t m, n, k, batch;
  int64_t lda, ldb, ldc, strideA, strideB, strideC;
};
} // namespace

/// The leading dim of a matrix view as cuBLAS needs it, and whether the
/// view is stored transposed (unit stride down its columns). A dim of size
/// 1 takes any stride, so it never decides the layout, and the leading dim
/// is at least the row (or column) length, as cuBLAS requires.
static std::optional<std::pair<int64_t, bool>>
getLeadingDim(const HostProgram::View &view) {
  size_t r = view.sizes.size();
  int64_t rows = view.sizes[r - 2], cols = view.sizes[r - 1];
  int64_t rowStride = view.strides[r - 2], colStride = view.strides[r - 1];
  if (cols <= 1 || colStride == 1)
    return std::make_pair(rows <= 1 ? std::max<int64_t>(cols, 1)
                                    : std::max(rowStride, cols),
                          false);
  if (rows <= 1 || rowStride == 1)
    return std::make_pair(std::max(colStride, rows), true);
  return std::nullopt;
}

/// `name` (e.g. kiln_rt_batch_matmul_f32_nt_set) on `views` (A, B, C).
static llvm::Expected<GemmCall>
getGemmCall(llvm::StringRef name, llvm::ArrayRef<HostProgram::View> views) {
  auto unsupported = [&] {
    return makeError("the cuda backend cannot run @" + name +
                     " on these views");
  };
  StringRef rest = name;
  bool batched = rest.consume_front("kiln_rt_batch_matmul_");
  if (!batched && !rest.consume_front("kiln_rt_matmul_"))
    return unsupported();
  GemmCall call;
  if (rest.consume_front("f32_"))
    call.dtype = KILN_RT_CUDA_F32;
  else if (rest.consume_front("f64_"))
    call.dtype = KILN_RT_CUDA_F64;
  else
    return unsupported();
  call.accumulate = !rest.consume_back("_set");
  if (rest.size() != 2 || views.size() != 3)
    return unsupported();
  call.transA = rest[0] == 't';
  call.transB = rest[1] == 't';
  size_t rank = batched ? 3 : 2;
  for (const HostProgram::View &view : views)
    if (view.sizes.size() != rank)
      return unsupported();
  const HostProgram::View &a = views[0], &b = views[1], &c = views[2];
  auto la = getLeadingDim(a), lb = getLeadingDim(b), lc = getLeadingDim(c);
  if (!la || !lb || !lc || lc->second)
    return unsupported();
  // A view stored transposed is the other op on its transpose.
  call.transA ^= la->second;
  call.transB ^= lb->second;
  call.lda = la->first;
  call.ldb = lb->first;
  call.ldc = lc->first;
  call.m = c.sizes[rank - 2];
  call.n = c.sizes[rank - 1];
  call.k = views[0].sizes[rank - 1 - (rest[0] == 't' ? 1 : 0)];
  call.batch = batched ? c.sizes[0] : 1;
  call.strideA = batched ? a.strides[0] : 0;
  call.strideB = batched ? b.strides[0] : 0;
  call.strideC = batched ? c.strides[0] : 0;
  return call;
}

CudaExecutable::~CudaExecutable() {
  // After a shutdown, the blocks went with the old session.
  if (loadedSession != 0 && loadedSession == kiln_rt_cuda_session())
    for (auto &[slot, pointer] : deviceConstants)
      kiln_rt_cuda_free(pointer);
}

llvm::Expected<std::unique_ptr<CudaExecutable>>
CudaExecutable::compile(ModuleOp module, StringRef entry,
                        const CompileOptions &options) {
  auto start = std::chrono::steady_clock::now();
  llvm::Expected<PreparedEntry> prepared = prepareEntry(module, entry);
  if (!prepared)
    return prepared.takeError();
  std::unique_ptr<CudaExecutable> exe(new CudaExecutable());
  exe->entryName = prepared->name;
  exe->inputs = prepared->inputs;
  exe->outputs = prepared->outputs;
  for (const TensorSignature &input : exe->inputs)
    for (int64_t d : input.shape)
      if (ShapedType::isDynamic(d))
        return makeError("the cuda backend needs static shapes; argument "
                         "type " +
                         input.typeString + " is dynamic");

  KilnGpuPipelineOptions pipelineOptions;
  pipelineOptions.chip = options.chip;
  if (pipelineOptions.chip.empty()) {
    llvm::Expected<std::string> chip = getCudaChip();
    if (!chip)
      return chip.takeError();
    pipelineOptions.chip = *chip;
  }
  if (pipelineOptions.chip.empty())
    pipelineOptions.chip = "sm_80";
  std::string libdevice = options.libdevice;
  if (const char *fromEnvironment = std::getenv("KILN_LIBDEVICE");
      libdevice.empty() && fromEnvironment)
    libdevice = fromEnvironment;
  if (!libdevice.empty() && !llvm::sys::fs::exists(libdevice))
    return makeError("libdevice '" + libdevice + "' does not exist");
  pipelineOptions.libdevice = libdevice;
  pipelineOptions.prune = options.autodiffPrune;
  pipelineOptions.kernelDedup = options.kernelDedup;
  pipelineOptions.blas = options.blas.value_or(kiln_rt_cuda_is_initialized() &&
                                               kiln_rt_cuda_blas_available());
  if (pipelineOptions.blas)
    exe->stats.blas = "cublas";
  PassManager pm(module.getContext());
  buildKilnGpuPipeline(pm, pipelineOptions);
  if (llvm::Error e = runPasses(pm, module, options.verifyEachPass))
    return std::move(e);
  exe->stats.fusionGroups = prepared->writtenFusionGroups;
  if (auto formed = module->getAttrOfType<IntegerAttr>(
          kiln::KilnDialect::FusionGroupsAttrHelper::getNameStr()))
    exe->stats.fusionGroups += formed.getInt();
  if (auto launches = module->getAttrOfType<IntegerAttr>(
          kiln::KilnDialect::KernelLaunchesAttrHelper::getNameStr()))
    exe->stats.kernelLaunches = launches.getInt();
  if (auto unique = module->getAttrOfType<IntegerAttr>(
          kiln::KilnDialect::UniqueKernelsAttrHelper::getNameStr()))
    exe->stats.uniqueKernels = unique.getInt();

  // The kernels' PTX.
  for (auto binary : module.getOps<gpu::BinaryOp>())
    for (Attribute object : binary.getObjects())
      if (auto ptx = dyn_cast<gpu::ObjectAttr>(object);
          ptx && ptx.getFormat() == gpu::CompilationTarget::Assembly)
        exe->ptx += ptx.getObject().getValue().str();

  auto func = module.lookupSymbol<func::FuncOp>(exe->entryName);
  if (!func)
    return makeError("@" + exe->entryName + " disappeared during lowering");
  llvm::Expected<HostProgram> program = HostProgram::build(func);
  if (!program)
    return makeError("the cuda backend cannot run @" + exe->entryName +
                     "'s host code: " + llvm::toString(program.takeError()));
  std::vector<std::string> runtimeNames = program->getRuntimeFunctionNames();
  for (const HostProgram::Step &step : program->getSteps()) {
    if (step.kind == HostProgram::StepKind::Kernel)
      return makeError("the cuda backend cannot run a host kernel call");
    if (step.kind == HostProgram::StepKind::RuntimeCall) {
      llvm::Expected<GemmCall> gemm =
          getGemmCall(runtimeNames[step.callee], step.views);
      if (!gemm)
        return gemm.takeError();
    }
    if (step.kind == HostProgram::StepKind::Copy &&
        (!isDense(step.views[0]) || !isDense(step.views[1])))
      return makeError("the cuda backend does not copy strided views yet");
  }
  if (program->hasLaunches() && exe->ptx.empty())
    return makeError("the cuda backend found launches but no PTX");
  exe->program = std::make_unique<HostProgram>(std::move(*program));
  exe->stats.hostSteps = exe->program->getNumSteps();
  exe->stats.compileMs = std::chrono::duration<double, std::milli>(
                             std::chrono::steady_clock::now() - start)
                             .count();
  return exe;
}

llvm::Error CudaExecutable::load() const {
  std::lock_guard<std::mutex> lock(loadMutex);
  // Loaded in this session of the runtime; a shutdown invalidated the
  // handles of an earlier one.
  uint64_t session = kiln_rt_cuda_session();
  if (session == 0)
    return makeError("the CUDA runtime was shut down");
  if (loadedSession == session)
    return llvm::Error::success();
  std::vector<std::string> names = program->getKernelNames();
  std::vector<kiln_rt_cuda_function *> functions;
  if (!names.empty()) {
    kiln_rt_cuda_module *module = nullptr;
    if (kiln_rt_status status =
            kiln_rt_cuda_module_load(ptx.c_str(), ptx.size(), &module))
      return runtimeError(status);
    for (const std::string &name : names) {
      kiln_rt_cuda_function *function = nullptr;
      if (kiln_rt_status status =
              kiln_rt_cuda_module_get_function(module, name.c_str(), &function))
        return runtimeError(status);
      functions.push_back(function);
    }
  }
  std::vector<std::pair<int32_t, void *>> constants;
  auto release = [&] {
    for (auto &[slot, pointer] : constants)
      kiln_rt_cuda_free(pointer);
  };
  for (const HostProgram::Constant &constant : program->getConstants()) {
    void *pointer = nullptr;
    kiln_rt_status status = kiln_rt_cuda_malloc(constant.data.size(), &pointer);
    if (status == KILN_RT_OK)
      status = kiln_rt_cuda_copy_to_device(pointer, constant.data.data(),
                                           constant.data.size(), nullptr);
    if (status != KILN_RT_OK) {
      llvm::Error error = runtimeError(status);
      kiln_rt_cuda_free(pointer);
      release();
      return error;
    }
    constants.emplace_back(constant.slot, pointer);
  }
  kernels = std::move(functions);
  deviceConstants = std::move(constants);
  loadedSession = session;
  return llvm::Error::success();
}

namespace {
/// The device buffers of one run, freed however it ends.
struct RunBuffers {
  std::vector<void *> slots;
  std::vector<bool> owned;
  ~RunBuffers() {
    for (size_t i = 0; i < slots.size(); ++i)
      if (owned[i])
        kiln_rt_cuda_free(slots[i]);
  }
};

/// Two events, destroyed however the run ends.
struct RunEvents {
  kiln_rt_cuda_event *start = nullptr, *end = nullptr;
  ~RunEvents() {
    kiln_rt_cuda_event_destroy(start);
    kiln_rt_cuda_event_destroy(end);
  }
};
} // namespace

llvm::Expected<std::vector<HostTensor>>
CudaExecutable::run(llvm::ArrayRef<const HostTensor *> args,
                    RunProfile *profile) const {
  if (llvm::Error e = checkArguments(entryName, inputs, args))
    return std::move(e);
  if (kiln_rt_status status = kiln_rt_cuda_init())
    return runtimeError(status);
  if (llvm::Error e = load())
    return std::move(e);

  auto check = [](kiln_rt_status status) -> llvm::Error {
    return status == KILN_RT_OK ? llvm::Error::success() : runtimeError(status);
  };
  if (program->getNumArguments() !=
      static_cast<int32_t>(inputs.size() + outputs.size()))
    return makeError("@" + entryName +
                     "'s host program does not take its "
                     "inputs and results");
  RunBuffers buffers;
  buffers.slots.assign(program->getNumSlots(), nullptr);
  buffers.owned.assign(program->getNumSlots(), false);
  // The inputs, then the results.
  for (auto [i, arg] : llvm::enumerate(args)) {
    void *&slot = buffers.slots[i];
    if (llvm::Error e = check(kiln_rt_cuda_malloc(arg->getByteSize(), &slot)))
      return std::move(e);
    buffers.owned[i] = true;
    if (llvm::Error e = check(kiln_rt_cuda_copy_to_device(
            slot, arg->getData(), arg->getByteSize(), nullptr)))
      return std::move(e);
  }
  std::vector<HostTensor> results;
  for (auto [i, sig] : llvm::enumerate(outputs)) {
    llvm::Expected<HostTensor> result =
        HostTensor::createUninitialized(sig.dtype, sig.shape);
    if (!result)
      return result.takeError();
    size_t slot = args.size() + i;
    if (llvm::Error e = check(
            kiln_rt_cuda_malloc(result->getByteSize(), &buffers.slots[slot])))
      return std::move(e);
    buffers.owned[slot] = true;
    results.push_back(std::move(*result));
  }
  for (auto &[slot, pointer] : deviceConstants)
    buffers.slots[slot] = pointer;

  RunEvents events;
  if (profile) {
    if (llvm::Error e = check(kiln_rt_cuda_event_create(&events.start)))
      return std::move(e);
    if (llvm::Error e = check(kiln_rt_cuda_event_create(&events.end)))
      return std::move(e);
    if (llvm::Error e = check(kiln_rt_cuda_event_record(events.start, nullptr)))
      return std::move(e);
  }
  auto address = [&](const HostProgram::View &view) {
    return static_cast<char *>(buffers.slots[view.slot]) +
           view.offset * view.elementBytes;
  };
  // A launch's parameters: each buffer as the lowered kernel takes a
  // memref (allocated and aligned pointer, offset, sizes, strides).
  std::vector<uint64_t> values;
  std::vector<void *> params;
  std::vector<std::string> runtimeNames = program->getRuntimeFunctionNames();
  for (const HostProgram::Step &step : program->getSteps()) {
    switch (step.kind) {
    case HostProgram::StepKind::Alloc:
      if (llvm::Error e =
              check(kiln_rt_cuda_malloc(step.bytes, &buffers.slots[step.slot])))
        return std::move(e);
      buffers.owned[step.slot] = true;
      break;
    case HostProgram::StepKind::Free:
      if (llvm::Error e = check(kiln_rt_cuda_free(buffers.slots[step.slot])))
        return std::move(e);
      buffers.slots[step.slot] = nullptr;
      buffers.owned[step.slot] = false;
      break;
    case HostProgram::StepKind::Copy: {
      const HostProgram::View &source = step.views[0], &target = step.views[1];
      if (llvm::Error e = check(kiln_rt_cuda_copy_device(
              address(target), address(source),
              source.getNumElements() * source.elementBytes, nullptr)))
        return std::move(e);
      break;
    }
    case HostProgram::StepKind::Launch: {
      values.clear();
      for (const HostProgram::View &view : step.views) {
        uint64_t base = reinterpret_cast<uintptr_t>(buffers.slots[view.slot]);
        values.push_back(base);
        values.push_back(base);
        values.push_back(static_cast<uint64_t>(view.offset));
        for (int64_t size : view.sizes)
          values.push_back(static_cast<uint64_t>(size));
        for (int64_t stride : view.strides)
          values.push_back(static_cast<uint64_t>(stride));
      }
      params.clear();
      for (uint64_t &value : values)
        params.push_back(&value);
      if (llvm::Error e =
              check(kiln_rt_cuda_launch(kernels[step.callee], step.grid,
                                        step.block, 0, nullptr, params.data())))
        return std::move(e);
      if (profile)
        ++profile->launches;
      break;
    }
    case HostProgram::StepKind::RuntimeCall: {
      llvm::Expected<GemmCall> gemm =
          getGemmCall(runtimeNames[step.callee], step.views);
      if (!gemm)
        return gemm.takeError();
      if (llvm::Error e = check(kiln_rt_cuda_gemm(
              gemm->dtype, gemm->transA, gemm->transB, gemm->m, gemm->n,
              gemm->k, 1.0, address(step.views[0]), gemm->lda, gemm->strideA,
              address(step.views[1]), gemm->ldb, gemm->strideB,
              gemm->accumulate ? 1.0 : 0.0, address(step.views[2]), gemm->ldc,
              gemm->strideC, gemm->batch, nullptr)))
        return std::move(e);
      if (profile)
        ++profile->launches;
      break;
    }
    case HostProgram::StepKind::Kernel:
      return makeError("the cuda backend cannot run a host kernel call");
    }
  }
  if (profile) {
    if (llvm::Error e = check(kiln_rt_cuda_event_record(events.end, nullptr)))
      return std::move(e);
    float ms = 0;
    if (llvm::Error e =
            check(kiln_rt_cuda_event_elapsed_ms(events.start, events.end, &ms)))
      return std::move(e);
    profile->kernelNs += static_cast<double>(ms) * 1e6;
  }
  for (auto [i, result] : llvm::enumerate(results))
    if (llvm::Error e = check(kiln_rt_cuda_copy_to_host(
            result.getData(), buffers.slots[args.size() + i],
            result.getByteSize(), nullptr)))
      return std::move(e);
  if (llvm::Error e = check(kiln_rt_cuda_synchronize()))
    return std::move(e);
  return results;
}
