/*===- nccl.c - collectives on the GPU with NCCL, loaded with dlopen ------===*
 *
 * libnccl.so.2 (KILN_NCCL_LIBRARY names another) is loaded at the first
 * GPU collective. The world's communicator takes its id from rank 0: over
 * MPI where the job has ranks, made here where the process is alone. Each
 * collective is queued on the program's stream, after the kernels that
 * computed its operand and before those that read its result, so a wait
 * step has nothing left to do. Errors name the NCCL call, with NCCL's
 * message.
 *
 *===----------------------------------------------------------------------===*/

#include "kiln_rt/kiln_rt_dist.h"

#include "../common/error.h"
#include "../cuda/driver.h"
#include "dist_internal.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* nccl.h's types, as its ABI has them. */
typedef struct {
  char internal[128];
} kiln_nccl_id;
typedef void *kiln_nccl_comm;
enum { KILN_NCCL_SUM = 0, KILN_NCCL_MAX = 2, KILN_NCCL_AVG = 4 };
enum { KILN_NCCL_FLOAT32 = 7, KILN_NCCL_FLOAT64 = 8 };

static struct {
  void *library;
  int (*GetUniqueId)(kiln_nccl_id *id);
  int (*CommInitRank)(kiln_nccl_comm *comm, int nranks, kiln_nccl_id id,
                      int rank);
  int (*AllReduce)(const void *send, void *receive, size_t count, int dtype,
                   int op, kiln_nccl_comm comm, void *stream);
  int (*AllGather)(const void *send, void *receive, size_t count, int dtype,
                   kiln_nccl_comm comm, void *stream);
  int (*ReduceScatter)(const void *send, void *receive, size_t count, int dtype,
                       int op, kiln_nccl_comm comm, void *stream);
  const char *(*GetErrorString)(int result);
  int (*GetVersion)(int *version);
} nccl;

static pthread_mutex_t nccl_mutex = PTHREAD_MUTEX_INITIALIZER;
static kiln_nccl_comm world;
static kiln_rt_status init_status = KILN_RT_OK;
static char init_error[512];
static int initialized;

/* A failed NCCL call breaks the world: the peers may wait in theirs, so
 * leaving the job aborts it. */
static kiln_rt_status nccl_fail(const char *call, int result) {
  const char *why = nccl.GetErrorString ? nccl.GetErrorString(result) : NULL;
  return kiln_dist_fail(kiln_rt_fail(KILN_RT_DEVICE_ERROR,
                                     "%s: %s (NCCL error %d)", call,
                                     why ? why : "unknown error", result));
}

static kiln_rt_status load(void) {
  const char *named = getenv("KILN_NCCL_LIBRARY");
  const char *path = named && *named ? named : "libnccl.so.2";
  nccl.library = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!nccl.library) {
    const char *why = dlerror();
    return kiln_rt_fail(KILN_RT_UNAVAILABLE,
                        "kiln_rt_dist: cannot load NCCL (%s); install it (the "
                        "CUDA toolkit's libnccl.so.2, or the nvidia-nccl-cu12 "
                        "wheel) or set KILN_NCCL_LIBRARY",
                        why ? why : path);
  }
