/*===- program_internal.h - a host program's steps in memory --------------===*/

#ifndef KILN_RT_PROGRAM_INTERNAL_H
#define KILN_RT_PROGRAM_INTERNAL_H

#include "kiln_rt/kiln_rt_dist.h"
#include "kiln_rt/kiln_rt_program.h"

#include <pthread.h>

enum {
  KILN_STEP_ALLOC = 0,
  KILN_STEP_FREE = 1,
  KILN_STEP_KERNEL = 2, /* a CPU kernel call */
  KILN_STEP_RUNTIME_CALL = 3,
  KILN_STEP_COPY = 4,
  KILN_STEP_LAUNCH = 5, /* a GPU kernel launch */
  KILN_STEP_INDEX = 6,  /* a size computed from other sizes */
  KILN_STEP_CHECK = 7,  /* sizes that must agree */
  /* A collective across ranks (kiln_rt_dist) starts: callee is its
   * kiln_rt_dist_kind, op its reduction, lhs its dim, rhs its group; the
   * views are its operand and its result; slot is its request, which a
   * wait step ends (-1: none, it ends here). */
  KILN_STEP_COLLECTIVE = 8,
  /* The collective of request `slot` ends (its views are the start's). */
  KILN_STEP_COLLECTIVE_WAIT = 9,
};

/* Index steps: register = lhs op rhs, on sizes (checked for overflow). */
enum {
  KILN_INDEX_ADD = 0,
  KILN_INDEX_SUB = 1,
  KILN_INDEX_MUL = 2,
  KILN_INDEX_FLOOR_DIV = 3,
  KILN_INDEX_CEIL_DIV = 4,
  KILN_INDEX_REM = 5,
  KILN_INDEX_MIN = 6,
  KILN_INDEX_MAX = 7,
};

/* Check steps: lhs == rhs, or lhs <= rhs. */
enum { KILN_CHECK_EQUAL = 0, KILN_CHECK_AT_MOST = 1 };

/* How a CPU kernel takes a view: one pointer to its first element (a static
 * view), or a memref descriptor, field by field (a dynamic one). */
enum { KILN_PASS_POINTER = 0, KILN_PASS_DESCRIPTOR = 1 };

/* An operand: a size that is itself when >= 0, and the value of register
 * -1 - operand when < 0. Registers hold the inputs' dynamic dims, in
 * order, then what each index step computes. */
static inline int64_t kiln_operand(const int64_t *registers, int64_t operand) {
  return operand >= 0 ? operand : registers[-1 - operand];
}

/* The largest rank of a view. */
#define KILN_MAX_RANK 16

/* The largest rank of a runtime call's memref (rank-4 batched GEMMs). */
#define KILN_MAX_CALL_RANK 4

/* The most memrefs a runtime call passes (attention's gradient: 15). */
#define KILN_MAX_CALL_VIEWS 15

/* A strided view of a buffer slot, in elements. Offset, sizes and strides
 * are operands; `dynamic` when one of them names a register. */
typedef struct kiln_view {
  int32_t slot;
  uint32_t rank;
  uint8_t passing, dynamic;
  int64_t offset;
  int64_t element_bytes;
  const int64_t *sizes, *strides;
} kiln_view;

typedef struct kiln_step {
  uint8_t kind;
  uint8_t op;      /* index, check */
  int32_t slot;    /* alloc, free; index: the register it defines */
  int64_t bytes;   /* alloc: an operand */
  int32_t callee;  /* kernel, runtime call, launch: index into the names */
  int64_t grid[3]; /* launch: operands */
  uint32_t block[3];
  int64_t lhs, rhs; /* index, check: operands */
  char *message;    /* check: what disagrees, for the error */
  uint32_t num_views;
  const kiln_view *views;
  int dynamic; /* whether an operand of the step or its views is a register */
} kiln_step;

/* An argument of the entry: its element size and dims (operands: a dynamic
 * input dim is the register it defines; a result's dims are computed). */
typedef struct kiln_argument {
  int64_t element_bytes;
  uint32_t rank;
  int64_t *dims;
} kiln_argument;

typedef struct kiln_constant {
  int32_t slot;
  size_t size;
  void *data; /* 64-byte aligned */
} kiln_constant;

