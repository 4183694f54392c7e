//===- CpuExecutable.cpp - a kiln function compiled for the host ----------===//

#include "Compiler/Compile/CpuExecutable.h"
#include "Compiler/Compile/HostProgram.h"
#include "Compiler/Compile/TargetCpu.h"
#include "Support/RuntimeError.h"
#include "kiln/Codegen/CPU/CompactKernelAbi.h"
#include "kiln/Codegen/CPU/Passes.h"
#include "kiln/Codegen/Common/Passes.h"
#include "kiln/Codegen/GPU/Passes.h"
#include "kiln/Compiler/Diagnostics.h"
#include "kiln/Conversion/CollectiveCalls.h"
#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "kiln/Pipelines/Pipelines.h"
#include "kiln/Support/ElementTypes.h"
#include "kiln_rt/kiln_rt.h"
#include "kiln_rt/kiln_rt_blas.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/Support/DynamicLibrary.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/TargetSelect.h"

#include <chrono>
#include <cstdlib>
#include <mutex>
#include <unistd.h>

#ifndef KILN_LIBOMP_PATH
#define KILN_LIBOMP_PATH ""
#endif
#ifndef KILN_C_RUNNER_UTILS_PATH
#define KILN_C_RUNNER_UTILS_PATH ""
#endif

using namespace mlir;
using namespace kiln;

static llvm::Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

CpuExecutable::CpuExecutable() : Executable(Device::Cpu) {}
CpuExecutable::~CpuExecutable() = default;

/// Initializes the JIT target and loads the libraries compiled code calls
/// (the OpenMP runtime, MLIR's memref helpers) into the process, where the
/// JIT's process-symbol generator finds them.
llvm::Error kiln::initializeJit() {
  static std::once_flag once;
  static std::string error;
  std::call_once(once, [] {
    // OpenMP threads spin 200 ms after a parallel region by default, which
    // steals the cores from the BLAS threads of the next matmul. 1 ms keeps
    // back-to-back kernels warm without that. A user's setting wins.
    setenv("KMP_BLOCKTIME", "1", /*overwrite=*/0);
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    for (const char *path : {KILN_LIBOMP_PATH, KILN_C_RUNNER_UTILS_PATH}) {
      if (!*path)
        continue;
      // Where the build machine's path is missing (a packed kiln-run on
      // another machine), the library's own name, found on the loader's
      // search path.
      std::string message, fallbackMessage;
      std::string name = llvm::sys::path::filename(path).str();
      if (llvm::sys::DynamicLibrary::LoadLibraryPermanently(path, &message) &&
          llvm::sys::DynamicLibrary::LoadLibraryPermanently(name.c_str(),
                                                            &fallbackMessage) &&
          error.empty())
        error = "cannot load '" + std::string(path) + "': " + message;
    }
  });
  if (!error.empty())
    return makeError(error);
  return llvm::Error::success();
}

/// Moves the kernels (`kiln.kernel` functions) of `module`, an LLVM-dialect
/// module, into a module of their own, which it returns, and leaves
/// declarations of them in `module`. `kernelNames` gets their names.
static OwningOpRef<ModuleOp>
splitOffKernels(ModuleOp module,
                llvm::SmallVectorImpl<std::string> &kernelNames) {
  // Copy what kernels need (their bodies, globals, declarations), not the
  // host functions' bodies, which can be most of the module.
  OpBuilder b(module.getContext());
  OwningOpRef<ModuleOp> kernels = ModuleOp::create(b, module.getLoc());
  (*kernels)->setAttrs(module->getAttrDictionary());
  b.setInsertionPointToEnd(kernels->getBody());
  for (Operation &op : module.getBody()->getOperations()) {
    auto func = dyn_cast<LLVM::LLVMFuncOp>(op);
    if (!func || func.isExternal()) {
      b.clone(op);
      continue;
    }
    if (!func->hasAttr(kiln::KilnDialect::KernelAttrHelper::getNameStr())) {
      // Kernels call nothing of the host; a declaration suffices.
      auto declaration = cast<LLVM::LLVMFuncOp>(b.cloneWithoutRegions(op));
      declaration.setLinkage(LLVM::Linkage::External);
      continue;
    }
    // Looked up by name from the host's engine.
    auto kernel = cast<LLVM::LLVMFuncOp>(b.clone(op));
    kernel.setLinkage(LLVM::Linkage::External);
    kernelNames.push_back(kernel.getName().str());
    // In the host's module it becomes a declaration.
    func.eraseBody();
    func.setLinkage(LLVM::Linkage::External);
  }
  return kernels;
}

