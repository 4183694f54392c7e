/*===- program.c - reading a host program, and running it on the CPU ------===*
 *
 * The bytes (lib/Compiler/Cache/HostProgramFormat.cpp writes them),
 * little-endian, fixed-width fields:
 *
 *   "KILNHP" u16 version
 *   i32 numArguments, i32 numInputs, i32 numSlots
 *   arguments: i64 elementBytes, u32 rank, i64 dims[rank]
 *   u32 count, names (u32 length, bytes)        kernels
 *   u32 count, names                            runtime functions
 *   u32 count, constants (i32 slot, u64 size, bytes)
 *   u32 count, steps:
 *     u8 kind, u8 op, i32 slot, i64 bytes, i32 callee, i64 grid[3],
 *     u32 block[3], i64 lhs, i64 rhs, [check: u32 length, message]
 *     u32 count, views (i32 slot, u8 passing, i64 offset, i64 elementBytes,
 *                       u32 rank, i64 sizes[rank], i64 strides[rank])
 *
 * Dims, bytes, grids, offsets, sizes and strides are operands
 * (program_internal.h): a value, or a register that holds a size known only
 * at run time. An input's dynamic dim defines the next register; an index
 * step defines the next one from earlier ones; a result's dims are computed
 * by the steps that come first (the prologue of index and check steps).
 *
 * Reading checks every field against what running relies on (slots,
 * registers, callees, kinds, ranks, static views inside their buffers), and
 * a run checks the views whose sizes it computes, so that bytes serialize()
 * did not write are an error, never a crash. Integrity (a flipped bit in a
 * valid field) is the container's checksum's job.
 *
 *===----------------------------------------------------------------------===*/

#include "../common/error.h"
#include "../common/reader.h"
#include "kiln_rt/kiln_rt_blas.h"
#include "kiln_rt/kiln_rt_dist.h"
#include "program_internal.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { KILN_PROGRAM_VERSION = 3 };
/* How often a run lets its collectives under way progress, at most. */
#define KILN_POLL_NS 20000.0
/* Larger counts are corrupt, not programs (an unrolled network has
 * thousands of steps, not billions). */
#define KILN_MAX_COUNT (UINT64_C(1) << 28)

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
  free((void *)program->ranks_checked);
  for (size_t i = 0; i < program->num_constants; ++i)
    free(program->constants[i].data);
  free(program->constants);
  for (size_t i = 0; program->steps && i < program->num_steps; ++i)
    free(program->steps[i].message);
  free(program->steps);
  free(program->views);
  free(program->dims);
  for (int32_t i = 0; program->arguments && i < program->num_arguments; ++i)
    free(program->arguments[i].dims);
  free(program->arguments);
  free(program->kernel_entries);
  free(program->runtime_entries);
  free(program->gemms);
  pthread_mutex_destroy(&program->cuda_mutex);
  free(program);
}

/* Whether `operand` is a value, or one of the `defined` registers. */
static int valid_operand(int64_t operand, uint32_t defined) {
  return operand >= 0 || (uint64_t)(-(operand + 1)) < defined;
}

/* The bytes of `count` elements of `element_bytes` and `rank` static dims;
 * -1 when one is a register, -2 on overflow. */
static int64_t static_bytes(int64_t element_bytes, uint32_t rank,
                            const int64_t *dims) {
  int64_t bytes = element_bytes;
  for (uint32_t d = 0; d < rank; ++d) {
    if (dims[d] < 0)
      return -1;
    if (__builtin_mul_overflow(bytes, dims[d], &bytes))
      return -2;
  }
  return bytes;
}