/* A runtime call as a cuBLAS product (program_cuda.c). */
typedef struct kiln_gemm {
  int dtype; /* kiln_rt_cuda_dtype */
  int math;  /* kiln_rt_cuda_math */
  int trans_a, trans_b, accumulate;
  int64_t m, n, k, batch;
  int64_t lda, ldb, ldc, stride_a, stride_b, stride_c;
} kiln_gemm;

struct kiln_rt_program {
  int32_t num_arguments, num_inputs, num_slots;
  kiln_argument *arguments;
  size_t num_input_dims;     /* every dim of every input */
  uint32_t num_registers;    /* the dynamic input dims, then index steps' */
  uint32_t num_dynamic_dims; /* the registers the inputs define */
  uint32_t max_rank;         /* the largest rank of a view */
  size_t prologue_steps;     /* the leading index and check steps */
  size_t num_kernels, num_runtime_functions;
  char **kernel_names, **runtime_names;
  size_t num_constants;
  kiln_constant *constants;
  size_t num_steps;
  kiln_step *steps;
  kiln_view *views;          /* every step's views, in step order */
  int64_t *dims;             /* every view's sizes and strides */
  uint32_t max_views;        /* the most views of one step */
  uint32_t max_launch_words; /* the most parameter words of one launch */
  int has_launches, has_host_kernels, has_collectives;
  uint32_t num_requests; /* collectives started and waited for in steps */
  /* FNV-1a of the program's bytes: what every rank must run alike. */
  uint64_t hash;
  /* Whether the ranks agreed on `hash` (a static program checks once):
   * its own allocation, so that a run of a const program can set it. */
  _Atomic int *ranks_checked;

  /* The memory plan (program_memory.c): each step's offset in the run's
   * arena (an alloc step of a planned buffer; -1 elsewhere). */
  int64_t *alloc_offsets;
  kiln_rt_memory_plan memory_plan;

  /* CPU: bound entry points. */
  kiln_rt_kernel_entry *kernel_entries;
  void **runtime_entries;

  /* CUDA: each step's product (check_cuda), the loaded kernels and the
   * device copies of the constants, for one session of the runtime. */
  kiln_gemm *gemms;
  int cuda_checked;
  pthread_mutex_t cuda_mutex;
  uint64_t cuda_session;
  kiln_rt_cuda_module *cuda_module;
  kiln_rt_cuda_function **cuda_functions;
  void **cuda_constants;
};

/* Plans the arena of `program`'s buffers of known sizes (program_memory.c),
 * once its steps are read. */
kiln_rt_status kiln_program_plan_memory(kiln_rt_program *program);

/* Whether buffers are filled with 0xFF bytes (NaN, -1) when a run allocates
 * and frees them, so that a read of a value no step wrote shows
 * (KILN_POISON_BUFFERS=1). */
int kiln_program_poisons_buffers(void);

/* Under AddressSanitizer, a run's arena is poisoned where no buffer is
 * live: a read of a freed buffer by the runtime (a copy, a BLAS call) is
 * reported. */
#if defined(__SANITIZE_ADDRESS__)
#define KILN_ARENA_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define KILN_ARENA_ASAN 1
#endif
#endif
#ifdef KILN_ARENA_ASAN
#include <sanitizer/asan_interface.h>
#define KILN_ASAN_POISON(address, bytes)                                       \
  ASAN_POISON_MEMORY_REGION((address), (size_t)(bytes))
#define KILN_ASAN_UNPOISON(address, bytes)                                     \
  ASAN_UNPOISON_MEMORY_REGION((address), (size_t)(bytes))
#else
#define KILN_ASAN_POISON(address, bytes) ((void)(address), (void)(bytes))
#define KILN_ASAN_UNPOISON(address, bytes) ((void)(address), (void)(bytes))
#endif

/* A host buffer of `bytes` at `address` in a run's arena becomes live
 * (unpoisoned; filled with 0xFF under KILN_POISON_BUFFERS), or dead (filled,
 * then poisoned). */
void kiln_arena_take(char *address, int64_t bytes);
void kiln_arena_give_back(char *address, int64_t bytes);

/* A collective under way (program_dist.c). */
typedef struct kiln_program_request kiln_program_request;

/* Starts a collective step on resolved views of buffers at `in_base` and
 * `out_base`, checking that the ranks run one program first; `input_dims`
 * as the run got them (part of what the ranks compare). With `request`
 * NULL, waits for it too; else `*request` is under way, for
 * kiln_program_collective_wait. */
