/*===- program_dist.c - a host program's collective steps -----------------===*
 *
 * A collective step takes its operand and result as views. MPI takes
 * contiguous buffers, so a strided view is packed into (or unpacked from)
 * a contiguous one around the call. Before its first collective, a program
 * checks that every rank runs the same one; a program with dynamic dims
 * checks at each run, its dims included.
 *
 *===----------------------------------------------------------------------===*/

#include "../common/error.h"
#include "kiln_rt/kiln_rt_dist.h"
#include "program_internal.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const kind_names[] = {"kiln.all_reduce", "kiln.all_gather",
                                         "kiln.reduce_scatter"};

static int64_t count_of(const kiln_view *view, uint32_t from, uint32_t to) {
  int64_t count = 1;
  for (uint32_t d = from; d < to; ++d)
    count *= view->sizes[d];
  return count;
}

/* `view`'s sizes as a contiguous view of its own buffer. */
static kiln_view contiguous_like(const kiln_view *view, int64_t *strides) {
  kiln_view packed = *view;
  packed.offset = 0;
  int64_t stride = 1;
  for (uint32_t d = view->rank; d-- > 0;) {
    strides[d] = stride;
    stride *= view->sizes[d];
  }
  packed.strides = strides;
  return packed;
}

static kiln_rt_status check_ranks(const kiln_rt_program *program,
                                  const int64_t *input_dims, int kind) {
  int dynamic =
      program->num_input_dims && input_dims && program->num_dynamic_dims;
  if (!dynamic && atomic_load(program->ranks_checked))
    return KILN_RT_OK;
  uint64_t hash = program->hash;
  for (size_t i = 0; dynamic && i < program->num_input_dims; ++i)
    hash = (hash ^ (uint64_t)input_dims[i]) * 1099511628211ull;
  kiln_rt_status status = kiln_rt_dist_check_program(hash, kind_names[kind]);
  if (status == KILN_RT_OK && !dynamic)
    atomic_store(program->ranks_checked, 1);
  return status;
}

kiln_rt_status kiln_program_collective(const kiln_rt_program *program,
                                       const kiln_step *step,
                                       const kiln_view *in, char *in_base,
                                       const kiln_view *out, char *out_base,
                                       const int64_t *input_dims) {
  int kind = step->callee;
  const char *name = kind_names[kind];
  kiln_rt_status status = kiln_rt_dist_init();
  if (status)
    return status;
  int ranks = kiln_rt_dist_size();
  /* The part each rank contributes or keeps, and the whole. */
  const kiln_view *part = kind == KILN_RT_DIST_REDUCE_SCATTER ? out : in;
  const kiln_view *whole = kind == KILN_RT_DIST_REDUCE_SCATTER ? in : out;
  uint32_t dim = kind == KILN_RT_DIST_ALL_REDUCE ? 0 : (uint32_t)step->lhs;
  for (uint32_t d = 0; d < in->rank; ++d) {
    int64_t expected = part->sizes[d];
    if (kind != KILN_RT_DIST_ALL_REDUCE && d == dim)
      expected *= ranks;
    if (whole->sizes[d] != expected)
      return kiln_rt_fail(
          KILN_RT_INVALID_ARGUMENT,
          "%s: the %s is %lld at dim %u, where %d rank(s) make %lld (was the "
          "program compiled for another number of ranks?)",
          name, kind == KILN_RT_DIST_REDUCE_SCATTER ? "operand" : "result",
          (long long)whole->sizes[d], d, ranks, (long long)expected);
  }
  status = check_ranks(program, input_dims, kind);
  if (status)
    return status;

  int64_t bytes = in->element_bytes;
  int64_t in_strides[KILN_MAX_RANK], out_strides[KILN_MAX_RANK];
  kiln_view in_packed = contiguous_like(in, in_strides);
  kiln_view out_packed = contiguous_like(out, out_strides);
  int64_t in_count = count_of(in, 0, in->rank);
  int64_t out_count = count_of(out, 0, out->rank);
  char *in_data = kiln_view_address(in_base, in);
  char *out_data = kiln_view_address(out_base, out);
  char *in_copy = NULL, *out_copy = NULL;
  if (in_count && !kiln_view_is_dense(in)) {
    in_copy = malloc((size_t)(in_count * bytes));
    if (!in_copy)
      return kiln_rt_fail(KILN_RT_OUT_OF_MEMORY, "%s: out of host memory",
                          name);
    kiln_program_copy_view(in, in_base, &in_packed, in_copy);
    in_data = in_copy;
  }
  if (out_count && !kiln_view_is_dense(out)) {
    out_copy = malloc((size_t)(out_count * bytes));
    if (!out_copy) {
      free(in_copy);
      return kiln_rt_fail(KILN_RT_OUT_OF_MEMORY, "%s: out of host memory",
                          name);
    }
    out_data = out_copy;
  }
  kiln_rt_dist_collective collective = {
      .kind = (kiln_rt_dist_kind)kind,
      .reduction = (kiln_rt_dist_reduction)step->op,
      .dtype = bytes == 8 ? KILN_RT_DIST_F64 : KILN_RT_DIST_F32,
      .group = step->rhs,
      .outer = count_of(part, 0, dim),
      .inner = count_of(part, dim, part->rank),
      .input = in_data,
      .output = out_data,
  };
  status = kiln_rt_dist_run(&collective);
  if (status == KILN_RT_OK && out_copy)
    kiln_program_copy_view(&out_packed, out_copy, out, out_base);
  free(in_copy);
  free(out_copy);
  if (status) {
    char why[768];
    snprintf(why, sizeof(why), "%s", kiln_rt_last_error());
    return kiln_rt_fail(status, "%s: %s", name, why);
  }
  return KILN_RT_OK;
}
