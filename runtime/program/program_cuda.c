/*===- program_cuda.c - running a host program on a GPU -------------------===*
 *
 * The same steps as on the CPU, on device buffers: allocations from the
 * runtime's caching allocator, dense copies, kernel launches (each buffer
 * passed as the lowered kernel takes a memref: allocated and aligned
 * pointer, offset, sizes, strides), and the CPU pipeline's BLAS calls as
 * cuBLAS products.
 *
 *===----------------------------------------------------------------------===*/

#include "../common/status.h"
#include "program_internal.h"

#include <stdlib.h>
#include <string.h>

static int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }

/* The leading dim of a matrix view as cuBLAS needs it, and whether the view
 * is stored transposed (unit stride down its columns). A dim of size 1 takes
 * any stride, so it never decides the layout, and the leading dim is at
 * least the row (or column) length, as cuBLAS requires. */
static int leading_dim(const kiln_view *view, int64_t *ld, int *transposed) {
  uint32_t r = view->rank;
  int64_t rows = view->sizes[r - 2], cols = view->sizes[r - 1];
  int64_t row_stride = view->strides[r - 2], col_stride = view->strides[r - 1];
  if (cols <= 1 || col_stride == 1) {
    *ld = rows <= 1 ? max64(cols, 1) : max64(row_stride, cols);
    *transposed = 0;
    return 1;
  }
  if (rows <= 1 || row_stride == 1) {
    *ld = max64(col_stride, rows);
    *transposed = 1;
    return 1;
  }
  return 0;
}

/* The operands' type of a product's name, and for f32 what its products
 * may compute in (torch.set_float32_matmul_precision: tf32 "high", bf16
 * "medium"); f16 and bf16 products write f32. */
static const struct {
  const char *token;
  int dtype, math;
  int64_t operand_bytes, result_bytes;
} gemm_types[] = {
    {"f32_", KILN_RT_CUDA_F32, KILN_RT_CUDA_MATH_EXACT, 4, 4},
    {"f64_", KILN_RT_CUDA_F64, KILN_RT_CUDA_MATH_EXACT, 8, 8},
    {"f16_", KILN_RT_CUDA_F16, KILN_RT_CUDA_MATH_EXACT, 2, 4},
    {"bf16_", KILN_RT_CUDA_BF16, KILN_RT_CUDA_MATH_EXACT, 2, 4},
    {"f32tf32_", KILN_RT_CUDA_F32, KILN_RT_CUDA_MATH_TF32, 4, 4},
    {"f32bf16_", KILN_RT_CUDA_F32, KILN_RT_CUDA_MATH_BF16, 4, 4},
};

/* What `name` (e.g. kiln_rt_batch_matmul_f32tf32_nt_set) asks of a
 * product: its type (an index of gemm_types), rank and flags in `call`;
 * 0 for a name that is not a product's. */
static int parse_gemm_name(const char *name, kiln_gemm *call, size_t *type,
                           uint32_t *rank) {
  const char *rest = name;
  *rank = 2;
  if (strncmp(rest, "kiln_rt_batch_matmul_", 21) == 0) {
    *rank = 3;
    rest += 21;
  } else if (strncmp(rest, "kiln_rt_matmul_", 15) == 0) {
    rest += 15;
  } else {
    return 0;
  }
  size_t num_types = sizeof(gemm_types) / sizeof(gemm_types[0]);
  for (*type = 0; *type < num_types; ++*type)
    if (strncmp(rest, gemm_types[*type].token,
                strlen(gemm_types[*type].token)) == 0)
      break;
  if (*type == num_types)
    return 0;
  call->dtype = gemm_types[*type].dtype;
  call->math = gemm_types[*type].math;
  rest += strlen(gemm_types[*type].token);
  size_t length = strlen(rest);
  call->accumulate = !(length == 6 && strcmp(rest + 2, "_set") == 0);
  if ((length != 2 && call->accumulate) || (rest[0] != 'n' && rest[0] != 't') ||
      (rest[1] != 'n' && rest[1] != 't'))
    return 0;
  call->trans_a = rest[0] == 't';
  call->trans_b = rest[1] == 't';
  return 1;
}