kiln_rt_status
kiln_program_collective_start(const kiln_rt_program *program,
                              const kiln_step *step, const kiln_view *in,
                              char *in_base, const kiln_view *out,
                              char *out_base, const int64_t *input_dims,
                              int *run_checked, kiln_program_request **request);
/* Ends `request` (freed), writing the result's view `out` at `out_base`.
 * With `out` NULL (a failed run), only waits, and writes nothing. */
kiln_rt_status kiln_program_collective_wait(kiln_program_request *request,
                                            const kiln_view *out,
                                            char *out_base);
/* Lets `request` progress (MPI moves only inside its calls); `*finished`
 * says whether it has ended (then no MPI call was made, or it saw the
 * end). */
kiln_rt_status kiln_program_collective_progress(kiln_program_request *request,
                                                int *finished);
/* Checks that the ranks run this program (once, or for a program with
 * dynamic dims at each run): for a graph launch, whose capture does not. */
kiln_rt_status kiln_program_collective_check_run(const kiln_rt_program *program,
                                                 const int64_t *input_dims);
/* Describes a collective step on device buffers (dense views) for NCCL,
 * after the checks kiln_program_collective_start makes (those of the ranks
 * only where `run_checked` is not NULL); its staging is the caller's
 * (kiln_rt_dist_nccl_staging_bytes). */
kiln_rt_status kiln_program_collective_cuda_describe(
    const kiln_rt_program *program, const kiln_step *step, const kiln_view *in,
    void *in_base, const kiln_view *out, void *out_base,
    const int64_t *input_dims, int *run_checked, kiln_rt_dist_collective *c);
/* kiln_rt_dist_nccl_start and _wait, their errors naming the op. */
kiln_rt_status
kiln_program_collective_cuda_start(const kiln_rt_dist_collective *c,
                                   kiln_rt_cuda_stream *stream,
                                   kiln_rt_dist_nccl_request **request);
kiln_rt_status
kiln_program_collective_cuda_wait(int kind, kiln_rt_dist_nccl_request *request,
                                  kiln_rt_cuda_stream *stream);

/* Copies a strided view into another of the same sizes (program_cpu.c). */
void kiln_program_copy_view(const kiln_view *from, char *from_base,
                            const kiln_view *to, char *to_base);

/* Whether `view` is dense and row-major: one memcpy copies it. */
static inline int kiln_view_is_dense(const kiln_view *view) {
  int64_t stride = 1;
  for (uint32_t d = view->rank; d-- > 0;) {
    if (view->sizes[d] != 1 && view->strides[d] != stride)
      return 0;
    stride *= view->sizes[d];
  }
  return 1;
}

/* The address of `view`'s first element in a buffer at `base` (NULL stays
 * NULL: an empty buffer may have none). */
static inline void *kiln_view_address(void *base, const kiln_view *view) {
  return base ? (char *)base + view->offset * view->element_bytes : NULL;
}

/* The largest element index `view` reaches: -1 when it is empty; -2 for a
 * negative offset or stride, or on overflow. */
static inline int64_t kiln_last_element(int64_t offset, uint32_t rank,
                                        const int64_t *sizes,
                                        const int64_t *strides) {
  if (offset < 0)
    return -2;
  int64_t last = offset;
  for (uint32_t d = 0; d < rank; ++d) {
    if (sizes[d] == 0)
      return -1;
    int64_t reach;
    if (sizes[d] < 0 || strides[d] < 0 ||
        __builtin_mul_overflow(sizes[d] - 1, strides[d], &reach) ||
        __builtin_add_overflow(last, reach, &last))
      return -2;
  }
  return last;
}

/* A run's sizes: the registers, and the bytes of each slot's buffer (-1
 * where unknown: none defined). */
typedef struct kiln_sizes {
  int64_t *registers;
  int64_t *slot_bytes;
} kiln_sizes;

/* Sets the registers from the inputs' dims (flattened; NULL for a program
 * without dynamic dims), checks the static ones, and sets the arguments'
 * and constants' bytes. */
kiln_rt_status kiln_program_begin(const kiln_rt_program *program,
                                  const int64_t *input_dims, kiln_sizes *sizes);
/* Runs an index or check step. */
kiln_rt_status kiln_program_size_step(const kiln_rt_program *program,
                                      const kiln_step *step, kiln_sizes *sizes);
