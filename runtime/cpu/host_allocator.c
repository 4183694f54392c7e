/*===- host_allocator.c - aligned host allocations with statistics --------===*
 *
 * Each block carries a small header in front of the aligned pointer that
 * records the size and where the block came from, so that frees update the
 * live byte count exactly. Blocks with the usual alignments come from the
 * buffer cache (buffer_cache.c): tensors allocated for every run, like a
 * compiled function's results, then reuse their memory instead of faulting
 * in fresh pages each time.
 *
 *===----------------------------------------------------------------------===*/

#include "kiln_rt/kiln_rt.h"

#include "../common/status.h"
#include "faults.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

typedef struct block_header {
  void *base;
  size_t bytes;
  int cached; /* base is from the buffer cache, not malloc */
} block_header;

/* The buffer cache's blocks are aligned to this. */
#define CACHE_ALIGNMENT 64

static atomic_uint_fast64_t live_bytes;
static atomic_uint_fast64_t peak_bytes;
static atomic_uint_fast64_t allocations;
static atomic_uint_fast64_t frees;

void kiln_host_stats_add(uint64_t bytes) {
  uint64_t now = atomic_fetch_add(&live_bytes, bytes) + bytes;
  uint64_t peak = atomic_load(&peak_bytes);
  while (now > peak && !atomic_compare_exchange_weak(&peak_bytes, &peak, now))
    ;
}

void kiln_host_stats_sub(uint64_t bytes) {
  atomic_fetch_sub(&live_bytes, bytes);
}

static kiln_rt_status host_alloc(const char *api, size_t bytes,
                                 size_t alignment, int zero, void **out) {
  if (!out)
    return kiln_rt_status_make(KILN_RT_INVALID_ARGUMENT, "%s: out is NULL",
                               api);
  *out = NULL;
  if (alignment < sizeof(void *) || (alignment & (alignment - 1)) != 0)
    return kiln_rt_status_make(KILN_RT_INVALID_ARGUMENT,
                               "%s: alignment %zu is not a power of two of "
                               "at least %zu",
                               api, alignment, sizeof(void *));
  /* The header goes in front of the aligned pointer: in one alignment unit
   * of padding when that is large enough, else in more. */
  size_t padding = alignment;
  while (padding < sizeof(block_header))
    padding += alignment;
  if (bytes > SIZE_MAX - padding - alignment)
    return kiln_rt_status_make(KILN_RT_OUT_OF_MEMORY,
                               "%zu bytes of host memory is too many", bytes);
  int cached = alignment <= CACHE_ALIGNMENT;
  char *base = cached ? kiln_rt_buffer_alloc(CACHE_ALIGNMENT, bytes + padding)
               : kiln_rt_injected_host_alloc_failure()
                   ? NULL
                   : malloc(bytes + padding + alignment);
  if (!base)
    return kiln_rt_status_make(KILN_RT_OUT_OF_MEMORY,
                               "out of host memory for %zu bytes", bytes);
  uintptr_t first = (uintptr_t)(base + padding);
  char *aligned =
      (char *)((first + alignment - 1) & ~(uintptr_t)(alignment - 1));
  block_header header = {base, bytes, cached};
  memcpy(aligned - sizeof(block_header), &header, sizeof(header));
  if (zero)
    memset(aligned, 0, bytes);

  kiln_host_stats_add(bytes);
  atomic_fetch_add(&allocations, 1);
  *out = aligned;
  return KILN_RT_SUCCESS;
}

kiln_rt_status kiln_rt_host_alloc(size_t bytes, size_t alignment, void **out) {
  return host_alloc("kiln_rt_host_alloc", bytes, alignment, /*zero=*/1, out);
}

kiln_rt_status kiln_rt_host_alloc_uninitialized(size_t bytes, size_t alignment,
                                                void **out) {
  return host_alloc("kiln_rt_host_alloc_uninitialized", bytes, alignment,
                    /*zero=*/0, out);
}

void kiln_rt_host_free(void *ptr) {
  if (!ptr)
    return;
  block_header header;
  memcpy(&header, (char *)ptr - sizeof(block_header), sizeof(header));
  atomic_fetch_sub(&live_bytes, header.bytes);
  atomic_fetch_add(&frees, 1);
  if (header.cached)
    _mlir_memref_to_llvm_free(header.base);
  else
    free(header.base);
}

void kiln_rt_host_get_stats(kiln_rt_host_stats *stats) {
  if (!stats)
    return;
  stats->live_bytes = atomic_load(&live_bytes);
  stats->peak_bytes = atomic_load(&peak_bytes);
  stats->allocations = atomic_load(&allocations);
  stats->frees = atomic_load(&frees);
}

void kiln_rt_host_reset_peak(void) {
  /* A racing allocation may raise the peak again; it never goes below what
   * is live. */
  atomic_store(&peak_bytes, atomic_load(&live_bytes));
}
