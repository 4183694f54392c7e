/*===- kiln_rt_cuda.h - kiln's CUDA runtime, C ABI ------------------------===*
 *
 * A small runtime on the CUDA Driver API, which it loads with dlopen
 * (libcuda.so.1, or the library KILN_RT_LIBCUDA names) when
 * kiln_rt_cuda_init() is called: it links no CUDA library, and on a
 * machine without a driver or a GPU every call fails cleanly.
 *
 * Every function that can fail returns a status (kiln_rt.h) whose message
 * names the failing driver call and its CUresult, e.g.
 *   "cuModuleLoadDataEx: CUDA_ERROR_INVALID_PTX (a PTX JIT compilation
 *    failed): ptxas fatal: ..."
 * Nothing aborts and nothing is only printed.
 *
 * One device (ordinal 0, or KILN_RT_CUDA_DEVICE) and its primary context.
 * PTX modules are loaded once per content and kept; functions are looked
 * up once per module. Device memory comes from a caching allocator: freed
 * blocks are kept by size class and reused.
 *
 *===----------------------------------------------------------------------===*/

#ifndef KILN_RT_KILN_RT_CUDA_H
#define KILN_RT_KILN_RT_CUDA_H

#include "kiln_rt/kiln_rt.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Loads the driver, initializes it and makes the device's primary context
 * current on the calling thread. Idempotent and thread-safe; a failure is
 * remembered, and later calls fail with the same message. */
kiln_rt_status kiln_rt_cuda_init(void);

/* Whether kiln_rt_cuda_init() has succeeded (it is not called here). */
int kiln_rt_cuda_is_initialized(void);

/* Which successful init the runtime is in (0: none yet). Handles from
 * another session (modules, functions, memory) are invalid. */
uint64_t kiln_rt_cuda_session(void);

typedef struct kiln_rt_cuda_device_info {
  char name[256];
  int ordinal;
  int compute_major, compute_minor; /* e.g. 9 and 0 for sm_90 */
  int multiprocessors;
  int max_threads_per_block;
  int warp_size;
  uint64_t total_memory_bytes;
} kiln_rt_cuda_device_info;

/* Devices the driver sees (0 is an answer, not an error). Needs init. */
kiln_rt_status kiln_rt_cuda_device_count(int *count);
/* The device kiln uses. Needs init. */
kiln_rt_status kiln_rt_cuda_device_get_info(kiln_rt_cuda_device_info *info);

/* --- Modules and functions ----------------------------------------------- */

typedef struct kiln_rt_cuda_module kiln_rt_cuda_module;
typedef struct kiln_rt_cuda_function kiln_rt_cuda_function;

/* The module of `ptx` (a NUL-terminated PTX text of `size` bytes, the NUL
 * not counted), loaded on first use: the same content gives the same
 * module. Modules live until kiln_rt_cuda_shutdown(). */
kiln_rt_status kiln_rt_cuda_module_load(const char *ptx, size_t size,
                                        kiln_rt_cuda_module **module);
/* The kernel `name` of `module`, looked up once. */
kiln_rt_status
kiln_rt_cuda_module_get_function(kiln_rt_cuda_module *module, const char *name,
                                 kiln_rt_cuda_function **function);

typedef struct kiln_rt_cuda_module_stats {
  uint64_t loads;     /* modules loaded into the driver */
  uint64_t load_hits; /* loads answered from the cache */
  uint64_t functions; /* functions looked up in the driver */
  uint64_t function_hits;
} kiln_rt_cuda_module_stats;
void kiln_rt_cuda_get_module_stats(kiln_rt_cuda_module_stats *stats);

/* --- Device memory ------------------------------------------------------- */

/* `bytes` of device memory (256-byte aligned; 0 gives NULL), from the cache
 * of freed blocks when one of the size class is there. */
kiln_rt_status kiln_rt_cuda_malloc(size_t bytes, void **device_ptr);
/* Returns a block to the cache; NULL is ignored. The block may still be in
 * use by work queued on a stream: free only after synchronizing it. */
kiln_rt_status kiln_rt_cuda_free(void *device_ptr);
/* Gives every cached block back to the driver. */
kiln_rt_status kiln_rt_cuda_trim(void);
/* Called when a device allocation fails for want of memory, before the
 * cache is given back and the allocation tried again: `hook` frees what is
 * held for speed only (kiln_rt_cuda_free, which it may call). NULL: none. */
void kiln_rt_cuda_set_memory_pressure_hook(void (*hook)(void));

typedef struct kiln_rt_cuda_memory_stats {
  uint64_t live_bytes; /* handed out, not freed (size-class bytes) */
  uint64_t peak_bytes;
  uint64_t cached_bytes; /* freed, kept for reuse */
  uint64_t hits;         /* allocations served from the cache */
  uint64_t misses;       /* allocations that went to the driver */
} kiln_rt_cuda_memory_stats;
void kiln_rt_cuda_get_memory_stats(kiln_rt_cuda_memory_stats *stats);
/* Starts peak_bytes again from live_bytes (as PyTorch's
 * reset_peak_memory_stats). */