/// A JIT for `module`: optimized (-O3, then the default code generator) or
/// not (the -O0 code generator alone).
void *kiln::lookupRuntimeSymbol(StringRef name) {
  if (name == "_mlir_memref_to_llvm_alloc")
    return reinterpret_cast<void *>(&_mlir_memref_to_llvm_alloc);
  if (name == "_mlir_memref_to_llvm_aligned_alloc")
    return reinterpret_cast<void *>(&_mlir_memref_to_llvm_aligned_alloc);
  if (name == "_mlir_memref_to_llvm_free")
    return reinterpret_cast<void *>(&_mlir_memref_to_llvm_free);
  if (name.consume_front("_mlir_ciface_") && name.starts_with("kiln_rt_"))
    return kiln_rt_blas_lookup(name.str().c_str());
  return nullptr;
}

llvm::Error kiln::bindKernels(
    kiln_rt_program *program,
    llvm::function_ref<llvm::Expected<void *>(StringRef)> lookup) {
  std::vector<kiln_rt_kernel_entry> entries;
  for (size_t i = 0, e = kiln_rt_program_num_kernels(program); i < e; ++i) {
    StringRef name = kiln_rt_program_kernel_name(program, i);
    llvm::Expected<void *> entry = lookup(name);
    if (!entry)
      return makeError("no compiled kernel @" + name + ": " +
                       llvm::toString(entry.takeError()));
    entries.push_back(reinterpret_cast<kiln_rt_kernel_entry>(*entry));
  }
  if (kiln_rt_status status =
          kiln_rt_program_bind_cpu(program, entries.data(), entries.size()))
    return takeRuntimeError(status);
  return llvm::Error::success();
}

llvm::Error kiln::runCpuProgram(const kiln_rt_program *program,
                                llvm::ArrayRef<const HostTensor *> args,
                                llvm::ArrayRef<HostTensor *> results,
                                RunProfile *profile) {
  std::vector<void *> buffers;
  buffers.reserve(args.size() + results.size());
  for (const HostTensor *arg : args)
    buffers.push_back(const_cast<void *>(arg->getData()));
  for (HostTensor *result : results)
    buffers.push_back(result->getData());
  std::vector<int64_t> inputDims = getInputDims(program, args);
  RuntimeProfile runtimeProfile(profile);
  if (kiln_rt_status status = kiln_rt_program_run_cpu(
          program, buffers.data(), buffers.size(),
          inputDims.empty() ? nullptr : inputDims.data(), runtimeProfile.get()))
    return takeRuntimeError(status);
  return llvm::Error::success();
}

/// The runtime functions that `module` (LLVM dialect) declares, by address.
/// They are given to the JIT by name rather than found among the process's
/// exported symbols, which a statically linked tool does not export.
static llvm::SmallVector<std::pair<std::string, void *>>
findRuntimeSymbols(ModuleOp module) {
  llvm::SmallVector<std::pair<std::string, void *>> symbols;
  for (auto func : module.getOps<LLVM::LLVMFuncOp>())
    if (func.isExternal())
      if (void *address = lookupRuntimeSymbol(func.getName()))
        symbols.emplace_back(func.getName().str(), address);
  return symbols;
}

/// Makes `symbols` visible to the code that `engine` compiles.
static void
registerSymbols(ExecutionEngine &engine,
                llvm::ArrayRef<std::pair<std::string, void *>> symbols) {
  engine.registerSymbols([&](llvm::orc::MangleAndInterner interner) {
    llvm::orc::SymbolMap map;
    for (auto &[name, address] : symbols)
      map[interner(name)] = {llvm::orc::ExecutorAddr::fromPtr(address),
                             llvm::JITSymbolFlags::Exported};
    return map;
  });
}