/* Reads the steps after the header: views into `views` and `dims` (as
 * indices until the arrays stop growing). `slot_bytes` holds each slot's
 * static size (-1 when computed at run time). */
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
  /* Each collective request: 1 started, 2 waited for. */
  growable requests = {NULL, 0, 0, 1};
  kiln_rt_status status = KILN_RT_OK;
  int in_prologue = 1;
  uint32_t prologue_registers = p->num_registers;
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
    if (!kiln_read_u8(r, &kind) || !kiln_read_u8(r, &step->op) ||
        !kiln_read_i32(r, &step->slot) || !kiln_read_i64(r, &step->bytes) ||
        !kiln_read_i32(r, &step->callee))
      FAIL("truncated step");
    for (int i = 0; i < 3; ++i)
      if (!kiln_read_i64(r, &step->grid[i]))
        FAIL("truncated step");
    for (int i = 0; i < 3; ++i)
      if (!kiln_read_u32(r, &step->block[i]))
        FAIL("truncated step");
    if (!kiln_read_i64(r, &step->lhs) || !kiln_read_i64(r, &step->rhs))
      FAIL("truncated step");
    if (kind == KILN_STEP_CHECK && !kiln_read_string(r, &step->message))
      FAIL("truncated step");
    if (kind > KILN_STEP_COLLECTIVE_WAIT ||
        !kiln_read_count(r, &num_views, KILN_MAX_COUNT))
      FAIL("bad step");
    step->kind = kind;
    step->num_views = num_views;
    uint32_t registers = p->num_registers;
    if (!valid_operand(step->bytes, registers) ||
        !valid_operand(step->lhs, registers) ||
        !valid_operand(step->rhs, registers))
      FAIL("an operand of an undefined register");
    step->dynamic = step->bytes < 0;
    for (int i = 0; i < 3; ++i) {
      if (!valid_operand(step->grid[i], registers) ||
          (kind == KILN_STEP_LAUNCH && step->grid[i] == 0))
        FAIL("a bad launch grid");
      step->dynamic |= step->grid[i] < 0;
    }
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
      if (!kiln_read_i32(r, &view->slot) || !kiln_read_u8(r, &view->passing) ||
          !kiln_read_i64(r, &view->offset) ||
          !kiln_read_i64(r, &view->element_bytes) ||
          !kiln_read_u32(r, &view->rank) || view->rank > KILN_MAX_RANK ||
          view->passing > KILN_PASS_DESCRIPTOR)
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
      int is_static = view->offset >= 0;
      if (!valid_operand(view->offset, registers))
        FAIL("an operand of an undefined register");
      for (uint32_t d = 0; d < 2 * view->rank; ++d) {
        if (!valid_operand(sizes[d], registers))
          FAIL("an operand of an undefined register");
        is_static &= sizes[d] >= 0;
      }
      int64_t bytes = slot_bytes[view->slot];
      if (is_static && bytes >= 0) {
        int64_t last =
            last_element(view->offset, view->rank, sizes, sizes + view->rank);
        if (last == -2 || last >= bytes / eb)
          FAIL("a view outside its buffer");
      } else {
        /* Checked when a run knows its sizes. */
        view->dynamic = 1;
        step->dynamic = 1;
      }
      if (view->rank > p->max_rank)
        p->max_rank = view->rank;
      launch_words += 3 + 2 * (uint64_t)view->rank;
    }
    if (launch_words > p->max_launch_words)
      p->max_launch_words = (uint32_t)launch_words;
    const kiln_view *step_views = (const kiln_view *)views.data + first_view[s];
    if (kind != KILN_STEP_INDEX && kind != KILN_STEP_CHECK && in_prologue) {
      in_prologue = 0;
      p->prologue_steps = s;
      prologue_registers = p->num_registers;
    }
    switch (kind) {
    case KILN_STEP_ALLOC:
      if (step->slot < p->num_arguments || step->slot >= p->num_slots ||
          defined[step->slot] || num_views != 0)
        FAIL("bad allocation");
      defined[step->slot] = 1;
      slot_bytes[step->slot] = step->bytes >= 0 ? step->bytes : -1;
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
      /* Sizes that differ as operands are compared at run time. */
      if (!step->dynamic &&
          memcmp(a, b, step_views[0].rank * sizeof(int64_t)) != 0)
        FAIL("a bad copy");
      break;
    }
    case KILN_STEP_INDEX:
      if (step->op > KILN_INDEX_MAX || num_views != 0 ||
          step->slot != (int32_t)p->num_registers ||
          p->num_registers >= KILN_MAX_COUNT)
        FAIL("a bad index step");
      ++p->num_registers;
      break;
    case KILN_STEP_CHECK:
      if (step->op > KILN_CHECK_AT_MOST || num_views != 0)
        FAIL("a bad check");
      break;
    case KILN_STEP_COLLECTIVE:
      if (step->callee < 0 || step->callee > KILN_RT_DIST_REDUCE_SCATTER ||
          step->op > KILN_RT_DIST_MAX || num_views != 2 || step->lhs < 0 ||
          step->rhs < 0 || step_views[0].rank != step_views[1].rank ||
          step_views[0].element_bytes != step_views[1].element_bytes ||
          (step_views[0].element_bytes != 4 &&
           step_views[0].element_bytes != 8) ||
          (step->callee != KILN_RT_DIST_ALL_REDUCE &&
           (uint64_t)step->lhs >= step_views[0].rank))
        FAIL("a bad collective");
      if (step->slot >= 0) {
        /* Requests are numbered in the order they start. */
        char *state = grow(&requests, 1);
        if (!state)
          NO_MEMORY();
        if ((uint32_t)step->slot != p->num_requests)
          FAIL("a bad collective");
        ((char *)requests.data)[p->num_requests++] = 1;
      } else if (step->slot != -1) {
        FAIL("a bad collective");
      }
      p->has_collectives = 1;
      break;
    case KILN_STEP_COLLECTIVE_WAIT:
      if (num_views != 2 || step->slot < 0 ||
          (uint32_t)step->slot >= p->num_requests ||
          ((char *)requests.data)[step->slot] != 1 ||
          step_views[0].rank != step_views[1].rank)
        FAIL("a bad wait for a collective");
      ((char *)requests.data)[step->slot] = 2;
      break;
    }
  }
  for (uint32_t i = 0; i < p->num_requests; ++i)
    if (((char *)requests.data)[i] != 2)
      FAIL("a collective never waited for");
  if (in_prologue) {
    p->prologue_steps = count;
    prologue_registers = p->num_registers;
  }
  /* The results' dims are known before the first step that runs. */
  for (int32_t i = p->num_inputs; i < p->num_arguments; ++i)
    for (uint32_t d = 0; d < p->arguments[i].rank; ++d)
      if (!valid_operand(p->arguments[i].dims[d], prologue_registers))
        FAIL("a result dim of an undefined register");
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
  free(requests.data);
  return status;
}

