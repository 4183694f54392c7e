/*===- collectives.c - the job's ranks and the collectives between them ---===*
 *
 * One world: MPI_COMM_WORLD where an MPI launcher started the process, a
 * single rank otherwise. A collective is a nonblocking MPI call; its wait
 * polls MPI_Test up to the deadline. A tensor of [outer][inner] gathered or
 * scattered along an inner dim (outer > 1) goes through a staging buffer of
 * [rank][outer][inner], which is what MPI's block collectives take.
 *
 *===----------------------------------------------------------------------===*/

#include "kiln_rt/kiln_rt_dist.h"

#include "../common/status.h"
#include "dist_internal.h"
#include "mpi.h"

#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t world_mutex = PTHREAD_MUTEX_INITIALIZER;
static kiln_mpi mpi;
static atomic_int initialized;
static int use_mpi, started_mpi, rank, size = 1;
/* Set when a collective failed: the peers may be stuck in it. */
static atomic_int broken;
static char broken_reason[512];

static atomic_uint_fast64_t stat_collectives, stat_bytes, stat_wait_ns,
    stat_busy_ns;

/* The communicators: 0 is the world; kiln_rt_dist_group_create adds the
 * others, numbered in the order every rank made them. A rank outside a
 * group has rank -1 in it. Made under world_mutex, then only read. */
typedef struct dist_group {
  kiln_mpi_handle comm;
  int size, rank;
} dist_group;
static dist_group groups[KILN_DIST_MAX_GROUPS];
static atomic_int num_groups;

static const dist_group *group_of(int64_t group) {
  return group >= 0 && group < atomic_load(&num_groups) ? &groups[group] : NULL;
}

struct kiln_rt_dist_request {
  kiln_rt_dist_collective collective;
  int ranks; /* of its group */
  kiln_mpi_handle handle;
  int done;
  /* [size][outer][inner], when outer > 1 (all_gather, reduce_scatter). */
  void *staging;
};

static double now_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

double kiln_dist_timeout_seconds(void) {
  const char *text = getenv("KILN_DIST_TIMEOUT_S");
  if (text && *text) {
    char *end = NULL;
    double value = strtod(text, &end);
    if (end && *end == '\0' && value > 0)
      return value;
  }
  return 300.0;
}

static int launched_by_mpi(void) {
  static const char *variables[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE",
                                    "PMIX_RANK", "MPI_LOCALNRANKS"};
  for (size_t i = 0; i < sizeof(variables) / sizeof(variables[0]); ++i)
    if (getenv(variables[i]))
      return 1;
  return 0;
}

static kiln_rt_status init_locked(void) {
  const char *mode = getenv("KILN_DIST");
  int want_mpi = launched_by_mpi();
  if (mode && !strcmp(mode, "none"))
    want_mpi = 0;
  else if (mode && !strcmp(mode, "mpi"))
    want_mpi = 1;
  else if (mode && *mode)
    return kiln_rt_status_make(
        KILN_RT_INVALID_ARGUMENT,
        "kiln_rt_dist_init: KILN_DIST=%s is neither mpi nor "
        "none",
        mode);
  if (!want_mpi) {
    rank = 0;
    size = 1;
    groups[0] = (dist_group){0, 1, 0};
    atomic_store(&num_groups, 1);
    return KILN_RT_SUCCESS;
  }
  KILN_RT_RETURN_IF_ERROR(kiln_mpi_load(&mpi));
  int flag = 0, code;
  if ((code = mpi.Finalized(&flag)))
    return kiln_mpi_fail(&mpi, "MPI_Finalized", code);
  if (flag)
    return kiln_rt_status_make(
        KILN_RT_UNAVAILABLE,
        "kiln_rt_dist_init: MPI was finalized in this process; "
        "it cannot join a job again");
  if ((code = mpi.Initialized(&flag)))
    return kiln_mpi_fail(&mpi, "MPI_Initialized", code);
  if (!flag) {
    int provided = 0;
    if ((code = mpi.Init_thread(NULL, NULL, mpi.thread_multiple, &provided)))
      return kiln_mpi_fail(&mpi, "MPI_Init_thread", code);
    started_mpi = 1;
  }
  if ((code = mpi.Comm_set_errhandler(mpi.comm_world, mpi.errors_return)))
    return kiln_mpi_fail(&mpi, "MPI_Comm_set_errhandler", code);
  if ((code = mpi.Comm_rank(mpi.comm_world, &rank)))
    return kiln_mpi_fail(&mpi, "MPI_Comm_rank", code);
  if ((code = mpi.Comm_size(mpi.comm_world, &size)))
    return kiln_mpi_fail(&mpi, "MPI_Comm_size", code);
  use_mpi = 1;
  groups[0] = (dist_group){mpi.comm_world, size, rank};
  atomic_store(&num_groups, 1);
  /* A program that exits without finalizing still leaves the job cleanly
   * (or aborts it after a failed collective). */
  static int registered;
  if (!registered && atexit(kiln_rt_dist_finalize) == 0)
    registered = 1;
  return KILN_RT_SUCCESS;
}