static llvm::Expected<std::unique_ptr<ExecutionEngine>>
createEngine(ModuleOp module, bool optimize, bool keepObject,
             bool positionIndependent = false) {
  llvm::SmallVector<std::pair<std::string, void *>> runtimeSymbols =
      findRuntimeSymbols(module);
  llvm::Expected<const TargetCpu &> cpu = getTargetCpu();
  if (!cpu)
    return cpu.takeError();
  auto builder = llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!builder)
    return builder.takeError();
  if (cpu->forced) {
    // The model's own features, not the host's.
    builder->setCPU(cpu->name);
    builder->getFeatures() = llvm::SubtargetFeatures();
    builder->addFeatures(cpu->features);
  }
  llvm::CodeGenOptLevel level =
      optimize ? llvm::CodeGenOptLevel::Default : llvm::CodeGenOptLevel::None;
  builder->setCodeGenOptLevel(level);
  if (positionIndependent) {
    // For a shared object: no text relocations.
    builder->setRelocationModel(llvm::Reloc::PIC_);
    builder->setCodeModel(llvm::CodeModel::Small);
  }
  auto codegenTm = builder->createTargetMachine();
  if (!codegenTm)
    return codegenTm.takeError();
  // Both are used during create(): the options hold a function_ref.
  std::unique_ptr<llvm::TargetMachine> optimizerTm;
  std::function<llvm::Error(llvm::Module *)> optimizeModule;
  ExecutionEngineOptions engineOptions;
  if (optimize) {
    auto tm = builder->createTargetMachine();
    if (!tm)
      return tm.takeError();
    optimizerTm = std::move(*tm);
    optimizeModule = makeOptimizingTransformer(3, 0, optimizerTm.get());
    engineOptions.transformer = optimizeModule;
  }
  engineOptions.jitCodeGenOptLevel = level;
  engineOptions.enableObjectDump = keepObject;
  engineOptions.enableGDBNotificationListener = false;
  // KILN_PERF_JITDUMP=1: a jitdump for `perf record -k 1` and
  // `perf inject --jit`, which names each kernel in a profile (a compiled
  // program only, not one loaded from the cache).
  engineOptions.enablePerfNotificationListener =
      std::getenv("KILN_PERF_JITDUMP") != nullptr;
  auto engine =
      ExecutionEngine::create(module, engineOptions, std::move(*codegenTm));
  if (!engine)
    return makeError("JIT compilation failed: " +
                     llvm::toString(engine.takeError()));
  registerSymbols(**engine, runtimeSymbols);
  return std::move(*engine);
}

