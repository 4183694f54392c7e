//===- HostAllocatorTest.cpp - the runtime's host allocator ---------------===//

#include "RuntimeStatus.h"
#include "kiln_rt/kiln_rt.h"

#include "gtest/gtest.h"

#include <cstdint>
#include <cstring>
#include <thread>
#include <vector>

namespace {

using kiln::test::take;

TEST(HostAllocatorTest, AlignsZeroesAndCounts) {
  kiln_rt_host_stats before, during, after;
  kiln_rt_host_get_stats(&before);
  void *p = nullptr;
  ASSERT_EQ(take(kiln_rt_host_alloc(1000, 128, &p)), KILN_RT_OK);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % 128, 0u);
  std::vector<char> zeros(1000, 0);
  EXPECT_EQ(std::memcmp(p, zeros.data(), 1000), 0);
  kiln_rt_host_get_stats(&during);
  EXPECT_EQ(during.live_bytes, before.live_bytes + 1000);
  EXPECT_GE(during.peak_bytes, during.live_bytes);
  EXPECT_EQ(during.allocations, before.allocations + 1);
  kiln_rt_host_free(p);
  kiln_rt_host_get_stats(&after);
  EXPECT_EQ(after.live_bytes, before.live_bytes);
  EXPECT_EQ(after.frees, before.frees + 1);
}

TEST(HostAllocatorTest, RejectsBadArguments) {
  void *p = reinterpret_cast<void *>(1);
  EXPECT_EQ(take(kiln_rt_host_alloc(16, 3, &p)), KILN_RT_INVALID_ARGUMENT);
  EXPECT_EQ(p, nullptr);
  EXPECT_EQ(take(kiln_rt_host_alloc(16, 2, &p)), KILN_RT_INVALID_ARGUMENT);
  EXPECT_EQ(take(kiln_rt_host_alloc(16, 64, nullptr)),
            KILN_RT_INVALID_ARGUMENT);
  EXPECT_EQ(take(kiln_rt_host_alloc(SIZE_MAX - 8, 64, &p)),
            KILN_RT_OUT_OF_MEMORY);
  kiln_rt_host_free(nullptr); // a no-op
  kiln_rt_host_get_stats(nullptr);
}

TEST(HostAllocatorTest, ZeroBytesIsAValidAllocation) {
  void *p = nullptr;
  ASSERT_EQ(take(kiln_rt_host_alloc(0, 64, &p)), KILN_RT_OK);
  EXPECT_NE(p, nullptr);
  kiln_rt_host_free(p);
}

TEST(HostAllocatorTest, StatusStrings) {
  EXPECT_STREQ(kiln_rt_status_string(KILN_RT_OK), "ok");
  EXPECT_STREQ(kiln_rt_status_string(KILN_RT_OUT_OF_MEMORY), "out of memory");
  EXPECT_STREQ(kiln_rt_status_string(static_cast<kiln_rt_status_code>(99)),
               "unknown status");
}

TEST(HostAllocatorTest, ThreadSafeCounts) {
  kiln_rt_host_stats before, after;
  kiln_rt_host_get_stats(&before);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([] {
      for (int i = 0; i < 1000; ++i) {
        void *p = nullptr;
        if (take(kiln_rt_host_alloc(64 + i, 64, &p)) == KILN_RT_OK)
          kiln_rt_host_free(p);
      }
    });
  for (std::thread &thread : threads)
    thread.join();
  kiln_rt_host_get_stats(&after);
  EXPECT_EQ(after.live_bytes, before.live_bytes);
  EXPECT_EQ(after.allocations, before.allocations + 4000);
  EXPECT_EQ(after.frees, before.frees + 4000);
}

} // namespace

namespace {
TEST(BufferCacheTest, FreedBuffersAreReused) {
  kiln_rt_buffer_cache_trim();
  kiln_rt_buffer_cache_stats before, after;
  kiln_rt_buffer_cache_get_stats(&before);
  void *a = _mlir_memref_to_llvm_aligned_alloc(64, 1 << 20);
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(a) % 64, 0u);
  std::memset(a, 1, 1 << 20);
  _mlir_memref_to_llvm_free(a);
  // The same size class comes back from the cache.
  void *b = _mlir_memref_to_llvm_alloc((1 << 20) - 100);
  EXPECT_EQ(b, a);
  kiln_rt_buffer_cache_get_stats(&after);
  EXPECT_EQ(after.hits, before.hits + 1);
  EXPECT_EQ(after.misses, before.misses + 1);
  EXPECT_EQ(after.live_bytes, before.live_bytes + (1 << 20));
  _mlir_memref_to_llvm_free(b);
  kiln_rt_buffer_cache_get_stats(&after);
  EXPECT_EQ(after.cached_bytes, before.cached_bytes + (1 << 20));
  kiln_rt_buffer_cache_trim();
  kiln_rt_buffer_cache_get_stats(&after);
  EXPECT_EQ(after.cached_bytes, 0u);
}

TEST(BufferCacheTest, LargeAlignmentsAndNull) {
  void *p = _mlir_memref_to_llvm_aligned_alloc(4096, 100);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % 4096, 0u);
  _mlir_memref_to_llvm_free(p);
  _mlir_memref_to_llvm_free(nullptr);
  void *small = _mlir_memref_to_llvm_alloc(1);
  ASSERT_NE(small, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(small) % 64, 0u);
  _mlir_memref_to_llvm_free(small);
}
} // namespace
