/*===- allocator.c - a caching device allocator ---------------------------===*
 *
 * cuMemAlloc and cuMemFree synchronize the device and cost tens of
 * microseconds, so freed blocks are kept and reused, as PyTorch's caching
 * allocator does. Sizes round up to a class: 512 bytes below 1 MiB, 2 MiB
 * above. A block is reused for an allocation of its exact class. When the
 * driver is out of memory, the cache is given back and the allocation
 * tried once more.
 *
 *===----------------------------------------------------------------------===*/

#include "driver.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct block {
  CUdeviceptr ptr;
  size_t size; /* the size class */
} block;

/* A growable array of blocks. */
typedef struct block_list {
  block *items;
  size_t count, capacity;
} block_list;

static pthread_mutex_t memory_mutex = PTHREAD_MUTEX_INITIALIZER;
static block_list live, cached;
static kiln_rt_cuda_memory_stats stats;

static size_t size_class(size_t bytes) {
  const size_t small = 512, large = 2u << 20;
  if (bytes < (1u << 20))
    return (bytes + small - 1) / small * small;
  return (bytes + large - 1) / large * large;
}

static int push(block_list *list, block b) {
  if (list->count == list->capacity) {
    size_t capacity = list->capacity ? 2 * list->capacity : 64;
    block *items = realloc(list->items, capacity * sizeof(block));
    if (!items)
      return 0;
    list->items = items;
    list->capacity = capacity;
  }
  list->items[list->count++] = b;
  return 1;
}

/* Removes and returns item `i` (the order is not kept). */
static block take(block_list *list, size_t i) {
  block b = list->items[i];
  list->items[i] = list->items[--list->count];
  return b;
}

static _Atomic(void (*)(void)) pressure_hook;

void kiln_rt_cuda_set_memory_pressure_hook(void (*hook)(void)) {
  atomic_store(&pressure_hook, hook);
}

/* Gives the cached blocks back to the driver; memory_mutex held. */
static void release_cached(void) {
  for (size_t i = 0; i < cached.count; ++i)
    kiln_cuda.cuMemFree_v2(cached.items[i].ptr);
  cached.count = 0;
  stats.cached_bytes = 0;
}

kiln_rt_status kiln_rt_cuda_malloc(size_t bytes, void **device_ptr) {
  kiln_rt_status status = kiln_cuda_enter("kiln_rt_cuda_malloc");
  if (status)
    return status;
  if (!device_ptr)
    return kiln_rt_status_make(KILN_RT_INVALID_ARGUMENT,
                               "kiln_rt_cuda_malloc: device_ptr is NULL");
  *device_ptr = NULL;
  if (bytes == 0)
    return KILN_RT_SUCCESS;
  if (bytes > SIZE_MAX - (4u << 20)) /* the size class would wrap */
    return kiln_rt_status_make(KILN_RT_OUT_OF_MEMORY,
                               "kiln_rt_cuda_malloc: %zu bytes is too many",
                               bytes);
  size_t size = size_class(bytes);
  pthread_mutex_lock(&memory_mutex);
  block b = {0, size};
  int found = 0;
  /* The most recently freed block of the class: likely still in cache. */
  for (size_t i = cached.count; i-- > 0;)
    if (cached.items[i].size == size) {
      b = take(&cached, i);
      stats.cached_bytes -= size;
      ++stats.hits;
      found = 1;
      break;
    }
  if (!found) {
    status = KILN_CUDA_CALL(cuMemAlloc_v2, (&b.ptr, size));
    int out_of_memory = kiln_rt_status_code_of(status) == KILN_RT_OUT_OF_MEMORY;
    void (*hook)(void) = atomic_load(&pressure_hook);
    if (out_of_memory && hook) {
      /* Memory held for speed only (graphs' temporaries) goes back to the
       * cache first; the hook frees, so it runs without the mutex. */
      pthread_mutex_unlock(&memory_mutex);
      hook();
      pthread_mutex_lock(&memory_mutex);
    }
    if (out_of_memory && cached.count > 0) {
      release_cached();
      kiln_rt_status_free(status);
      status = KILN_CUDA_CALL(cuMemAlloc_v2, (&b.ptr, size));
    }
    if (status) {
      uint64_t in_use = stats.live_bytes;
      pthread_mutex_unlock(&memory_mutex);
      if (kiln_rt_status_code_of(status) != KILN_RT_OUT_OF_MEMORY)
        return status;
      /* The cache was given back already: say what was asked and held. */
      kiln_rt_status failed = kiln_rt_status_make(
          KILN_RT_OUT_OF_MEMORY,
          "out of device memory: %zu bytes requested, %llu bytes in use (%s)",
          bytes, (unsigned long long)in_use, kiln_rt_status_message(status));
      kiln_rt_status_free(status);
      return failed;
    }
    ++stats.misses;
  }
  if (!push(&live, b)) {
    kiln_cuda.cuMemFree_v2(b.ptr);
    pthread_mutex_unlock(&memory_mutex);
    return kiln_rt_status_make(KILN_RT_OUT_OF_MEMORY,
                               "kiln_rt_cuda_malloc: out of host memory");
  }
  stats.live_bytes += size;
  if (stats.live_bytes > stats.peak_bytes)
    stats.peak_bytes = stats.live_bytes;
  *device_ptr = (void *)(uintptr_t)b.ptr;
  pthread_mutex_unlock(&memory_mutex);
  return KILN_RT_SUCCESS;
}

