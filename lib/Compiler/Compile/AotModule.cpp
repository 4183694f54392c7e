//===- AotModule.cpp - ahead-of-time modules: writing and running ---------===//
//
// The file's layout is the runtime's (runtime/module/module.c). The CPU
// kernels are compiled position-independent and linked into a shared object
// by the system's C compiler driver (KILN_LINKER overrides it) against the
// OpenMP runtime and the compiler-rt builtins the kernels call; symbols of
// kiln's runtime, if a kernel calls any, are left to the process that loads
// the module, which links it.
//
//===----------------------------------------------------------------------===//

#include "Compiler/Compile/AotModule.h"
#include "Compiler/Compile/CpuExecutable.h"
#include "Compiler/Compile/CudaExecutable.h"
#include "Compiler/Compile/PreparedEntry.h"
#include "Compiler/Compile/TargetCpu.h"
#include "Support/ByteStream.h"
#include "Support/RuntimeError.h"
#include "kiln_rt/kiln_rt_blas.h"
#include "kiln_rt/kiln_rt_module.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/Triple.h"

#include <algorithm>
#include <cstdlib>

using namespace kiln;

static llvm::Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

namespace {
/// Removes a temporary file however the function returns.
struct TemporaryFile {
  llvm::SmallString<128> path;
  ~TemporaryFile() {
    if (!path.empty())
      llvm::sys::fs::remove(path);
  }
};
} // namespace

/// The C compiler driver that links shared objects.
static llvm::Expected<std::string> findLinker() {
  llvm::SmallVector<std::string> candidates;
  if (const char *linker = std::getenv("KILN_LINKER"); linker && *linker)
    candidates.push_back(linker);
  else
    candidates = {KILN_MODULE_LINKER, "cc", "clang", "gcc"};
  for (const std::string &candidate : candidates) {
    if (llvm::sys::path::is_absolute(candidate)) {
      if (llvm::sys::fs::can_execute(candidate))
        return candidate;
      continue;
    }
    if (auto found = llvm::sys::findProgramByName(candidate))
      return *found;
  }
  return makeError("no C compiler driver to link the module's kernels (tried " +
                   llvm::join(candidates, ", ") + "; set KILN_LINKER to one)");
}

/// Links `object` (the kernels, position-independent) into a shared object.
static llvm::Expected<std::string> linkSharedObject(llvm::StringRef object) {
  llvm::Expected<std::string> linker = findLinker();
  if (!linker)
    return linker.takeError();
  TemporaryFile input, output, log;
  int fd;
  if (std::error_code ec = llvm::sys::fs::createTemporaryFile(
          "kiln-module-kernels", "o", fd, input.path))
    return makeError("cannot create a temporary file: " + ec.message());
  {
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    os << object;
    if (os.has_error())
      return makeError("cannot write '" + input.path + "'");
  }
  for (auto [file, suffix] : {std::pair{&output, "so"}, {&log, "log"}}) {
    if (std::error_code ec = llvm::sys::fs::createTemporaryFile(
            "kiln-module-kernels", suffix, file->path))
      return makeError("cannot create a temporary file: " + ec.message());
  }
  llvm::SmallString<128> ompDir(KILN_LIBOMP_PATH);
  llvm::sys::path::remove_filename(ompDir);
  std::vector<std::string> args = {*linker, "-shared", "-o",
                                   output.path.str().str(),
                                   input.path.str().str()};
  // __truncsfbf2 and friends, which libgcc may lack.
  if (llvm::StringRef builtins = KILN_COMPILER_RT_BUILTINS; !builtins.empty())
    args.push_back(builtins.str());
  args.push_back(KILN_LIBOMP_PATH);
  args.push_back(("-Wl,-rpath," + ompDir).str());
  args.push_back("-lm");
  std::vector<llvm::StringRef> argRefs(args.begin(), args.end());
  std::string message;
  std::optional<llvm::StringRef> redirects[] = {std::nullopt, log.path.str(),
                                                log.path.str()};
  int rc = llvm::sys::ExecuteAndWait(*linker, argRefs, std::nullopt, redirects,
                                     /*SecondsToWait=*/300, 0, &message);
  if (rc != 0) {
    std::string output;
    if (auto text = llvm::MemoryBuffer::getFile(log.path))
      output = (*text)->getBuffer().trim().str();
    return makeError(
        "linking the module's kernels failed (" + llvm::join(args, " ") +
        "): " +
        (message.empty() ? "exit status " + std::to_string(rc) : message) +
        (output.empty() ? "" : "\n" + output));
  }
  auto buffer = llvm::MemoryBuffer::getFile(output.path, /*IsText=*/false);
  if (!buffer)
    return makeError("cannot read the linked kernels: " +
                     buffer.getError().message());
  return (*buffer)->getBuffer().str();
}

