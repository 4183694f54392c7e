/*===- program_internal.h - a host program's steps in memory --------------===*/

#ifndef KILN_RT_PROGRAM_INTERNAL_H
#define KILN_RT_PROGRAM_INTERNAL_H

#include "kiln_rt/kiln_rt_program.h"

#include <pthread.h>

enum {
  KILN_STEP_ALLOC = 0,
  KILN_STEP_FREE = 1,
  KILN_STEP_KERNEL = 2, /* a CPU kernel call */
  KILN_STEP_RUNTIME_CALL = 3,
  KILN_STEP_COPY = 4,
  KILN_STEP_LAUNCH = 5, /* a GPU kernel launch */
};

/* The largest rank of a runtime call's memref (rank-4 batched GEMMs). */
#define KILN_MAX_CALL_RANK 4

/* A static strided view of a buffer slot, in elements. */
typedef struct kiln_view {
  int32_t slot;
  uint32_t rank;
  int64_t offset;
  int64_t element_bytes;
  const int64_t *sizes, *strides;
} kiln_view;

typedef struct kiln_step {
  uint8_t kind;
  int32_t slot;   /* alloc, free */
  int64_t bytes;  /* alloc */
  int32_t callee; /* kernel, runtime call, launch: index into the names */
  uint32_t grid[3], block[3];
  uint32_t num_views;
  const kiln_view *views;
} kiln_step;

typedef struct kiln_constant {
  int32_t slot;
  size_t size;
  void *data; /* 64-byte aligned */
} kiln_constant;

/* A runtime call as a cuBLAS product (program_cuda.c). */
typedef struct kiln_gemm {
  int dtype; /* kiln_rt_cuda_dtype */
  int trans_a, trans_b, accumulate;
  int64_t m, n, k, batch;
  int64_t lda, ldb, ldc, stride_a, stride_b, stride_c;
} kiln_gemm;

struct kiln_rt_program {
  int32_t num_arguments, num_slots;
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
  int has_launches, has_host_kernels;

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

/* The address of `view`'s first element in a buffer at `base` (NULL stays
 * NULL: an empty buffer may have none). */
static inline void *kiln_view_address(void *base, const kiln_view *view) {
  return base ? (char *)base + view->offset * view->element_bytes : NULL;
}

/* Frees what program_cuda.c holds for `program`. */
void kiln_program_release_cuda(kiln_rt_program *program);

#endif /* KILN_RT_PROGRAM_INTERNAL_H */