kiln_rt_status kiln_rt_cuda_free(void *device_ptr) {
  if (!device_ptr)
    return KILN_RT_SUCCESS;
  KILN_RT_RETURN_IF_ERROR(kiln_cuda_enter("kiln_rt_cuda_free"));
  CUdeviceptr ptr = (CUdeviceptr)(uintptr_t)device_ptr;
  pthread_mutex_lock(&memory_mutex);
  /* Recent allocations are freed first: search from the end. */
  for (size_t i = live.count; i-- > 0;)
    if (live.items[i].ptr == ptr) {
      block b = take(&live, i);
      stats.live_bytes -= b.size;
      if (push(&cached, b))
        stats.cached_bytes += b.size;
      else
        kiln_cuda.cuMemFree_v2(b.ptr);
      pthread_mutex_unlock(&memory_mutex);
      return KILN_RT_SUCCESS;
    }
  pthread_mutex_unlock(&memory_mutex);
  return kiln_rt_status_make(KILN_RT_INVALID_ARGUMENT,
                             "kiln_rt_cuda_free: %p was not allocated by "
                             "kiln_rt_cuda_malloc, or was freed already",
                             device_ptr);
}

kiln_rt_status kiln_rt_cuda_trim(void) {
  KILN_RT_RETURN_IF_ERROR(kiln_cuda_enter("kiln_rt_cuda_trim"));
  pthread_mutex_lock(&memory_mutex);
  release_cached();
  pthread_mutex_unlock(&memory_mutex);
  return KILN_RT_SUCCESS;
}

void kiln_rt_cuda_get_memory_stats(kiln_rt_cuda_memory_stats *out) {
  pthread_mutex_lock(&memory_mutex);
  *out = stats;
  pthread_mutex_unlock(&memory_mutex);
}

void kiln_rt_cuda_reset_peak_memory(void) {
  pthread_mutex_lock(&memory_mutex);
  stats.peak_bytes = stats.live_bytes;
  pthread_mutex_unlock(&memory_mutex);
}

void kiln_cuda_release_memory(void) {
  pthread_mutex_lock(&memory_mutex);
  release_cached();
  for (size_t i = 0; i < live.count; ++i)
    kiln_cuda.cuMemFree_v2(live.items[i].ptr);
  free(live.items);
  free(cached.items);
  memset(&live, 0, sizeof(live));
  memset(&cached, 0, sizeof(cached));
  memset(&stats, 0, sizeof(stats));
  pthread_mutex_unlock(&memory_mutex);
}