/// The features the kernels may use (the target CPU's), "+name" each,
/// sorted.
static llvm::Expected<std::string> getCpuFeatures() {
  llvm::Expected<const TargetCpu &> cpu = getTargetCpu();
  if (!cpu)
    return cpu.takeError();
  std::vector<std::string> features;
  for (const std::string &feature : cpu->features)
    if (llvm::StringRef(feature).starts_with("+"))
      features.push_back(feature);
  return llvm::join(features, ",");
}

// A signature's dtype is written as kiln::DType and read as kiln_rt_dtype.
static_assert(static_cast<int>(DType::F32) == KILN_RT_F32 &&
                  static_cast<int>(DType::F64) == KILN_RT_F64 &&
                  static_cast<int>(DType::F16) == KILN_RT_F16 &&
                  static_cast<int>(DType::BF16) == KILN_RT_BF16 &&
                  static_cast<int>(DType::I1) == KILN_RT_I1 &&
                  static_cast<int>(DType::I32) == KILN_RT_I32 &&
                  static_cast<int>(DType::I64) == KILN_RT_I64,
              "kiln::DType and kiln_rt_dtype list the types in one order");

static void writeSignature(ByteWriter &w, llvm::StringRef prefix,
                           llvm::ArrayRef<TensorSignature> list) {
  w.write<uint32_t>(static_cast<uint32_t>(list.size()));
  for (auto [i, sig] : llvm::enumerate(list)) {
    w.writeString((prefix + llvm::Twine(i)).str());
    w.write<uint8_t>(static_cast<uint8_t>(sig.dtype));
    w.write<uint32_t>(static_cast<uint32_t>(sig.shape.size()));
    for (int64_t dim : sig.shape)
      w.write<int64_t>(dim < 0 ? KILN_RT_DYNAMIC_DIM : dim);
  }
}

llvm::Expected<std::string>
kiln::compileAotModule(mlir::ModuleOp module, llvm::StringRef entry,
                       const CompileOptions &options) {
  kiln_rt_backend backend;
  std::string target, features, programBytes, kernels, entryName;
  std::vector<TensorSignature> inputs, outputs;
  CompileStats stats;
  auto refuse = [&](llvm::StringRef why) {
    return makeError("@" + entryName +
                     " cannot be compiled ahead of time: " + why);
  };
  if (options.device == Device::Cuda) {
    auto exe = CudaExecutable::compile(module, entry, options);
    if (!exe)
      return exe.takeError();
    backend = KILN_RT_BACKEND_CUDA;
    entryName = (*exe)->getEntryName();
    target = (*exe)->getChip().str();
    programBytes = (*exe)->getProgramBytes().str();
    kernels = (*exe)->getPtx().str();
    inputs = (*exe)->getInputs();
    outputs = (*exe)->getOutputs();
    stats = (*exe)->getStats();
  } else if (options.device == Device::Cpu) {
    if (options.emulateGpuKernels || options.compileHostCode)
      return makeError("a module runs the CPU pipeline's kernels: "
                       "--emulate-gpu and --compile-host do not apply");
    auto exe =
        CpuExecutable::compile(module, entry, options, KernelObject::ForModule);
    if (!exe)
      return exe.takeError();
    backend = KILN_RT_BACKEND_CPU;
    entryName = (*exe)->getEntryName();
    if ((*exe)->getProgramBytes().empty())
      return refuse("its host code is not a sequence of kernel calls, "
                    "copies and size arithmetic");
    target = llvm::Triple(llvm::sys::getProcessTriple()).getArchName().str();
    llvm::Expected<std::string> cpuFeatures = getCpuFeatures();
    if (!cpuFeatures)
      return cpuFeatures.takeError();
    features = std::move(*cpuFeatures);
    programBytes = (*exe)->getProgramBytes().str();
    if (!(*exe)->getKernelObject().empty()) {
      llvm::Expected<std::string> linked =
          linkSharedObject((*exe)->getKernelObject());
      if (!linked)
        return linked.takeError();
      kernels = std::move(*linked);
    }
    inputs = (*exe)->getInputs();
    outputs = (*exe)->getOutputs();
    stats = (*exe)->getStats();
  } else {
    return makeError("a module is compiled for cpu or cuda");
  }

  std::string payload;
  ByteWriter p(payload);
  p.writeString(kiln_rt_version());
  p.writeString(target);
  p.writeString(features);
  p.writeString(entryName);
  std::pair<llvm::StringRef, int64_t> recorded[] = {
      {"fusion_groups", stats.fusionGroups},
      {"unique_kernels", stats.uniqueKernels},
      {"kernel_launches", stats.kernelLaunches}};
  p.write<uint32_t>(std::size(recorded));
  for (auto [name, value] : recorded) {
    p.writeString(name);
    p.write<int64_t>(value);
  }
  writeSignature(p, "input", inputs);
  writeSignature(p, "output", outputs);
  p.writeBytes(programBytes);
  p.writeBytes(kernels);

  std::string file;
  ByteWriter w(file);
  w.writeRaw(llvm::StringRef("KILNMOD\0", 8));
  w.write<uint16_t>(kiln_rt_module_format_version());
  w.write<uint8_t>(static_cast<uint8_t>(backend));
  w.write<uint8_t>(0);
  w.write<uint32_t>(0);
  w.write<uint64_t>(payload.size());
  w.write<uint64_t>(kiln_rt_module_checksum(payload.data(), payload.size()));
  file += payload;
  return file;
}

