//===- ExecutableCache.h - executables kept in the disk cache ---*- C++ -*-===//
//
// What Executable::compile (keyed by the module's text) and the lazy
// tensors' TraceCache (keyed by the trace, before any MLIR exists) share:
// which cache applies, the key of a compile (CPU or CUDA), loading an entry
// and compiling then storing one.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_COMPILER_CACHE_EXECUTABLECACHE_H
#define KILN_COMPILER_CACHE_EXECUTABLECACHE_H

#include "Compiler/Cache/DiskCache.h"
#include "kiln/Compiler/Executable.h"

namespace kiln {

/// The compile cache for a compile with `options` on `device` (cpu or
/// cuda), or null: a disabled cache, or what a user asked to see compiled
/// (objects, host code, GPU emulation).
DiskCache *getDiskCacheFor(const CompileOptions &options, Device device);

/// The key of a compile of `entry` of `program` (canonical text of the
/// kind `programKind`: "mlir", "trace") with `options` for `device`, on
/// this host: for CUDA also the chip, libdevice's contents and cuBLAS.
llvm::Expected<std::string> getCacheKey(llvm::StringRef programKind,
                                        llvm::StringRef program,
                                        llvm::StringRef entry,
                                        const CompileOptions &options,
                                        Device device);

/// The executable stored under `key`, or null: a miss, or an entry that
/// does not load (warned; the next compile replaces it). With `header`, the
/// entry starts with the bytes compileCachedExecutable's `header` stored,
/// which it receives.
std::unique_ptr<Executable> loadCachedExecutable(DiskCache &cache,
                                                 llvm::StringRef key,
                                                 Device device,
                                                 std::string *header = nullptr);

/// Compiles `entry` of `module` for `device` and stores it under `key`
/// when it can be cached, after `header` when given (what the caller needs
/// to use the entry, e.g. a generic program's pattern).
llvm::Expected<std::unique_ptr<Executable>>
compileCachedExecutable(mlir::ModuleOp module, llvm::StringRef entry,
                        const CompileOptions &options, Device device,
                        DiskCache &cache, llvm::StringRef key,
                        std::optional<llvm::StringRef> header = std::nullopt);

class ByteWriter;
class ByteReader;
/// What every cache payload starts with after its magic and version: the
/// entry's name, its signature (dtype, rank, dims, type string of each input
/// and output) and the compile's statistics; and back, saying whether the
/// bytes were one.
void writeEntryRecord(ByteWriter &w, llvm::StringRef entryName,
                      llvm::ArrayRef<TensorSignature> inputs,
                      llvm::ArrayRef<TensorSignature> outputs,
                      const CompileStats &stats);
bool readEntryRecord(ByteReader &r, std::string &entryName,
                     std::vector<TensorSignature> &inputs,
                     std::vector<TensorSignature> &outputs,
                     CompileStats &stats);

} // namespace kiln

#endif // KILN_COMPILER_CACHE_EXECUTABLECACHE_H