int kiln_rt_program_cuda_runs(const char *name) {
  kiln_gemm call;
  size_t type;
  uint32_t rank;
  return name && parse_gemm_name(name, &call, &type, &rank);
}

/* `name` (e.g. kiln_rt_batch_matmul_f32_nt_set) on `views` (A, B, C). */
static kiln_rt_status get_gemm(const char *name, const kiln_view *const *views,
                               uint32_t num_views, kiln_gemm *call) {
  size_t type;
  uint32_t rank;
  if (!parse_gemm_name(name, call, &type, &rank) || num_views != 3)
    goto unsupported;
  for (uint32_t i = 0; i < 3; ++i)
    if (views[i]->rank != rank ||
        views[i]->element_bytes != (i < 2 ? gemm_types[type].operand_bytes
                                          : gemm_types[type].result_bytes))
      goto unsupported;
  const kiln_view *a = views[0], *b = views[1], *c = views[2];
  /* K is op(A)'s last dim: A's first (of its matrix) when A is transposed. */
  int64_t k = a->sizes[rank - 1 - (call->trans_a ? 1 : 0)];
  int ta, tb, tc;
  if (!leading_dim(a, &call->lda, &ta) || !leading_dim(b, &call->ldb, &tb) ||
      !leading_dim(c, &call->ldc, &tc) || tc)
    goto unsupported;
  /* A view stored transposed is the other op on its transpose. */
  call->trans_a ^= ta;
  call->trans_b ^= tb;
  call->m = c->sizes[rank - 2];
  call->n = c->sizes[rank - 1];
  call->k = k;
  int batched = rank == 3;
  call->batch = batched ? c->sizes[0] : 1;
  call->stride_a = batched ? a->strides[0] : 0;
  call->stride_b = batched ? b->strides[0] : 0;
  call->stride_c = batched ? c->strides[0] : 0;
  return KILN_RT_SUCCESS;
unsupported:
  return kiln_rt_status_make(KILN_RT_INVALID_ARGUMENT,
                             "the cuda backend cannot run @%s on these views",
                             name);
}

kiln_rt_status kiln_rt_program_check_cuda(kiln_rt_program *program) {
  if (!program)
    return kiln_rt_status_make(KILN_RT_INVALID_ARGUMENT,
                               "kiln_rt_program_check_cuda: null argument");
  pthread_mutex_lock(&program->cuda_mutex);
  kiln_rt_status status = KILN_RT_SUCCESS;
  if (program->cuda_checked)
    goto done;
  kiln_gemm *gemms =
      calloc(program->num_steps ? program->num_steps : 1, sizeof(kiln_gemm));
  if (!gemms) {
    status = kiln_rt_status_make(KILN_RT_OUT_OF_MEMORY, "out of host memory");
    goto done;
  }
  for (size_t s = 0; s < program->num_steps && !status; ++s) {
    const kiln_step *step = &program->steps[s];
    if (step->kind == KILN_STEP_KERNEL)
      status =
          kiln_rt_status_make(KILN_RT_INVALID_ARGUMENT,
                              "the cuda backend cannot run a host kernel call");
    else if (step->dynamic)
      continue; /* its views are known, and checked, at run time */
    else if (step->kind == KILN_STEP_RUNTIME_CALL) {
      const kiln_view *views[4];
      for (uint32_t i = 0; i < step->num_views && i < 4; ++i)
        views[i] = &step->views[i];
      status = get_gemm(program->runtime_names[step->callee], views,
                        step->num_views, &gemms[s]);
    } else if (step->kind == KILN_STEP_COPY &&
               (!kiln_view_is_dense(&step->views[0]) ||
                !kiln_view_is_dense(&step->views[1])))
      status = kiln_rt_status_make(
          KILN_RT_INVALID_ARGUMENT,
          "the cuda backend does not copy strided views yet");
  }
  if (status) {
    free(gemms);
    goto done;
  }
  program->gemms = gemms;
  program->cuda_checked = 1;
done:
  pthread_mutex_unlock(&program->cuda_mutex);
  return status;
}

