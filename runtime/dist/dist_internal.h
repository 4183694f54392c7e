/*===- dist_internal.h - what the MPI and NCCL halves share ---------------===*/

#ifndef KILN_RT_DIST_INTERNAL_H
#define KILN_RT_DIST_INTERNAL_H

#include "kiln_rt/kiln_rt_dist.h"

#include <stddef.h>

/* The most communicators: the world and the groups made. */
#define KILN_DIST_MAX_GROUPS 64

/* The `bytes` at `data` of rank 0 of `group` on each of its ranks (over
 * MPI, up to the deadline). Alone, `data` stays. */
kiln_rt_status kiln_dist_broadcast_from_0(int64_t group, void *data,
                                          size_t bytes);

/* Marks the world broken (a peer may wait on this rank forever), so that
 * leaving it aborts the job, for the failure `status`; returns it. */
kiln_rt_status kiln_dist_fail(kiln_rt_status status);

/* KILN_DIST_TIMEOUT_S (default 300): how long a collective may take. */
double kiln_dist_timeout_seconds(void);

/* Ends the job from any thread, at once: prints "kiln: rank R aborts the
 * job: `reason`", then MPI_Abort where the job has MPI, else _exit(1). For
 * a rank that cannot go on (a GPU collective that never ends). */
void kiln_dist_abort_job(const char *reason) __attribute__((noreturn));

/* Counts `collective` in the statistics. */
void kiln_dist_count(const kiln_rt_dist_collective *collective);

#endif /* KILN_RT_DIST_INTERNAL_H */
