/*===- program.c - reading a host program, and running it on the CPU ------===*
 *
 * The bytes (lib/Compiler/HostProgram.cpp writes them), little-endian,
 * fixed-width fields:
 *
 *   "KILNHP" u16 version
 *   i32 numArguments, i32 numSlots
 *   u32 count, names (u32 length, bytes)        kernels
 *   u32 count, names                            runtime functions
 *   u32 count, constants (i32 slot, u64 size, bytes)
 *   u32 count, steps:
 *     u8 kind, i32 slot, i64 bytes, i32 callee, u32 grid[3], u32 block[3],
 *     u32 count, views (i32 slot, i64 offset, i64 elementBytes,
 *                       u32 rank, i64 sizes[rank], i64 strides[rank])
 *
 * Reading checks every field against what running relies on (slots,
 * callees, kinds, ranks, views inside their buffers where the size is
 * known), so that bytes serialize() did not write are an error, never a
 * crash. Integrity (a flipped bit in a valid field) is the container's
 * checksum's job.
 *
 *===----------------------------------------------------------------------===*/

#include "../common/error.h"
#include "../common/reader.h"
#include "kiln_rt/kiln_rt_blas.h"
#include "program_internal.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { KILN_PROGRAM_VERSION = 1 };
/* Larger counts are corrupt, not programs (an unrolled network has
 * thousands of steps, not billions). */
#define KILN_MAX_COUNT (UINT64_C(1) << 28)
#define KILN_MAX_RANK 16

static kiln_rt_status corrupt(const char *what) {
  return kiln_rt_fail(KILN_RT_INVALID_ARGUMENT, "corrupt host program: %s",
                      what);
}

/* A growable array of `size`-byte items. */
typedef struct growable {
  void *data;
  size_t count, capacity, item;
} growable;

static void *grow(growable *array, size_t more) {
  if (array->count + more > array->capacity) {
    size_t capacity = array->capacity ? array->capacity : 64;
    while (capacity < array->count + more)
      capacity *= 2;
    void *data = realloc(array->data, capacity * array->item);
    if (!data)
      return NULL;
    array->data = data;
    array->capacity = capacity;
  }
  void *at = (char *)array->data + array->count * array->item;
  array->count += more;
  return at;
}

/* The largest element index `view` reaches: -1 when it is empty; -2 for a
 * negative offset or stride, or on overflow. */
