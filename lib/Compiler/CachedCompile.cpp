//===- CachedCompile.cpp - CPU compiles through the compile cache ---------===//

#include "Compiler/CachedCompile.h"
#include "Compiler/CpuExecutable.h"
#include "kiln_rt/kiln_rt_blas.h"

#include "llvm/Support/raw_ostream.h"

using namespace kiln;

CompileCache *kiln::getCompileCacheFor(const CompileOptions &options,
                                       Device device) {
  if (device != Device::Cpu || options.compileHostCode ||
      options.emulateGpuKernels || !options.objectDumpPath.empty())
    return nullptr;
  return CompileCache::get(options.noCache, options.cacheDirectory);
}

std::string kiln::getCpuCacheKey(llvm::StringRef programKind,
                                 llvm::StringRef program, llvm::StringRef entry,
                                 const CompileOptions &options) {
  bool blas = options.blas.value_or(kiln_rt_blas_available() != 0);
  return CompileCacheKey()
      .addHost()
      .add("device", "cpu")
      .add("entry", entry)
      .add("prune", options.autodiffPrune)
      .add("blas", blas ? kiln_rt_blas_library() : "")
      .add("kernel-dedup", options.kernelDedup)
      .add("fold-contraction-layouts", options.foldContractionLayouts)
      .add(programKind, program)
      .digest();
}

std::unique_ptr<Executable> kiln::loadCpuExecutable(CompileCache &cache,
                                                    llvm::StringRef key) {
  std::optional<std::string> payload = cache.load(key);
  if (!payload)
    return nullptr;
  auto loaded = CpuExecutable::loadCached(
      llvm::ArrayRef<char>(payload->data(), payload->size()));
  if (loaded)
    return std::move(*loaded);
  llvm::errs() << "kiln: warning: compile cache: "
               << llvm::toString(loaded.takeError()) << "; compiling again\n";
  return nullptr;
}

llvm::Expected<std::unique_ptr<Executable>>
kiln::compileCpuExecutable(mlir::ModuleOp module, llvm::StringRef entry,
                           const CompileOptions &options, CompileCache &cache,
                           llvm::StringRef key) {
  auto exe =
      CpuExecutable::compile(module, entry, options, KernelObject::ForCache);
  if (!exe)
    return exe.takeError();
  (*exe)->setCacheState("miss");
  if (std::optional<std::string> payload = (*exe)->serializeForCache())
    cache.store(key, *payload);
  return std::unique_ptr<Executable>(std::move(*exe));
}
