//===- CachedCompile.h - CPU compiles through the compile cache -*- C++ -*-===//
//
// What Executable::compile (keyed by the module's text) and the lazy
// tensors' TraceCache (keyed by the trace, before any MLIR exists) share:
// which cache applies, the key of a CPU compile, loading an entry and
// compiling then storing one.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_COMPILER_CACHEDCOMPILE_H
#define KILN_COMPILER_CACHEDCOMPILE_H

#include "Compiler/CompileCache.h"
#include "kiln/Compiler/Executable.h"

namespace kiln {

/// The compile cache for a compile with `options` on `device`, or null:
/// CUDA, a disabled cache, or what a user asked to see compiled (objects,
/// host code, GPU emulation).
CompileCache *getCompileCacheFor(const CompileOptions &options, Device device);

/// The key of a CPU compile of `entry` of `program` (canonical text of the
/// kind `programKind`: "mlir", "trace") with `options`, on this host.
std::string getCpuCacheKey(llvm::StringRef programKind, llvm::StringRef program,
                           llvm::StringRef entry,
                           const CompileOptions &options);

/// The executable stored under `key`, or null: a miss, or an entry that
/// does not load (warned; the next compile replaces it).
std::unique_ptr<Executable> loadCpuExecutable(CompileCache &cache,
                                              llvm::StringRef key);

/// Compiles `entry` of `module` for the CPU and stores it under `key`
/// when it can be cached.
llvm::Expected<std::unique_ptr<Executable>>
compileCpuExecutable(mlir::ModuleOp module, llvm::StringRef entry,
                     const CompileOptions &options, CompileCache &cache,
                     llvm::StringRef key);

} // namespace kiln

#endif // KILN_COMPILER_CACHEDCOMPILE_H