kiln_rt_status kiln_rt_dist_init(void) {
  if (atomic_load(&initialized))
    return KILN_RT_SUCCESS;
  pthread_mutex_lock(&world_mutex);
  kiln_rt_status status = KILN_RT_SUCCESS;
  if (!atomic_load(&initialized)) {
    status = init_locked();
    if (!status)
      atomic_store(&initialized, 1);
  }
  pthread_mutex_unlock(&world_mutex);
  return status;
}

int kiln_rt_dist_rank(void) { return atomic_load(&initialized) ? rank : 0; }
int kiln_rt_dist_size(void) { return atomic_load(&initialized) ? size : 1; }
const char *kiln_rt_dist_backend(void) {
  return atomic_load(&initialized) && use_mpi ? "mpi" : "none";
}

void kiln_rt_dist_finalize(void) {
  pthread_mutex_lock(&world_mutex);
  if (atomic_load(&initialized) && use_mpi) {
    int finalized = 0;
    mpi.Finalized(&finalized);
    if (!finalized && atomic_load(&broken)) {
      fflush(stdout);
      fprintf(stderr, "kiln: rank %d aborts the job: %s\n", rank,
              broken_reason);
      mpi.Abort(mpi.comm_world, 1);
    } else if (!finalized && started_mpi) {
      mpi.Finalize();
    }
  }
  atomic_store(&initialized, 0);
  atomic_store(&num_groups, 0);
  use_mpi = started_mpi = rank = 0;
  size = 1;
  pthread_mutex_unlock(&world_mutex);
}

void kiln_dist_abort_job(const char *reason) {
  fflush(stdout);
  fprintf(stderr, "kiln: rank %d aborts the job: %s\n", rank, reason);
  fflush(stderr);
  /* No lock: the thread that holds it may be the one that is stuck. */
  if (atomic_load(&initialized) && use_mpi) {
    /* The launcher forwards the ranks' output through pipes, and MPICH's
     * Hydra tears them down at the abort, dropping what it has not read
     * yet (the message above): give it a moment first. */
    struct timespec moment = {0, 200 * 1000 * 1000};
    nanosleep(&moment, NULL);
    mpi.Abort(mpi.comm_world, 1);
  }
  _exit(1);
}

/* Marks the world broken with `status`'s message, and returns `status`. */
static kiln_rt_status break_world(kiln_rt_status status) {
  pthread_mutex_lock(&world_mutex);
  if (!atomic_load(&broken)) {
    snprintf(broken_reason, sizeof(broken_reason), "%s",
             kiln_rt_status_message(status));
    atomic_store(&broken, 1);
  }
  pthread_mutex_unlock(&world_mutex);
  return status;
}

static size_t element_bytes(kiln_rt_dist_dtype dtype) {
  return dtype == KILN_RT_DIST_F64 ? 8 : 4;
}