llvm::Expected<std::unique_ptr<CpuExecutable>>
CpuExecutable::compile(ModuleOp module, StringRef entry,
                       const CompileOptions &options, KernelObject keep) {
  auto start = std::chrono::steady_clock::now();
  std::function<double()> lap = [last = start]() mutable {
    auto now = std::chrono::steady_clock::now();
    double ms = std::chrono::duration<double, std::milli>(now - last).count();
    last = now;
    return ms;
  };
  llvm::Expected<PreparedEntry> prepared = prepareEntry(module, entry);
  if (!prepared)
    return prepared.takeError();
  std::unique_ptr<CpuExecutable> exe(new CpuExecutable());
  exe->keepForCache = keep != KernelObject::None;
  exe->positionIndependent = keep == KernelObject::ForModule;
  exe->entryName = prepared->name;
  exe->inputs = prepared->inputs;
  exe->shapes = prepared->shapes;
  exe->outputs = prepared->outputs;
  exe->stats.fusionGroups = prepared->writtenFusionGroups;
  int64_t writtenGroups = prepared->writtenFusionGroups;
  auto func = module.lookupSymbol<func::FuncOp>(exe->entryName);

  // Matmuls go to the BLAS when the runtime found one; the generated loops
  // are the fallback.
  kiln::KilnCpuPipelineOptions pipelineOptions;
  pipelineOptions.blas = !options.emulateGpuKernels &&
                         options.blas.value_or(kiln_rt_blas_available() != 0);
  if (pipelineOptions.blas)
    exe->stats.blas = kiln_rt_blas_library();
  pipelineOptions.prune = options.autodiffPrune;
  pipelineOptions.matmulPrecision =
      getPipelinePrecision(options.matmulPrecision);
  if (options.autocast)
    pipelineOptions.autocast = getDTypeName(*options.autocast).str();
  llvm::Expected<bool> autoRemat = resolveAutoRemat(options, Device::Cpu);
  if (!autoRemat)
    return autoRemat.takeError();
  pipelineOptions.remat = *autoRemat ? "auto" : "none";
  if (options.rematMinBytes)
    pipelineOptions.rematMinBytes = *options.rematMinBytes;
  pipelineOptions.kernelDedup = options.kernelDedup;
  pipelineOptions.foldContractionLayouts = options.foldContractionLayouts;
  pipelineOptions.fuseAttention = options.fuseAttention;
  // Emulated GPU kernels stand for the GPU path, attention's included.
  pipelineOptions.attentionKernels = !options.emulateGpuKernels;
  pipelineOptions.gpuAttention = options.emulateGpuKernels;
  // A GPU kernel cannot hold a host loop over loop nests.
  pipelineOptions.loopKernels = !options.emulateGpuKernels;
  // The GPU pipeline's buffers, as the emulated kernels are its own.
  pipelineOptions.reuseBuffers = !options.emulateGpuKernels;
  PassManager tensorStage(module.getContext());
  kiln::buildKilnCpuTensorPipeline(tensorStage, pipelineOptions);
  if (llvm::Error e = runPasses(tensorStage, module, options.verifyEachPass))
    return std::move(e);
  exe->stats.tensorPassesMs = lap();
  if (auto formed = module->getAttrOfType<IntegerAttr>(
          kiln::KilnDialect::FusionGroupsAttrHelper::getNameStr()))
    exe->stats.fusionGroups = writtenGroups + formed.getInt();
  // The entry may have been renamed or removed only on error; look it up
  // again, since passes may have rebuilt it.
  func = module.lookupSymbol<func::FuncOp>(exe->entryName);
  if (!func)
    return makeError("@" + exe->entryName + " disappeared during lowering");

  PassManager bufferStage(module.getContext());
  kiln::buildKilnCpuBufferPipeline(bufferStage, pipelineOptions);
  if (options.emulateGpuKernels) {
    bufferStage.addPass(createKilnMapKernelsToGpu());
    bufferStage.addPass(createKilnAttentionToGpu());
    bufferStage.addPass(createKilnEmulateGpuLaunches());
  }
  if (llvm::Error e = runPasses(bufferStage, module, options.verifyEachPass))
    return std::move(e);
  // -kiln-outline-kernels counted the kernels.
  if (auto launches = module->getAttrOfType<IntegerAttr>(
          kiln::KilnDialect::KernelLaunchesAttrHelper::getNameStr()))
    exe->stats.kernelLaunches = launches.getInt();
  if (auto unique = module->getAttrOfType<IntegerAttr>(
          kiln::KilnDialect::UniqueKernelsAttrHelper::getNameStr()))
    exe->stats.uniqueKernels = unique.getInt();
  func = module.lookupSymbol<func::FuncOp>(exe->entryName);
  if (!func)
    return makeError("@" + exe->entryName + " disappeared during lowering");
  kiln::scheduleForDonation(func, exe->inputs.size());
  exe->donation = kiln::planDonation(func, exe->inputs.size());

  // A static entry runs as a host program: only its kernels are lowered
  // and compiled.
  llvm::Expected<HostProgram> program = HostProgram::build(
      func, exe->inputs.size(), exe->shapes ? &*exe->shapes : nullptr);
  if (program && !options.compileHostCode) {
    exe->programBytes = program->serialize();
    llvm::Expected<RuntimeProgram> runtimeProgram =
        createRuntimeProgram(exe->programBytes);
    if (!runtimeProgram)
      return runtimeProgram.takeError();
    exe->program = std::move(*runtimeProgram);
    setProgramStats(exe->stats, exe->program.get());
    if (llvm::Error e =
            exe->compileKernels(module, pipelineOptions, options, lap))
      return std::move(e);
  } else {
    // Collectives are steps of the runtime's executor only.
    bool collectives =
        llvm::any_of(module.getOps<func::FuncOp>(), [](func::FuncOp f) {
          StringRef name = f.getSymName();
          return f.isExternal() &&
                 kiln::parseCollectiveCallName(name).has_value();
        });
    if (collectives)
      return makeError(
          "@" + exe->entryName +
          ": collectives run only in a host program, which this entry "
          "cannot be (" +
          (program ? std::string("host code compilation was asked for")
                   : llvm::toString(program.takeError())) +
          ")");
    if (!program)
      llvm::consumeError(program.takeError());
    if (llvm::Error e =
            exe->compileHostCode(module, pipelineOptions, options, lap))
      return std::move(e);
  }
  exe->stats.compileMs = std::chrono::duration<double, std::milli>(
                             std::chrono::steady_clock::now() - start)
                             .count();
  return exe;
}

