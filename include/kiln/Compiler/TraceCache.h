//===- TraceCache.h - compiled executables by trace program -----*- C++ -*-===//
//
// Maps a trace program's hash to its compiled executable. A hit touches no
// MLIR; a miss imports the program (importTrace), compiles it with the CPU
// pipeline, and keeps the result. Bounded (least recently used goes first)
// and safe to use from several threads; compiles are serialized.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_COMPILER_TRACECACHE_H
#define KILN_COMPILER_TRACECACHE_H

#include "kiln/Compiler/CpuExecutable.h"
#include "kiln/Lazy/Trace.h"

#include "llvm/ADT/DenseMap.h"

#include <list>
#include <memory>
#include <mutex>

namespace mlir {
class MLIRContext;
} // namespace mlir

namespace kiln {

/// What the cache has done, for kiln::metrics().
struct TraceCacheStats {
  int64_t hits = 0, misses = 0, compiles = 0, evictions = 0;
  double compileMs = 0;
};

class TraceCache {
public:
  explicit TraceCache(size_t capacity = 256);
  ~TraceCache();

  /// The process-wide cache the lazy tensors use.
  static TraceCache &global();

  /// The executable computing `program`, compiled on a miss.
  llvm::Expected<std::shared_ptr<const CpuExecutable>>
  get(const TraceProgram &program);

  TraceCacheStats getStats() const;
  size_t size() const;

private:
  using Entry = std::pair<uint64_t, std::shared_ptr<const CpuExecutable>>;

  size_t capacity;
  mutable std::mutex mutex;
  /// Most recently used first.
  std::list<Entry> order;
  llvm::DenseMap<uint64_t, std::list<Entry>::iterator> byHash;
  TraceCacheStats stats;
  /// Compiles one program at a time, outside `mutex`, in this context.
  std::mutex compileMutex;
  std::unique_ptr<mlir::MLIRContext> context;
};

} // namespace kiln

#endif // KILN_COMPILER_TRACECACHE_H