static kiln_rt_status check_collective(const kiln_rt_dist_collective *c) {
  if (!atomic_load(&initialized))
    return kiln_rt_status_make(
        KILN_RT_UNAVAILABLE,
        "kiln_rt_dist: a collective before kiln_rt_dist_init");
  if (atomic_load(&broken))
    return kiln_rt_status_make(
        KILN_RT_UNAVAILABLE, "kiln_rt_dist: an earlier collective failed (%s)",
        broken_reason);
  const dist_group *g = group_of(c->group);
  if (!g)
    return kiln_rt_status_make(
        KILN_RT_INVALID_ARGUMENT,
        "kiln_rt_dist: group %lld is not a communicator (0 is "
        "the world; kiln_rt_dist_group_create makes others)",
        (long long)c->group);
  if (g->rank < 0)
    return kiln_rt_status_make(KILN_RT_INVALID_ARGUMENT,
                               "kiln_rt_dist: rank %d is not in group %lld",
                               rank, (long long)c->group);
  if ((unsigned)c->kind > KILN_RT_DIST_REDUCE_SCATTER ||
      (unsigned)c->reduction > KILN_RT_DIST_MAX ||
      (unsigned)c->dtype > KILN_RT_DIST_F64 || c->outer < 0 || c->inner < 0 ||
      (c->outer * c->inner > 0 && (!c->input || !c->output)))
    return kiln_rt_status_make(KILN_RT_INVALID_ARGUMENT,
                               "kiln_rt_dist: a bad collective");
  /* MPI counts are ints: an all_reduce passes its part, the others their
   * part times the ranks. */
  int64_t ranks = c->kind == KILN_RT_DIST_ALL_REDUCE ? 1 : g->size;
  if (c->outer > 0 && c->inner > (int64_t)INT_MAX / ranks / c->outer)
    return kiln_rt_status_make(
        KILN_RT_INVALID_ARGUMENT,
        "kiln_rt_dist: a collective of %lld x %lld elements "
        "over %d ranks is larger than MPI's int counts",
        (long long)c->outer, (long long)c->inner, g->size);
  return KILN_RT_SUCCESS;
}

/* Divides `count` elements at `data` by the number of ranks. */
static void divide_by_size(void *data, int64_t count, kiln_rt_dist_dtype dtype,
                           int ranks) {
  if (dtype == KILN_RT_DIST_F64) {
    double *values = data;
    for (int64_t i = 0; i < count; ++i)
      values[i] /= (double)ranks;
  } else {
    float *values = data;
    for (int64_t i = 0; i < count; ++i)
      values[i] /= (float)ranks;
  }
}

/* Copies [a][b][inner] blocks to [b][a][inner]: between [rank][outer] and
 * [outer][rank] orders. */
static void swap_blocks(const char *from, char *to, int64_t a, int64_t b,
                        size_t block) {
  for (int64_t i = 0; i < a; ++i)
    for (int64_t j = 0; j < b; ++j)
      memcpy(to + (j * a + i) * block, from + (i * b + j) * block, block);
}