llvm::Error CpuExecutable::createKernelEngine(ModuleOp kernelModule,
                                              const CompileOptions &options) {
  auto engine = createEngine(kernelModule, /*optimize=*/true,
                             !options.objectDumpPath.empty() || keepForCache,
                             positionIndependent);
  if (!engine)
    return engine.takeError();
  kernelEngine = std::move(*engine);
  return llvm::Error::success();
}

llvm::Error CpuExecutable::compileKernels(
    ModuleOp module, const KilnCpuPipelineOptions &pipelineOptions,
    const CompileOptions &options, const std::function<double()> &lap) {
  OpBuilder b(module.getContext());
  OwningOpRef<ModuleOp> kernelModule = ModuleOp::create(b, module.getLoc());
  (*kernelModule)->setAttrs(module->getAttrDictionary());
  b.setInsertionPointToEnd(kernelModule->getBody());
  for (auto func : module.getOps<func::FuncOp>()) {
    if (!func->hasAttr(kiln::KilnDialect::KernelAttrHelper::getNameStr()))
      continue;
    // Looked up by name, through its packed wrapper.
    auto kernel = cast<func::FuncOp>(b.clone(*func));
    kernel.setPublic();
  }
  PassManager lowering(module.getContext());
  kiln::buildKilnCpuLoweringPipeline(lowering, pipelineOptions);
  if (llvm::Error e =
          runPasses(lowering, *kernelModule, options.verifyEachPass))
    return e;
  stats.codegenPassesMs = lap();
  // The host program passes each buffer as one pointer where
  // -kiln-compact-kernel-abi made it one, and as a descriptor (two pointers,
  // the offset, sizes and strides) otherwise: every kernel must take exactly
  // that. The module still holds the buffer-level host code to fall back on.
  for (auto kernel : kernelModule->getOps<LLVM::LLVMFuncOp>()) {
    auto signature = kernel->getAttrOfType<ArrayAttr>(
        kiln::KilnDialect::KernelArgsAttrHelper::getNameStr());
    if (!signature)
      continue;
    std::optional<unsigned> expected = 0;
    for (Attribute attr : signature) {
      auto type = dyn_cast<TypeAttr>(attr);
      auto memref = type ? dyn_cast<MemRefType>(type.getValue()) : nullptr;
      if (!memref) {
        expected.reset();
        break;
      }
      *expected += kiln::isCompactKernelArgument(memref)
                       ? 1
                       : 3 + 2 * static_cast<unsigned>(memref.getRank());
    }
    bool compact = expected && kernel.getNumArguments() == *expected;
    if (!compact) {
      // The host program cannot call it; compile the host code instead.
      program.reset();
      programBytes.clear();
      setProgramStats(stats, nullptr);
      return compileHostCode(module, pipelineOptions, options, lap);
    }
  }

  if (llvm::Error e = initializeJit())
    return e;
  if (kiln_rt_program_num_kernels(program.get()) != 0)
    if (llvm::Error e = createKernelEngine(*kernelModule, options))
      return e;
  stats.llvmOptMs = lap();
  // Looking kernels up is what compiles them (ORC is lazy).
  if (llvm::Error e = bindKernels(
          program.get(), [&](StringRef name) -> llvm::Expected<void *> {
            auto entry = kernelEngine->lookupPacked(name);
            if (!entry)
              return entry.takeError();
            return reinterpret_cast<void *>(*entry);
          }))
    return makeError("JIT compilation failed: " + llvm::toString(std::move(e)));
  if (!options.objectDumpPath.empty() && kernelEngine)
    kernelEngine->dumpToObjectFile(options.objectDumpPath + ".kernels.o");
  if (keepForCache && kernelEngine) {
    for (const auto &[name, address] : findRuntimeSymbols(*kernelModule))
      runtimeSymbolNames.push_back(name);
    // The engine writes its object code only to a file.
    llvm::SmallString<128> path;
    int fd;
    if (!llvm::sys::fs::createTemporaryFile("kiln-kernels", "o", fd, path)) {
      ::close(fd);
      kernelEngine->dumpToObjectFile(path);
      if (auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false))
        kernelObject = (*buffer)->getBuffer().str();
      llvm::sys::fs::remove(path);
    }
  }
  stats.machineCodeMs = lap();
  return llvm::Error::success();
}

