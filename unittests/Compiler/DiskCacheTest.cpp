//===- DiskCacheTest.cpp - compiled programs kept on disk --------------===//
//
// The storage of issue 17's compile cache: round trips, keys, corrupt and
// truncated entries, unusable directories, concurrent writers (processes)
// and least-recently-used eviction.
//
//===----------------------------------------------------------------------===//

#include "Compiler/Cache/DiskCache.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

#include <cstdlib>
#include <ctime>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace kiln;

namespace {

class DiskCacheTest : public ::testing::Test {
protected:
  void SetUp() override {
    llvm::SmallString<128> path;
    ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("kiln-cache-test", path));
    directory = path.str().str();
  }
  void TearDown() override { llvm::sys::fs::remove_directories(directory); }

  std::string entryPath(llvm::StringRef key) {
    return directory + "/" + key.str() + ".kiln";
  }
  std::string readFile(const std::string &path) {
    auto buffer = llvm::MemoryBuffer::getFile(path);
    return buffer ? (*buffer)->getBuffer().str() : std::string();
  }
  void writeFile(const std::string &path, llvm::StringRef bytes) {
    std::error_code ec;
    llvm::raw_fd_ostream os(path, ec);
    ASSERT_FALSE(ec);
    os << bytes;
  }

  std::string directory;
};

TEST_F(DiskCacheTest, StoresAndLoads) {
  DiskCache cache(directory, 1 << 20);
  ASSERT_TRUE(cache.isUsable());
  std::string key = DiskCacheKey().add("program", "a").digest();
  DiskCacheStats before = DiskCache::getStats();
  EXPECT_FALSE(cache.load(key));
  std::string payload("\0binary\xff payload", 16);
  cache.store(key, payload);
  std::optional<std::string> loaded = cache.load(key);
  ASSERT_TRUE(loaded);
  EXPECT_EQ(*loaded, payload);
  DiskCacheStats after = DiskCache::getStats();
  EXPECT_EQ(after.misses - before.misses, 1);
  EXPECT_EQ(after.hits - before.hits, 1);
  EXPECT_EQ(after.writes - before.writes, 1);
  EXPECT_GT(after.bytesWritten, before.bytesWritten);
}

TEST_F(DiskCacheTest, KeysChangeWithEveryPart) {
  std::string base = DiskCacheKey().add("program", "a").addHost().digest();
  EXPECT_EQ(base, DiskCacheKey().add("program", "a").addHost().digest());
  EXPECT_NE(base, DiskCacheKey().add("program", "b").addHost().digest());
  EXPECT_NE(base, DiskCacheKey().add("program", "a").digest());
  // Parts are length-prefixed: no two lists concatenate alike.
  EXPECT_NE(DiskCacheKey().add("ab", "c").digest(),
            DiskCacheKey().add("a", "bc").digest());
  // Another CPU (faked) is another key.
  ASSERT_EQ(setenv("KILN_CACHE_CPU", "some-other-cpu", 1), 0);
  std::string faked = DiskCacheKey().add("program", "a").addHost().digest();
  unsetenv("KILN_CACHE_CPU");
  EXPECT_NE(base, faked);
  EXPECT_EQ(base.size(), 64u);
}

TEST_F(DiskCacheTest, CorruptAndTruncatedEntriesAreMissedAndRemoved) {
  DiskCache cache(directory, 1 << 20);
  std::string key = DiskCacheKey().add("program", "c").digest();
  std::string payload(4096, 'x');
  cache.store(key, payload);
  std::string whole = readFile(entryPath(key));
  ASSERT_GT(whole.size(), payload.size());

  DiskCacheStats before = DiskCache::getStats();
  std::string flipped = whole;
  flipped[whole.size() - 100] ^= 1;
  writeFile(entryPath(key), flipped);
  EXPECT_FALSE(cache.load(key));
  EXPECT_FALSE(llvm::sys::fs::exists(entryPath(key)));

  for (size_t size : {size_t(0), size_t(5), size_t(40), whole.size() - 1}) {
    writeFile(entryPath(key), llvm::StringRef(whole).take_front(size));
    EXPECT_FALSE(cache.load(key)) << "truncated to " << size;
    EXPECT_FALSE(llvm::sys::fs::exists(entryPath(key)));
  }
  EXPECT_EQ(DiskCache::getStats().corrupt - before.corrupt, 5);

  // Stored again, it loads.
  cache.store(key, payload);
  EXPECT_EQ(cache.load(key), payload);
}

