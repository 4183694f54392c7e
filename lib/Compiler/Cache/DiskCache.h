//===- DiskCache.h - compiled programs kept on disk -------------*- C++ -*-===//
//
// A directory of compiled programs, one file per key, so that a new process
// runs a program it compiled before without compiling it again. Keys are
// hex digests of everything that changes the code (DiskCacheKey). An
// entry is a header (magic, format version, the key, the payload's size and
// checksum) and a payload the executable defines.
//
// Robustness: entries are written to a temporary file and renamed, so that
// readers and concurrent writers see a whole entry or none; a truncated or
// corrupt entry is reported once, removed and missed; a size cap evicts the
// least recently used entries; a directory that cannot be created or
// written disables the cache with one warning.
//
// The process's cache follows the environment: KILN_CACHE=0 disables it,
// KILN_CACHE_DIR names the directory (default $XDG_CACHE_HOME/kiln or
// ~/.cache/kiln), KILN_CACHE_MAX_MB caps it (default 1024).
//
//===----------------------------------------------------------------------===//

#ifndef KILN_COMPILER_CACHE_DISKCACHE_H
#define KILN_COMPILER_CACHE_DISKCACHE_H

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace kiln {

/// What the caches of this process did, all directories together.
struct DiskCacheStats {
  int64_t hits = 0, misses = 0, writes = 0, evictions = 0;
  /// Entries found corrupt or truncated (then removed).
  int64_t corrupt = 0;
  int64_t bytesRead = 0, bytesWritten = 0;
};

/// Builds a key from named parts; the digest changes with any of them.
class DiskCacheKey {
public:
  DiskCacheKey &add(llvm::StringRef name, llvm::StringRef value);
  DiskCacheKey &add(llvm::StringRef name, int64_t value);
  /// The parts every CPU key holds: the cache format, kiln's version and
  /// build, LLVM's version, the target triple, the host CPU's name and
  /// features (KILN_CACHE_CPU replaces both, for tests).
  DiskCacheKey &addHost();
  /// A hex digest of the parts, in the order they were added.
  std::string digest() const;

private:
  std::string parts;
};

class DiskCache {
public:
  /// A cache in `directory`, created when missing, capped at `maxBytes`.
  DiskCache(std::string directory, uint64_t maxBytes);

  /// The process's cache, as the environment configures it; null when
  /// KILN_CACHE=0 or the directory is unusable (warned once).
  static DiskCache *getDefault();
  /// The cache a compile should use: none when `disabled`, one in
  /// `directory` when given, else getDefault(). Caches made here live as
  /// long as the process.
  static DiskCache *get(bool disabled, llvm::StringRef directory);

  /// The payload stored under `key`, or none: a miss, or an entry that was
  /// corrupt (reported once and removed).
  std::optional<std::string> load(llvm::StringRef key);
  /// Stores `payload` under `key` (atomically), then evicts the least
  /// recently used entries beyond the cap. A failure disables writes to
  /// this directory with one warning.
  void store(llvm::StringRef key, llvm::StringRef payload);

  /// Whether the directory could be used.
  bool isUsable() const { return usable; }

  static DiskCacheStats getStats();

private:
  std::string getPath(llvm::StringRef key) const;
  void evict();
  void warnOnce(const std::string &message);

  std::string directory;
  uint64_t maxBytes;
  bool usable = true, writable = true, warned = false;
  std::mutex mutex;
};

} // namespace kiln

#endif // KILN_COMPILER_CACHE_DISKCACHE_H