static int64_t last_element(int64_t offset, uint32_t rank, const int64_t *sizes,
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

static int read_names(kiln_reader *r, size_t *count_out, char ***names_out) {
  uint32_t count;
  if (!kiln_read_count(r, &count, KILN_MAX_COUNT))
    return 0;
  char **names = calloc(count ? count : 1, sizeof(char *));
  if (!names)
    return 0;
  *names_out = names;
  *count_out = count;
  for (uint32_t i = 0; i < count; ++i)
    if (!kiln_read_string(r, &names[i]) || names[i][0] == '\0')
      return 0;
  return 1;
}

void kiln_rt_program_destroy(kiln_rt_program *program) {
  if (!program)
    return;
  kiln_program_release_cuda(program);
  for (size_t i = 0; i < program->num_kernels; ++i)
    free(program->kernel_names ? program->kernel_names[i] : NULL);
  for (size_t i = 0; i < program->num_runtime_functions; ++i)
    free(program->runtime_names ? program->runtime_names[i] : NULL);
  free(program->kernel_names);
  free(program->runtime_names);
  for (size_t i = 0; i < program->num_constants; ++i)
    free(program->constants[i].data);
  free(program->constants);
  free(program->steps);
  free(program->views);
  free(program->dims);
  free(program->kernel_entries);
  free(program->runtime_entries);
  free(program->gemms);
  pthread_mutex_destroy(&program->cuda_mutex);
  free(program);
}

/* Reads the steps after the header: views into `views` and `dims` (as
 * indices until the arrays stop growing). */
static kiln_rt_status read_steps(kiln_reader *r, kiln_rt_program *p,
                                 int64_t *slot_bytes, char *defined) {
  uint32_t count;
  if (!kiln_read_count(r, &count, KILN_MAX_COUNT))
    return corrupt("bad step count");
  p->steps = calloc(count ? count : 1, sizeof(kiln_step));
  if (!p->steps)
    return kiln_rt_fail(KILN_RT_OUT_OF_MEMORY, "out of host memory");
  p->num_steps = count;
  growable views = {NULL, 0, 0, sizeof(kiln_view)};
  growable dims = {NULL, 0, 0, sizeof(int64_t)};
  /* Each step's first view and each view's first dim, as indices. */
  size_t *first_view = calloc(count ? count : 1, sizeof(size_t));
  growable first_dim = {NULL, 0, 0, sizeof(size_t)};
  kiln_rt_status status = KILN_RT_OK;
#define FAIL(what)                                                             \
  do {                                                                         \
    status = corrupt(what);                                                    \
    goto done;                                                                 \
  } while (0)
#define NO_MEMORY()                                                            \
  do {                                                                         \
    status = kiln_rt_fail(KILN_RT_OUT_OF_MEMORY, "out of host memory");        \
    goto done;                                                                 \
  } while (0)
  /* Never empty: no arithmetic on null pointers below. */
  if (!first_view || !grow(&views, 1) || !grow(&dims, 1))
    NO_MEMORY();
  views.count = dims.count = 0;
  for (uint32_t s = 0; s < count; ++s) {
    kiln_step *step = &p->steps[s];
    uint8_t kind;
    uint32_t num_views;
    if (!kiln_read_u8(r, &kind) || !kiln_read_i32(r, &step->slot) ||
        !kiln_read_i64(r, &step->bytes) || !kiln_read_i32(r, &step->callee))
      FAIL("truncated step");
    for (int i = 0; i < 3; ++i)
      if (!kiln_read_u32(r, &step->grid[i]))
        FAIL("truncated step");
    for (int i = 0; i < 3; ++i)
      if (!kiln_read_u32(r, &step->block[i]))
        FAIL("truncated step");
    if (kind > KILN_STEP_LAUNCH ||
        !kiln_read_count(r, &num_views, KILN_MAX_COUNT))
      FAIL("bad step");
    step->kind = kind;
    step->num_views = num_views;
    if (num_views > p->max_views)
      p->max_views = num_views;
    first_view[s] = views.count;
    uint64_t launch_words = 0;
    for (uint32_t v = 0; v < num_views; ++v) {
      kiln_view *view = grow(&views, 1);
      size_t *dim_index = grow(&first_dim, 1);
      if (!view || !dim_index)
        NO_MEMORY();
      *dim_index = dims.count;
      if (!kiln_read_i32(r, &view->slot) || !kiln_read_i64(r, &view->offset) ||
          !kiln_read_i64(r, &view->element_bytes) ||
          !kiln_read_u32(r, &view->rank) || view->rank > KILN_MAX_RANK)
        FAIL("bad view");
      int64_t *sizes = grow(&dims, 2 * (size_t)view->rank);
      if (!sizes && view->rank)
        NO_MEMORY();
      sizes = (int64_t *)dims.data + *dim_index;
      for (uint32_t d = 0; d < 2 * view->rank; ++d)
        if (!kiln_read_i64(r, &sizes[d]))
          FAIL("truncated view");
      int64_t eb = view->element_bytes;
      if (view->slot < 0 || view->slot >= p->num_slots ||
          !defined[view->slot] || (eb != 1 && eb != 2 && eb != 4 && eb != 8))
        FAIL("a view of an undefined buffer");
      int64_t last =
          last_element(view->offset, view->rank, sizes, sizes + view->rank);
      int64_t bytes = slot_bytes[view->slot];
      if (last == -2 || (bytes >= 0 && (last + 1) * eb > bytes))
        FAIL("a view outside its buffer");
      launch_words += 3 + 2 * (uint64_t)view->rank;
    }
    if (launch_words > p->max_launch_words)
      p->max_launch_words = (uint32_t)launch_words;
    const kiln_view *step_views = (const kiln_view *)views.data + first_view[s];
    switch (kind) {
    case KILN_STEP_ALLOC:
      if (step->slot < p->num_arguments || step->slot >= p->num_slots ||
          defined[step->slot] || step->bytes < 0 || num_views != 0)
        FAIL("bad allocation");
      defined[step->slot] = 1;
      slot_bytes[step->slot] = step->bytes;
      break;
    case KILN_STEP_FREE:
      if (step->slot < p->num_arguments || step->slot >= p->num_slots ||
          !defined[step->slot] || num_views != 0)
        FAIL("bad free");
      defined[step->slot] = 0;
      break;
    case KILN_STEP_KERNEL:
    case KILN_STEP_LAUNCH:
      if (step->callee < 0 || (size_t)step->callee >= p->num_kernels)
        FAIL("a call of an unknown kernel");
      if (kind == KILN_STEP_LAUNCH)
        p->has_launches = 1;
      else
        p->has_host_kernels = 1;
      break;
    case KILN_STEP_RUNTIME_CALL:
      if (step->callee < 0 ||
          (size_t)step->callee >= p->num_runtime_functions || num_views == 0 ||
          num_views > 4)
        FAIL("a bad runtime call");
      for (uint32_t v = 0; v < num_views; ++v)
        if (step_views[v].rank > KILN_MAX_CALL_RANK)
          FAIL("a bad runtime call");
      break;
    case KILN_STEP_COPY: {
      if (num_views != 2 || step_views[0].rank != step_views[1].rank ||
          step_views[0].element_bytes != step_views[1].element_bytes)
        FAIL("a bad copy");
      const int64_t *a = (const int64_t *)dims.data +
                         *((size_t *)first_dim.data + first_view[s]);
      const int64_t *b = (const int64_t *)dims.data +
                         *((size_t *)first_dim.data + first_view[s] + 1);
      if (memcmp(a, b, step_views[0].rank * sizeof(int64_t)) != 0)
        FAIL("a bad copy");
      break;
    }
    }
  }
  /* The arrays stopped growing: indices become pointers. */
  p->views = views.data;
  p->dims = dims.data;
  views.data = dims.data = NULL;
  for (size_t v = 0; v < first_dim.count; ++v) {
    kiln_view *view = &p->views[v];
    view->sizes = p->dims + ((size_t *)first_dim.data)[v];
    view->strides = view->sizes + view->rank;
  }
  for (uint32_t s = 0; s < count; ++s)
    p->steps[s].views = p->views + first_view[s];
done:
#undef FAIL
#undef NO_MEMORY
  free(views.data);
  free(dims.data);
  free(first_dim.data);
  free(first_view);
  return status;
}

kiln_rt_status kiln_rt_program_create(const void *bytes, size_t size,
                                      kiln_rt_program **out) {
  if (!out || (!bytes && size))
    return kiln_rt_fail(KILN_RT_INVALID_ARGUMENT,
                        "kiln_rt_program_create: null argument");
  *out = NULL;
  kiln_reader reader = {bytes, size, 0}, *r = &reader;
  uint16_t version;
  if (!kiln_read_magic(r, "KILNHP", 6) || !kiln_read_u16(r, &version))
    return corrupt("not a kiln host program");
  if (version != KILN_PROGRAM_VERSION)
    return kiln_rt_fail(KILN_RT_INVALID_ARGUMENT,
                        "corrupt host program: format version %u, expected %u",
                        (unsigned)version, (unsigned)KILN_PROGRAM_VERSION);
  kiln_rt_program *p = calloc(1, sizeof(kiln_rt_program));
  if (!p)
    return kiln_rt_fail(KILN_RT_OUT_OF_MEMORY, "out of host memory");
  pthread_mutex_init(&p->cuda_mutex, NULL);
  int64_t *slot_bytes = NULL;
  char *defined = NULL;
  kiln_rt_status status = KILN_RT_OK;
  if (!kiln_read_i32(r, &p->num_arguments) ||
      !kiln_read_i32(r, &p->num_slots) || p->num_arguments < 0 ||
      p->num_slots < p->num_arguments ||
      (uint64_t)p->num_slots > KILN_MAX_COUNT) {
    status = corrupt("bad slot counts");
    goto done;
  }
  if (!read_names(r, &p->num_kernels, &p->kernel_names) ||
      !read_names(r, &p->num_runtime_functions, &p->runtime_names)) {
    status = corrupt("bad name");
    goto done;
  }
  /* Buffer sizes in bytes where the program knows them (not arguments). */
  slot_bytes = malloc(((size_t)p->num_slots + 1) * sizeof(int64_t));
  defined = calloc((size_t)p->num_slots + 1, 1);
  if (!slot_bytes || !defined) {
    status = kiln_rt_fail(KILN_RT_OUT_OF_MEMORY, "out of host memory");
    goto done;
  }
  for (int32_t i = 0; i < p->num_slots; ++i)
    slot_bytes[i] = -1;
  memset(defined, 1, (size_t)p->num_arguments);
  uint32_t count;
  if (!kiln_read_count(r, &count, KILN_MAX_COUNT)) {
    status = corrupt("bad constant count");
    goto done;
  }
  p->constants = calloc(count ? count : 1, sizeof(kiln_constant));
  if (!p->constants) {
    status = kiln_rt_fail(KILN_RT_OUT_OF_MEMORY, "out of host memory");
    goto done;
  }
  p->num_constants = count;
  for (uint32_t i = 0; i < count; ++i) {
    kiln_constant *constant = &p->constants[i];
    uint64_t length;
    if (!kiln_read_i32(r, &constant->slot) || !kiln_read_u64(r, &length) ||
        length > kiln_reader_remaining(r) ||
        constant->slot < p->num_arguments || constant->slot >= p->num_slots ||
        defined[constant->slot]) {
      status = corrupt("bad constant");
      goto done;
    }
    constant->size = (size_t)length;
    constant->data = aligned_alloc(64, (constant->size + 63) / 64 * 64 + 64);
    if (!constant->data) {
      status = kiln_rt_fail(KILN_RT_OUT_OF_MEMORY, "out of host memory");
      goto done;
    }
    memcpy(constant->data, r->data + r->position, constant->size);
    r->position += constant->size;
    defined[constant->slot] = 1;
    slot_bytes[constant->slot] = (int64_t)constant->size;
  }
  status = read_steps(r, p, slot_bytes, defined);
  if (status == KILN_RT_OK && kiln_reader_remaining(r) != 0)
    status = corrupt("trailing bytes");
done:
  free(slot_bytes);
  free(defined);
  if (status != KILN_RT_OK) {
    kiln_rt_program_destroy(p);
    return status;
  }
  *out = p;
  return KILN_RT_OK;
}

int32_t kiln_rt_program_num_arguments(const kiln_rt_program *program) {
  return program->num_arguments;
}
int64_t kiln_rt_program_num_steps(const kiln_rt_program *program) {
  return (int64_t)program->num_steps;
}
size_t kiln_rt_program_num_kernels(const kiln_rt_program *program) {
  return program->num_kernels;
}
const char *kiln_rt_program_kernel_name(const kiln_rt_program *program,
                                        size_t index) {
  return index < program->num_kernels ? program->kernel_names[index] : NULL;
}
size_t kiln_rt_program_num_runtime_functions(const kiln_rt_program *program) {
  return program->num_runtime_functions;
}
int kiln_rt_program_has_launches(const kiln_rt_program *program) {
  return program->has_launches;
}
int kiln_rt_program_has_host_kernels(const kiln_rt_program *program) {
  return program->has_host_kernels;
}

kiln_rt_status kiln_rt_program_bind_cpu(kiln_rt_program *program,
                                        const kiln_rt_kernel_entry *kernels,
                                        size_t count) {
  if (!program || (count && !kernels))
    return kiln_rt_fail(KILN_RT_INVALID_ARGUMENT,
                        "kiln_rt_program_bind_cpu: null argument");
  if (program->has_launches)
    return kiln_rt_fail(KILN_RT_INVALID_ARGUMENT,
                        "the program launches GPU kernels: run it with "
                        "kiln_rt_program_run_cuda");
  if (count != program->num_kernels)
    return kiln_rt_fail(KILN_RT_INVALID_ARGUMENT,
                        "the program calls %zu kernels, %zu entry points given",
                        program->num_kernels, count);
  for (size_t i = 0; i < count; ++i)
    if (!kernels[i])
      return kiln_rt_fail(KILN_RT_INVALID_ARGUMENT,
                          "no entry point for kernel '%s'",
                          program->kernel_names[i]);
  size_t n = program->num_runtime_functions;
  void **runtime = calloc(n ? n : 1, sizeof(void *));
  kiln_rt_kernel_entry *entries =
      malloc((count ? count : 1) * sizeof(kiln_rt_kernel_entry));
  if (!runtime || !entries) {
    free(runtime);
    free(entries);
    return kiln_rt_fail(KILN_RT_OUT_OF_MEMORY, "out of host memory");
  }
  for (size_t i = 0; i < n; ++i) {
    runtime[i] = kiln_rt_blas_lookup(program->runtime_names[i]);
    if (!runtime[i]) {
      kiln_rt_status status =
          kiln_rt_fail(KILN_RT_INVALID_ARGUMENT,
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
  return KILN_RT_OK;
}

/* Copies a strided view into another of the same sizes, element by element
 * over the innermost dim (a memmove when both are contiguous there). */
static void copy_view(const kiln_view *from, char *from_base,
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
                                       kiln_rt_profile *profile) {
  if (!program || (count && !buffers))
    return kiln_rt_fail(KILN_RT_INVALID_ARGUMENT,
                        "kiln_rt_program_run_cpu: null argument");
  if (!program->kernel_entries)
    return kiln_rt_fail(KILN_RT_INVALID_ARGUMENT,
                        "the program is not bound to its kernels "
                        "(kiln_rt_program_bind_cpu)");
  if (count != (size_t)program->num_arguments)
    return kiln_rt_fail(KILN_RT_INVALID_ARGUMENT,
                        "the program takes %d buffers, %zu given",
                        program->num_arguments, count);
  size_t slots = (size_t)program->num_slots, views = program->max_views;
  /* One block: slot bases, the slots allocated in order, call scratch. */
  size_t scratch = slots * sizeof(char *) + slots * sizeof(int32_t) +
                   views * 2 * sizeof(void *) + views * sizeof(descriptor) +
                   sizeof(descriptor);
  char *block = malloc(scratch);
  if (!block)
    return kiln_rt_fail(KILN_RT_OUT_OF_MEMORY, "out of host memory");
  descriptor *descriptors = (descriptor *)block;
  void **pointers = (void **)(descriptors + views);
  void **packed = pointers + views;
  char **base = (char **)(packed + views);
  int32_t *allocated = (int32_t *)(base + slots);
  size_t num_allocated = 0;
  memset(base, 0, slots * sizeof(char *));
  for (size_t i = 0; i < count; ++i)
    base[i] = buffers[i];
  for (size_t i = 0; i < program->num_constants; ++i)
    base[program->constants[i].slot] = program->constants[i].data;
  kiln_rt_status status = KILN_RT_OK;
  double start = 0;
  for (size_t s = 0; s < program->num_steps; ++s) {
    const kiln_step *step = &program->steps[s];
    switch (step->kind) {
    case KILN_STEP_ALLOC:
      /* The runtime's buffer cache, as compiled host code uses it. */
      base[step->slot] = kiln_rt_buffer_alloc(64, (size_t)step->bytes);
      if (!base[step->slot]) {
        status = kiln_rt_fail(KILN_RT_OUT_OF_MEMORY,
                              "out of host memory: a buffer of %lld bytes "
                              "could not be allocated",
                              (long long)step->bytes);
        goto done;
      }
      allocated[num_allocated++] = step->slot;
      break;
    case KILN_STEP_FREE:
      _mlir_memref_to_llvm_free(base[step->slot]);
      base[step->slot] = NULL;
      /* Frees come in nearly allocation order: search from the back. */
      for (size_t i = num_allocated; i-- > 0;)
        if (allocated[i] == step->slot) {
          memmove(&allocated[i], &allocated[i + 1],
                  (num_allocated - i - 1) * sizeof(int32_t));
          --num_allocated;
          break;
        }
      break;
    case KILN_STEP_KERNEL:
      /* Kernels take one pointer per buffer, offset by the caller. */
      for (uint32_t i = 0; i < step->num_views; ++i) {
        const kiln_view *view = &step->views[i];
        pointers[i] = kiln_view_address(base[view->slot], view);
        packed[i] = &pointers[i];
      }
      if (profile)
        start = now_ns();
      program->kernel_entries[step->callee](packed);
      if (profile)
        record_call(profile, program->kernel_names[step->callee], start);
      break;
    case KILN_STEP_RUNTIME_CALL: {
      for (uint32_t i = 0; i < step->num_views; ++i) {
        const kiln_view *view = &step->views[i];
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
      if (profile && profile->on_call)
        start = now_ns();
      copy_view(&step->views[0], base[step->views[0].slot], &step->views[1],
                base[step->views[1].slot]);
      if (profile && profile->on_call)
        profile->on_call(profile->context, "copy", now_ns() - start);
      break;
    case KILN_STEP_LAUNCH:
      /* bind_cpu refuses programs with launches. */
      break;
    }
  }
done:
  /* What the steps allocated and did not free goes back. */
  for (size_t i = 0; i < num_allocated; ++i)
    _mlir_memref_to_llvm_free(base[allocated[i]]);
  free(block);
  return status;
}