static kiln_rt_status start(const kiln_rt_dist_collective *collective,
                            kiln_rt_dist_request **request) {
  if (!collective || !request)
    return kiln_rt_status_make(KILN_RT_INVALID_ARGUMENT,
                               "kiln_rt_dist_start: null argument");
  *request = NULL;
  KILN_RT_RETURN_IF_ERROR(check_collective(collective));
  const kiln_rt_dist_collective *c = collective;
  const dist_group *g = group_of(c->group);
  int size = g->size; /* the group's, from here on */
  size_t bytes = element_bytes(c->dtype);
  int64_t part = c->outer * c->inner;
  int64_t input_count =
      c->kind == KILN_RT_DIST_REDUCE_SCATTER ? part * size : part;
  kiln_rt_dist_request *r = calloc(1, sizeof(*r));
  if (!r)
    return kiln_rt_status_make(KILN_RT_OUT_OF_MEMORY,
                               "kiln_rt_dist_start: no memory");
  r->collective = *c;
  r->ranks = size;
  atomic_fetch_add(&stat_collectives, 1);
  atomic_fetch_add(&stat_bytes, (uint_fast64_t)(input_count * bytes));
  if (!use_mpi || size == 1 || part == 0) {
    /* One rank: every collective is its operand. */
    if (part)
      memcpy(c->output, c->input, (size_t)part * bytes);
    r->done = 1;
    *request = r;
    return KILN_RT_SUCCESS;
  }
  int staged = c->outer > 1 && c->kind != KILN_RT_DIST_ALL_REDUCE;
  if (staged) {
    r->staging = malloc((size_t)(part * size) * bytes);
    if (!r->staging) {
      free(r);
      return kiln_rt_status_make(KILN_RT_OUT_OF_MEMORY,
                                 "kiln_rt_dist_start: no memory for %lld bytes",
                                 (long long)(part * size * (int64_t)bytes));
    }
  }
  kiln_mpi_handle dtype = c->dtype == KILN_RT_DIST_F64 ? mpi.f64 : mpi.f32;
  kiln_mpi_handle op = c->reduction == KILN_RT_DIST_MAX ? mpi.max : mpi.sum;
  int code = 0;
  const char *call = "";
  switch (c->kind) {
  case KILN_RT_DIST_ALL_REDUCE:
    call = "MPI_Iallreduce";
    code = mpi.Iallreduce(c->input, c->output, (int)part, dtype, op, g->comm,
                          &r->handle);
    break;
  case KILN_RT_DIST_ALL_GATHER:
    call = "MPI_Iallgather";
    code = mpi.Iallgather(c->input, (int)part, dtype,
                          staged ? r->staging : c->output, (int)part, dtype,
                          g->comm, &r->handle);
    break;
  case KILN_RT_DIST_REDUCE_SCATTER:
    call = "MPI_Ireduce_scatter_block";
    if (staged) /* [outer][rank][inner] -> [rank][outer][inner] */
      swap_blocks(c->input, r->staging, c->outer, size, c->inner * bytes);
    code = mpi.Ireduce_scatter_block(staged ? r->staging : c->input, c->output,
                                     (int)part, dtype, op, g->comm, &r->handle);
    break;
  }
  if (code) {
    free(r->staging);
    free(r);
    return break_world(kiln_mpi_fail(&mpi, call, code));
  }
  *request = r;
  return KILN_RT_SUCCESS;
}

/* What is left once MPI finished: the gather's reordering, the mean. */
static void finish(kiln_rt_dist_request *r) {
  const kiln_rt_dist_collective *c = &r->collective;
  size_t bytes = element_bytes(c->dtype);
  if (c->kind == KILN_RT_DIST_ALL_GATHER && r->staging)
    swap_blocks(r->staging, c->output, r->ranks, c->outer, c->inner * bytes);
  if (c->kind != KILN_RT_DIST_ALL_GATHER && c->reduction == KILN_RT_DIST_MEAN)
    divide_by_size(c->output, c->outer * c->inner, c->dtype, r->ranks);
}

static void free_request(kiln_rt_dist_request *r) {
  free(r->staging);
  free(r);
}

/* Polls `*handle` until it completes or the deadline passes. */
static kiln_rt_status wait_handle(kiln_mpi_handle *handle, const char *what,
                                  int ranks) {
  /* After a failure the peers may never answer: no second full wait. */
  if (atomic_load(&broken))
    return kiln_rt_status_make(
        KILN_RT_UNAVAILABLE, "kiln_rt_dist: an earlier collective failed (%s)",
        broken_reason);
  double start = now_seconds(), timeout = kiln_dist_timeout_seconds();
  /* Room for any MPI's status object. */
  uint64_t status_object[16];
  for (unsigned polls = 0;; ++polls) {
    int flag = 0;
    int code = mpi.Test(handle, &flag, status_object);
    if (code)
      return break_world(kiln_mpi_fail(&mpi, "MPI_Test", code));
    if (flag)
      return KILN_RT_SUCCESS;
    double waited = now_seconds() - start;
    if (waited > timeout)
      return break_world(kiln_rt_status_make(
          KILN_RT_UNAVAILABLE,
          "kiln_rt_dist_wait: rank %d had no answer from the other %d "
          "rank(s) to %s in %g s (KILN_DIST_TIMEOUT_S): a rank died, hangs "
          "or runs another program",
          rank, ranks - 1, what, timeout));
    if (polls < 1000) {
      sched_yield();
    } else {
      struct timespec pause = {0, 50000};
      nanosleep(&pause, NULL);
    }
  }
}

