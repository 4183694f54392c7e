/*===- program_reader.c - reading and checking a host program's bytes -----===*
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
 * a run checks the views whose sizes it computes (program_sizes.c), so that
 * bytes serialize() did not write are an error, never a crash. Integrity (a
 * flipped bit in a valid field) is the container's checksum's job.
 *
 *===----------------------------------------------------------------------===*/

#include "../common/reader.h"
#include "../common/status.h"
#include "kiln_rt/kiln_rt_dist.h"
#include "program_internal.h"

#include <stdlib.h>
#include <string.h>

enum { KILN_PROGRAM_VERSION = 3 };
/* Larger counts are corrupt, not programs (an unrolled network has
 * thousands of steps, not billions). */
#define KILN_MAX_COUNT (UINT64_C(1) << 28)

static kiln_rt_status corrupt(const char *what) {
  return kiln_rt_status_make(KILN_RT_INVALID_ARGUMENT,
                             "corrupt host program: %s", what);
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
  free(program->alloc_offsets);
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
    return kiln_rt_status_make(KILN_RT_OUT_OF_MEMORY, "out of host memory");
  p->num_steps = count;
  growable views = {NULL, 0, 0, sizeof(kiln_view)};
  growable dims = {NULL, 0, 0, sizeof(int64_t)};
  /* Each step's first view and each view's first dim, as indices. */
  size_t *first_view = calloc(count ? count : 1, sizeof(size_t));
  growable first_dim = {NULL, 0, 0, sizeof(size_t)};
  /* Each collective request: 1 started, 2 waited for. */
  growable requests = {NULL, 0, 0, 1};
  kiln_rt_status status = KILN_RT_SUCCESS;
  int in_prologue = 1;
  uint32_t prologue_registers = p->num_registers;
#define FAIL(what)                                                             \
  do {                                                                         \
    status = corrupt(what);                                                    \
    goto done;                                                                 \
  } while (0)
#define NO_MEMORY()                                                            \
  do {                                                                         \
    status = kiln_rt_status_make(KILN_RT_OUT_OF_MEMORY, "out of host memory"); \
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
        int64_t last = kiln_last_element(view->offset, view->rank, sizes,
                                         sizes + view->rank);
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
          num_views > KILN_MAX_CALL_VIEWS)
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
    return kiln_rt_status_make(KILN_RT_OUT_OF_MEMORY, "out of host memory");
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
      return kiln_rt_status_make(KILN_RT_OUT_OF_MEMORY, "out of host memory");
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
  return KILN_RT_SUCCESS;
}

kiln_rt_status kiln_rt_program_create(const void *bytes, size_t size,
                                      kiln_rt_program **out) {
  if (!out || (!bytes && size))
    return kiln_rt_status_make(KILN_RT_INVALID_ARGUMENT,
                               "kiln_rt_program_create: null argument");
  *out = NULL;
  kiln_reader reader = {bytes, size, 0}, *r = &reader;
  uint16_t version;
  if (!kiln_read_magic(r, "KILNHP", 6) || !kiln_read_u16(r, &version))
    return corrupt("not a kiln host program");
  if (version != KILN_PROGRAM_VERSION)
    return kiln_rt_status_make(
        KILN_RT_INVALID_ARGUMENT,
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
    return kiln_rt_status_make(KILN_RT_OUT_OF_MEMORY, "out of host memory");
  pthread_mutex_init(&p->cuda_mutex, NULL);
  int64_t *slot_bytes = NULL;
  char *defined = NULL;
  kiln_rt_status status = KILN_RT_SUCCESS;
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
    status = kiln_rt_status_make(KILN_RT_OUT_OF_MEMORY, "out of host memory");
    goto done;
  }
  for (int32_t i = 0; i < p->num_slots; ++i)
    slot_bytes[i] = -1;
  memset(defined, 1, (size_t)p->num_arguments);
  status = read_arguments(r, p, slot_bytes);
  if (status)
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
    status = kiln_rt_status_make(KILN_RT_OUT_OF_MEMORY, "out of host memory");
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
      status = kiln_rt_status_make(KILN_RT_OUT_OF_MEMORY, "out of host memory");
      goto done;
    }
    memcpy(constant->data, r->data + r->position, constant->size);
    r->position += constant->size;
    defined[constant->slot] = 1;
    slot_bytes[constant->slot] = (int64_t)constant->size;
  }
  status = read_steps(r, p, slot_bytes, defined);
  if (!status && kiln_reader_remaining(r) != 0)
    status = corrupt("trailing bytes");
  if (!status)
    status = kiln_program_plan_memory(p);
done:
  free(slot_bytes);
  free(defined);
  if (status) {
    kiln_rt_program_destroy(p);
    return status;
  }
  *out = p;
  return KILN_RT_SUCCESS;
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