#define KILN_NCCL_RESOLVE(name)                                                \
  *(void **)&nccl.name = dlsym(nccl.library, "nccl" #name);                    \
  if (!nccl.name)                                                              \
    return kiln_rt_fail(KILN_RT_UNAVAILABLE,                                   \
                        "kiln_rt_dist: %s has no nccl" #name, path);
  KILN_NCCL_RESOLVE(GetUniqueId)
  KILN_NCCL_RESOLVE(CommInitRank)
  KILN_NCCL_RESOLVE(AllReduce)
  KILN_NCCL_RESOLVE(AllGather)
  KILN_NCCL_RESOLVE(ReduceScatter)
  KILN_NCCL_RESOLVE(GetErrorString)
  KILN_NCCL_RESOLVE(GetVersion)
#undef KILN_NCCL_RESOLVE
  int version = 0;
  int result = nccl.GetVersion(&version);
  if (result)
    return nccl_fail("ncclGetVersion", result);
  /* ncclAvg, which a mean takes, came with NCCL 2.10. */
  if (version < 21000)
    return kiln_rt_fail(KILN_RT_UNAVAILABLE,
                        "kiln_rt_dist: %s is NCCL %d; kiln needs 2.10 or newer",
                        path, version);
  return KILN_RT_OK;
}

static kiln_rt_status init_locked(void) {
  kiln_rt_status status = kiln_rt_dist_init();
  if (status)
    return status;
  if ((status = kiln_cuda_enter("kiln_rt_dist_nccl_init")))
    return status;
  if ((status = load()))
    return status;
  int ranks = kiln_rt_dist_size(), rank = kiln_rt_dist_rank();
  /* Rank 0 sends its id, or that it has none, so that no rank waits in
   * ncclCommInitRank for a rank that failed. */
  struct {
    int result;
    kiln_nccl_id id;
  } message;
  memset(&message, 0, sizeof(message));
  if (rank == 0)
    message.result = nccl.GetUniqueId(&message.id);
  if (ranks > 1 &&
      (status = kiln_dist_broadcast_from_0(&message, sizeof(message))))
    return status;
  if (message.result)
    return nccl_fail(rank == 0 ? "ncclGetUniqueId"
                               : "ncclGetUniqueId (on rank 0)",
                     message.result);
  int result = nccl.CommInitRank(&world, ranks, message.id, rank);
  if (result)
    return nccl_fail("ncclCommInitRank", result);
  return KILN_RT_OK;
}

kiln_rt_status kiln_rt_dist_nccl_init(void) {
  pthread_mutex_lock(&nccl_mutex);
  if (!initialized) {
    init_status = init_locked();
    snprintf(init_error, sizeof(init_error), "%s",
             init_status ? kiln_rt_last_error() : "");
    initialized = 1;
  }
  kiln_rt_status status = init_status;
  pthread_mutex_unlock(&nccl_mutex);
  /* A failed init fails every later call the same way. */
  return status ? kiln_rt_fail(status, "%s", init_error) : KILN_RT_OK;
}

kiln_rt_status kiln_rt_dist_nccl_run(const kiln_rt_dist_collective *collective,
                                     kiln_rt_cuda_stream *stream) {
  if (!collective)
    return kiln_rt_fail(KILN_RT_INVALID_ARGUMENT,
                        "kiln_rt_dist_nccl_run: null collective");
  kiln_rt_status status = kiln_rt_dist_nccl_init();
  if (status)
    return status;
  const kiln_rt_dist_collective *c = collective;
  if (c->group != 0)
    return kiln_rt_fail(KILN_RT_INVALID_ARGUMENT,
                        "kiln_rt_dist: group %lld is not a communicator (only "
                        "0, the world, exists)",
                        (long long)c->group);
  if (c->kind != KILN_RT_DIST_ALL_REDUCE && c->outer > 1)
    return kiln_rt_fail(KILN_RT_INVALID_ARGUMENT,
                        "kiln_rt_dist: an all_gather or reduce_scatter along "
                        "an inner dim does not run on the GPU yet (only "
                        "along the outermost dim of size > 1)");
  if ((status = kiln_cuda_enter("kiln_rt_dist_nccl_run")))
    return status;
  size_t part = (size_t)(c->outer * c->inner);
  if (part == 0)
    return KILN_RT_OK;
  int dtype =
      c->dtype == KILN_RT_DIST_F64 ? KILN_NCCL_FLOAT64 : KILN_NCCL_FLOAT32;
  int op = c->reduction == KILN_RT_DIST_MAX    ? KILN_NCCL_MAX
           : c->reduction == KILN_RT_DIST_MEAN ? KILN_NCCL_AVG
                                               : KILN_NCCL_SUM;
  void *handle = (void *)kiln_cuda_stream_handle(stream);
  kiln_dist_count(c, part);
  int result = 0;
  const char *call = "ncclAllReduce";
  switch (c->kind) {
  case KILN_RT_DIST_ALL_REDUCE:
    result =
        nccl.AllReduce(c->input, c->output, part, dtype, op, world, handle);
    break;
  case KILN_RT_DIST_ALL_GATHER:
    call = "ncclAllGather";
    result = nccl.AllGather(c->input, c->output, part, dtype, world, handle);
    break;
  case KILN_RT_DIST_REDUCE_SCATTER:
    call = "ncclReduceScatter";
    result =
        nccl.ReduceScatter(c->input, c->output, part, dtype, op, world, handle);
    break;
  }
  return result ? nccl_fail(call, result) : KILN_RT_OK;
}
