//===- DiskCache.cpp - compiled programs kept on disk ---------------------===//

#include "Compiler/Cache/DiskCache.h"
#include "Compiler/Compile/TargetCpu.h"
#include "Support/ByteStream.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/xxhash.h"
#include "llvm/TargetParser/Host.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <dlfcn.h>
#include <fcntl.h>
#include <map>
#include <memory>
#include <sys/stat.h>

using namespace kiln;

namespace {

constexpr llvm::StringLiteral kMagic = "KILNCACHE";
constexpr uint16_t kFormatVersion = 1;
constexpr llvm::StringLiteral kSuffix = ".kiln";

std::mutex statsMutex;
DiskCacheStats stats;

template <typename F> void updateStats(F &&update) {
  std::lock_guard<std::mutex> lock(statsMutex);
  update(stats);
}

/// This build of kiln: the file holding this code, by size and time, so
/// that any rebuild changes it.
std::string getBuildId() {
  Dl_info info;
  if (!dladdr(reinterpret_cast<void *>(&getBuildId), &info) || !info.dli_fname)
    return "unknown";
  struct stat st;
  if (stat(info.dli_fname, &st) != 0)
    return info.dli_fname;
  return std::to_string(st.st_size) + "-" + std::to_string(st.st_mtime) + "." +
         std::to_string(st.st_mtim.tv_nsec);
}

uint64_t getEnvMegabytes(const char *name, uint64_t fallback) {
  const char *value = std::getenv(name);
  uint64_t parsed;
  if (!value || llvm::StringRef(value).getAsInteger(10, parsed))
    return fallback;
  return parsed;
}

} // namespace

DiskCacheKey &DiskCacheKey::add(llvm::StringRef name, llvm::StringRef value) {
  // Length-prefixed, so that no two part lists concatenate alike.
  parts += std::to_string(name.size()) + ":" + name.str() +
           std::to_string(value.size()) + ":" + value.str();
  return *this;
}

DiskCacheKey &DiskCacheKey::add(llvm::StringRef name, int64_t value) {
  return add(name, std::to_string(value));
}

DiskCacheKey &DiskCacheKey::addHost() {
  static const std::string buildId = getBuildId();
  add("cache-format", kFormatVersion);
  add("kiln", KILN_VERSION_STRING);
  add("kiln-build", buildId);
  add("llvm", LLVM_VERSION_STRING);
  add("triple", llvm::sys::getProcessTriple());
  if (const char *cpu = std::getenv("KILN_CACHE_CPU")) {
    add("cpu", cpu);
    return *this;
  }
  llvm::Expected<const TargetCpu &> cpu = getTargetCpu();
  if (!cpu) {
    // Nothing compiles with a bad KILN_CPU; the key only has to differ.
    add("cpu", "invalid: " + llvm::toString(cpu.takeError()));
    return *this;
  }
  add("cpu", cpu->name);
  return add("cpu-features", llvm::join(cpu->features, ","));
}

std::string DiskCacheKey::digest() const {

  return llvm::toHex(llvm::SHA256::hash(llvm::arrayRefFromStringRef(parts)),
                     /*LowerCase=*/true);
}

DiskCache::DiskCache(std::string directory, uint64_t maxBytes)
    : directory(std::move(directory)), maxBytes(maxBytes) {
  if (std::error_code ec = llvm::sys::fs::create_directories(this->directory)) {
    warnOnce("cannot create '" + this->directory + "': " + ec.message());
    usable = false;
  }
}

DiskCache *DiskCache::getDefault() {
  static DiskCache *cache = []() -> DiskCache * {
    const char *enabled = std::getenv("KILN_CACHE");
    if (enabled && llvm::StringRef(enabled) == "0")
      return nullptr;
    std::string directory;
    if (const char *dir = std::getenv("KILN_CACHE_DIR"); dir && *dir) {
      directory = dir;
    } else {
      llvm::SmallString<256> path;
      if (const char *xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg)
        path = xdg;
      else if (!llvm::sys::path::cache_directory(path))
        return nullptr;
      llvm::sys::path::append(path, "kiln");
      directory = path.str().str();
    }
    uint64_t megabytes = getEnvMegabytes("KILN_CACHE_MAX_MB", 1024);
    auto *made = new DiskCache(directory, megabytes << 20);
    return made->isUsable() ? made : nullptr;
  }();
  return cache;
}

DiskCache *DiskCache::get(bool disabled, llvm::StringRef directory) {
  if (disabled)
    return nullptr;
  if (directory.empty())
    return getDefault();
  static std::mutex mutex;
  static std::map<std::string, std::unique_ptr<DiskCache>> caches;
  std::lock_guard<std::mutex> lock(mutex);
  std::unique_ptr<DiskCache> &cache = caches[directory.str()];
  if (!cache)
    cache = std::make_unique<DiskCache>(
        directory.str(), getEnvMegabytes("KILN_CACHE_MAX_MB", 1024) << 20);
  return cache->isUsable() ? cache.get() : nullptr;
}

std::string DiskCache::getPath(llvm::StringRef key) const {
  llvm::SmallString<256> path(directory);
  llvm::sys::path::append(path, key + kSuffix);
  return path.str().str();
}