/* Reads the entry's arguments: each one's static size where it has one
 * into `slot_bytes`. */
static kiln_rt_status read_arguments(kiln_reader *r, kiln_rt_program *p,
                                     int64_t *slot_bytes) {
  p->arguments = calloc(p->num_arguments ? (size_t)p->num_arguments : 1,
                        sizeof(kiln_argument));
  if (!p->arguments)
    return kiln_rt_fail(KILN_RT_OUT_OF_MEMORY, "out of host memory");
  for (int32_t i = 0; i < p->num_arguments; ++i) {
    kiln_argument *argument = &p->arguments[i];
    int64_t eb;
    if (!kiln_read_i64(r, &eb) || !kiln_read_u32(r, &argument->rank) ||
        argument->rank > KILN_MAX_RANK ||
        (eb != 1 && eb != 2 && eb != 4 && eb != 8))
      return corrupt("bad argument");
    argument->element_bytes = eb;
    argument->dims = calloc(argument->rank ? argument->rank : 1, 8);
    if (!argument->dims)
      return kiln_rt_fail(KILN_RT_OUT_OF_MEMORY, "out of host memory");
    for (uint32_t d = 0; d < argument->rank; ++d) {
      int64_t dim;
      if (!kiln_read_i64(r, &dim))
        return corrupt("truncated argument");
      /* An input's dynamic dim defines the next register. */
      if (i < p->num_inputs && dim < 0) {
        if (dim != -1 - (int64_t)p->num_registers)
          return corrupt("bad input dim");
        ++p->num_registers;
        ++p->num_dynamic_dims;
      }
      argument->dims[d] = dim;
    }
    if (i < p->num_inputs)
      p->num_input_dims += argument->rank;
    slot_bytes[i] = static_bytes(eb, argument->rank, argument->dims);
    if (slot_bytes[i] == -2)
      return corrupt("an argument too large");
  }
  return KILN_RT_OK;
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
  if (p) {
    /* FNV-1a: the ranks of a job compare it before their collectives. */
    uint64_t hash = 14695981039346656037ull;
    for (size_t i = 0; i < size; ++i)
      hash = (hash ^ ((const unsigned char *)bytes)[i]) * 1099511628211ull;
    p->hash = hash;
    p->ranks_checked = calloc(1, sizeof(*p->ranks_checked));
  }
  if (p && !p->ranks_checked) {
    free(p);
    p = NULL;
  }
  if (!p)
    return kiln_rt_fail(KILN_RT_OUT_OF_MEMORY, "out of host memory");
  pthread_mutex_init(&p->cuda_mutex, NULL);
  int64_t *slot_bytes = NULL;
  char *defined = NULL;
  kiln_rt_status status = KILN_RT_OK;
  if (!kiln_read_i32(r, &p->num_arguments) ||
      !kiln_read_i32(r, &p->num_inputs) || !kiln_read_i32(r, &p->num_slots) ||
      p->num_arguments < 0 || p->num_inputs < 0 ||
      p->num_inputs > p->num_arguments || p->num_slots < p->num_arguments ||
      (uint64_t)p->num_slots > KILN_MAX_COUNT ||
      (uint64_t)p->num_arguments > kiln_reader_remaining(r)) {
    status = corrupt("bad slot counts");
    goto done;
  }
  /* Buffer sizes in bytes where the program knows them. */
  slot_bytes = malloc(((size_t)p->num_slots + 1) * sizeof(int64_t));
  defined = calloc((size_t)p->num_slots + 1, 1);
  if (!slot_bytes || !defined) {
    status = kiln_rt_fail(KILN_RT_OUT_OF_MEMORY, "out of host memory");
    goto done;
  }
  for (int32_t i = 0; i < p->num_slots; ++i)
    slot_bytes[i] = -1;
  memset(defined, 1, (size_t)p->num_arguments);
  status = read_arguments(r, p, slot_bytes);
  if (status != KILN_RT_OK)
    goto done;
  if (!read_names(r, &p->num_kernels, &p->kernel_names) ||
      !read_names(r, &p->num_runtime_functions, &p->runtime_names)) {
    status = corrupt("bad name");
    goto done;
  }
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

/* --- Sizes at run time ---------------------------------------------------- */

kiln_rt_status kiln_program_resolve_step(const kiln_rt_program *program,
                                         const kiln_step *step,
                                         const kiln_sizes *sizes,
                                         kiln_view *resolved, int64_t *dims,
                                         const kiln_view **views) {
  for (uint32_t i = 0; i < step->num_views; ++i) {
    kiln_rt_status status = kiln_program_resolve_view(
        &step->views[i], sizes, &resolved[i],
        dims + (size_t)i * 2 * program->max_rank, &views[i]);
    if (status != KILN_RT_OK)
      return status;
  }
  return KILN_RT_OK;
}

size_t kiln_program_sizes_words(const kiln_rt_program *program) {
  return (size_t)program->num_registers + (size_t)program->num_slots;
}

static int64_t floor_div(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

kiln_rt_status kiln_program_size_step(const kiln_rt_program *program,
                                      const kiln_step *step,
                                      kiln_sizes *sizes) {
  (void)program;
  int64_t a = kiln_operand(sizes->registers, step->lhs);
  int64_t b = kiln_operand(sizes->registers, step->rhs);
  if (step->kind == KILN_STEP_CHECK) {
    if (step->op == KILN_CHECK_EQUAL && a != b)
      return kiln_rt_fail(KILN_RT_INVALID_ARGUMENT, "%s differ: %lld and %lld",
                          step->message, (long long)b, (long long)a);
    if (step->op == KILN_CHECK_AT_MOST && a > b)
      return kiln_rt_fail(KILN_RT_INVALID_ARGUMENT, "%s: %lld > %lld",
                          step->message, (long long)a, (long long)b);
    return KILN_RT_OK;
  }
  int64_t value = 0;
  int overflow = 0;
  switch (step->op) {
  case KILN_INDEX_ADD:
    overflow = __builtin_add_overflow(a, b, &value);
    break;
  case KILN_INDEX_SUB:
    overflow = __builtin_sub_overflow(a, b, &value);
    break;
  case KILN_INDEX_MUL:
    overflow = __builtin_mul_overflow(a, b, &value);
    break;
  case KILN_INDEX_FLOOR_DIV:
  case KILN_INDEX_CEIL_DIV:
  case KILN_INDEX_REM:
    if (b == 0)
      return kiln_rt_fail(KILN_RT_INVALID_ARGUMENT,
                          "a size of the program divides by zero");
    if (a == INT64_MIN && b == -1) {
      overflow = 1;
      break;
    }
    if (step->op == KILN_INDEX_REM)
      value = a - floor_div(a, b) * b;
    else if (step->op == KILN_INDEX_FLOOR_DIV)
      value = floor_div(a, b);
    else
      value = -floor_div(-a, b);
    break;
  case KILN_INDEX_MIN:
    value = a < b ? a : b;
    break;
  default:
    value = a > b ? a : b;
    break;
  }
  if (overflow)
    return kiln_rt_fail(KILN_RT_INVALID_ARGUMENT,
                        "a size of the program overflows: %lld and %lld",
                        (long long)a, (long long)b);
  sizes->registers[step->slot] = value;
  return KILN_RT_OK;
}

kiln_rt_status kiln_program_begin(const kiln_rt_program *program,
                                  const int64_t *input_dims,
                                  kiln_sizes *sizes) {
  if (program->num_dynamic_dims && !input_dims)
    return kiln_rt_fail(KILN_RT_INVALID_ARGUMENT,
                        "the program has dynamic dims: a run needs the "
                        "inputs' dims");
  uint32_t next = 0;
  size_t k = 0;
  for (int32_t i = 0; i < program->num_inputs; ++i) {
    const kiln_argument *argument = &program->arguments[i];
    for (uint32_t d = 0; d < argument->rank; ++d) {
      int64_t dim = argument->dims[d];
      if (!input_dims)
        continue;
      int64_t given = input_dims[k++];
      if (given < 0)
        return kiln_rt_fail(KILN_RT_INVALID_ARGUMENT,
                            "input #%d: dim %u has a negative size %lld", i, d,
                            (long long)given);
      if (dim >= 0 && given != dim)
        return kiln_rt_fail(KILN_RT_INVALID_ARGUMENT,
                            "input #%d: dim %u has size %lld, the program "
                            "takes %lld",
                            i, d, (long long)given, (long long)dim);
      if (dim < 0)
        sizes->registers[next++] = given;
    }
  }
  for (int32_t i = 0; i < program->num_slots; ++i)
    sizes->slot_bytes[i] = -1;
  for (size_t s = 0; s < program->prologue_steps; ++s) {
    kiln_rt_status status =
        kiln_program_size_step(program, &program->steps[s], sizes);
    if (status != KILN_RT_OK)
      return status;
  }
  for (int32_t i = 0; i < program->num_arguments; ++i) {
    const kiln_argument *argument = &program->arguments[i];
    int64_t bytes = argument->element_bytes;
    for (uint32_t d = 0; d < argument->rank; ++d) {
      int64_t dim = kiln_operand(sizes->registers, argument->dims[d]);
      if (dim < 0)
        return kiln_rt_fail(KILN_RT_INVALID_ARGUMENT,
                            "result #%d: dim %u has no valid size for these "
                            "inputs (%lld)",
                            i - program->num_inputs, d, (long long)dim);
      if (__builtin_mul_overflow(bytes, dim, &bytes))
        return kiln_rt_fail(KILN_RT_INVALID_ARGUMENT,
                            "argument #%d is too large", i);
    }
    sizes->slot_bytes[i] = bytes;
  }
  for (size_t i = 0; i < program->num_constants; ++i)
    sizes->slot_bytes[program->constants[i].slot] =
        (int64_t)program->constants[i].size;
  return KILN_RT_OK;
}

kiln_rt_status kiln_program_resolve_view(const kiln_view *view,
                                         const kiln_sizes *sizes,
                                         kiln_view *out, int64_t *dims,
                                         const kiln_view **resolved) {
  if (!view->dynamic) {
    *resolved = view;
    return KILN_RT_OK;
  }
  *out = *view;
  out->offset = kiln_operand(sizes->registers, view->offset);
  for (uint32_t d = 0; d < 2 * view->rank; ++d)
    dims[d] = kiln_operand(sizes->registers, view->sizes[d]);
  out->sizes = dims;
  out->strides = dims + view->rank;
  out->dynamic = 0;
  int64_t last = last_element(out->offset, out->rank, out->sizes, out->strides);
  int64_t bytes = sizes->slot_bytes[view->slot];
  if (last == -2 || bytes < 0 || last >= bytes / view->element_bytes)
    return kiln_rt_fail(KILN_RT_INVALID_ARGUMENT,
                        "the program's sizes disagree: a view reaches past "
                        "its %lld-byte buffer",
                        (long long)bytes);
  *resolved = out;
  return KILN_RT_OK;
}

int32_t kiln_rt_program_num_arguments(const kiln_rt_program *program) {
  return program->num_arguments;
}
int32_t kiln_rt_program_num_inputs(const kiln_rt_program *program) {
  return program->num_inputs;
}
uint32_t kiln_rt_program_argument_rank(const kiln_rt_program *program,
                                       int32_t index) {
  return index >= 0 && index < program->num_arguments
             ? program->arguments[index].rank
             : 0;
}
int kiln_rt_program_is_dynamic(const kiln_rt_program *program) {
  return program->num_dynamic_dims != 0;
}

kiln_rt_status kiln_rt_program_result_dims(const kiln_rt_program *program,
                                           const int64_t *input_dims,
                                           int64_t *result_dims) {
  if (!program || !result_dims)
    return kiln_rt_fail(KILN_RT_INVALID_ARGUMENT,
                        "kiln_rt_program_result_dims: null argument");
  int64_t *words = malloc((kiln_program_sizes_words(program) + 1) * 8);
  if (!words)
    return kiln_rt_fail(KILN_RT_OUT_OF_MEMORY, "out of host memory");
  kiln_sizes sizes = {words, words + program->num_registers};
  kiln_rt_status status = kiln_program_begin(program, input_dims, &sizes);
  size_t k = 0;
  for (int32_t i = program->num_inputs;
       status == KILN_RT_OK && i < program->num_arguments; ++i)
    for (uint32_t d = 0; d < program->arguments[i].rank; ++d)
      result_dims[k++] =
          kiln_operand(sizes.registers, program->arguments[i].dims[d]);
  free(words);
  return status;
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
size_t kiln_rt_program_num_calls(const kiln_rt_program *program) {
  size_t calls = 0;
  for (size_t s = 0; s < program->num_steps; ++s)
    calls += program->steps[s].kind == KILN_STEP_LAUNCH ||
             program->steps[s].kind == KILN_STEP_RUNTIME_CALL;
  return calls;
}
int kiln_rt_program_has_launches(const kiln_rt_program *program) {
  return program->has_launches;
}
int kiln_rt_program_has_host_kernels(const kiln_rt_program *program) {
  return program->has_host_kernels;
}

int kiln_rt_program_has_collectives(const kiln_rt_program *program) {
  return program && program->has_collectives;
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
    return kiln_rt_fail(KILN_RT_OUT_OF_MEMORY, "out of host memory");
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
  double start = 0, last_poll = 0;
  uint32_t in_flight = 0;
  int run_checked = 0;
  for (size_t s = program->prologue_steps;
       s < program->num_steps && status == KILN_RT_OK; ++s) {
    const kiln_step *step = &program->steps[s];
    const kiln_view **v = view_pointers;
    if (step->kind == KILN_STEP_INDEX || step->kind == KILN_STEP_CHECK) {
      status = kiln_program_size_step(program, step, &sizes);
      continue;
    }
    status = kiln_program_resolve_step(program, step, &sizes, resolved_views,
                                       resolved_dims, view_pointers);
    if (status != KILN_RT_OK)
      break;
    switch (step->kind) {
    case KILN_STEP_ALLOC: {
      int64_t bytes = kiln_operand(sizes.registers, step->bytes);
      /* The runtime's buffer cache, as compiled host code uses it. */
      base[step->slot] =
          bytes < 0 ? NULL : kiln_rt_buffer_alloc(64, (size_t)bytes);
      if (!base[step->slot]) {
        status = kiln_rt_fail(KILN_RT_OUT_OF_MEMORY,
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
        status = kiln_rt_fail(KILN_RT_INVALID_ARGUMENT,
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
      in_flight += step->slot >= 0 && status == KILN_RT_OK;
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
    if (in_flight && status == KILN_RT_OK) {
      double now = now_ns();
      if (now - last_poll >= KILN_POLL_NS) {
        last_poll = now;
        int finished = 1;
        for (uint32_t i = 0;
             i < program->num_requests && finished && status == KILN_RT_OK; ++i)
          if (requests[i])
            status = kiln_program_collective_progress(requests[i], &finished);
      }
    }
  }
  /* A failed run ends its collectives before their buffers go back. */
  for (uint32_t i = 0; i < program->num_requests; ++i)
    if (requests[i])
      (void)kiln_program_collective_wait(requests[i], NULL, NULL);
  /* Unless one did not end: MPI may still write the run's buffers, which
   * stay allocated (the job is aborted when this process leaves it). */
  if (program->has_collectives && kiln_rt_dist_broken())
    num_allocated = 0;
  /* What the steps allocated and did not free goes back. */
  for (size_t i = 0; i < num_allocated; ++i)
    _mlir_memref_to_llvm_free(base[allocated[i]]);
  free(block);
  return status;
}