static const char *kind_name(kiln_rt_dist_kind kind) {
  switch (kind) {
  case KILN_RT_DIST_ALL_GATHER:
    return "an all_gather";
  case KILN_RT_DIST_REDUCE_SCATTER:
    return "a reduce_scatter";
  default:
    return "an all_reduce";
  }
}

static kiln_rt_status wait(kiln_rt_dist_request *request) {
  if (!request)
    return kiln_rt_status_make(KILN_RT_INVALID_ARGUMENT,
                               "kiln_rt_dist_wait: null request");
  kiln_rt_status status = KILN_RT_SUCCESS;
  if (!request->done) {
    double start = now_seconds();
    status = wait_handle(&request->handle, kind_name(request->collective.kind),
                         request->ranks);
    atomic_fetch_add(&stat_wait_ns,
                     (uint_fast64_t)((now_seconds() - start) * 1e9));
    if (!status)
      finish(request);
  }
  /* A request that did not end still owns its buffers (MPI cannot cancel
   * a collective): they stay allocated; the world is broken, and the
   * process aborts the job when it leaves. */
  if (!status)
    free_request(request);
  return status;
}

static kiln_rt_status progress(kiln_rt_dist_request *request) {
  if (!request)
    return kiln_rt_status_make(KILN_RT_INVALID_ARGUMENT,
                               "kiln_rt_dist_progress: null request");
  if (request->done)
    return KILN_RT_SUCCESS;
  uint64_t status_object[16];
  int flag = 0;
  int code = mpi.Test(&request->handle, &flag, status_object);
  if (code)
    return break_world(kiln_mpi_fail(&mpi, "MPI_Test", code));
  if (flag) {
    finish(request);
    request->done = 1;
  }
  return KILN_RT_SUCCESS;
}

int kiln_rt_dist_finished(const kiln_rt_dist_request *request) {
  return request && request->done;
}

int kiln_rt_dist_overlap(void) {
  static int overlap = -1;
  if (overlap < 0) {
    const char *text = getenv("KILN_DIST_OVERLAP");
    overlap = !(text && !strcmp(text, "0"));
  }
  return overlap;
}

kiln_rt_status kiln_dist_broadcast_from_0(int64_t group, void *data,
                                          size_t bytes) {
  const dist_group *g = group_of(group);
  if (!g || g->rank < 0)
    return kiln_rt_status_make(
        KILN_RT_INVALID_ARGUMENT,
        "kiln_rt_dist: a broadcast in group %lld, which this "
        "rank is not in",
        (long long)group);
  int size = g->size;
  if (!use_mpi || size == 1)
    return KILN_RT_SUCCESS;
  if (bytes > INT_MAX / (size_t)size)
    return kiln_rt_status_make(KILN_RT_INVALID_ARGUMENT,
                               "kiln_rt_dist: a broadcast of %zu bytes", bytes);
  char *all = malloc(bytes * (size_t)size);
  if (!all)
    return kiln_rt_status_make(KILN_RT_OUT_OF_MEMORY,
                               "kiln_rt_dist: no memory");
  kiln_mpi_handle handle = 0;
  int code = mpi.Iallgather(data, (int)bytes, mpi.byte, all, (int)bytes,
                            mpi.byte, g->comm, &handle);
  kiln_rt_status status =
      code ? break_world(kiln_mpi_fail(&mpi, "MPI_Iallgather", code))
           : wait_handle(&handle, "the broadcast of NCCL's id", size);
  if (!status) {
    memcpy(data, all, bytes);
    free(all); /* else MPI may still write it: kept */
  }
  return status;
}

kiln_rt_status kiln_dist_fail(kiln_rt_status status) {
  return break_world(status);
}

int kiln_rt_dist_broken(void) { return atomic_load(&broken); }

uint64_t
kiln_rt_dist_collective_bytes(const kiln_rt_dist_collective *collective) {
  if (!collective)
    return 0;
  uint64_t count = (uint64_t)(collective->outer * collective->inner);
  const dist_group *g = group_of(collective->group);
  if (collective->kind == KILN_RT_DIST_REDUCE_SCATTER && g)
    count *= (uint64_t)g->size;
  return count * (collective->dtype == KILN_RT_DIST_F64 ? 8 : 4);
}