void DiskCache::warnOnce(const std::string &message) {
  if (warned)
    return;
  warned = true;
  llvm::errs() << "kiln: warning: compile cache: " << message << "\n";
}

std::optional<std::string> DiskCache::load(llvm::StringRef key) {
  std::lock_guard<std::mutex> lock(mutex);
  std::string path = getPath(key);
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                            /*RequiresNullTerminator=*/false);
  if (!buffer) {
    updateStats([](DiskCacheStats &s) { ++s.misses; });
    return std::nullopt;
  }
  llvm::StringRef bytes = (*buffer)->getBuffer();
  auto corrupt = [&](llvm::StringRef why) -> std::optional<std::string> {
    warnOnce("entry '" + path + "' is " + why.str() +
             "; compiling again and replacing it");
    llvm::sys::fs::remove(path);
    updateStats([](DiskCacheStats &s) {
      ++s.corrupt;
      ++s.misses;
    });
    return std::nullopt;
  };
  ByteReader r(llvm::ArrayRef<char>(bytes.data(), bytes.size()));
  uint16_t version, keySize;
  uint64_t payloadSize, checksum;
  llvm::StringRef storedKey, payload;
  if (!r.readMagic(kMagic) || !r.read(version) || !r.read(keySize))
    return corrupt("not a kiln cache entry");
  if (version != kFormatVersion)
    return corrupt("of another format version");
  if (!r.readRaw(keySize, storedKey) || !r.read(payloadSize) ||
      !r.read(checksum))
    return corrupt("truncated");
  if (storedKey != key)
    return corrupt("stored under another key");
  if (payloadSize != r.remaining() || !r.readRaw(payloadSize, payload))
    return corrupt("truncated");
  if (llvm::xxh3_64bits(payload) != checksum)
    return corrupt("corrupt (checksum mismatch)");
  // Least recently used: a hit renews the entry.
  utimensat(AT_FDCWD, path.c_str(), nullptr, 0);
  updateStats([&](DiskCacheStats &s) {
    ++s.hits;
    s.bytesRead += static_cast<int64_t>(bytes.size());
  });
  return payload.str();
}

void DiskCache::store(llvm::StringRef key, llvm::StringRef payload) {
  std::lock_guard<std::mutex> lock(mutex);
  if (!usable || !writable)
    return;
  std::string entry;
  ByteWriter w(entry);
  w.writeRaw(kMagic);
  w.write(kFormatVersion);
  w.write(static_cast<uint16_t>(key.size()));
  w.writeRaw(key);
  w.write(static_cast<uint64_t>(payload.size()));
  w.write(llvm::xxh3_64bits(payload));
  w.writeRaw(payload);

  // A whole entry or none: written aside, then renamed over the name.
  llvm::SmallString<256> temporary;
  int fd;
  std::string model = getPath(key) + ".tmp-%%%%%%%%";
  if (std::error_code ec =
          llvm::sys::fs::createUniqueFile(model, fd, temporary)) {
    writable = false;
    warnOnce("cannot write to '" + directory + "': " + ec.message() +
             "; not caching");
    return;
  }
  bool written;
  {
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    os << entry;
    os.flush();
    written = !os.has_error();
    if (!written)
      os.clear_error();
  }
  std::error_code ec;
  if (!written || (ec = llvm::sys::fs::rename(temporary, getPath(key)))) {
    llvm::sys::fs::remove(temporary);
    writable = false;
    warnOnce("cannot write to '" + directory +
             "': " + (ec ? ec.message() : std::string("write error")) +
             "; not caching");
    return;
  }
  updateStats([&](DiskCacheStats &s) {
    ++s.writes;
    s.bytesWritten += static_cast<int64_t>(entry.size());
  });
  evict();
}

void DiskCache::evict() {
  struct Entry {
    std::string path;
    uint64_t size;
    llvm::sys::TimePoint<> time;
  };
  std::vector<Entry> entries;
  uint64_t total = 0;
  std::error_code ec;
  auto now = std::chrono::system_clock::now();
  for (llvm::sys::fs::directory_iterator it(directory, ec), end;
       !ec && it != end; it.increment(ec)) {
    llvm::sys::fs::file_status status;
    if (llvm::sys::fs::status(it->path(), status))
      continue;
    llvm::StringRef name = llvm::sys::path::filename(it->path());
    // A temporary left by a writer that died an hour ago.
    if (name.contains(".tmp-")) {
      if (now - status.getLastModificationTime() > std::chrono::hours(1))
        llvm::sys::fs::remove(it->path());
      continue;
    }
    if (!name.ends_with(kSuffix))
      continue;
    entries.push_back(
        {it->path(), status.getSize(), status.getLastModificationTime()});
    total += status.getSize();
  }
  if (total <= maxBytes)
    return;
  // Oldest first; equal times by name, the same order in every process.
  llvm::sort(entries, [](const Entry &a, const Entry &b) {
    return a.time != b.time ? a.time < b.time : a.path < b.path;
  });
  for (const Entry &entry : entries) {
    if (total <= maxBytes)
      break;
    if (llvm::sys::fs::remove(entry.path))
      continue;
    total -= entry.size;
    updateStats([](DiskCacheStats &s) { ++s.evictions; });
  }
}

DiskCacheStats DiskCache::getStats() {
  std::lock_guard<std::mutex> lock(statsMutex);
  return stats;
}
