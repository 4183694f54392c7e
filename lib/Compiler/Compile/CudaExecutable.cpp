//===- CudaExecutable.cpp - a kiln function compiled for a GPU ------------===//

#include "Compiler/Compile/CudaExecutable.h"
#include "Compiler/Device/DeviceQueue.h"
#include "Compiler/Device/DeviceTensor.h"
#include "Support/RuntimeError.h"
#include "kiln/Dialect/Kiln/IR/KilnDialect.h"
#include "kiln/Dialect/Kiln/IR/KilnOps.h"
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

llvm::Expected<CudaTarget>
kiln::resolveCudaTarget(const CompileOptions &options) {
  CudaTarget target;
  target.chip = options.chip;
  if (target.chip.empty()) {
    llvm::Expected<std::string> chip = getCudaChip();
    if (!chip)
      return chip.takeError();
    target.chip = *chip;
  }
  if (target.chip.empty())
    target.chip = "sm_80";
  target.libdevice = options.libdevice;
  if (const char *fromEnvironment = std::getenv("KILN_LIBDEVICE");
      target.libdevice.empty() && fromEnvironment)
    target.libdevice = fromEnvironment;
  if (!target.libdevice.empty() && !llvm::sys::fs::exists(target.libdevice))
    return makeError("libdevice '" + target.libdevice + "' does not exist");
  target.blas = options.blas.value_or(kiln_rt_cuda_is_initialized() &&
                                      kiln_rt_cuda_blas_available());
  return target;
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

  llvm::Expected<CudaTarget> target = resolveCudaTarget(options);
  if (!target)
    return target.takeError();
  KilnGpuPipelineOptions pipelineOptions;
  pipelineOptions.chip = target->chip;
  pipelineOptions.libdevice = target->libdevice;
  pipelineOptions.prune = options.autodiffPrune;
  pipelineOptions.matmulPrecision =
      getPipelinePrecision(options.matmulPrecision);
  if (options.autocast)
    pipelineOptions.autocast = getDTypeName(*options.autocast).str();
  llvm::Expected<bool> autoRemat = resolveAutoRemat(options, Device::Cuda);
  if (!autoRemat)
    return autoRemat.takeError();
  pipelineOptions.remat = *autoRemat ? "auto" : "none";
  if (options.rematMinBytes)
    pipelineOptions.rematMinBytes = *options.rematMinBytes;
  pipelineOptions.kernelDedup = options.kernelDedup;
  pipelineOptions.blas = target->blas;
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
  // Dynamic dims: the host program computes the sizes, grids included.
  llvm::Expected<HostProgram> program =
      HostProgram::build(func, exe->inputs.size(),
                         prepared->shapes ? &*prepared->shapes : nullptr);
  if (!program)
    return makeError("the cuda backend cannot run @" + exe->entryName +
                     "'s host code: " + llvm::toString(program.takeError()));
  if (program->hasLaunches() && exe->ptx.empty())
    return makeError("the cuda backend found launches but no PTX");
  exe->programBytes = program->serialize();
  exe->chip = pipelineOptions.chip;
  llvm::Expected<RuntimeProgram> runtimeProgram =
      createRuntimeProgram(exe->programBytes);
  if (!runtimeProgram)
    return runtimeProgram.takeError();
  exe->program = std::move(*runtimeProgram);
  // Steps the CUDA executor cannot run are refused now, not at run time.
  if (kiln_rt_status status = kiln_rt_program_check_cuda(exe->program.get()))
    return takeRuntimeError(status);
  setProgramStats(exe->stats, exe->program.get());
  exe->stats.compileMs = std::chrono::duration<double, std::milli>(
                             std::chrono::steady_clock::now() - start)
                             .count();
  return exe;
}

namespace {
/// The device buffers of one run, freed however it ends.
struct RunBuffers {
  std::vector<void *> pointers;
  ~RunBuffers() {
    for (void *pointer : pointers)
      kiln_rt_status_free(kiln_rt_cuda_free(pointer));
  }
};
} // namespace

llvm::Expected<std::vector<HostTensor>>
CudaExecutable::run(llvm::ArrayRef<const HostTensor *> args,
                    RunProfile *profile) const {
  if (llvm::Error e = checkArguments(entryName, inputs, args))
    return std::move(e);
  return runCudaProgram(program.get(), ptx, args, outputs, profile);
}

