//===- TraceCache.h - compiled executables by trace program -----*- C++ -*-===//
//
// Maps a trace program's hash to its compiled executable. A hit touches no
// MLIR; a miss asks the compile cache on disk (CPU, keyed by the trace's
// canonical form: a hit there touches no MLIR either), else imports the
// program (importTrace), compiles it for the device, and keeps the result.
// Bounded (least recently used goes first) and safe to use from several
// threads; compiles are serialized.
//
// With KILN_EXPLAIN_MISS=1 in the environment, a miss says on stderr where
// the program first differs from the closest cached one (the one sharing
// the longest prefix of entries).
//
//===----------------------------------------------------------------------===//

#ifndef KILN_COMPILER_FRONTEND_TRACECACHE_H
#define KILN_COMPILER_FRONTEND_TRACECACHE_H

#include "Compiler/Frontend/GenericShapes.h"
#include "kiln/Compiler/Executable.h"
#include "kiln/Trace/Trace.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"

#include <atomic>
#include <deque>
#include <list>
#include <memory>
#include <mutex>

namespace mlir {
class MLIRContext;
} // namespace mlir

namespace kiln {

class DiskCache;

/// What the cache has done, for kiln::metrics().
struct TraceCacheStats {
  /// Compiles counts the misses that the compile cache on disk served too.
  int64_t hits = 0, misses = 0, compiles = 0, evictions = 0;
  /// MLIR contexts made (0 or 1: at the first real compile).
  int64_t contexts = 0;
  /// Shape-generic programs compiled (automatic dynamic dims), and misses
  /// that one of them served with no compile.
  int64_t genericCompiles = 0, genericHits = 0;
  double compileMs = 0;
};

class TraceCache {
public:
  explicit TraceCache(size_t capacity = 256);
  ~TraceCache();

  /// The process-wide cache the lazy tensors use.
  static TraceCache &global();

  /// The executable computing `program` on `device` (Auto resolved first)
  /// with f32 products in `precision`, compiled on a miss. A program is
  /// cached per device and precision.
  llvm::Expected<std::shared_ptr<const Executable>>
  get(const TraceProgram &program, Device device = Device::Cpu,
      Float32MatmulPrecision precision = Float32MatmulPrecision::Highest);

  TraceCacheStats getStats() const;
  size_t size() const;

  /// Whether each miss says on stderr why it missed (as KILN_EXPLAIN_MISS=1
  /// does, whatever this says).
  void setExplainMisses(bool enabled) {
    explainMisses.store(enabled, std::memory_order_relaxed);
  }

private:
  struct Entry {
    uint64_t key; // the program's hash and the device
    std::shared_ptr<const Executable> executable;
    /// For KILN_EXPLAIN_MISS: the program's entries, hashed and described.
    std::vector<uint64_t> entryHashes;
    std::vector<std::string> descriptions;
  };

  /// Imports `program` and compiles it (storing it in `disk` under
  /// `diskKey` when given), with `compileMutex` held; shape-generic when
  /// `dynamic` says which dims are dynamic.
  llvm::Expected<std::shared_ptr<const Executable>>
  compile(const TraceProgram &program, const CompileOptions &options,
          DiskCache *disk, llvm::StringRef diskKey,
          const DynamicDims *dynamic = nullptr,
          std::optional<llvm::StringRef> diskHeader = std::nullopt);
  /// What findGeneric may do: return a generic executable that fits the
  /// program; also remember a new structure's shapes; also make the
  /// structure's generic executable from its second program.
  enum class GenericMode { Fit, Remember, Make };
  /// The shape-generic executable of `program`'s structure (on the CPU,
  /// unless KILN_DYNAMIC=0), or null: a compile for these sizes follows.
  /// Sets `compiled` when it compiled one. With `compileMutex` held.
  std::shared_ptr<const Executable> findGeneric(const TraceProgram &program,
                                                const CompileOptions &options,
                                                GenericMode mode,
                                                bool &compiled);
  /// The shape-generic executable of `program`'s structure that an earlier
  /// process stored in `disk`, when `program` fits its pattern: it becomes
  /// the structure's. With `compileMutex` held.
  std::shared_ptr<const Executable> loadGeneric(const TraceProgram &program,
                                                const CompileOptions &options,
                                                DiskCache &disk);
  /// The key of `structure`'s generic executable in the compile cache.
  llvm::Expected<std::string> getGenericKey(llvm::StringRef structure,
                                            const CompileOptions &options);

  /// Per structure (getStructuralForm) on the CPU: the first program's
  /// shapes, then the generic executable and its pattern, or how many
  /// programs failed to make one.
  struct Generic {
    ShapeRecord first;
    std::shared_ptr<const Executable> executable;
    GenericPattern pattern;
    int failures = 0;
  };
  llvm::StringMap<Generic> generics;
  /// The structures in `generics`, oldest first.
  std::deque<std::string> genericOrder;
  /// The context programs are imported into, made on first use.
  mlir::MLIRContext &getContext();
  /// Why `program` missed, in one line (called with `mutex` held).
  std::string explainMiss(const TraceProgram &program) const;

  size_t capacity;
  mutable std::mutex mutex;
  /// Most recently used first.
  std::list<Entry> order;
  llvm::DenseMap<uint64_t, std::list<Entry>::iterator> byKey;
  TraceCacheStats stats;
  std::atomic<bool> explainMisses;
  /// Compiles one program at a time, outside `mutex`, in this context.
  std::mutex compileMutex;
  std::unique_ptr<mlir::MLIRContext> context;
};

} // namespace kiln

#endif // KILN_COMPILER_FRONTEND_TRACECACHE_H
