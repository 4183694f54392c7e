/*===- kiln_rt.h - kiln runtime, C ABI ------------------------------------===*
 *
 * The runtime that compiled kiln programs and the host side link against.
 * It depends on nothing of kiln's but these headers, and never on MLIR or
 * LLVM. Every function that can fail returns a status; nothing aborts.
 *
 *===----------------------------------------------------------------------===*/

#ifndef KILN_RT_KILN_RT_H
#define KILN_RT_KILN_RT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__) || defined(__clang__)
#define KILN_RT_PRINTF_FORMAT(string_index, first_to_check)                    \
  __attribute__((format(printf, string_index, first_to_check)))
#else
#define KILN_RT_PRINTF_FORMAT(string_index, first_to_check)
#endif
/* A dropped status leaks its record: clang (20 on) warns of one. */
#if defined(__clang__) && __clang_major__ >= 20
#define KILN_RT_MUST_USE __attribute__((warn_unused_result))
#else
#define KILN_RT_MUST_USE
#endif

typedef enum kiln_rt_status_code {
  KILN_RT_OK = 0,
  KILN_RT_INVALID_ARGUMENT = 1,
  KILN_RT_OUT_OF_MEMORY = 2,
  KILN_RT_UNAVAILABLE = 3,
  KILN_RT_INTERNAL = 4,
  KILN_RT_DEVICE_ERROR = 5, /* a device call failed (kiln_rt_cuda.h) */
} kiln_rt_status_code;

/* A call's outcome, as IREE's iree_status_t: NULL is success; a failure is
 * a record of its code and its message (what failed, naming the failing
 * call: "cuInit: CUDA_ERROR_NO_DEVICE (...)"). The message travels with
 * the failure, so it is never another call's, on any thread.
 *
 * Ownership: every non-NULL status returned to a caller is the caller's,
 * who must free it (kiln_rt_status_free), return it upward, or hand it to
 * a call documented to take it. */
typedef struct kiln_rt_status_record *kiln_rt_status KILN_RT_MUST_USE;

/* Success, for C and C++ alike (KILN_RT_OK is a code, not a status). */
#define KILN_RT_SUCCESS ((kiln_rt_status)0)

/* A failure of `code` with a printf-style message; KILN_RT_SUCCESS for
 * KILN_RT_OK. If no memory is left for the record, a static out-of-memory
 * status comes back instead (freeing it is a no-op): a failure is never
 * NULL. */
kiln_rt_status kiln_rt_status_make(kiln_rt_status_code code, const char *format,
                                   ...) KILN_RT_PRINTF_FORMAT(2, 3);

/* `status`'s code: KILN_RT_OK for NULL. */
kiln_rt_status_code kiln_rt_status_code_of(kiln_rt_status status);
/* `status`'s message, valid until it is freed: "" for NULL. */
const char *kiln_rt_status_message(kiln_rt_status status);
/* Frees `status`; NULL is a no-op. */
void kiln_rt_status_free(kiln_rt_status status);
/* Puts context in front of a failure's message ("CONTEXT: message"),
 * taking `status` and returning the annotated one (the same code); NULL
 * stays NULL. Where no memory is left, `status` comes back unchanged. */
kiln_rt_status kiln_rt_status_annotate(kiln_rt_status status,
                                       const char *format, ...)
    KILN_RT_PRINTF_FORMAT(2, 3);

/* A short, static description of `code`. */
const char *kiln_rt_status_string(kiln_rt_status_code code);

/* Host memory statistics, for leak checks and metrics. live_bytes and
 * peak_bytes count the host allocator's blocks (tensor data, host programs'
 * arenas) and the buffers compiled code allocates (size classes of the
 * buffer cache) while they are in use. */
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

/* Starts peak_bytes again from live_bytes: the peak of what follows. */
void kiln_rt_host_reset_peak(void);

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