void kiln_rt_cuda_reset_peak_memory(void);

/* Bytes copied between host and device since the process started (or the
 * counters were reset), by the copies below, whatever their outcome. */
typedef struct kiln_rt_cuda_transfer_stats {
  uint64_t host_to_device_bytes;
  uint64_t device_to_host_bytes;
  uint64_t host_to_device_copies;
  uint64_t device_to_host_copies;
} kiln_rt_cuda_transfer_stats;
void kiln_rt_cuda_get_transfer_stats(kiln_rt_cuda_transfer_stats *stats);

/* --- Streams, copies, launches, events ----------------------------------- */

typedef struct kiln_rt_cuda_stream kiln_rt_cuda_stream;
typedef struct kiln_rt_cuda_event kiln_rt_cuda_event;

/* A non-blocking stream. NULL stands for the runtime's own stream, created
 * at init: every call given NULL is ordered on it (copies, launches,
 * products, events, graphs). */
kiln_rt_status kiln_rt_cuda_stream_create(kiln_rt_cuda_stream **stream);
kiln_rt_status kiln_rt_cuda_stream_destroy(kiln_rt_cuda_stream *stream);
kiln_rt_status kiln_rt_cuda_stream_synchronize(kiln_rt_cuda_stream *stream);

/* Asynchronous copies on `stream`. Host memory that is not page-locked
 * makes the driver copy synchronously. */
kiln_rt_status kiln_rt_cuda_copy_to_device(void *device_dst,
                                           const void *host_src, size_t bytes,
                                           kiln_rt_cuda_stream *stream);
kiln_rt_status kiln_rt_cuda_copy_to_host(void *host_dst, const void *device_src,
                                         size_t bytes,
                                         kiln_rt_cuda_stream *stream);
kiln_rt_status kiln_rt_cuda_copy_device(void *device_dst,
                                        const void *device_src, size_t bytes,
                                        kiln_rt_cuda_stream *stream);
kiln_rt_status kiln_rt_cuda_memset_zero(void *device_dst, size_t bytes,
                                        kiln_rt_cuda_stream *stream);

/* Launches `function` on a grid of `grid` blocks of `block` threads, with
 * `params` as cuLaunchKernel takes them (a pointer to each argument). */
kiln_rt_status kiln_rt_cuda_launch(kiln_rt_cuda_function *function,
                                   const unsigned grid[3],
                                   const unsigned block[3],
                                   unsigned shared_bytes,
                                   kiln_rt_cuda_stream *stream, void **params);

/* Events, for timing kernels and for waiting on the work before them. */
kiln_rt_status kiln_rt_cuda_event_create(kiln_rt_cuda_event **event);
kiln_rt_status kiln_rt_cuda_event_destroy(kiln_rt_cuda_event *event);
kiln_rt_status kiln_rt_cuda_event_record(kiln_rt_cuda_event *event,
                                         kiln_rt_cuda_stream *stream);
/* Waits for the work queued before `event` was recorded; fails with that
 * work's error (a kernel's, which the launch could not report). */
kiln_rt_status kiln_rt_cuda_event_synchronize(kiln_rt_cuda_event *event);
/* Milliseconds from `start` to `end`, waiting for `end`. */
kiln_rt_status kiln_rt_cuda_event_elapsed_ms(kiln_rt_cuda_event *start,
                                             kiln_rt_cuda_event *end,
                                             float *ms);

/* Waits for all work on the device. */
kiln_rt_status kiln_rt_cuda_synchronize(void);

/* --- Graphs -------------------------------------------------------------- */

/* A CUDA graph of the work captured from a stream, instantiated: replayed
 * with one launch, its kernel nodes' parameters updatable in place. */
typedef struct kiln_rt_cuda_graph kiln_rt_cuda_graph;
/* A node of a captured graph (owned by it). */
typedef struct kiln_rt_cuda_graph_node kiln_rt_cuda_graph_node;

/* Whether the driver has the graph entry points (CUDA 11.3 or later); the
 * runtime starts without them, and runs everything directly. */
int kiln_rt_cuda_graphs_available(void);

/* This thread's stream for captures, made on its first call and kept until
 * the shutdown (owned by the runtime: never destroy it). */
kiln_rt_status kiln_rt_cuda_capture_stream(kiln_rt_cuda_stream **stream);

/* Starts capturing the work later queued on `stream` into a graph instead
 * of running it: all of it, whichever thread queues it, so capture on a
 * stream of your own. Calls of this thread that would wait for the device,
 * or allocate, fail while a capture is open. */
kiln_rt_status kiln_rt_cuda_capture_begin(kiln_rt_cuda_stream *stream);
/* The node that the last work queued on capturing `stream` added (a
 * launch's kernel node). */
kiln_rt_status kiln_rt_cuda_capture_last_node(kiln_rt_cuda_stream *stream,
                                              kiln_rt_cuda_graph_node **node);