/* Frees the device copies of the constants (of the current session only:
 * a shutdown took the older ones). Called with the mutex held, or at
 * destruction. */
static void release_loaded(kiln_rt_program *program) {
  if (program->cuda_constants && program->cuda_session != 0 &&
      program->cuda_session == kiln_rt_cuda_session())
    for (size_t i = 0; i < program->num_constants; ++i)
      kiln_rt_status_free(kiln_rt_cuda_free(program->cuda_constants[i]));
  free(program->cuda_constants);
  free(program->cuda_functions);
  program->cuda_constants = NULL;
  program->cuda_functions = NULL;
  program->cuda_module = NULL; /* the runtime owns modules */
  program->cuda_session = 0;
}

void kiln_program_release_cuda(kiln_rt_program *program) {
  release_loaded(program);
}

kiln_rt_status kiln_rt_program_load_cuda(kiln_rt_program *program,
                                         const char *ptx, size_t size) {
  kiln_rt_status status = kiln_rt_program_check_cuda(program);
  if (status)
    return status;
  /* Loaded in this session of the runtime; a shutdown invalidated the
   * handles of an earlier one. */
  uint64_t session = kiln_rt_cuda_session();
  if (session == 0)
    return kiln_rt_status_make(KILN_RT_UNAVAILABLE,
                               "the CUDA runtime is not "
                               "initialized or was shut down");
  pthread_mutex_lock(&program->cuda_mutex);
  if (program->cuda_session == session)
    goto done;
  release_loaded(program);
  if (program->num_kernels && (!ptx || size == 0)) {
    status = kiln_rt_status_make(KILN_RT_INVALID_ARGUMENT,
                                 "the program launches kernels but has no PTX");
    goto done;
  }
  kiln_rt_cuda_function **functions =
      calloc(program->num_kernels ? program->num_kernels : 1, sizeof(void *));
  void **constants = calloc(program->num_constants ? program->num_constants : 1,
                            sizeof(void *));
  if (!functions || !constants) {
    free(functions);
    free(constants);
    status = kiln_rt_status_make(KILN_RT_OUT_OF_MEMORY, "out of host memory");
    goto done;
  }
  kiln_rt_cuda_module *module = NULL;
  if (program->num_kernels) {
    status = kiln_rt_cuda_module_load(ptx, size, &module);
    for (size_t i = 0; i < program->num_kernels && !status; ++i)
      status = kiln_rt_cuda_module_get_function(
          module, program->kernel_names[i], &functions[i]);
  }
  for (size_t i = 0; i < program->num_constants && !status; ++i) {
    const kiln_constant *constant = &program->constants[i];
    status = kiln_rt_cuda_malloc(constant->size, &constants[i]);
    if (!status)
      status = kiln_rt_cuda_copy_to_device(constants[i], constant->data,
                                           constant->size, NULL);
  }
  if (status) {
    for (size_t i = 0; i < program->num_constants; ++i)
      kiln_rt_status_free(kiln_rt_cuda_free(constants[i]));
    free(functions);
    free(constants);
    goto done;
  }
  program->cuda_module = module;
  program->cuda_functions = functions;
  program->cuda_constants = constants;
  program->cuda_session = session;
done:
  pthread_mutex_unlock(&program->cuda_mutex);
  return status;
}

kiln_rt_status kiln_device_timer_start(kiln_device_timer *timer,
                                       kiln_rt_cuda_stream *stream) {
  kiln_rt_status status = kiln_rt_cuda_event_create(&timer->start);
  if (!status)
    status = kiln_rt_cuda_event_create(&timer->end);
  if (!status)
    status = kiln_rt_cuda_event_record(timer->start, stream);
  return status;
}

