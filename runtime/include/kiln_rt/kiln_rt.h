/*===- kiln_rt.h - kiln runtime, C ABI ------------------------------------===*
 *
 * The runtime that compiled kiln programs and the host side link against.
 * It depends on nothing of kiln's but these headers, and never on MLIR or
 * LLVM. Every function returns a status; nothing aborts.
 *
 *===----------------------------------------------------------------------===*/

#ifndef KILN_RT_KILN_RT_H
#define KILN_RT_KILN_RT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum kiln_rt_status {
  KILN_RT_OK = 0,
  KILN_RT_INVALID_ARGUMENT = 1,
  KILN_RT_OUT_OF_MEMORY = 2,
  KILN_RT_UNAVAILABLE = 3,
  KILN_RT_INTERNAL = 4,
  KILN_RT_DEVICE_ERROR = 5, /* a device call failed (kiln_rt_cuda.h) */
} kiln_rt_status;

/* A short, static description of `status`. */
const char *kiln_rt_status_string(kiln_rt_status status);

/* The message of the last failed call of the host-program and module APIs
 * (kiln_rt_program.h, kiln_rt_module.h) on the calling thread. The CUDA API
 * keeps its own (kiln_rt_cuda_last_error). */
const char *kiln_rt_last_error(void);

/* Host memory statistics, for leak checks and metrics. */
typedef struct kiln_rt_host_stats {
  uint64_t live_bytes;  /* bytes allocated and not yet freed */
  uint64_t peak_bytes;  /* largest live_bytes seen */
  uint64_t allocations; /* successful allocations so far */
  uint64_t frees;       /* frees so far */
} kiln_rt_host_stats;

/* Allocates `bytes` (0 is allowed) aligned to `alignment`, a power of two of
 * at least sizeof(void*); the memory is zeroed. */
kiln_rt_status kiln_rt_host_alloc(size_t bytes, size_t alignment, void **out);

/* As kiln_rt_host_alloc, but the memory holds whatever it held before: for
 * buffers that are written in full before they are read (results). */
kiln_rt_status kiln_rt_host_alloc_uninitialized(size_t bytes, size_t alignment,
                                                void **out);

/* Frees memory from kiln_rt_host_alloc; NULL is ignored. */
void kiln_rt_host_free(void *ptr);

/* Thread-safe snapshot of the host allocator's statistics. */
void kiln_rt_host_get_stats(kiln_rt_host_stats *stats);

/* Buffers of compiled code: a cache of freed blocks by size class, so that
 * a program that runs again reuses its buffers instead of mapping and
 * faulting in fresh pages every run. Compiled code reaches it through
 * MLIR's generic allocation functions (_mlir_memref_to_llvm_alloc,
 * _mlir_memref_to_llvm_aligned_alloc, _mlir_memref_to_llvm_free). */
typedef struct kiln_rt_buffer_cache_stats {
  uint64_t hits;         /* allocations served from the cache */
  uint64_t misses;       /* allocations that went to the system */
  uint64_t cached_bytes; /* bytes held in the cache now */
  uint64_t live_bytes;   /* bytes handed out and not yet freed */
} kiln_rt_buffer_cache_stats;

void kiln_rt_buffer_cache_get_stats(kiln_rt_buffer_cache_stats *stats);

/* Returns every cached block to the system. */
void kiln_rt_buffer_cache_trim(void);

/* A block of `size` bytes from the cache (or the system), aligned to
 * `alignment`; NULL when memory runs out. Free it with
 * _mlir_memref_to_llvm_free. */
void *kiln_rt_buffer_alloc(size_t alignment, size_t size);

/* The same for compiled code, which cannot check: on failure they print
 * one line ("kiln: out of host memory: ...") and abort. */
void *_mlir_memref_to_llvm_alloc(size_t size);
void *_mlir_memref_to_llvm_aligned_alloc(size_t alignment, size_t size);
void _mlir_memref_to_llvm_free(void *ptr);

#ifdef __cplusplus
}
#endif

#endif /* KILN_RT_KILN_RT_H */