llvm::Error CpuExecutable::compileHostCode(
    ModuleOp module, const KilnCpuPipelineOptions &pipelineOptions,
    const CompileOptions &options, const std::function<double()> &lap) {
  PassManager codegenStage(module.getContext());
  kiln::buildKilnCpuLoweringPipeline(codegenStage, pipelineOptions);
  // Only the JIT calls the entry, through its C wrapper: let the wrapper be
  // the entry, so that no call passes every descriptor field as a scalar.
  codegenStage.addPass(kiln::createKilnMergeEntryWrappers());
  codegenStage.addPass(createCanonicalizerPass());
  if (llvm::Error e = runPasses(codegenStage, module, options.verifyEachPass))
    return e;
  stats.codegenPassesMs = lap();

  if (llvm::Error e = initializeJit())
    return e;
  // Kernels get LLVM's full optimization; the host code, which only
  // sequences calls and buffers, the fast -O0 code generator. Long live
  // ranges across hundreds of calls make the optimizing register allocator
  // the costliest part of compiling a deep network otherwise.
  llvm::SmallVector<std::string> kernelNames;
  OwningOpRef<ModuleOp> kernelModule = splitOffKernels(module, kernelNames);
  if (!kernelNames.empty())
    if (llvm::Error e = createKernelEngine(*kernelModule, options))
      return e;
  auto hostEngine =
      createEngine(module, /*optimize=*/false, !options.objectDumpPath.empty());
  if (!hostEngine)
    return hostEngine.takeError();
  engine = std::move(*hostEngine);
  stats.llvmOptMs = lap();

  // Looking symbols up is what compiles them (ORC is lazy), and belongs to
  // compile time, not to the first run.
  llvm::SmallVector<std::pair<std::string, void *>> kernelAddresses;
  for (const std::string &name : kernelNames) {
    llvm::Expected<void *> address = kernelEngine->lookup(name);
    if (!address)
      return makeError("JIT compilation failed: " +
                       llvm::toString(address.takeError()));
    kernelAddresses.emplace_back(name, *address);
  }
  registerSymbols(*engine, kernelAddresses);
  auto entryFn = engine->lookupPacked("_mlir_ciface_" + entryName);
  if (!entryFn)
    return makeError("JIT compilation failed: " +
                     llvm::toString(entryFn.takeError()));
  entryFunction = *entryFn;
  if (!options.objectDumpPath.empty()) {
    if (kernelEngine)
      kernelEngine->dumpToObjectFile(options.objectDumpPath + ".kernels.o");
    engine->dumpToObjectFile(options.objectDumpPath + ".host.o");
  }
  stats.machineCodeMs = lap();
  return llvm::Error::success();
}

/// A memref descriptor as the LLVM lowering lays it out: allocated pointer,
/// aligned pointer, offset, sizes[rank], strides[rank].
static std::vector<int64_t> makeDescriptor(void *data,
                                           llvm::ArrayRef<int64_t> shape) {
  std::vector<int64_t> desc(3 + 2 * shape.size());
  desc[0] = reinterpret_cast<int64_t>(data);
  desc[1] = reinterpret_cast<int64_t>(data);
  desc[2] = 0;
  int64_t stride = 1;
  for (int64_t i = static_cast<int64_t>(shape.size()) - 1; i >= 0; --i) {
    desc[3 + i] = shape[i];
    desc[3 + shape.size() + i] = stride;
    stride *= shape[i];
  }
  return desc;
}

llvm::Expected<std::vector<HostTensor>>
CpuExecutable::run(llvm::ArrayRef<const HostTensor *> args,
                   RunProfile *profile) const {
  std::vector<HostTensor *> none(outputs.size(), nullptr);
  return runInto(args, none, profile);
}

