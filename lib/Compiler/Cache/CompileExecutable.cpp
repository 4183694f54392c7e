//===- CompileExecutable.cpp - which executable compiles a module ---------===//
//
// Executable::compile and compileSource: the factory that chooses the CPU or
// the CUDA executable, through the disk cache when there is one. It lives
// apart from the base class (Executable.cpp), so that no executable's unit
// and the base's include each other.
//
//===----------------------------------------------------------------------===//

#include "Compiler/Cache/ExecutableCache.h"
#include "Compiler/Compile/CpuExecutable.h"
#include "Compiler/Compile/CudaExecutable.h"
#include "kiln/Compiler/Diagnostics.h"
#include "kiln/Compiler/Executable.h"
#include "kiln/Pipelines/Pipelines.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/Parser/Parser.h"

#include "llvm/ADT/Twine.h"

#include <cstdlib>

using namespace kiln;

static llvm::Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

llvm::Expected<bool> kiln::resolveAutoRemat(const CompileOptions &options,
                                            Device device) {
  if (options.autoRemat)
    return *options.autoRemat;
  const char *setting = std::getenv("KILN_REMAT");
  llvm::StringRef value = setting ? setting : "";
  if (value.empty())
    return device != Device::Cuda;
  if (value == "none")
    return false;
  if (value == "auto")
    return true;
  return makeError("KILN_REMAT must be 'auto' or 'none', not '" + value + "'");
}

/// Refuses the options that `device` does not understand, naming the first.
static llvm::Error checkOptions(const CompileOptions &options, Device device) {
  auto refuse = [&](llvm::StringRef option, Device owner) {
    return makeError("compile option '" + option + "' applies to the " +
                     getDeviceName(owner) + " device, not to " +
                     getDeviceName(device));
  };
  if (device == Device::Cuda) {
    if (options.compileHostCode)
      return refuse("compileHostCode", Device::Cpu);
    if (options.emulateGpuKernels)
      return refuse("emulateGpuKernels", Device::Cpu);
    if (!options.objectDumpPath.empty())
      return refuse("objectDumpPath", Device::Cpu);
  } else {
    if (!options.chip.empty())
      return refuse("chip", Device::Cuda);
    if (!options.libdevice.empty())
      return refuse("libdevice", Device::Cuda);
  }
  if (options.autocast && *options.autocast != DType::BF16 &&
      *options.autocast != DType::F16)
    return makeError("compile option 'autocast' takes bf16 or f16, not " +
                     getDTypeName(*options.autocast));
  if (options.rematMinBytes && *options.rematMinBytes < 0)
    return makeError("compile option 'rematMinBytes' must be at least 0, "
                     "not " +
                     llvm::Twine(*options.rematMinBytes));
  if (llvm::Expected<bool> remat = resolveAutoRemat(options, device); !remat)
    return remat.takeError();
  return llvm::Error::success();
}

llvm::Expected<std::unique_ptr<Executable>>
Executable::compile(mlir::ModuleOp module, llvm::StringRef entry,
                    const CompileOptions &options) {
  // Compiling for CUDA needs no GPU; only Auto asks whether one is there.
  Device device = options.device;
  if (device == Device::Auto) {
    llvm::Expected<Device> resolved = resolveDevice(Device::Auto);
    if (!resolved)
      return resolved.takeError();
    device = *resolved;
  }
  if (llvm::Error e = checkOptions(options, device))
    return std::move(e);
  DiskCache *cache = getDiskCacheFor(options, device);
  if (!cache && device == Device::Cuda) {
    auto exe = CudaExecutable::compile(module, entry, options);
    if (!exe)
      return exe.takeError();
    return std::unique_ptr<Executable>(std::move(*exe));
  }
  if (!cache) {
    auto exe = CpuExecutable::compile(module, entry, options);
    if (!exe)
      return exe.takeError();
    return std::unique_ptr<Executable>(std::move(*exe));
  }
  // Keyed by the program as generic MLIR text (no locations).
  std::string text;
  llvm::raw_string_ostream os(text);
  mlir::OpPrintingFlags flags;
  flags.printGenericOpForm();
  module->print(os, flags);
  llvm::Expected<std::string> key =
      getCacheKey("mlir", text, entry, options, device);
  if (!key)
    return key.takeError();
  if (std::unique_ptr<Executable> loaded =
          loadCachedExecutable(*cache, *key, device))
    return loaded;
  return compileCachedExecutable(module, entry, options, device, *cache, *key);
}

llvm::Expected<std::unique_ptr<Executable>>
Executable::compileSource(llvm::StringRef source, llvm::StringRef entry,
                          const CompileOptions &options) {
  mlir::DialectRegistry registry;
  registerAllKilnDialects(registry);
  registerKilnTranslations(registry);
  mlir::MLIRContext context(registry);
  FirstErrorCollector errors(&context);
  // MLIR's lexer reads up to a NUL after the text: a caller's StringRef
  // into a larger buffer need not have one, so parse a copy that does.
  std::string terminated = source.str();
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceString<mlir::ModuleOp>(terminated, &context);
  if (!module)
    return makeError(errors.getFirstErrorOr("the source does not parse"));
  return compile(*module, entry, options);
}