kiln_rt_status kiln_device_timer_stop(kiln_device_timer *timer,
                                      kiln_rt_cuda_stream *stream,
                                      kiln_rt_profile *profile) {
  float ms = 0;
  kiln_rt_status status = kiln_rt_cuda_event_record(timer->end, stream);
  if (!status)
    status = kiln_rt_cuda_event_elapsed_ms(timer->start, timer->end, &ms);
  if (!status)
    profile->ns += (double)ms * 1e6;
  return status;
}

void kiln_device_timer_release(kiln_device_timer *timer) {
  kiln_rt_status_free(kiln_rt_cuda_event_destroy(timer->start));
  kiln_rt_status_free(kiln_rt_cuda_event_destroy(timer->end));
  timer->start = timer->end = NULL;
}

kiln_rt_status kiln_program_check_loaded_cuda(const kiln_rt_program *program,
                                              void *const *buffers,
                                              size_t count, const char *api) {
  if (!program || (count && !buffers))
    return kiln_rt_status_make(KILN_RT_INVALID_ARGUMENT, "%s: null argument",
                               api);
  if (!program->cuda_checked || program->cuda_session == 0 ||
      program->cuda_session != kiln_rt_cuda_session())
    return kiln_rt_status_make(
        KILN_RT_INVALID_ARGUMENT,
        "the program is not loaded in this session of the "
        "CUDA runtime (kiln_rt_program_load_cuda)");
  if (count != (size_t)program->num_arguments)
    return kiln_rt_status_make(KILN_RT_INVALID_ARGUMENT,
                               "the program takes %d buffers, %zu given",
                               program->num_arguments, count);
  return KILN_RT_SUCCESS;
}

/* A collective step under way: its NCCL request, and its staging (where
 * it has one) from the graph's temporaries or, `owned`, the allocator. */
typedef struct cuda_collective {
  kiln_rt_dist_nccl_request *request;
  void *staging;
  int kind, staged, owned;
} cuda_collective;

/* The graph pass's slot for the staging of collective `request` (past the
 * program's own; `num_requests` for a collective without a wait step). */
static int32_t staging_slot(const kiln_rt_program *program, int32_t request) {
  return program->num_slots +
         (request >= 0 ? request : (int32_t)program->num_requests);
}

/* Ends `state`'s collective: `stream` waits for it (nothing was queued in
 * a planning pass), and its staging is given back. */
static kiln_rt_status end_collective(cuda_collective *state, int32_t slot,
                                     kiln_rt_cuda_stream *stream,
                                     kiln_graph_pass *pass) {
  kiln_rt_status status = KILN_RT_SUCCESS;
  if (state->request)
    status =
        kiln_program_collective_cuda_wait(state->kind, state->request, stream);
  if (state->staged && pass)
    kiln_graph_pass_free(pass, slot);
  if (state->owned)
    kiln_rt_status_free(kiln_rt_cuda_free(state->staging));
  state->request = NULL;
  state->staging = NULL;
  state->staged = state->owned = 0;
  return status;
}

/* Starts a collective step (only plans its staging in a planning pass). */
static kiln_rt_status start_collective(const kiln_rt_program *program,
                                       const kiln_step *step,
                                       const kiln_view *const *v, void **base,
                                       const int64_t *input_dims,
                                       int *run_checked, cuda_collective *state,
                                       kiln_rt_cuda_stream *stream,
                                       kiln_graph_pass *pass) {
  kiln_rt_dist_collective c;
  /* A graph pass leaves the ranks' check to the graph's launches. */
  kiln_rt_status status = kiln_program_collective_cuda_describe(
      program, step, v[0], base[v[0]->slot], v[1], base[v[1]->slot], input_dims,
      pass ? NULL : run_checked, &c);
  if (status)
    return status;
  state->kind = (int)c.kind;
  size_t staging = kiln_rt_dist_nccl_staging_bytes(&c);
  if (staging && pass) {
    status = kiln_graph_pass_alloc(pass, staging_slot(program, step->slot),
                                   (int64_t)staging, &state->staging);
    if (status)
      return status;
    state->staged = 1;
  } else if (staging) {
    status = kiln_rt_cuda_malloc(staging, &state->staging);
    if (status)
      return status;
    state->owned = 1;
  }
  c.staging = state->staging;
  if (pass) { /* NCCL's work has the buffers' addresses baked in */
    kiln_graph_pass_baked(pass, v[0]->slot);
    kiln_graph_pass_baked(pass, v[1]->slot);
    kiln_graph_pass_collective(pass, &c);
    if (!kiln_graph_pass_queues(pass))
      return KILN_RT_SUCCESS;
  }
  return kiln_program_collective_cuda_start(&c, stream, &state->request);
}