bool kiln::isAotModule(llvm::StringRef bytes) {
  // A truncated header is still a module's (the runtime says so), not text.
  llvm::StringRef magic("KILNMOD\0", 8);
  return bytes.size() >= 4 && magic.starts_with(bytes.take_front(8));
}

ModuleExecutable::~ModuleExecutable() { kiln_rt_module_free(module); }

llvm::Expected<std::unique_ptr<ModuleExecutable>>
ModuleExecutable::load(llvm::StringRef path) {
  kiln_rt_module *loaded = nullptr;
  if (kiln_rt_status status = kiln_rt_module_load(path.str().c_str(), &loaded))
    return takeRuntimeError(status);
  bool cuda = kiln_rt_module_backend(loaded) == KILN_RT_BACKEND_CUDA;
  std::unique_ptr<ModuleExecutable> exe(
      new ModuleExecutable(cuda ? Device::Cuda : Device::Cpu));
  exe->module = loaded;
  exe->entryName = kiln_rt_module_entry(loaded);
  auto signature = [](const kiln_rt_tensor_type *type) {
    TensorSignature sig;
    sig.dtype = static_cast<DType>(type->dtype);
    for (uint32_t d = 0; d < type->rank; ++d)
      sig.shape.push_back(type->dims[d] == KILN_RT_DYNAMIC_DIM
                              ? mlir::ShapedType::kDynamic
                              : type->dims[d]);
    sig.typeString = getTensorTypeString(sig.dtype, sig.shape);
    return sig;
  };
  for (size_t i = 0, e = kiln_rt_module_num_inputs(loaded); i < e; ++i)
    exe->inputs.push_back(signature(kiln_rt_module_input(loaded, i)));
  for (size_t i = 0, e = kiln_rt_module_num_outputs(loaded); i < e; ++i)
    exe->outputs.push_back(signature(kiln_rt_module_output(loaded, i)));
  kiln_rt_program *program = kiln_rt_module_program(loaded);
  setProgramStats(exe->stats, program);
  for (auto [name, stat] :
       {std::pair{"fusion_groups", &exe->stats.fusionGroups},
        {"unique_kernels", &exe->stats.uniqueKernels},
        {"kernel_launches", &exe->stats.kernelLaunches}})
    kiln_rt_module_stat(loaded, name, stat);
  exe->stats.cache = "module";
  if (kiln_rt_program_num_runtime_functions(program) != 0)
    exe->stats.blas = cuda                       ? "cublas"
                      : kiln_rt_blas_available() ? kiln_rt_blas_library()
                                                 : "";
  return exe;
}

llvm::StringRef ModuleExecutable::getPtx() const {
  size_t size = 0;
  const char *ptx = kiln_rt_module_ptx(module, &size);
  return ptx ? llvm::StringRef(ptx, size) : llvm::StringRef();
}

llvm::Expected<std::vector<HostTensor>>
ModuleExecutable::run(llvm::ArrayRef<const HostTensor *> args,
                      RunProfile *profile) const {
  if (llvm::Error e = checkArguments(entryName, inputs, args))
    return std::move(e);
  kiln_rt_program *program = kiln_rt_module_program(module);
  if (device == Device::Cuda)
    return runCudaProgram(program, getPtx(), args, outputs, profile);
  llvm::Expected<std::vector<HostTensor>> results =
      createProgramResults(program, outputs, args);
  if (!results)
    return results.takeError();
  std::vector<HostTensor *> targets;
  for (HostTensor &result : *results)
    targets.push_back(&result);
  if (llvm::Error e = runCpuProgram(program, args, targets, profile))
    return std::move(e);
  return results;
}
