/*===- kiln_rt_dist.h - collectives across processes, C ABI ---------------===*
 *
 * The ranks of a data-parallel job and the collectives between them
 * (kiln.all_reduce, kiln.all_gather, kiln.reduce_scatter). MPI is loaded
 * at run time with dlopen (OpenMPI's libmpi.so.40, or MPICH's
 * libmpi.so.12; KILN_MPI_LIBRARY names another): the runtime links none.
 * A process that no MPI launcher started is a world of one rank, whose
 * collectives copy their operand.
 *
 * A collective starts, then is waited for: a wait polls up to a deadline
 * (KILN_DIST_TIMEOUT_S seconds, default 300), so a peer that died or runs
 * another program is an error naming the call, never a hang. After such an
 * error the world is broken: every later collective fails, and
 * kiln_rt_dist_finalize aborts the job (MPI_Abort) rather than waiting for
 * the peers in MPI_Finalize.
 *
 *===----------------------------------------------------------------------===*/

#ifndef KILN_RT_KILN_RT_DIST_H
#define KILN_RT_KILN_RT_DIST_H

#include "kiln_rt/kiln_rt.h"

#ifdef __cplusplus
extern "C" {
#endif

/* As kiln::Reduction (the dialect's #kiln<reduction ...>). */
typedef enum kiln_rt_dist_reduction {
  KILN_RT_DIST_SUM = 0,
  KILN_RT_DIST_MEAN = 1,
  KILN_RT_DIST_MAX = 2,
} kiln_rt_dist_reduction;

typedef enum kiln_rt_dist_dtype {
  KILN_RT_DIST_F32 = 0,
  KILN_RT_DIST_F64 = 1,
} kiln_rt_dist_dtype;

typedef enum kiln_rt_dist_kind {
  KILN_RT_DIST_ALL_REDUCE = 0,
  KILN_RT_DIST_ALL_GATHER = 1,
  KILN_RT_DIST_REDUCE_SCATTER = 2,
} kiln_rt_dist_kind;

/* Joins the job: with MPI where an MPI launcher started the process
 * (OMPI_COMM_WORLD_SIZE, PMI_SIZE or PMIX_RANK is set) or KILN_DIST=mpi,
 * initializing MPI unless the program already did; alone otherwise
 * (KILN_DIST=none forces that). Idempotent; thread-safe. Fails, naming the
 * call, where MPI is needed and cannot be loaded or initialized. */
kiln_rt_status kiln_rt_dist_init(void);
/* This process's rank and the number of ranks; 0 and 1 before init. */
int kiln_rt_dist_rank(void);
int kiln_rt_dist_size(void);
/* "mpi" or "none". */
const char *kiln_rt_dist_backend(void);
/* Whether a collective failed: the peers may still be in it, so its
 * buffers stay allocated, and leaving the job aborts it. */
int kiln_rt_dist_broken(void);
/* Leaves the job: MPI_Finalize where init initialized MPI, or MPI_Abort
 * where a collective failed (the peers may be waiting on this rank). */
void kiln_rt_dist_finalize(void);

/* One collective over communicator `group` (0: the world; others from
 * kiln_rt_dist_group_create; "size" below is its size) of a tensor viewed
 * as [outer][inner] contiguous
 * elements of `dtype`:
 * - all_reduce: `output` is `input`'s shape, the reduction of every rank's;
 * - all_gather: `output` is [outer][size * inner], rank r's `input` at
 *   [outer][r * inner ...];
 * - reduce_scatter: `input` is [outer][size * inner]; `output` [outer][inner]
 *   is this rank's part of the reduction.
 * `input` and `output` do not overlap. The buffers belong to the
 * collective until kiln_rt_dist_wait returns. */
typedef struct kiln_rt_dist_collective {
  kiln_rt_dist_kind kind;
  kiln_rt_dist_reduction reduction; /* all_reduce and reduce_scatter */
  kiln_rt_dist_dtype dtype;
  int64_t group;
  int64_t outer, inner;
  const void *input;
  void *output;
  /* On the GPU, kiln_rt_dist_nccl_staging_bytes of device memory where
   * that is not 0 (the caller's, until the wait), else NULL. */
  void *staging;
} kiln_rt_dist_collective;

typedef struct kiln_rt_dist_request kiln_rt_dist_request;

/* Starts `collective` (nonblocking MPI), into `*request`; a world of one
 * rank finishes it at once. Fails, naming the call, on bad arguments, a
 * broken world or an MPI error. */
kiln_rt_status kiln_rt_dist_start(const kiln_rt_dist_collective *collective,
                                  kiln_rt_dist_request **request);
/* Waits for `request` up to the deadline and frees it; the output is then
 * written. */
kiln_rt_status kiln_rt_dist_wait(kiln_rt_dist_request *request);
/* Lets `request` progress without waiting (MPI moves a nonblocking
 * collective on only inside MPI calls): one MPI_Test. */
kiln_rt_status kiln_rt_dist_progress(kiln_rt_dist_request *request);
/* Whether `request` has finished (a progress or wait saw it end). */
int kiln_rt_dist_finished(const kiln_rt_dist_request *request);
/* Whether a program's collectives overlap its other steps: started where
 * their operand is ready, waited for where their result is first used.
 * KILN_DIST_OVERLAP=0 waits for each where it starts (to measure what
 * overlap saves). */
int kiln_rt_dist_overlap(void);
/* Start, then wait. */
kiln_rt_status kiln_rt_dist_run(const kiln_rt_dist_collective *collective);

/* Checks that every rank of `group` runs the same program before its
 * first collective: exchanges `hash` and fails with "rank R runs another
 * program than rank 0" where they differ. Alone, succeeds at once. */
kiln_rt_status kiln_rt_dist_check_program(int64_t group, uint64_t hash,
                                          const char *what);

/* Makes the communicator of the world's `ranks` (`count` of them, each
 * once; a rank's place in the list is its rank in the group), into
 * `*group`. Collective over the world, as MPI_Comm_split: every rank calls
 * it with the same list, members or not, in the same order, so that a
 * handle names the same group on every rank (they count up from 1; 0 is
 * the world). A rank that names other groups fails the check. On the GPU,
 * the group's NCCL communicator is made at its first collective. */
kiln_rt_status kiln_rt_dist_group_create(const int *ranks, int count,
                                         int64_t *group);
/* The number of ranks in `group`, and this rank's place in it (-1 where
 * it is not a member); -1 and -1 for a handle that names no group. */
int kiln_rt_dist_group_size(int64_t group);
int kiln_rt_dist_group_rank(int64_t group);

/* --- On the GPU: NCCL ------------------------------------------------------
 */

typedef struct kiln_rt_cuda_stream kiln_rt_cuda_stream;

/* Loads NCCL (libnccl.so.2; KILN_NCCL_LIBRARY names another) and makes the
 * world's communicator, its id sent from rank 0 over MPI. Needs the CUDA
 * runtime (kiln_rt_cuda_init). Idempotent; a failure fails every later
 * call the same way, naming the NCCL call. */
kiln_rt_status kiln_rt_dist_nccl_init(void);
/* A GPU collective under way, or a watched stretch of a stream. */
typedef struct kiln_rt_dist_nccl_request kiln_rt_dist_nccl_request;

/* Device bytes that `collective` needs as staging: an all_gather or a
 * reduce_scatter along an inner dim (outer > 1) goes through a
 * [size][outer][inner] copy, NCCL's layout; 0 for the others. */
size_t kiln_rt_dist_nccl_staging_bytes(const kiln_rt_dist_collective *c);

/* Queues `collective` on device buffers after the work queued so far on
 * `stream` (NULL: the runtime's stream): ncclAllReduce (a mean as
 * ncclAvg), ncclAllGather, ncclReduceScatter. With overlap
 * (kiln_rt_dist_overlap) it runs on the runtime's communication stream,
 * so that `stream`'s later work runs beside it until
 * kiln_rt_dist_nccl_wait; without, on `stream` itself. Works inside a
 * graph capture of `stream` too (the communication stream joins it).
 * A collective that does not finish within KILN_DIST_TIMEOUT_S of its
 * start, or an error that NCCL reports while it runs, aborts the job
 * (a watchdog thread: the host may be blocked in a wait on the device). */
kiln_rt_status
kiln_rt_dist_nccl_start(const kiln_rt_dist_collective *collective,
                        kiln_rt_cuda_stream *stream,
                        kiln_rt_dist_nccl_request **request);
/* Orders `stream`'s later work after the collective, and frees `request`.
 * Nothing waits on the host. */
kiln_rt_status kiln_rt_dist_nccl_wait(kiln_rt_dist_nccl_request *request,
                                      kiln_rt_cuda_stream *stream);
/* Start, then wait. */
kiln_rt_status kiln_rt_dist_nccl_run(const kiln_rt_dist_collective *collective,
                                     kiln_rt_cuda_stream *stream);
/* Puts the work queued on `stream` between begin and end (a graph launch
 * whose collectives the watchdog cannot see one by one) under the
 * watchdog, as `what`. */
kiln_rt_status kiln_rt_dist_nccl_watch_begin(kiln_rt_cuda_stream *stream,
                                             kiln_rt_dist_nccl_request **watch);
kiln_rt_status kiln_rt_dist_nccl_watch_end(kiln_rt_dist_nccl_request *watch,
                                           kiln_rt_cuda_stream *stream,
                                           const char *what);

/* Counters, for tests and benchmarks. */
typedef struct kiln_rt_dist_stats {
  uint64_t collectives; /* started */
  uint64_t bytes;       /* of the operands started */
  double wait_ns;       /* spent in kiln_rt_dist_wait */
  double busy_ns;       /* spent in any of the calls above: communication
                           that the caller's thread did not overlap */
} kiln_rt_dist_stats;
void kiln_rt_dist_get_stats(kiln_rt_dist_stats *stats);
/* The operand bytes that `collective` counts in the statistics. */
uint64_t
kiln_rt_dist_collective_bytes(const kiln_rt_dist_collective *collective);
/* Counts `collectives` of `bytes` in all that a CUDA graph's launch
 * replays (its capture queued them without counting). */
void kiln_rt_dist_count_replayed(uint64_t collectives, uint64_t bytes);

#ifdef __cplusplus
}
#endif

#endif /* KILN_RT_KILN_RT_DIST_H */