llvm::Expected<std::vector<HostTensor>>
kiln::runCudaProgram(kiln_rt_program *program, llvm::StringRef ptx,
                     llvm::ArrayRef<const HostTensor *> args,
                     llvm::ArrayRef<TensorSignature> outputs,
                     RunProfile *profile) {
  if (kiln_rt_status status = kiln_rt_cuda_init())
    return takeRuntimeError(status);
  if (kiln_rt_status status =
          kiln_rt_program_load_cuda(program, ptx.data(), ptx.size()))
    return takeRuntimeError(status);

  // The inputs, then the results.
  RunBuffers buffers;
  for (const HostTensor *arg : args) {
    void *pointer = nullptr;
    if (llvm::Error e =
            takeRuntimeError(kiln_rt_cuda_malloc(arg->getByteSize(), &pointer)))
      return std::move(e);
    buffers.pointers.push_back(pointer);
    if (llvm::Error e = takeRuntimeError(kiln_rt_cuda_copy_to_device(
            pointer, arg->getData(), arg->getByteSize(), nullptr)))
      return std::move(e);
  }
  llvm::Expected<std::vector<HostTensor>> created =
      createProgramResults(program, outputs, args);
  if (!created)
    return created.takeError();
  std::vector<HostTensor> results = std::move(*created);
  for (HostTensor &result : results) {
    void *pointer = nullptr;
    if (llvm::Error e = takeRuntimeError(
            kiln_rt_cuda_malloc(result.getByteSize(), &pointer)))
      return std::move(e);
    buffers.pointers.push_back(pointer);
  }
  std::vector<int64_t> inputDims = getInputDims(program, args);
  RuntimeProfile runtimeProfile(profile);
  if (kiln_rt_status status = kiln_rt_program_run_cuda(
          program, buffers.pointers.data(), buffers.pointers.size(),
          inputDims.empty() ? nullptr : inputDims.data(), nullptr,
          runtimeProfile.get()))
    return takeRuntimeError(status);
  for (auto [i, result] : llvm::enumerate(results))
    if (llvm::Error e = takeRuntimeError(kiln_rt_cuda_copy_to_host(
            result.getData(), buffers.pointers[args.size() + i],
            result.getByteSize(), nullptr)))
      return std::move(e);
  if (llvm::Error e = takeRuntimeError(kiln_rt_cuda_synchronize()))
    return std::move(e);
  return results;
}

llvm::Expected<std::vector<std::shared_ptr<const DeviceValue>>>
CudaExecutable::runOnDevice(llvm::ArrayRef<const DeviceValue *> args,
                            RunProfile *profile, llvm::StringRef label) const {
  std::vector<ArgumentType> types;
  std::vector<llvm::ArrayRef<int64_t>> shapes;
  for (auto [i, arg] : llvm::enumerate(args)) {
    if (!arg || !arg->isAlive())
      return makeError("input " + llvm::Twine(i) + " of @" + entryName +
                       " is not on the cuda device (the cuda runtime shut "
                       "down since it was)");
    types.push_back({arg->getDType(), arg->getShape()});
    shapes.push_back(arg->getShape());
  }
  if (llvm::Error e = checkArgumentTypes(entryName, inputs, types))
    return std::move(e);
  if (kiln_rt_status status = kiln_rt_cuda_init())
    return takeRuntimeError(status);
  if (kiln_rt_status status =
          kiln_rt_program_load_cuda(program.get(), ptx.data(), ptx.size()))
    return takeRuntimeError(status);
  llvm::Expected<std::vector<llvm::SmallVector<int64_t, 4>>> resultShapes =
      getProgramResultShapes(program.get(), outputs, shapes);
  if (!resultShapes)
    return resultShapes.takeError();
  std::vector<std::shared_ptr<const DeviceValue>> results;
  std::vector<void *> pointers;
  for (const DeviceValue *arg : args)
    pointers.push_back(arg->getAddress());
  for (auto [output, shape] : llvm::zip(outputs, *resultShapes)) {
    llvm::Expected<std::shared_ptr<const CudaDeviceTensor>> result =
        CudaDeviceTensor::allocate(output.dtype, shape);
    if (!result)
      return result.takeError();
    pointers.push_back((*result)->getAddress());
    results.push_back(std::move(*result));
  }
  std::vector<int64_t> inputDims = getInputDims(program.get(), shapes);
  RuntimeProfile runtimeProfile(profile);
  std::call_once(graphsOnce,
                 [&] { graphs = std::make_unique<CudaGraphs>(program.get()); });
  if (kiln_rt_status status = graphs->run(pointers.data(), pointers.size(),
                                          inputDims, runtimeProfile.get()))
    return takeRuntimeError(status);
  // Not waited for: a read of a result waits (and reports the error of
  // the work, named by `label`).
  if (llvm::Error e =
          noteQueuedRun(label.empty() ? "@" + entryName : label.str()))
    return std::move(e);
  return results;
}