TEST_F(DiskCacheTest, AnUnusableDirectoryIsNoCache) {
  // A directory under a regular file cannot be made (even by root).
  std::string file = directory + "/file";
  writeFile(file, "not a directory");
  DiskCache cache(file + "/cache", 1 << 20);
  EXPECT_FALSE(cache.isUsable());
  std::string key = DiskCacheKey().add("program", "d").digest();
  cache.store(key, "payload");
  EXPECT_FALSE(cache.load(key));
  EXPECT_EQ(DiskCache::get(false, file + "/cache"), nullptr);
  EXPECT_EQ(DiskCache::get(true, directory), nullptr);
  EXPECT_NE(DiskCache::get(false, directory), nullptr);
}

TEST_F(DiskCacheTest, ConcurrentWritersLeaveOneWholeEntry) {
  std::string key = DiskCacheKey().add("program", "e").digest();
  // Large enough that a torn write would show.
  std::string payload(8 << 20, 'p');
  std::vector<pid_t> children;
  for (int i = 0; i < 4; ++i) {
    pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      DiskCache cache(directory, 64 << 20);
      for (int round = 0; round < 3; ++round) {
        cache.store(key, payload);
        std::optional<std::string> loaded = cache.load(key);
        if (loaded && *loaded != payload)
          _exit(2);
      }
      _exit(0);
    }
    children.push_back(pid);
  }
  for (pid_t pid : children) {
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  DiskCache cache(directory, 64 << 20);
  EXPECT_EQ(cache.load(key), payload);
  // No temporaries left behind.
  std::error_code ec;
  int files = 0;
  for (llvm::sys::fs::directory_iterator it(directory, ec), end;
       !ec && it != end; it.increment(ec))
    ++files;
  EXPECT_EQ(files, 1);
}

TEST_F(DiskCacheTest, EvictsTheLeastRecentlyUsed) {
  // Room for three entries of 1000 bytes (and their headers).
  DiskCache cache(directory, 3 * 1100);
  std::vector<std::string> keys;
  for (int i = 0; i < 3; ++i) {
    keys.push_back(DiskCacheKey().add("program", i).digest());
    cache.store(keys.back(), std::string(1000, 'a' + i));
    // Distinct times, oldest first.
    struct timespec times[2];
    times[0].tv_sec = times[1].tv_sec = std::time(nullptr) - 100 + i;
    times[0].tv_nsec = times[1].tv_nsec = 0;
    ASSERT_EQ(utimensat(AT_FDCWD, entryPath(keys.back()).c_str(), times, 0), 0);
  }
  // A hit renews entry 0: entry 1 is now the least recently used.
  EXPECT_TRUE(cache.load(keys[0]));
  DiskCacheStats before = DiskCache::getStats();
  std::string fourth = DiskCacheKey().add("program", 3).digest();
  cache.store(fourth, std::string(1000, 'd'));
  EXPECT_EQ(DiskCache::getStats().evictions - before.evictions, 1);
  EXPECT_TRUE(llvm::sys::fs::exists(entryPath(keys[0])));
  EXPECT_FALSE(llvm::sys::fs::exists(entryPath(keys[1])));
  EXPECT_TRUE(llvm::sys::fs::exists(entryPath(keys[2])));
  EXPECT_TRUE(llvm::sys::fs::exists(entryPath(fourth)));
}

} // namespace
