/*===- program_sizes.c - a run's sizes: registers, checks, views ----------===*
 *
 * What every executor computes before and between its steps: the inputs'
 * dims into registers, index and check steps, and the views whose sizes
 * are registers, resolved and checked to lie inside their buffers.
 *
 *===----------------------------------------------------------------------===*/

#include "../common/status.h"
#include "program_internal.h"

#include <stdlib.h>

kiln_rt_status kiln_program_resolve_step(const kiln_rt_program *program,
                                         const kiln_step *step,
                                         const kiln_sizes *sizes,
                                         kiln_view *resolved, int64_t *dims,
                                         const kiln_view **views) {
  for (uint32_t i = 0; i < step->num_views; ++i) {
    KILN_RT_RETURN_IF_ERROR(kiln_program_resolve_view(
        &step->views[i], sizes, &resolved[i],
        dims + (size_t)i * 2 * program->max_rank, &views[i]));
  }
  return KILN_RT_SUCCESS;
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
      return kiln_rt_status_make(KILN_RT_INVALID_ARGUMENT,
                                 "%s differ: %lld and %lld", step->message,
                                 (long long)b, (long long)a);
    if (step->op == KILN_CHECK_AT_MOST && a > b)
      return kiln_rt_status_make(KILN_RT_INVALID_ARGUMENT, "%s: %lld > %lld",
                                 step->message, (long long)a, (long long)b);
    return KILN_RT_SUCCESS;
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
      return kiln_rt_status_make(KILN_RT_INVALID_ARGUMENT,
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
    return kiln_rt_status_make(KILN_RT_INVALID_ARGUMENT,
                               "a size of the program overflows: %lld and %lld",
                               (long long)a, (long long)b);
  sizes->registers[step->slot] = value;
  return KILN_RT_SUCCESS;
}

kiln_rt_status kiln_program_begin(const kiln_rt_program *program,
                                  const int64_t *input_dims,
                                  kiln_sizes *sizes) {
  if (program->num_dynamic_dims && !input_dims)
    return kiln_rt_status_make(KILN_RT_INVALID_ARGUMENT,
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
        return kiln_rt_status_make(KILN_RT_INVALID_ARGUMENT,
                                   "input #%d: dim %u has a negative size %lld",
                                   i, d, (long long)given);
      if (dim >= 0 && given != dim)
        return kiln_rt_status_make(
            KILN_RT_INVALID_ARGUMENT,
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
    KILN_RT_RETURN_IF_ERROR(
        kiln_program_size_step(program, &program->steps[s], sizes));
  }
  for (int32_t i = 0; i < program->num_arguments; ++i) {
    const kiln_argument *argument = &program->arguments[i];
    int64_t bytes = argument->element_bytes;
    for (uint32_t d = 0; d < argument->rank; ++d) {
      int64_t dim = kiln_operand(sizes->registers, argument->dims[d]);
      if (dim < 0)
        return kiln_rt_status_make(
            KILN_RT_INVALID_ARGUMENT,
            "result #%d: dim %u has no valid size for these "
            "inputs (%lld)",
            i - program->num_inputs, d, (long long)dim);
      if (__builtin_mul_overflow(bytes, dim, &bytes))
        return kiln_rt_status_make(KILN_RT_INVALID_ARGUMENT,
                                   "argument #%d is too large", i);
    }
    sizes->slot_bytes[i] = bytes;
  }
  for (size_t i = 0; i < program->num_constants; ++i)
    sizes->slot_bytes[program->constants[i].slot] =
        (int64_t)program->constants[i].size;
  return KILN_RT_SUCCESS;
}

kiln_rt_status kiln_program_resolve_view(const kiln_view *view,
                                         const kiln_sizes *sizes,
                                         kiln_view *out, int64_t *dims,
                                         const kiln_view **resolved) {
  if (!view->dynamic) {
    *resolved = view;
    return KILN_RT_SUCCESS;
  }
  *out = *view;
  out->offset = kiln_operand(sizes->registers, view->offset);
  for (uint32_t d = 0; d < 2 * view->rank; ++d)
    dims[d] = kiln_operand(sizes->registers, view->sizes[d]);
  out->sizes = dims;
  out->strides = dims + view->rank;
  out->dynamic = 0;
  int64_t last =
      kiln_last_element(out->offset, out->rank, out->sizes, out->strides);
  int64_t bytes = sizes->slot_bytes[view->slot];
  if (last == -2 || bytes < 0 || last >= bytes / view->element_bytes)
    return kiln_rt_status_make(
        KILN_RT_INVALID_ARGUMENT,
        "the program's sizes disagree: a view reaches past "
        "its %lld-byte buffer",
        (long long)bytes);
  *resolved = out;
  return KILN_RT_SUCCESS;
}

kiln_rt_status kiln_rt_program_result_dims(const kiln_rt_program *program,
                                           const int64_t *input_dims,
                                           int64_t *result_dims) {
  if (!program || !result_dims)
    return kiln_rt_status_make(KILN_RT_INVALID_ARGUMENT,
                               "kiln_rt_program_result_dims: null argument");
  int64_t *words = malloc((kiln_program_sizes_words(program) + 1) * 8);
  if (!words)
    return kiln_rt_status_make(KILN_RT_OUT_OF_MEMORY, "out of host memory");
  kiln_sizes sizes = {words, words + program->num_registers};
  kiln_rt_status status = kiln_program_begin(program, input_dims, &sizes);
  size_t k = 0;
  for (int32_t i = program->num_inputs; !status && i < program->num_arguments;
       ++i)
    for (uint32_t d = 0; d < program->arguments[i].rank; ++d)
      result_dims[k++] =
          kiln_operand(sizes.registers, program->arguments[i].dims[d]);
  free(words);
  return status;
}
