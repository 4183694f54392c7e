/*===- program_dist.c - a host program's collective steps -----------------===*
 *
 * A collective step takes its operand and result as views. MPI takes
 * contiguous buffers, so a strided view is packed into (or unpacked from)
 * a contiguous one around the call. Before its first collective, a program
 * checks that every rank runs the same one; a program with dynamic dims
 * checks at each run, its dims included.
 *
 *===----------------------------------------------------------------------===*/

#include "../common/status.h"
#include "kiln_rt/kiln_rt_dist.h"
#include "program_internal.h"

#include <stdatomic.h>
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

/* A static program checks once; one with dynamic dims once per run (its
 * dims are part of the hash), `*run_checked` saying whether it did. */
static kiln_rt_status check_ranks(const kiln_rt_program *program,
                                  const int64_t *input_dims, int kind,
                                  int64_t group, int *run_checked) {
  int dynamic =
      program->num_input_dims && input_dims && program->num_dynamic_dims;
  if (dynamic ? *run_checked : atomic_load(program->ranks_checked))
    return KILN_RT_SUCCESS;
  uint64_t hash = program->hash;
  for (size_t i = 0; dynamic && i < program->num_input_dims; ++i)
    hash = (hash ^ (uint64_t)input_dims[i]) * 1099511628211ull;
  kiln_rt_status status =
      kiln_rt_dist_check_program(group, hash, kind_names[kind]);
  if (!status && !dynamic)
    atomic_store(program->ranks_checked, 1);
  if (!status)
    *run_checked = 1;
  return status;
}

struct kiln_program_request {
  kiln_rt_dist_request *dist;
  int kind;
  /* The result, contiguous, where its view is not (copied out at the
   * wait); the operand's contiguous copy, kept until then. */
  char *in_copy, *out_copy;
};

static void free_request(kiln_program_request *r) {
  free(r->in_copy);
  free(r->out_copy);
  free(r);
}

/* The failure of a collective, naming it. */
static kiln_rt_status fail_collective(kiln_rt_status status, int kind) {
  return kiln_rt_status_annotate(status, "%s", kind_names[kind]);
}

/* Checks a collective step against the ranks (its sizes, and that every
 * rank runs this program), and describes it in `*c`, pointers aside. */
static kiln_rt_status describe(const kiln_rt_program *program,
                               const kiln_step *step, const kiln_view *in,
                               const kiln_view *out, const int64_t *input_dims,
                               int *run_checked, kiln_rt_dist_collective *c) {
  int kind = step->callee;
  const char *name = kind_names[kind];
  kiln_rt_status status = kiln_rt_dist_init();
  if (status)
    return status;
  int ranks = kiln_rt_dist_group_size(step->rhs);
  if (ranks < 0)
    return kiln_rt_status_make(
        KILN_RT_INVALID_ARGUMENT,
        "%s: group %lld is not a communicator (0 is the world; "
        "kiln_rt_dist_group_create makes others)",
        name, (long long)step->rhs);
  if (kiln_rt_dist_group_rank(step->rhs) < 0)
    return kiln_rt_status_make(KILN_RT_INVALID_ARGUMENT,
                               "%s: rank %d is not in group %lld", name,
                               kiln_rt_dist_rank(), (long long)step->rhs);
  /* The part each rank contributes or keeps, and the whole. */
  const kiln_view *part = kind == KILN_RT_DIST_REDUCE_SCATTER ? out : in;
  const kiln_view *whole = kind == KILN_RT_DIST_REDUCE_SCATTER ? in : out;
  uint32_t dim = kind == KILN_RT_DIST_ALL_REDUCE ? 0 : (uint32_t)step->lhs;
  for (uint32_t d = 0; d < in->rank; ++d) {
    int64_t expected = part->sizes[d];
    if (kind != KILN_RT_DIST_ALL_REDUCE && d == dim)
      expected *= ranks;
    if (whole->sizes[d] != expected)
      return kiln_rt_status_make(
          KILN_RT_INVALID_ARGUMENT,
          "%s: the %s is %lld at dim %u, where %d rank(s) make %lld (was the "
          "program compiled for another number of ranks?)",
          name, kind == KILN_RT_DIST_REDUCE_SCATTER ? "operand" : "result",
          (long long)whole->sizes[d], d, ranks, (long long)expected);
  }
  /* A graph capture checks nothing: its launches do (every rank runs each
   * of its runs once, graph or not, but captures when it needs to). */
  status = run_checked
               ? check_ranks(program, input_dims, kind, step->rhs, run_checked)
               : 0;
  if (status)
    return status;
  memset(c, 0, sizeof(*c));
  c->kind = (kiln_rt_dist_kind)kind;
  c->reduction = (kiln_rt_dist_reduction)step->op;
  c->dtype = in->element_bytes == 8 ? KILN_RT_DIST_F64 : KILN_RT_DIST_F32;
  c->group = step->rhs;
  c->outer = count_of(part, 0, dim);
  c->inner = count_of(part, dim, part->rank);
  return KILN_RT_SUCCESS;
}