/// The shapes of the results of a run on `args`.
llvm::Expected<CpuExecutable::ResultShapes>
CpuExecutable::getResultShapes(llvm::ArrayRef<const HostTensor *> args) const {
  ResultShapes result{outputs, {}};
  bool dynamic = program ? kiln_rt_program_is_dynamic(program.get()) != 0
                         : shapes.has_value();
  if (!dynamic)
    return result;
  std::vector<llvm::ArrayRef<int64_t>> inputShapes;
  inputShapes.reserve(args.size());
  for (const HostTensor *arg : args)
    inputShapes.push_back(arg->getShape());
  if (program) {
    // A host program computes its results' dynamic dims itself (also when
    // loaded from the compile cache, without the shape function).
    auto computed = getProgramResultShapes(program.get(), outputs, inputShapes);
    if (!computed)
      return computed.takeError();
    result.computed = std::move(*computed);
    return result;
  }
  auto evaluated = shapes->evaluate(entryName, inputShapes);
  if (!evaluated)
    return evaluated.takeError();
  for (const std::vector<int64_t> &shape : *evaluated)
    result.computed.emplace_back(shape.begin(), shape.end());
  return result;
}

llvm::Expected<std::vector<HostTensor>>
CpuExecutable::runInto(llvm::ArrayRef<const HostTensor *> args,
                       llvm::ArrayRef<HostTensor *> into, RunProfile *profile,
                       const std::vector<bool> *knownDirect) const {
  if (llvm::Error e = checkArguments(entryName, inputs, args))
    return std::move(e);
  if (llvm::Error e = checkDestinations(into))
    return std::move(e);
  llvm::Expected<ResultShapes> resultShapes = getResultShapes(args);
  if (!resultShapes)
    return resultShapes.takeError();
  // Where each output is written: its destination, or a new tensor (which
  // a destination that cannot be written directly gets after the run).
  std::vector<HostTensor> results(outputs.size());
  std::vector<HostTensor *> targets(outputs.size());
  llvm::SmallVector<size_t> copied;
  // The caller's answer for these buffers, or worked out now.
  std::vector<bool> found;
  const std::vector<bool> *direct = knownDirect;
  if (!direct || direct->size() != into.size()) {
    found = llvm::any_of(into, [](HostTensor *t) { return t != nullptr; })
                ? findDirectWrites(args, into)
                : std::vector<bool>(into.size(), false);
    direct = &found;
  }
  for (size_t r = 0; r < outputs.size(); ++r) {
    llvm::ArrayRef<int64_t> shape = (*resultShapes)[r];
    if (into[r] && into[r]->getShape() != llvm::ArrayRef<int64_t>(shape))
      return makeError("result " + llvm::Twine(r) + " of @" + entryName +
                       " is " + getTensorTypeString(outputs[r].dtype, shape) +
                       ", its destination " + into[r]->getTypeString());
    if ((*direct)[r]) {
      targets[r] = into[r];
      continue;
    }
    // The entry writes every element of its results.
    llvm::Expected<HostTensor> result = HostTensor::createUninitialized(
        outputs[r].dtype, std::vector<int64_t>(shape.begin(), shape.end()));
    if (!result)
      return result.takeError();
    results[r] = std::move(*result);
    targets[r] = &results[r];
    if (into[r])
      copied.push_back(r);
  }
  if (program) {
    if (llvm::Error e = runCpuProgram(program.get(), args, targets, profile))
      return std::move(e);
  } else {
    std::vector<std::vector<int64_t>> descriptors;
    descriptors.reserve(args.size() + targets.size());
    for (const HostTensor *arg : args)
      descriptors.push_back(
          makeDescriptor(const_cast<void *>(arg->getData()), arg->getShape()));
    for (HostTensor *target : targets)
      descriptors.push_back(
          makeDescriptor(target->getData(), target->getShape()));
    // The C interface takes a pointer to each descriptor; the packed call
    // takes a pointer to each of those.
    std::vector<void *> descriptorPtrs, packed;
    for (auto &desc : descriptors)
      descriptorPtrs.push_back(desc.data());
    for (void *&ptr : descriptorPtrs)
      packed.push_back(&ptr);
    entryFunction(packed.data());
  }
  for (size_t r : copied) {
    std::memcpy(into[r]->getData(), results[r].getData(),
                results[r].getByteSize());
    results[r] = HostTensor();
  }
  return results;
}
