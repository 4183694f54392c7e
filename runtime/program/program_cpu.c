/*===- program_cpu.c - running a host program on the CPU ------------------===*
 *
 * Binds a program to its kernels' entry points and the runtime's BLAS,
 * then runs its steps on host buffers: allocations from the buffer cache,
 * kernel and BLAS calls on strided views, copies, and collectives.
 *
 *===----------------------------------------------------------------------===*/

#include "../common/status.h"
#include "../cpu/cpu_work.h"
#include "../cpu/faults.h"
#include "kiln_rt/kiln_rt_blas.h"
#include "kiln_rt/kiln_rt_dist.h"
#include "program_internal.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

/* How often a run lets its collectives under way progress, at most. */
#define KILN_POLL_NS 20000.0

kiln_rt_status kiln_rt_program_bind_cpu(kiln_rt_program *program,
                                        const kiln_rt_kernel_entry *kernels,
                                        size_t count) {
  if (!program || (count && !kernels))
    return kiln_rt_status_make(KILN_RT_INVALID_ARGUMENT,
                               "kiln_rt_program_bind_cpu: null argument");
  if (program->has_launches)
    return kiln_rt_status_make(KILN_RT_INVALID_ARGUMENT,
                               "the program launches GPU kernels: run it with "
                               "kiln_rt_program_run_cuda");
  if (count != program->num_kernels)
    return kiln_rt_status_make(
        KILN_RT_INVALID_ARGUMENT,
        "the program calls %zu kernels, %zu entry points given",
        program->num_kernels, count);
  for (size_t i = 0; i < count; ++i)
    if (!kernels[i])
      return kiln_rt_status_make(KILN_RT_INVALID_ARGUMENT,
                                 "no entry point for kernel '%s'",
                                 program->kernel_names[i]);
  size_t n = program->num_runtime_functions;
  void **runtime = calloc(n ? n : 1, sizeof(void *));
  kiln_rt_kernel_entry *entries =
      malloc((count ? count : 1) * sizeof(kiln_rt_kernel_entry));
  if (!runtime || !entries) {
    free(runtime);
    free(entries);
    return kiln_rt_status_make(KILN_RT_OUT_OF_MEMORY, "out of host memory");
  }
  /* Each call passes as many memrefs as its function takes. */
  for (size_t s = 0; s < program->num_steps; ++s) {
    const kiln_step *step = &program->steps[s];
    if (step->kind != KILN_STEP_RUNTIME_CALL)
      continue;
    const char *name = program->runtime_names[step->callee];
    int arity = kiln_cpu_entry_arity(name);
    if (arity && (uint32_t)arity != step->num_views) {
      free(runtime);
      free(entries);
      return kiln_rt_status_make(KILN_RT_INVALID_ARGUMENT,
                                 "the program calls '%s' with %u memrefs; it "
                                 "takes %d",
                                 name, step->num_views, arity);
    }
  }
  for (size_t i = 0; i < n; ++i) {
    runtime[i] = kiln_rt_blas_lookup(program->runtime_names[i]);
    if (!runtime[i]) {
      kiln_rt_status status =
          kiln_rt_status_make(KILN_RT_INVALID_ARGUMENT,
                              "the program calls an unknown runtime "
                              "function '%s'",
                              program->runtime_names[i]);
      free(runtime);
      free(entries);
      return status;
    }
  }
  if (count)
    memcpy(entries, kernels, count * sizeof(kiln_rt_kernel_entry));
  free(program->kernel_entries);
  free(program->runtime_entries);
  program->kernel_entries = entries;
  program->runtime_entries = runtime;
  return KILN_RT_SUCCESS;
}

/* Copies a strided view into another of the same sizes, element by element
 * over the innermost dim (a memmove when both are contiguous there). */
void kiln_program_copy_view(const kiln_view *from, char *from_base,
                            const kiln_view *to, char *to_base) {
  int64_t bytes = from->element_bytes;
  uint32_t rank = from->rank;
  if (rank == 0) {
    memmove(to_base + to->offset * bytes, from_base + from->offset * bytes,
            (size_t)bytes);
    return;
  }
  for (uint32_t d = 0; d < rank; ++d)
    if (from->sizes[d] == 0)
      return;
  int64_t index[KILN_MAX_RANK] = {0};
  int64_t inner = from->sizes[rank - 1];
  int contiguous = from->strides[rank - 1] == 1 && to->strides[rank - 1] == 1;
  for (;;) {
    int64_t src = from->offset, dst = to->offset;
    for (uint32_t d = 0; d + 1 < rank; ++d) {
      src += index[d] * from->strides[d];
      dst += index[d] * to->strides[d];
    }
    /* memmove: the two views may be one. */
    if (contiguous) {
      memmove(to_base + dst * bytes, from_base + src * bytes,
              (size_t)(inner * bytes));
    } else {
      for (int64_t i = 0; i < inner; ++i)
        memmove(to_base + (dst + i * to->strides[rank - 1]) * bytes,
                from_base + (src + i * from->strides[rank - 1]) * bytes,
                (size_t)bytes);
    }
    int64_t d = (int64_t)rank - 2;
    while (d >= 0 && ++index[d] == from->sizes[d])
      index[d--] = 0;
    if (d < 0)
      return;
  }
}