kiln_rt_status kiln_program_collective_start(
    const kiln_rt_program *program, const kiln_step *step, const kiln_view *in,
    char *in_base, const kiln_view *out, char *out_base,
    const int64_t *input_dims, int *run_checked,
    kiln_program_request **request) {
  int kind = step->callee;
  const char *name = kind_names[kind];
  if (request)
    *request = NULL;
  kiln_rt_dist_collective collective;
  kiln_rt_status status =
      describe(program, step, in, out, input_dims, run_checked, &collective);
  if (status)
    return status;

  kiln_program_request *r = calloc(1, sizeof(*r));
  if (!r)
    return kiln_rt_status_make(KILN_RT_OUT_OF_MEMORY, "%s: out of host memory",
                               name);
  r->kind = kind;
  int64_t bytes = in->element_bytes;
  int64_t in_count = count_of(in, 0, in->rank);
  int64_t out_count = count_of(out, 0, out->rank);
  char *in_data = kiln_view_address(in_base, in);
  char *out_data = kiln_view_address(out_base, out);
  if (in_count && !kiln_view_is_dense(in)) {
    int64_t strides[KILN_MAX_RANK];
    kiln_view packed = contiguous_like(in, strides);
    r->in_copy = malloc((size_t)(in_count * bytes));
    if (r->in_copy)
      kiln_program_copy_view(in, in_base, &packed, r->in_copy);
    in_data = r->in_copy;
  }
  if (out_count && !kiln_view_is_dense(out))
    out_data = r->out_copy = malloc((size_t)(out_count * bytes));
  if ((in_count && !in_data) || (out_count && !out_data)) {
    free_request(r);
    return kiln_rt_status_make(KILN_RT_OUT_OF_MEMORY, "%s: out of host memory",
                               name);
  }
  collective.input = in_data;
  collective.output = out_data;
  status = kiln_rt_dist_start(&collective, &r->dist);
  if (status) {
    free_request(r);
    return fail_collective(status, kind);
  }
  /* Without overlap (or a wait step), it ends where it starts. */
  if (!request || !kiln_rt_dist_overlap()) {
    status = kiln_rt_dist_wait(r->dist);
    r->dist = NULL;
    if (status) /* its copies may still be MPI's: kept */
      return fail_collective(status, kind);
  }
  if (!request)
    return kiln_program_collective_wait(r, out, out_base);
  *request = r;
  return KILN_RT_SUCCESS;
}

kiln_rt_status kiln_program_collective_wait(kiln_program_request *r,
                                            const kiln_view *out,
                                            char *out_base) {
  if (!r)
    return kiln_rt_status_make(KILN_RT_INTERNAL, "a wait for no collective");
  kiln_rt_status status = KILN_RT_SUCCESS;
  if (r->dist) {
    status = kiln_rt_dist_wait(r->dist);
    r->dist = NULL;
  }
  if (!status && out && r->out_copy) {
    int64_t strides[KILN_MAX_RANK];
    kiln_view packed = contiguous_like(out, strides);
    kiln_program_copy_view(&packed, r->out_copy, out, out_base);
  }
  int kind = r->kind;
  /* A collective that did not end may still write its copies: kept. */
  if (!status)
    free_request(r);
  return fail_collective(status, kind);
}

kiln_rt_status kiln_program_collective_progress(kiln_program_request *r,
                                                int *finished) {
  *finished = !r || !r->dist || kiln_rt_dist_finished(r->dist);
  if (*finished)
    return KILN_RT_SUCCESS;
  kiln_rt_status status = kiln_rt_dist_progress(r->dist);
  *finished = kiln_rt_dist_finished(r->dist);
  return fail_collective(status, r->kind);
}

kiln_rt_status kiln_program_collective_check_run(const kiln_rt_program *program,
                                                 const int64_t *input_dims) {
  if (!program->has_collectives)
    return KILN_RT_SUCCESS;
  KILN_RT_RETURN_IF_ERROR(kiln_rt_dist_init());
  /* As a direct run checks: at its first collective, over its group. */
  const kiln_step *first = program->steps;
  while (first->kind != KILN_STEP_COLLECTIVE)
    ++first;
  int run_checked = 0;
  return check_ranks(program, input_dims, first->callee, first->rhs,
                     &run_checked);
}

kiln_rt_status kiln_program_collective_cuda_describe(
    const kiln_rt_program *program, const kiln_step *step, const kiln_view *in,
    void *in_base, const kiln_view *out, void *out_base,
    const int64_t *input_dims, int *run_checked, kiln_rt_dist_collective *c) {
  int kind = step->callee;
  if (!kiln_view_is_dense(in) || !kiln_view_is_dense(out))
    return kiln_rt_status_make(
        KILN_RT_INVALID_ARGUMENT,
        "%s: the cuda backend runs collectives on dense views "
        "only",
        kind_names[kind]);
  KILN_RT_RETURN_IF_ERROR(
      describe(program, step, in, out, input_dims, run_checked, c));
  c->input = kiln_view_address(in_base, in);
  c->output = kiln_view_address(out_base, out);
  return KILN_RT_SUCCESS;
}

kiln_rt_status
kiln_program_collective_cuda_start(const kiln_rt_dist_collective *c,
                                   kiln_rt_cuda_stream *stream,
                                   kiln_rt_dist_nccl_request **request) {
  kiln_rt_status status = kiln_rt_dist_nccl_start(c, stream, request);
  return fail_collective(status, c->kind);
}

kiln_rt_status
kiln_program_collective_cuda_wait(int kind, kiln_rt_dist_nccl_request *request,
                                  kiln_rt_cuda_stream *stream) {
  kiln_rt_status status = kiln_rt_dist_nccl_wait(request, stream);
  return fail_collective(status, kind);
}
