/*===- buffer_cache.c - cached buffers for compiled CPU code --------------===*
 *
 * Every block is 64-byte aligned and carries a 64-byte header with its size
 * class. Sizes round up to 64 bytes, and above 64 KiB to 4 KiB pages. A
 * freed block goes to the free list of its class while the cache holds less
 * than KILN_RT_CACHE_LIMIT bytes. Large buffers from glibc are mmap'ed and
 * unmapped on every free; reusing them saves the page faults and zeroing
 * that otherwise cost about 10% of a Hessian step.
 *
 *===----------------------------------------------------------------------===*/

#include "kiln_rt/kiln_rt.h"

#include "faults.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HEADER 64
#define BUCKETS 1024
#define KILN_RT_CACHE_LIMIT ((uint64_t)2 << 30)

typedef struct block {
  size_t size;        /* size class (bytes after the header) */
  size_t alignment;   /* 0: from the cache's 64-byte pool */
  void *base;         /* what the system allocator returned */
  struct block *next; /* free list link while cached */
  int counted;        /* in the host statistics (a program's buffer) */
} block;

typedef struct bucket {
  size_t size;
  block *free;
} bucket;

static pthread_mutex_t cache_mutex = PTHREAD_MUTEX_INITIALIZER;
static bucket buckets[BUCKETS];
static kiln_rt_buffer_cache_stats stats;

static size_t size_class(size_t size) {
  if (size <= 65536)
    return (size + 63) & ~(size_t)63;
  return (size + 4095) & ~(size_t)4095;
}

/* The bucket of `size` (open addressing), or NULL when the table is full. */
static bucket *find_bucket(size_t size) {
  size_t h = (size >> 6) * 0x9E3779B97F4A7C15ull;
  for (size_t i = 0; i < BUCKETS; ++i) {
    bucket *b = &buckets[(h + i) % BUCKETS];
    if (b->size == size || b->size == 0) {
      b->size = size;
      return b;
    }
  }
  return NULL;
}

static void *system_alloc(size_t size, size_t alignment) {
  size_t align = alignment > HEADER ? alignment : HEADER;
  size_t header = align; /* the header fits in one alignment unit */
  void *base = NULL;
  if (size > SIZE_MAX - header || posix_memalign(&base, align, header + size))
    return NULL;
  block *blk = (block *)((char *)base + header - sizeof(block));
  blk->size = size;
  blk->alignment = alignment > HEADER ? alignment : 0;
  blk->base = base;
  blk->next = NULL;
  blk->counted = 0;
  return (char *)base + header;
}

static block *block_of(void *ptr) {
  return (block *)((char *)ptr - sizeof(block));
}

/* Injected failures (faults.h). */
static long fail_at;
static atomic_long allocations_so_far;
static pthread_once_t fail_once = PTHREAD_ONCE_INIT;
static void read_fail_at(void) {
  const char *at = getenv("KILN_RT_FAIL_HOST_ALLOC_AT");
  fail_at = at ? atol(at) : 0;
}
int kiln_rt_injected_host_alloc_failure(void) {
  pthread_once(&fail_once, read_fail_at);
  if (fail_at <= 0)
    return 0;
  long n = atomic_fetch_add(&allocations_so_far, 1) + 1;
  if (n != fail_at)
    return 0;
  fprintf(stderr, "kiln-rt: host allocation %ld fails\n", n);
  return 1;
}

void *kiln_rt_buffer_alloc(size_t alignment, size_t size) {
  if (kiln_rt_injected_host_alloc_failure())
    return NULL;
  if (alignment > HEADER) {
    /* Rare: not cached. */
    void *p = system_alloc(size, alignment);
    pthread_mutex_lock(&cache_mutex);
    stats.misses++;
    if (p)
      stats.live_bytes += size;
    pthread_mutex_unlock(&cache_mutex);
    return p;
  }
  size_t cls = size_class(size);
  pthread_mutex_lock(&cache_mutex);
  bucket *b = find_bucket(cls);
  if (b && b->free) {
    block *blk = b->free;
    b->free = blk->next;
    blk->counted = 0;
    stats.hits++;
    stats.cached_bytes -= cls;
    stats.live_bytes += cls;
    pthread_mutex_unlock(&cache_mutex);
    return (char *)blk + sizeof(block);
  }
  stats.misses++;
  pthread_mutex_unlock(&cache_mutex);
  void *p = system_alloc(cls, 0);
  if (p) {
    pthread_mutex_lock(&cache_mutex);
    stats.live_bytes += cls;
    pthread_mutex_unlock(&cache_mutex);
  }
  return p;
}

void *kiln_buffer_alloc_counted(size_t alignment, size_t size) {
  void *p = kiln_rt_buffer_alloc(alignment, size);
  if (p) {
    block *blk = block_of(p);
    blk->counted = 1;
    kiln_host_stats_add(blk->size);
  }
  return p;
}

void *_mlir_memref_to_llvm_aligned_alloc(size_t alignment, size_t size) {
  /* Compiled code's buffers count in the host statistics (peak_bytes). */
  void *p = kiln_buffer_alloc_counted(alignment, size);
  if (!p) {
    /* Compiled code does not check its allocations: stop with a clear
     * message rather than write through a null pointer. */
    fprintf(stderr,
            "kiln: out of host memory: a compiled program's buffer of %zu "
            "bytes could not be allocated\n",
            size);
    abort();
  }
  return p;
}

void *_mlir_memref_to_llvm_alloc(size_t size) {
  return _mlir_memref_to_llvm_aligned_alloc(HEADER, size);
}

void _mlir_memref_to_llvm_free(void *ptr) {
  if (!ptr)
    return;
  block *blk = block_of(ptr);
  if (blk->counted) {
    blk->counted = 0;
    kiln_host_stats_sub(blk->size);
  }
  pthread_mutex_lock(&cache_mutex);
  stats.live_bytes -= blk->size;
  if (blk->alignment == 0 &&
      stats.cached_bytes + blk->size <= KILN_RT_CACHE_LIMIT) {
    bucket *b = find_bucket(blk->size);
    if (b) {
      blk->next = b->free;
      b->free = blk;
      stats.cached_bytes += blk->size;
      pthread_mutex_unlock(&cache_mutex);
      return;
    }
  }
  pthread_mutex_unlock(&cache_mutex);
  free(blk->base);
}

void kiln_rt_buffer_cache_trim(void) {
  pthread_mutex_lock(&cache_mutex);
  for (size_t i = 0; i < BUCKETS; ++i) {
    block *blk = buckets[i].free;
    buckets[i].free = NULL;
    while (blk) {
      block *next = blk->next;
      free(blk->base);
      blk = next;
    }
  }
  stats.cached_bytes = 0;
  pthread_mutex_unlock(&cache_mutex);
}

void kiln_rt_buffer_cache_get_stats(kiln_rt_buffer_cache_stats *out) {
  if (!out)
    return;
  pthread_mutex_lock(&cache_mutex);
  *out = stats;
  pthread_mutex_unlock(&cache_mutex);
}