/* One packed argument of a kernel: a pointer or an i64. */
typedef union kiln_word {
  void *pointer;
  int64_t value;
} kiln_word;

/* A memref descriptor as MLIR's C interface lays it out: allocated and
 * aligned pointers, offset, sizes, strides (rank 4 at most). */
typedef struct descriptor {
  void *allocated, *aligned;
  int64_t offset;
  int64_t sizes_and_strides[2 * KILN_MAX_CALL_RANK];
} descriptor;

static double now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

/* Adds a call of `name` that started at `start` to `profile`. */
static void record_call(kiln_rt_profile *profile, const char *name,
                        double start) {
  double ns = now_ns() - start;
  ++profile->calls;
  profile->ns += ns;
  if (profile->on_call)
    profile->on_call(profile->context, name, ns);
}

kiln_rt_status kiln_rt_program_run_cpu(const kiln_rt_program *program,
                                       void *const *buffers, size_t count,
                                       const int64_t *input_dims,
                                       kiln_rt_profile *profile) {
  if (!program || (count && !buffers))
    return kiln_rt_status_make(KILN_RT_INVALID_ARGUMENT,
                               "kiln_rt_program_run_cpu: null argument");
  if (!program->kernel_entries)
    return kiln_rt_status_make(KILN_RT_INVALID_ARGUMENT,
                               "the program is not bound to its kernels "
                               "(kiln_rt_program_bind_cpu)");
  if (count != (size_t)program->num_arguments)
    return kiln_rt_status_make(KILN_RT_INVALID_ARGUMENT,
                               "the program takes %d buffers, %zu given",
                               program->num_arguments, count);
  size_t slots = (size_t)program->num_slots, views = program->max_views;
  size_t words = program->max_launch_words;
  size_t size_words = kiln_program_sizes_words(program);
  size_t view_dims = views * 2 * (size_t)program->max_rank;
  /* One block: call scratch, resolved views, sizes, slot bases, the slots
   * allocated in order. */
  size_t scratch =
      views * sizeof(descriptor) + words * sizeof(kiln_word) +
      words * sizeof(void *) + views * sizeof(kiln_view) +
      views * sizeof(kiln_view *) + (view_dims + size_words) * sizeof(int64_t) +
      slots * sizeof(char *) + slots * sizeof(int32_t) + sizeof(descriptor) +
      program->num_requests * sizeof(kiln_program_request *);
  char *block = malloc(scratch);
  if (!block)
    return kiln_rt_status_make(KILN_RT_OUT_OF_MEMORY, "out of host memory");
  /* The collectives under way, by request. */
  kiln_program_request **requests = (kiln_program_request **)block;
  memset(requests, 0, program->num_requests * sizeof(*requests));
  descriptor *descriptors = (descriptor *)(requests + program->num_requests);
  kiln_word *values = (kiln_word *)(descriptors + views);
  void **packed = (void **)(values + words);
  kiln_view *resolved_views = (kiln_view *)(packed + words);
  const kiln_view **view_pointers =
      (const kiln_view **)(resolved_views + views);
  int64_t *resolved_dims = (int64_t *)(view_pointers + views);
  kiln_sizes sizes = {resolved_dims + view_dims,
                      resolved_dims + view_dims + program->num_registers};
  char **base = (char **)(sizes.slot_bytes + slots);
  int32_t *allocated = (int32_t *)(base + slots);
  size_t num_allocated = 0;
  memset(base, 0, slots * sizeof(char *));
  for (size_t i = 0; i < count; ++i)
    base[i] = buffers[i];
  for (size_t i = 0; i < program->num_constants; ++i)
    base[program->constants[i].slot] = program->constants[i].data;
  kiln_rt_status status = kiln_program_begin(program, input_dims, &sizes);
  /* The buffers of known sizes: one allocation (program_memory.c). */
  int64_t arena_bytes = program->memory_plan.arena_bytes;
  char *arena = NULL;
  if (!status && arena_bytes > 0) {
    void *memory = NULL;
    status = kiln_rt_host_alloc_uninitialized((size_t)arena_bytes, 64, &memory);
    arena = memory;
    if (arena)
      KILN_ASAN_POISON(arena, arena_bytes);
  }
  double start = 0, last_poll = 0;
  uint32_t in_flight = 0;
  int run_checked = 0;
  for (size_t s = program->prologue_steps; s < program->num_steps && !status;
       ++s) {
    const kiln_step *step = &program->steps[s];
    const kiln_view **v = view_pointers;
    if (step->kind == KILN_STEP_INDEX || step->kind == KILN_STEP_CHECK) {
      status = kiln_program_size_step(program, step, &sizes);
      continue;
    }
    status = kiln_program_resolve_step(program, step, &sizes, resolved_views,
                                       resolved_dims, view_pointers);
    if (status)
      break;
    switch (step->kind) {
    case KILN_STEP_ALLOC: {
      int64_t bytes = kiln_operand(sizes.registers, step->bytes);
      int64_t offset = program->alloc_offsets[s];
      if (offset >= 0) {
        base[step->slot] = arena + offset;
        kiln_arena_take(base[step->slot], bytes);
        sizes.slot_bytes[step->slot] = bytes;
        break;
      }
      /* Else the runtime's buffer cache, as compiled host code uses it. */
      base[step->slot] =
          bytes < 0 ? NULL : kiln_buffer_alloc_counted(64, (size_t)bytes);
      if (base[step->slot] && kiln_program_poisons_buffers())
        memset(base[step->slot], 0xFF, (size_t)bytes);
      if (!base[step->slot]) {
        status =
            kiln_rt_status_make(KILN_RT_OUT_OF_MEMORY,
                                "out of host memory: a buffer of %lld bytes "
                                "could not be allocated",
                                (long long)bytes);
        break;
      }
      sizes.slot_bytes[step->slot] = bytes;
      allocated[num_allocated++] = step->slot;
      break;
    }
    case KILN_STEP_FREE:
      if (arena && base[step->slot] >= arena &&
          base[step->slot] < arena + arena_bytes) {
        kiln_arena_give_back(base[step->slot], sizes.slot_bytes[step->slot]);
        base[step->slot] = NULL;
        sizes.slot_bytes[step->slot] = -1;
        break;
      }
      if (kiln_program_poisons_buffers())
        memset(base[step->slot], 0xFF, (size_t)sizes.slot_bytes[step->slot]);
      _mlir_memref_to_llvm_free(base[step->slot]);
      base[step->slot] = NULL;
      sizes.slot_bytes[step->slot] = -1;
      /* Frees come in nearly allocation order: search from the back. */
      for (size_t i = num_allocated; i-- > 0;)
        if (allocated[i] == step->slot) {
          memmove(&allocated[i], &allocated[i + 1],
                  (num_allocated - i - 1) * sizeof(int32_t));
          --num_allocated;
          break;
        }
      break;
    case KILN_STEP_KERNEL: {
      /* A static view is one pointer, offset by the caller; a dynamic one
       * its memref descriptor, field by field. */
      size_t n = 0;
      for (uint32_t i = 0; i < step->num_views; ++i) {
        const kiln_view *view = v[i];
        if (view->passing == KILN_PASS_POINTER) {
          values[n++].pointer = kiln_view_address(base[view->slot], view);
          continue;
        }
        values[n++].pointer = base[view->slot];
        values[n++].pointer = base[view->slot];
        values[n++].value = view->offset;
        for (uint32_t d = 0; d < 2 * view->rank; ++d)
          values[n++].value = view->sizes[d]; /* sizes, then strides */
      }
      for (size_t i = 0; i < n; ++i)
        packed[i] = &values[i];
      if (profile)
        start = now_ns();
      program->kernel_entries[step->callee](packed);
      if (profile)
        record_call(profile, program->kernel_names[step->callee], start);
      break;
    }
    case KILN_STEP_RUNTIME_CALL: {
      for (uint32_t i = 0; i < step->num_views; ++i) {
        const kiln_view *view = v[i];
        descriptor *d = &descriptors[i];
        d->allocated = d->aligned = base[view->slot];
        d->offset = view->offset;
        for (uint32_t k = 0; k < view->rank; ++k) {
          d->sizes_and_strides[k] = view->sizes[k];
          d->sizes_and_strides[view->rank + k] = view->strides[k];
        }
      }
      void *entry = program->runtime_entries[step->callee];
      descriptor *d = descriptors;
      if (profile)
        start = now_ns();
      switch (step->num_views) {
      case 1:
        ((void (*)(void *))entry)(d);
        break;
      case 2:
        ((void (*)(void *, void *))entry)(d, d + 1);
        break;
      case 3:
        ((void (*)(void *, void *, void *))entry)(d, d + 1, d + 2);
        break;
      case 11: /* kiln_rt_attention_f32 */
        ((void (*)(void *, void *, void *, void *, void *, void *, void *,
                   void *, void *, void *, void *))entry)(
            d, d + 1, d + 2, d + 3, d + 4, d + 5, d + 6, d + 7, d + 8, d + 9,
            d + 10);
        break;
      case 15: /* kiln_rt_attention_grad_f32 */
        ((void (*)(void *, void *, void *, void *, void *, void *, void *,
                   void *, void *, void *, void *, void *, void *, void *,
                   void *))entry)(d, d + 1, d + 2, d + 3, d + 4, d + 5, d + 6,
                                  d + 7, d + 8, d + 9, d + 10, d + 11, d + 12,
                                  d + 13, d + 14);
        break;
      default:
        ((void (*)(void *, void *, void *, void *))entry)(d, d + 1, d + 2,
                                                          d + 3);
        break;
      }
      if (profile)
        record_call(profile, program->runtime_names[step->callee], start);
      break;
    }
    case KILN_STEP_COPY:
      if (step->dynamic &&
          memcmp(v[0]->sizes, v[1]->sizes, v[0]->rank * sizeof(int64_t))) {
        status =
            kiln_rt_status_make(KILN_RT_INVALID_ARGUMENT,
                                "the program's sizes disagree: a copy between "
                                "views of different sizes");
        break;
      }
      if (profile && profile->on_call)
        start = now_ns();
      kiln_program_copy_view(v[0], base[v[0]->slot], v[1], base[v[1]->slot]);
      if (profile && profile->on_call)
        profile->on_call(profile->context, "copy", now_ns() - start);
      break;
    case KILN_STEP_LAUNCH:
      /* bind_cpu refuses programs with launches. */
      break;
    case KILN_STEP_COLLECTIVE:
      if (profile)
        start = now_ns();
      status = kiln_program_collective_start(
          program, step, v[0], base[v[0]->slot], v[1], base[v[1]->slot],
          input_dims, &run_checked,
          step->slot >= 0 ? &requests[step->slot] : NULL);
      in_flight += step->slot >= 0 && !status;
      last_poll = now_ns();
      if (profile)
        record_call(profile, "collective", start);
      break;
    case KILN_STEP_COLLECTIVE_WAIT:
      if (profile)
        start = now_ns();
      status = kiln_program_collective_wait(requests[step->slot], v[1],
                                            base[v[1]->slot]);
      requests[step->slot] = NULL;
      --in_flight;
      if (profile)
        record_call(profile, "collective wait", start);
      break;
    }
    /* Collectives under way move on only inside MPI's calls: every
     * KILN_POLL_NS at most, one test (about a microsecond) of the oldest
     * that has not ended. Any MPI call moves every request on, so testing
     * each of many small buckets would cost more than it hides. */
    if (in_flight && !status) {
      double now = now_ns();
      if (now - last_poll >= KILN_POLL_NS) {
        last_poll = now;
        int finished = 1;
        for (uint32_t i = 0; i < program->num_requests && finished && !status;
             ++i)
          if (requests[i])
            status = kiln_program_collective_progress(requests[i], &finished);
      }
    }
  }
  /* A failed run ends its collectives before their buffers go back. */
  for (uint32_t i = 0; i < program->num_requests; ++i)
    if (requests[i])
      kiln_rt_status_free(
          kiln_program_collective_wait(requests[i], NULL, NULL));
  /* Unless one did not end: MPI may still write the run's buffers, which
   * stay allocated (the job is aborted when this process leaves it). */
  if (program->has_collectives && kiln_rt_dist_broken())
    num_allocated = 0;
  /* What the steps allocated and did not free goes back. */
  for (size_t i = 0; i < num_allocated; ++i)
    _mlir_memref_to_llvm_free(base[allocated[i]]);
  if (arena && !(program->has_collectives && kiln_rt_dist_broken())) {
    KILN_ASAN_UNPOISON(arena, arena_bytes);
    kiln_rt_host_free(arena);
  }
  free(block);
  return status;
}