/* Ends the capture and instantiates its graph into `*graph`; when
 * `failed` (which the call takes) is a failure, only ends the capture
 * (discarding it) and returns `failed`. */
kiln_rt_status kiln_rt_cuda_capture_end(kiln_rt_cuda_stream *stream,
                                        kiln_rt_status failed,
                                        kiln_rt_cuda_graph **graph);
/* Sets the parameters of captured kernel node `node` of `graph` for its
 * next launches (the function, grid and block as captured). */
kiln_rt_status kiln_rt_cuda_graph_set_kernel_params(
    kiln_rt_cuda_graph *graph, kiln_rt_cuda_graph_node *node,
    kiln_rt_cuda_function *function, const unsigned grid[3],
    const unsigned block[3], void **params);
/* Gives `graph` the parameters of `recaptured` (a capture of the same
 * work, in the same order, with other buffers) without instantiating again;
 * `graph`'s nodes stay its handles. Destroys `recaptured` either way. A
 * failure leaves `graph` unusable. */
kiln_rt_status kiln_rt_cuda_graph_update(kiln_rt_cuda_graph *graph,
                                         kiln_rt_cuda_graph *recaptured);
/* Queues one run of `graph` on `stream`. */
kiln_rt_status kiln_rt_cuda_graph_launch(kiln_rt_cuda_graph *graph,
                                         kiln_rt_cuda_stream *stream);
/* Frees `graph` (NULL is a no-op); a launch already queued still runs. A
 * shutdown destroys the driver's side of every graph: later calls on one
 * fail, and only this frees it. */
void kiln_rt_cuda_graph_destroy(kiln_rt_cuda_graph *graph);

typedef struct kiln_rt_cuda_graph_stats {
  uint64_t captures;      /* graphs instantiated */
  uint64_t launches;      /* graph launches */
  uint64_t node_updates;  /* kernel nodes given new parameters */
  uint64_t graph_updates; /* whole graphs updated from a new capture */
} kiln_rt_cuda_graph_stats;
void kiln_rt_cuda_get_graph_stats(kiln_rt_cuda_graph_stats *stats);

/* --- Matrix products (cuBLAS) -------------------------------------------- */

/* Whether cuBLAS could be loaded and started (libcublas.so.13, .12, .11,
 * or only the library KILN_RT_LIBCUBLAS names). Needs init; loads it on
 * first call. */
int kiln_rt_cuda_blas_available(void);

/* The element type of a product's operands A and B. C is of the same type
 * for f32 and f64, and f32 for f16 and bf16 (their products accumulate in
 * f32 on tensor cores, as kiln's lowering does). */
typedef enum kiln_rt_cuda_dtype {
  KILN_RT_CUDA_F32 = 0,
  KILN_RT_CUDA_F64 = 1,
  KILN_RT_CUDA_F16 = 2,
  KILN_RT_CUDA_BF16 = 3,
} kiln_rt_cuda_dtype;

/* What a product of f32 operands may compute in: PyTorch's
 * torch.set_float32_matmul_precision ("highest", "high", "medium"). Other
 * operand types take KILN_RT_CUDA_MATH_EXACT only. */
typedef enum kiln_rt_cuda_math {
  KILN_RT_CUDA_MATH_EXACT = 0, /* the operands' own precision */
  KILN_RT_CUDA_MATH_TF32 = 1,  /* operands rounded to TF32, tensor cores */
  KILN_RT_CUDA_MATH_BF16 = 2,  /* operands rounded to bf16 (or TF32) */
} kiln_rt_cuda_math;

/* C = alpha op(A) op(B) + beta C for `batch` row-major matrices: op(A) is
 * m x k, op(B) k x n, C m x n; op transposes when trans_* is non-zero.
 * ld* are the row strides (elements) of A, B and C as stored, stride* the
 * elements between consecutive matrices of a batch. `math` may let f32
 * products run on tensor cores. Queued on `stream` through cuBLAS; an
 * error names the cuBLAS call. */
kiln_rt_status kiln_rt_cuda_gemm(kiln_rt_cuda_dtype dtype,
                                 kiln_rt_cuda_math math, int trans_a,
                                 int trans_b, int64_t m, int64_t n, int64_t k,
                                 double alpha, const void *a, int64_t lda,
                                 int64_t stride_a, const void *b, int64_t ldb,
                                 int64_t stride_b, double beta, void *c,
                                 int64_t ldc, int64_t stride_c, int64_t batch,
                                 kiln_rt_cuda_stream *stream);

/* Unloads every module, gives back every cached block and the context,
 * and unloads the driver; kiln_rt_cuda_init() may be called again. Handles
 * from before are invalid. Every other call of this API must have returned
 * first, in every thread (as with the driver's own context teardown): a
 * call that runs during the shutdown may use what it frees. Calls after it
 * fail with KILN_RT_UNAVAILABLE until the next init. */
void kiln_rt_cuda_shutdown(void);

#ifdef __cplusplus
}
#endif

#endif /* KILN_RT_KILN_RT_CUDA_H */