/* `view` with its operands resolved into `out` (whose sizes and strides
 * point into `dims`, 2 * rank of them), checked to lie inside its buffer;
 * `view` itself when it is static. */
kiln_rt_status kiln_program_resolve_view(const kiln_view *view,
                                         const kiln_sizes *sizes,
                                         kiln_view *out, int64_t *dims,
                                         const kiln_view **resolved);
/* Each of `step`'s views resolved (kiln_program_resolve_view) into
 * `views`, using `resolved` and `dims` (2 * max_rank per view) as scratch. */
kiln_rt_status kiln_program_resolve_step(const kiln_rt_program *program,
                                         const kiln_step *step,
                                         const kiln_sizes *sizes,
                                         kiln_view *resolved, int64_t *dims,
                                         const kiln_view **views);
/* The scratch a run needs for its sizes, in int64s. */
size_t kiln_program_sizes_words(const kiln_rt_program *program);

/* A pass of the CUDA executor that builds a graph (program_graph.c): it
 * plans the graph's temporaries without queueing any work, or captures the
 * work. */
typedef struct kiln_graph_pass kiln_graph_pass;
/* Whether the pass queues work (captures), or only plans. */
int kiln_graph_pass_queues(const kiln_graph_pass *pass);
/* A temporary of `bytes` for `slot`, from the graph's own memory. */
kiln_rt_status kiln_graph_pass_alloc(kiln_graph_pass *pass, int32_t slot,
                                     int64_t bytes, void **address);
/* The run's arena (the memory plan's), from the graph's own memory: live
 * for the whole run. */
kiln_rt_status kiln_graph_pass_alloc_arena(kiln_graph_pass *pass, int64_t bytes,
                                           void **address);
/* `slot`'s temporary is dead: a later one may reuse its memory. */
void kiln_graph_pass_free(kiln_graph_pass *pass, int32_t slot);
/* A copy or a product reads or writes `slot`: its address is baked into
 * the graph where the runtime cannot update it. */
void kiln_graph_pass_baked(kiln_graph_pass *pass, int32_t slot);
/* A collective that the graph's launches replay (counted at each). */
void kiln_graph_pass_collective(kiln_graph_pass *pass,
                                const kiln_rt_dist_collective *collective);
/* A product on `views` (A, B, C): baked, as a copy's. */
void kiln_graph_pass_product(kiln_graph_pass *pass,
                             const kiln_view *const *views);
/* `step` was launched with `grid` and the parameter words `values` (`n`),
 * on `views`: the kernel node the capture added. */
kiln_rt_status kiln_graph_pass_launched(kiln_graph_pass *pass,
                                        const kiln_step *step,
                                        const uint32_t grid[3],
                                        const uint64_t *values, size_t n,
                                        const kiln_view *const *views,
                                        kiln_rt_cuda_stream *stream);

/* A run's device time, between two events on its stream (program_cuda.c):
 * start records the first; stop records the second, waits for it and adds
 * the time to the profile's ns; release frees both (either may be NULL). */
typedef struct kiln_device_timer {
  kiln_rt_cuda_event *start, *end;
} kiln_device_timer;
kiln_rt_status kiln_device_timer_start(kiln_device_timer *timer,
                                       kiln_rt_cuda_stream *stream);
kiln_rt_status kiln_device_timer_stop(kiln_device_timer *timer,
                                      kiln_rt_cuda_stream *stream,
                                      kiln_rt_profile *profile);
void kiln_device_timer_release(kiln_device_timer *timer);

/* Checks that `program` is loaded in this session and takes `count`
 * buffers; an error names `api`. */
kiln_rt_status kiln_program_check_loaded_cuda(const kiln_rt_program *program,
                                              void *const *buffers,
                                              size_t count, const char *api);

/* Queues `program`'s steps on `stream` (kiln_rt_program_run_cuda); with a
 * `pass`, for a graph instead, taking temporaries from it. */
kiln_rt_status kiln_program_execute_cuda(const kiln_rt_program *program,
                                         void *const *buffers, size_t count,
                                         const int64_t *input_dims,
                                         kiln_rt_cuda_stream *stream,
                                         kiln_rt_profile *profile,
                                         kiln_graph_pass *pass);

/* Frees what program_cuda.c holds for `program`. */
void kiln_program_release_cuda(kiln_rt_program *program);

#endif /* KILN_RT_PROGRAM_INTERNAL_H */