/* Where a slot's buffer came from: the arena (or none), the allocator, or
 * a graph pass. */
enum { KILN_NOT_OWNED = 0, KILN_OWNED = 1, KILN_OWNED_BY_PASS = 2 };

kiln_rt_status kiln_program_execute_cuda(const kiln_rt_program *program,
                                         void *const *buffers, size_t count,
                                         const int64_t *input_dims,
                                         kiln_rt_cuda_stream *stream,
                                         kiln_rt_profile *profile,
                                         kiln_graph_pass *pass) {
  KILN_RT_RETURN_IF_ERROR(kiln_program_check_loaded_cuda(
      program, buffers, count, "kiln_rt_program_run_cuda"));
  size_t slots = (size_t)program->num_slots, views = program->max_views;
  size_t words = program->max_launch_words;
  size_t view_dims = views * 2 * (size_t)program->max_rank;
  size_t size_words = kiln_program_sizes_words(program);
  char *block = malloc(words * 16 + views * sizeof(kiln_view) +
                       views * sizeof(kiln_view *) +
                       (view_dims + size_words) * sizeof(int64_t) +
                       slots * sizeof(void *) + slots + 16);
  if (!block)
    return kiln_rt_status_make(KILN_RT_OUT_OF_MEMORY, "out of host memory");
  uint64_t *values = (uint64_t *)block;
  void **params = (void **)(values + words);
  kiln_view *resolved_views = (kiln_view *)(params + words);
  const kiln_view **v = (const kiln_view **)(resolved_views + views);
  int64_t *resolved_dims = (int64_t *)(v + views);
  kiln_sizes sizes = {resolved_dims + view_dims,
                      resolved_dims + view_dims + program->num_registers};
  void **base = (void **)(sizes.slot_bytes + slots);
  unsigned char *owned = (unsigned char *)(base + slots);
  memset(base, 0, slots * sizeof(void *));
  memset(owned, 0, slots);
  for (size_t i = 0; i < count; ++i)
    base[i] = buffers[i];
  for (size_t i = 0; i < program->num_constants; ++i)
    base[program->constants[i].slot] = program->cuda_constants[i];
  kiln_device_timer timer = {NULL, NULL};
  int run_checked = 0; /* the ranks' program check (program_dist.c) */
  cuda_collective *collectives =
      program->num_requests
          ? calloc(program->num_requests, sizeof(cuda_collective))
          : NULL;
  if (program->num_requests && !collectives) {
    free(block);
    return kiln_rt_status_make(KILN_RT_OUT_OF_MEMORY, "out of host memory");
  }
  /* The buffers of known sizes: one allocation (program_memory.c), a
   * graph's own memory in a graph. A planning pass gets no address. */
  int64_t arena_bytes = program->memory_plan.arena_bytes;
  char *arena = NULL;
  int has_arena = 0, owns_arena = 0;
  kiln_rt_status status = kiln_program_begin(program, input_dims, &sizes);
  if (status)
    goto cleanup;
  if (arena_bytes > 0) {
    void *memory = NULL;
    status = pass ? kiln_graph_pass_alloc_arena(pass, arena_bytes, &memory)
                  : kiln_rt_cuda_malloc((size_t)arena_bytes, &memory);
    if (status)
      goto cleanup;
    arena = memory;
    has_arena = 1;
    owns_arena = !pass;
  }
  if (profile) {
    status = kiln_device_timer_start(&timer, stream);
    if (status)
      goto cleanup;
  }
  for (size_t s = program->prologue_steps; s < program->num_steps; ++s) {
    const kiln_step *step = &program->steps[s];
    if (step->kind == KILN_STEP_INDEX || step->kind == KILN_STEP_CHECK) {
      status = kiln_program_size_step(program, step, &sizes);
      if (status)
        goto cleanup;
      continue;
    }
    status = kiln_program_resolve_step(program, step, &sizes, resolved_views,
                                       resolved_dims, v);
    if (status)
      goto cleanup;
    switch (step->kind) {
    case KILN_STEP_ALLOC: {
      int64_t bytes = kiln_operand(sizes.registers, step->bytes);
      if (has_arena && program->alloc_offsets[s] >= 0) {
        base[step->slot] = arena ? arena + program->alloc_offsets[s] : NULL;
        sizes.slot_bytes[step->slot] = bytes;
        break;
      }
      /* A graph takes its own temporaries. */
      status = pass ? kiln_graph_pass_alloc(pass, step->slot, bytes,
                                            &base[step->slot])
                    : kiln_rt_cuda_malloc((size_t)bytes, &base[step->slot]);
      if (status)
        goto cleanup;
      owned[step->slot] = pass ? KILN_OWNED_BY_PASS : KILN_OWNED;
      sizes.slot_bytes[step->slot] = bytes;
      break;
    }
    case KILN_STEP_FREE:
      if (owned[step->slot] == KILN_OWNED_BY_PASS)
        kiln_graph_pass_free(pass, step->slot);
      else if (owned[step->slot] == KILN_OWNED)
        status = kiln_rt_cuda_free(base[step->slot]);
      base[step->slot] = NULL;
      owned[step->slot] = KILN_NOT_OWNED;
      sizes.slot_bytes[step->slot] = -1;
      if (status)
        goto cleanup;
      break;
    case KILN_STEP_COPY: {
      const kiln_view *from = v[0], *to = v[1];
      if (step->dynamic &&
          (!kiln_view_is_dense(from) || !kiln_view_is_dense(to) ||
           memcmp(from->sizes, to->sizes, from->rank * sizeof(int64_t)))) {
        status =
            kiln_rt_status_make(KILN_RT_INVALID_ARGUMENT,
                                "the cuda backend copies dense views of equal "
                                "sizes only");
        goto cleanup;
      }
      int64_t elements = 1;
      for (uint32_t d = 0; d < from->rank; ++d)
        elements *= from->sizes[d];
      if (elements == 0)
        break;
      if (pass) {
        kiln_graph_pass_baked(pass, from->slot);
        kiln_graph_pass_baked(pass, to->slot);
        if (!kiln_graph_pass_queues(pass))
          break;
      }
      status = kiln_rt_cuda_copy_device(
          kiln_view_address(base[to->slot], to),
          kiln_view_address(base[from->slot], from),
          (size_t)(elements * from->element_bytes), stream);
      if (status)
        goto cleanup;
      break;
    }
    case KILN_STEP_LAUNCH: {
      uint32_t grid[3];
      int empty = 0;
      for (int i = 0; i < 3; ++i) {
        int64_t size = kiln_operand(sizes.registers, step->grid[i]);
        if (size < 0 || size > UINT32_MAX) {
          status = kiln_rt_status_make(
              KILN_RT_INVALID_ARGUMENT,
              "a launch of %s with a grid of %lld blocks",
              program->kernel_names[step->callee], (long long)size);
          goto cleanup;
        }
        empty |= size == 0;
        grid[i] = (uint32_t)size;
      }
      /* A grid over no elements launches nothing. */
      if (empty || (pass && !kiln_graph_pass_queues(pass)))
        break;
      size_t n = 0;
      for (uint32_t i = 0; i < step->num_views; ++i) {
        const kiln_view *view = v[i];
        uint64_t address = (uint64_t)(uintptr_t)base[view->slot];
        values[n++] = address;
        values[n++] = address;
        values[n++] = (uint64_t)view->offset;
        for (uint32_t d = 0; d < 2 * view->rank; ++d)
          values[n++] = (uint64_t)view->sizes[d]; /* sizes, then strides */
      }
      for (size_t i = 0; i < n; ++i)
        params[i] = &values[i];
      status = kiln_rt_cuda_launch(program->cuda_functions[step->callee], grid,
                                   step->block, 0, stream, params);
      if (status)
        goto cleanup;
      if (pass) {
        status =
            kiln_graph_pass_launched(pass, step, grid, values, n, v, stream);
        if (status)
          goto cleanup;
      }
      if (profile)
        ++profile->calls;
      break;
    }
    case KILN_STEP_RUNTIME_CALL: {
      kiln_gemm dynamic;
      const kiln_gemm *g = &program->gemms[s];
      if (step->dynamic) {
        status = get_gemm(program->runtime_names[step->callee], v,
                          step->num_views, &dynamic);
        if (status)
          goto cleanup;
        g = &dynamic;
      }
      if (pass) {
        kiln_graph_pass_product(pass, v);
        if (!kiln_graph_pass_queues(pass))
          break;
      }
      status = kiln_rt_cuda_gemm(
          (kiln_rt_cuda_dtype)g->dtype, (kiln_rt_cuda_math)g->math, g->trans_a,
          g->trans_b, g->m, g->n, g->k, 1.0,
          kiln_view_address(base[v[0]->slot], v[0]), g->lda, g->stride_a,
          kiln_view_address(base[v[1]->slot], v[1]), g->ldb, g->stride_b,
          g->accumulate ? 1.0 : 0.0, kiln_view_address(base[v[2]->slot], v[2]),
          g->ldc, g->stride_c, g->batch, stream);
      if (status)
        goto cleanup;
      if (profile)
        ++profile->calls;
      break;
    }
    case KILN_STEP_COLLECTIVE: {
      cuda_collective now = {NULL, NULL, 0, 0, 0};
      cuda_collective *state =
          step->slot >= 0 ? &collectives[step->slot] : &now;
      status = start_collective(program, step, v, base, input_dims,
                                &run_checked, state, stream, pass);
      if (!status && step->slot < 0) /* no wait step */
        status = end_collective(state, staging_slot(program, step->slot),
                                stream, pass);
      if (status) {
        if (step->slot < 0)
          kiln_rt_status_free(end_collective(
              state, staging_slot(program, step->slot), stream, pass));
        goto cleanup;
      }
      if (profile)
        ++profile->calls;
      break;
    }
    case KILN_STEP_COLLECTIVE_WAIT:
      /* The stream's later work waits for the collective on the device. */
      status = end_collective(&collectives[step->slot],
                              staging_slot(program, step->slot), stream, pass);
      if (status)
        goto cleanup;
      break;
    case KILN_STEP_KERNEL:
      /* check_cuda refuses programs with host kernels. */
      break;
    }
  }
  if (profile)
    status = kiln_device_timer_stop(&timer, stream, profile);
cleanup:
  /* A failed run's collectives under way: the stream waits for them before
   * their buffers can be reused. */
  for (uint32_t i = 0; collectives && i < program->num_requests; ++i)
    kiln_rt_status_free(end_collective(
        &collectives[i], staging_slot(program, (int32_t)i), stream, pass));
  free(collectives);
  for (size_t i = 0; i < slots; ++i)
    if (owned[i] == KILN_OWNED)
      kiln_rt_status_free(kiln_rt_cuda_free(base[i]));
  if (owns_arena)
    kiln_rt_status_free(kiln_rt_cuda_free(arena));
  kiln_device_timer_release(&timer);
  free(block);
  return status;
}

kiln_rt_status kiln_rt_program_run_cuda(const kiln_rt_program *program,
                                        void *const *buffers, size_t count,
                                        const int64_t *input_dims,
                                        kiln_rt_cuda_stream *stream,
                                        kiln_rt_profile *profile) {
  return kiln_program_execute_cuda(program, buffers, count, input_dims, stream,
                                   profile, NULL);
}