void kiln_rt_dist_count_replayed(uint64_t collectives, uint64_t bytes) {
  atomic_fetch_add(&stat_collectives, (uint_fast64_t)collectives);
  atomic_fetch_add(&stat_bytes, (uint_fast64_t)bytes);
}

void kiln_dist_count(const kiln_rt_dist_collective *collective) {
  kiln_rt_dist_count_replayed(1, kiln_rt_dist_collective_bytes(collective));
}

/* The public calls: each adds its time to the busy counter. */
#define KILN_DIST_TIMED(call)                                                  \
  double began = now_seconds();                                                \
  kiln_rt_status status = call;                                                \
  atomic_fetch_add(&stat_busy_ns,                                              \
                   (uint_fast64_t)((now_seconds() - began) * 1e9));            \
  return status

kiln_rt_status kiln_rt_dist_start(const kiln_rt_dist_collective *collective,
                                  kiln_rt_dist_request **request) {
  KILN_DIST_TIMED(start(collective, request));
}

kiln_rt_status kiln_rt_dist_wait(kiln_rt_dist_request *request) {
  KILN_DIST_TIMED(wait(request));
}

kiln_rt_status kiln_rt_dist_progress(kiln_rt_dist_request *request) {
  KILN_DIST_TIMED(progress(request));
}

kiln_rt_status kiln_rt_dist_run(const kiln_rt_dist_collective *collective) {
  kiln_rt_dist_request *request = NULL;
  KILN_RT_RETURN_IF_ERROR(kiln_rt_dist_start(collective, &request));
  return kiln_rt_dist_wait(request);
}

static kiln_rt_status check_program(int64_t group, uint64_t hash,
                                    const char *what) {
  if (!atomic_load(&initialized))
    return kiln_rt_status_make(
        KILN_RT_UNAVAILABLE,
        "kiln_rt_dist: a collective before kiln_rt_dist_init");
  const dist_group *g = group_of(group);
  if (!g || g->rank < 0) /* the collective's own check names it */
    return KILN_RT_SUCCESS;
  int size = g->size;
  if (!use_mpi || size == 1)
    return KILN_RT_SUCCESS;
  if (atomic_load(&broken))
    return kiln_rt_status_make(
        KILN_RT_UNAVAILABLE, "kiln_rt_dist: an earlier collective failed (%s)",
        broken_reason);
  uint64_t *hashes = calloc((size_t)size, sizeof(uint64_t));
  if (!hashes)
    return kiln_rt_status_make(KILN_RT_OUT_OF_MEMORY,
                               "kiln_rt_dist_check_program: no memory");
  kiln_mpi_handle handle = 0;
  int code =
      mpi.Iallgather(&hash, 8, mpi.byte, hashes, 8, mpi.byte, g->comm, &handle);
  kiln_rt_status status =
      code ? break_world(kiln_mpi_fail(&mpi, "MPI_Iallgather", code))
           : wait_handle(&handle, "the check of the program's hash", size);
  /* A gather that did not end may still write `hashes`: kept then. */
  int owned = code || !status;
  for (int r = 1; !status && r < size; ++r)
    if (hashes[r] != hashes[0])
      status = break_world(kiln_rt_status_make(
          KILN_RT_INVALID_ARGUMENT,
          "kiln_rt_dist: rank %d%s runs another program than rank 0 (hash "
          "%016llx against %016llx) at %s: every rank must run the same "
          "collectives on the same shapes",
          r, group ? " of the group" : "", (unsigned long long)hashes[r],
          (unsigned long long)hashes[0], what ? what : "a collective"));
  if (owned)
    free(hashes);
  return status;
}

kiln_rt_status kiln_rt_dist_check_program(int64_t group, uint64_t hash,
                                          const char *what) {
  KILN_DIST_TIMED(check_program(group, hash, what));
}

/* --- Groups ------------------------------------------------------------ */

static kiln_rt_status group_create(const int *ranks, int count,
                                   int64_t *group) {
  if (!group || (count && !ranks))
    return kiln_rt_status_make(KILN_RT_INVALID_ARGUMENT,
                               "kiln_rt_dist_group_create: null argument");
  kiln_rt_status status = kiln_rt_dist_init();
  if (status)
    return status;
  /* Every rank must make the same groups in the same order: the handles
   * name the same communicator on every rank. The lists are compared
   * before any is checked, so that a rank whose list is bad fails where
   * the others fail too, instead of leaving them waiting in the check. */
  uint64_t hash = 14695981039346656037ull;
  for (int i = 0; i < count; ++i)
    hash = (hash ^ (uint64_t)(uint32_t)ranks[i]) * 1099511628211ull;
  hash = (hash ^ (uint64_t)count) * 1099511628211ull;
  if ((status = check_program(0, hash ^ (uint64_t)atomic_load(&num_groups),
                              "kiln_rt_dist_group_create (the ranks name "
                              "other groups)")))
    return status;
  if (count <= 0)
    return kiln_rt_status_make(
        KILN_RT_INVALID_ARGUMENT,
        "kiln_rt_dist_group_create: a group needs a rank");
  int position = -1;
  for (int i = 0; i < count; ++i) {
    if (ranks[i] < 0 || ranks[i] >= size)
      return kiln_rt_status_make(
          KILN_RT_INVALID_ARGUMENT,
          "kiln_rt_dist_group_create: rank %d is not in the "
          "world of %d rank(s)",
          ranks[i], size);
    for (int j = 0; j < i; ++j)
      if (ranks[j] == ranks[i])
        return kiln_rt_status_make(
            KILN_RT_INVALID_ARGUMENT,
            "kiln_rt_dist_group_create: rank %d is named "
            "twice",
            ranks[i]);
    if (ranks[i] == rank)
      position = i;
  }
  pthread_mutex_lock(&world_mutex);
  int index = atomic_load(&num_groups);
  if (index == KILN_DIST_MAX_GROUPS) {
    pthread_mutex_unlock(&world_mutex);
    return kiln_rt_status_make(KILN_RT_INVALID_ARGUMENT,
                               "kiln_rt_dist_group_create: more than %d groups",
                               KILN_DIST_MAX_GROUPS - 1);
  }
  dist_group made = {0, count, position};
  if (use_mpi) {
    /* Collective over the world: members take their order in `ranks`. */
    int code = mpi.Comm_split(mpi.comm_world, position >= 0 ? 0 : mpi.undefined,
                              position >= 0 ? position : 0, &made.comm);
    if (code) {
      pthread_mutex_unlock(&world_mutex);
      return break_world(kiln_mpi_fail(&mpi, "MPI_Comm_split", code));
    }
    if (position >= 0 &&
        (code = mpi.Comm_set_errhandler(made.comm, mpi.errors_return))) {
      pthread_mutex_unlock(&world_mutex);
      return break_world(kiln_mpi_fail(&mpi, "MPI_Comm_set_errhandler", code));
    }
  }
  groups[index] = made;
  atomic_store(&num_groups, index + 1);
  pthread_mutex_unlock(&world_mutex);
  *group = index;
  return KILN_RT_SUCCESS;
}

kiln_rt_status kiln_rt_dist_group_create(const int *ranks, int count,
                                         int64_t *group) {
  KILN_DIST_TIMED(group_create(ranks, count, group));
}

int kiln_rt_dist_group_size(int64_t group) {
  const dist_group *g = group_of(group);
  return g ? g->size : -1;
}

int kiln_rt_dist_group_rank(int64_t group) {
  const dist_group *g = group_of(group);
  return g ? g->rank : -1;
}

void kiln_rt_dist_get_stats(kiln_rt_dist_stats *stats) {
  if (!stats)
    return;
  stats->collectives = atomic_load(&stat_collectives);
  stats->bytes = atomic_load(&stat_bytes);
  stats->wait_ns = (double)atomic_load(&stat_wait_ns);
  stats->busy_ns = (double)atomic_load(&stat_busy_ns);
}
