/*===- nccl.c - collectives on the GPU with NCCL, loaded with dlopen ------===*
 *
 * libnccl.so.2 (KILN_NCCL_LIBRARY names another) is loaded at the first
 * GPU collective. The world's communicator takes its id from rank 0: over
 * MPI where the job has ranks, made here where the process is alone.
 *
 * Overlap: a collective starts on the runtime's communication stream once
 * the program's stream reaches it (an event, `ready`), and the program's
 * stream waits for it (`done`) only at the wait step, so the kernels in
 * between run beside it. Inside a graph capture, the same events fork the
 * communication stream into the capture and join it back.
 *
 * The watchdog: a thread watches each collective's events. One that has
 * not finished KILN_DIST_TIMEOUT_S after it could start, or an error that
 * ncclCommGetAsyncError reports, aborts the communicator and the job, as
 * the host may be blocked in a wait for the device that would never end.
 * Errors name the NCCL call, with NCCL's message.
 *
 *===----------------------------------------------------------------------===*/

#include "kiln_rt/kiln_rt_dist.h"

#include "../common/status.h"
#include "../cuda/driver.h"
#include "dist_internal.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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
  int (*CommGetAsyncError)(kiln_nccl_comm comm, int *error);
  int (*CommAbort)(kiln_nccl_comm comm);
} nccl;

enum { KILN_NCCL_IN_PROGRESS = 7 };

/* Guards the requests, the watch list and `comms`; never held across a
 * call that may block (NCCL's, MPI's). */
static pthread_mutex_t nccl_mutex = PTHREAD_MUTEX_INITIALIZER;
/* Serializes making communicators (which blocks on the peers). */
static pthread_mutex_t comm_mutex = PTHREAD_MUTEX_INITIALIZER;
/* Each group's communicator (0: the world), made at its first collective,
 * which only the group's ranks run. */
static kiln_nccl_comm comms[KILN_DIST_MAX_GROUPS];
static kiln_rt_status_code init_code = KILN_RT_OK;
static char init_error[512];
static int initialized;
/* The CUDA session NCCL was set up in. */
static uint64_t comm_session;
/* Each thread's communication stream: a capture on one thread joins only
 * its own. */
static _Thread_local CUstream thread_comm_stream;
static _Thread_local uint64_t thread_comm_session;

/* A failed NCCL call breaks the world: the peers may wait in theirs, so
 * leaving the job aborts it. */
static kiln_rt_status nccl_fail(const char *call, int result) {
  const char *why = nccl.GetErrorString ? nccl.GetErrorString(result) : NULL;
  return kiln_dist_fail(
      kiln_rt_status_make(KILN_RT_DEVICE_ERROR, "%s: %s (NCCL error %d)", call,
                          why ? why : "unknown error", result));
}

static kiln_rt_status load(void) {
  const char *named = getenv("KILN_NCCL_LIBRARY");
  const char *path = named && *named ? named : "libnccl.so.2";
  nccl.library = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!nccl.library) {
    const char *why = dlerror();
    return kiln_rt_status_make(
        KILN_RT_UNAVAILABLE,
        "kiln_rt_dist: cannot load NCCL (%s); install it (the "
        "CUDA toolkit's libnccl.so.2, or the nvidia-nccl-cu12 "
        "wheel) or set KILN_NCCL_LIBRARY",
        why ? why : path);
  }
#define KILN_NCCL_RESOLVE(name)                                                \
  *(void **)&nccl.name = dlsym(nccl.library, "nccl" #name);                    \
  if (!nccl.name)                                                              \
    return kiln_rt_status_make(KILN_RT_UNAVAILABLE,                            \
                               "kiln_rt_dist: %s has no nccl" #name, path);
  KILN_NCCL_RESOLVE(GetUniqueId)
  KILN_NCCL_RESOLVE(CommInitRank)
  KILN_NCCL_RESOLVE(AllReduce)
  KILN_NCCL_RESOLVE(AllGather)
  KILN_NCCL_RESOLVE(ReduceScatter)
  KILN_NCCL_RESOLVE(GetErrorString)
  KILN_NCCL_RESOLVE(GetVersion)
  KILN_NCCL_RESOLVE(CommGetAsyncError)
  KILN_NCCL_RESOLVE(CommAbort)
#undef KILN_NCCL_RESOLVE
  int version = 0;
  int result = nccl.GetVersion(&version);
  if (result)
    return nccl_fail("ncclGetVersion", result);
  /* ncclAvg, which a mean takes, came with NCCL 2.10. */
  if (version < 21000)
    return kiln_rt_status_make(
        KILN_RT_UNAVAILABLE,
        "kiln_rt_dist: %s is NCCL %d; kiln needs 2.10 or newer", path, version);
  return KILN_RT_SUCCESS;
}

static void stop_watching(void);

/* Makes the communicator of `group` (this rank is in it): its rank 0's id
 * goes to the others over MPI. */
static kiln_rt_status make_comm(int64_t group) {
  int ranks = kiln_rt_dist_group_size(group);
  int rank = kiln_rt_dist_group_rank(group);
  kiln_rt_status status = KILN_RT_SUCCESS;
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
      (status = kiln_dist_broadcast_from_0(group, &message, sizeof(message))))
    return status;
  if (message.result)
    return nccl_fail(rank == 0 ? "ncclGetUniqueId"
                               : "ncclGetUniqueId (on rank 0)",
                     message.result);
  kiln_nccl_comm made = NULL;
  int result = nccl.CommInitRank(&made, ranks, message.id, rank);
  if (result)
    return nccl_fail("ncclCommInitRank", result);
  pthread_mutex_lock(&nccl_mutex);
  comms[group] = made;
  pthread_mutex_unlock(&nccl_mutex);
  return KILN_RT_SUCCESS;
}

/* The communicator of `group`, made at its first collective. */
static kiln_rt_status get_comm(int64_t group, kiln_nccl_comm *out) {
  pthread_mutex_lock(&comm_mutex);
  pthread_mutex_lock(&nccl_mutex);
  kiln_nccl_comm made = comms[group];
  pthread_mutex_unlock(&nccl_mutex);
  kiln_rt_status status = made ? KILN_RT_SUCCESS : make_comm(group);
  if (!status && !made) {
    pthread_mutex_lock(&nccl_mutex);
    made = comms[group];
    pthread_mutex_unlock(&nccl_mutex);
  }
  pthread_mutex_unlock(&comm_mutex);
  *out = made;
  return status;
}

/* This thread's communication stream, made at its first collective. */
static kiln_rt_status communication_stream(CUstream *out) {
  if (!thread_comm_stream || thread_comm_session != kiln_rt_cuda_session()) {
    CUstream made = NULL;
    KILN_CUDA_RETURN_IF_ERROR(cuStreamCreate, (&made, CU_STREAM_NON_BLOCKING));
    thread_comm_stream = made;
    thread_comm_session = kiln_rt_cuda_session();
  }
  *out = thread_comm_stream;
  return KILN_RT_SUCCESS;
}

static kiln_rt_status init_locked(void) {
  KILN_RT_RETURN_IF_ERROR(kiln_rt_dist_init());
  KILN_RT_RETURN_IF_ERROR(kiln_cuda_enter("kiln_rt_dist_nccl_init"));
  KILN_RT_RETURN_IF_ERROR(load());
  comm_session = kiln_rt_cuda_session();
  kiln_cuda_set_shutdown_hook(stop_watching);
  atexit(stop_watching);
  return KILN_RT_SUCCESS;
}

kiln_rt_status kiln_rt_dist_nccl_init(void) {
  pthread_mutex_lock(&nccl_mutex);
  if (!initialized) {
    kiln_rt_status status = init_locked();
    init_code = kiln_rt_status_code_of(status);
    snprintf(init_error, sizeof(init_error), "%s",
             kiln_rt_status_message(status));
    kiln_rt_status_free(status);
    initialized = 1;
  }
  kiln_rt_status_code code = init_code;
  pthread_mutex_unlock(&nccl_mutex);
  /* A failed init fails every later call the same way. */
  return kiln_rt_status_make(code, "%s", init_error);
}

/* --- Requests and the watchdog ------------------------------------------ */

/* A collective's (or a watched stretch's) two events: `ready` on the
 * queuing stream where it may start, `done` where it ends. */
struct kiln_rt_dist_nccl_request {
  CUevent ready, done;
  double started; /* when the watchdog saw `ready` (0: not yet) */
  int watched;    /* on the watch list (not recorded in a capture) */
  int waited;     /* its wait was queued: the events may be reused */
  int finished;   /* the watchdog saw `done` */
  char what[128];
  kiln_rt_dist_nccl_request *next;
};

/* Under nccl_mutex: what the watchdog watches, and spare requests (with
 * their events) for reuse. */
static kiln_rt_dist_nccl_request *watching, *spare;
static int watchdog_running;

static double now_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Ends the job for a collective that cannot end; the watchdog's. */
static void give_up(const char *why) {
  char reason[512];
  snprintf(reason, sizeof(reason), "%s; the NCCL communicator is aborted", why);
  for (int g = 0; g < KILN_DIST_MAX_GROUPS; ++g)
    if (comms[g])
      nccl.CommAbort(comms[g]);
  kiln_dist_abort_job(reason);
}

/* Often enough to keep to `timeout`: 20 times a second, or more often for
 * a timeout under half a second. */
static struct timespec watch_period(double timeout) {
  double period = timeout / 10 < 0.05 ? timeout / 10 : 0.05;
  struct timespec pause = {0, (long)(period * 1e9)};
  return pause;
}

static int stopped;
static void watch_once(double timeout);
static struct timespec watch_period(double timeout);

/* Stops watching, once what is watched has finished: the CUDA runtime
 * shuts down (its events go with it; its synchronization would wait
 * forever for a collective that never ends), or the process exits. Until
 * then it watches as the watchdog does, so a collective that cannot end
 * still aborts the job. The requests stay on their lists, never used
 * again. */
static void stop_watching(void) {
  double timeout = kiln_dist_timeout_seconds();
  struct timespec pause = watch_period(timeout);
  for (;;) {
    int busy = 0;
    pthread_mutex_lock(&nccl_mutex);
    if (!stopped && kiln_cuda_entered("kiln_rt_dist's NCCL watchdog") &&
        kiln_rt_cuda_session() == comm_session) {
      watch_once(timeout);
      for (kiln_rt_dist_nccl_request *r = watching; r && !stopped; r = r->next)
        busy |= !r->finished;
    }
    if (!busy)
      stopped = 1;
    pthread_mutex_unlock(&nccl_mutex);
    if (!busy)
      return;
    nanosleep(&pause, NULL);
  }
}

/* One look at the watch list; nccl_mutex held. */
static void watch_once(double timeout) {
  double now = now_seconds();
  for (kiln_rt_dist_nccl_request **link = &watching; *link;) {
    kiln_rt_dist_nccl_request *r = *link;
    CUresult result = 0;
    if (!r->started) {
      result = kiln_cuda.cuEventQuery(r->ready);
      if (result == CUDA_SUCCESS)
        r->started = now;
    }
    if (r->started && !r->finished) {
      result = kiln_cuda.cuEventQuery(r->done);
      if (result == CUDA_SUCCESS)
        r->finished = 1;
    }
    if (result == CUDA_ERROR_DEINITIALIZED) { /* the process exits */
      stopped = 1;
      return;
    }
    if (result != CUDA_SUCCESS && result != CUDA_ERROR_NOT_READY) {
      char why[384];
      kiln_rt_status status = kiln_cuda_check(result, "cuEventQuery");
      snprintf(why, sizeof(why), "kiln_rt_dist: %s on rank %d failed: %s",
               r->what, kiln_rt_dist_rank(), kiln_rt_status_message(status));
      kiln_rt_status_free(status);
      give_up(why);
    }
    if (r->started && !r->finished && now - r->started > timeout) {
      char why[384];
      snprintf(why, sizeof(why),
               "kiln_rt_dist: %s on rank %d did not finish in %g s "
               "(KILN_DIST_TIMEOUT_S): a peer may have died or left the job",
               r->what, kiln_rt_dist_rank(), timeout);
      give_up(why);
    }
    if (r->finished && r->waited) {
      *link = r->next;
      r->next = spare;
      spare = r;
      continue;
    }
    link = &r->next;
  }
  int error = 0;
  for (int g = 0; watching && !error && g < KILN_DIST_MAX_GROUPS; ++g)
    if (comms[g] && (nccl.CommGetAsyncError(comms[g], &error) != 0 ||
                     error == KILN_NCCL_IN_PROGRESS))
      error = 0;
  if (watching && error) {
    char why[384];
    const char *text = nccl.GetErrorString(error);
    snprintf(why, sizeof(why),
             "kiln_rt_dist: NCCL reports an error on rank %d during %s: %s "
             "(NCCL error %d)",
             kiln_rt_dist_rank(), watching->what, text ? text : "unknown",
             error);
    give_up(why);
  }
}

static void *watchdog(void *unused) {
  (void)unused;
  double timeout = kiln_dist_timeout_seconds();
  struct timespec pause = watch_period(timeout);
  for (;;) {
    nanosleep(&pause, NULL);
    pthread_mutex_lock(&nccl_mutex);
    /* A runtime shut down took the events with it: nothing to watch. */
    if (stopped || !kiln_cuda_entered("kiln_rt_dist's NCCL watchdog") ||
        kiln_rt_cuda_session() != comm_session) {
      stopped = 1;
      watchdog_running = 0;
      pthread_mutex_unlock(&nccl_mutex);
      return NULL;
    }
    watch_once(timeout);
    pthread_mutex_unlock(&nccl_mutex);
  }
}

/* A request with two events, from the spares or new; nccl_mutex held. */
static kiln_rt_status take_request(kiln_rt_dist_nccl_request **out) {
  kiln_rt_dist_nccl_request *r = spare;
  if (r) {
    spare = r->next;
  } else {
    r = calloc(1, sizeof(*r));
    if (!r)
      return kiln_rt_status_make(KILN_RT_OUT_OF_MEMORY,
                                 "kiln_rt_dist: out of host memory");
    kiln_rt_status status =
        KILN_CUDA_CALL(cuEventCreate, (&r->ready, CU_EVENT_DISABLE_TIMING));
    if (!status)
      status =
          KILN_CUDA_CALL(cuEventCreate, (&r->done, CU_EVENT_DISABLE_TIMING));
    if (status) {
      if (r->ready)
        kiln_cuda.cuEventDestroy_v2(r->ready);
      free(r);
      return status;
    }
  }
  CUevent ready = r->ready, done = r->done;
  memset(r, 0, sizeof(*r));
  r->ready = ready;
  r->done = done;
  *out = r;
  return KILN_RT_SUCCESS;
}

/* Puts `r`, whose `done` is recorded, under the watchdog, or (recorded in
 * a capture, where events cannot be queried) keeps it for its wait;
 * nccl_mutex held. */
static kiln_rt_status watch(kiln_rt_dist_nccl_request *r, int captured) {
  if (captured || stopped)
    return KILN_RT_SUCCESS;
  if (!watchdog_running) {
    pthread_t thread;
    pthread_attr_t attributes;
    pthread_attr_init(&attributes);
    pthread_attr_setdetachstate(&attributes, PTHREAD_CREATE_DETACHED);
    int failed = pthread_create(&thread, &attributes, watchdog, NULL);
    pthread_attr_destroy(&attributes);
    if (failed)
      return kiln_rt_status_make(
          KILN_RT_UNAVAILABLE, "kiln_rt_dist: cannot start the NCCL watchdog");
    watchdog_running = 1;
  }
  r->watched = 1;
  r->next = watching;
  watching = r;
  return KILN_RT_SUCCESS;
}

/* Gives `r` back: to the spares at once, or, when watched, once the
 * watchdog sees it finish; nccl_mutex held. */
static void release(kiln_rt_dist_nccl_request *r) {
  r->waited = 1;
  if (!r->watched) {
    r->next = spare;
    spare = r;
  }
}

/* Enters the runtime with NCCL set up in this CUDA session. */
static kiln_rt_status enter(const char *api) {
  KILN_RT_RETURN_IF_ERROR(kiln_rt_dist_nccl_init());
  KILN_RT_RETURN_IF_ERROR(kiln_cuda_enter(api));
  if (kiln_rt_cuda_session() != comm_session)
    return kiln_rt_status_make(
        KILN_RT_UNAVAILABLE,
        "%s: NCCL was set up in an earlier session of the CUDA "
        "runtime (after kiln_rt_cuda_shutdown it cannot run "
        "in this process)",
        api);
  return KILN_RT_SUCCESS;
}

/* --- Collectives ------------------------------------------------------- */

static size_t element_bytes(const kiln_rt_dist_collective *c) {
  return c->dtype == KILN_RT_DIST_F64 ? 8 : 4;
}

size_t kiln_rt_dist_nccl_staging_bytes(const kiln_rt_dist_collective *c) {
  if (!c || c->kind == KILN_RT_DIST_ALL_REDUCE || c->outer <= 1)
    return 0;
  int ranks = kiln_rt_dist_group_size(c->group);
  return ranks < 0 ? 0
                   : (size_t)ranks * (size_t)c->outer * (size_t)c->inner *
                         element_bytes(c);
}

/* Copies between the staging [size][outer][inner] and the tensor
 * [outer][size * inner]: one 2D copy per rank's part. */
static kiln_rt_status copy_parts(const kiln_rt_dist_collective *c,
                                 int to_staging, const void *tensor,
                                 void *staging, CUstream stream) {
  size_t row = (size_t)c->inner * element_bytes(c);
  int ranks = kiln_rt_dist_group_size(c->group);
  for (int r = 0; r < ranks; ++r) {
    CUDA_MEMCPY2D copy;
    memset(&copy, 0, sizeof(copy));
    CUdeviceptr part = (CUdeviceptr)(uintptr_t)staging +
                       (CUdeviceptr)r * (CUdeviceptr)(row * (size_t)c->outer);
    CUdeviceptr slice =
        (CUdeviceptr)(uintptr_t)tensor + (CUdeviceptr)r * (CUdeviceptr)row;
    copy.srcMemoryType = copy.dstMemoryType = CU_MEMORYTYPE_DEVICE;
    copy.srcDevice = to_staging ? slice : part;
    copy.srcPitch = to_staging ? row * (size_t)ranks : row;
    copy.dstDevice = to_staging ? part : slice;
    copy.dstPitch = to_staging ? row : row * (size_t)ranks;
    copy.WidthInBytes = row;
    copy.Height = (size_t)c->outer;
    KILN_RT_RETURN_IF_ERROR(
        KILN_CUDA_CALL(cuMemcpy2DAsync_v2, (&copy, stream)));
  }
  return KILN_RT_SUCCESS;
}

/* Queues the NCCL call of `c` (with its staging copies) on `stream`. */
static kiln_rt_status queue(const kiln_rt_dist_collective *c,
                            kiln_nccl_comm comm, CUstream stream,
                            const char **call) {
  size_t part = (size_t)(c->outer * c->inner);
  int dtype =
      c->dtype == KILN_RT_DIST_F64 ? KILN_NCCL_FLOAT64 : KILN_NCCL_FLOAT32;
  int op = c->reduction == KILN_RT_DIST_MAX    ? KILN_NCCL_MAX
           : c->reduction == KILN_RT_DIST_MEAN ? KILN_NCCL_AVG
                                               : KILN_NCCL_SUM;
  int staged = kiln_rt_dist_nccl_staging_bytes(c) != 0;
  kiln_rt_status status = KILN_RT_SUCCESS;
  int result = 0;
  *call = "ncclAllReduce";
  switch (c->kind) {
  case KILN_RT_DIST_ALL_REDUCE:
    result = nccl.AllReduce(c->input, c->output, part, dtype, op, comm, stream);
    break;
  case KILN_RT_DIST_ALL_GATHER:
    *call = "ncclAllGather";
    result = nccl.AllGather(c->input, staged ? c->staging : c->output, part,
                            dtype, comm, stream);
    if (!result && staged)
      status = copy_parts(c, 0, c->output, c->staging, stream);
    break;
  case KILN_RT_DIST_REDUCE_SCATTER:
    *call = "ncclReduceScatter";
    if (staged)
      status = copy_parts(c, 1, c->input, c->staging, stream);
    if (!status)
      result = nccl.ReduceScatter(staged ? c->staging : c->input, c->output,
                                  part, dtype, op, comm, stream);
    break;
  }
  if (status)
    return kiln_dist_fail(status);
  return result ? nccl_fail(*call, result) : KILN_RT_SUCCESS;
}

static const char *call_name(kiln_rt_dist_kind kind) {
  return kind == KILN_RT_DIST_ALL_GATHER       ? "ncclAllGather"
         : kind == KILN_RT_DIST_REDUCE_SCATTER ? "ncclReduceScatter"
                                               : "ncclAllReduce";
}

kiln_rt_status
kiln_rt_dist_nccl_start(const kiln_rt_dist_collective *collective,
                        kiln_rt_cuda_stream *stream,
                        kiln_rt_dist_nccl_request **request) {
  if (!collective || !request)
    return kiln_rt_status_make(
        KILN_RT_INVALID_ARGUMENT,
        "kiln_rt_dist_nccl_start: null collective or request");
  *request = NULL;
  kiln_rt_status status = enter("kiln_rt_dist_nccl_start");
  if (status)
    return status;
  const kiln_rt_dist_collective *c = collective;
  if (kiln_rt_dist_group_size(c->group) < 0)
    return kiln_rt_status_make(
        KILN_RT_INVALID_ARGUMENT,
        "kiln_rt_dist: group %lld is not a communicator (0 is "
        "the world; kiln_rt_dist_group_create makes others)",
        (long long)c->group);
  if (kiln_rt_dist_group_rank(c->group) < 0)
    return kiln_rt_status_make(KILN_RT_INVALID_ARGUMENT,
                               "kiln_rt_dist: rank %d is not in group %lld",
                               kiln_rt_dist_rank(), (long long)c->group);
  if (kiln_rt_dist_nccl_staging_bytes(c) && !c->staging)
    return kiln_rt_status_make(
        KILN_RT_INVALID_ARGUMENT,
        "kiln_rt_dist: an all_gather or reduce_scatter along "
        "an inner dim needs %zu bytes of staging",
        kiln_rt_dist_nccl_staging_bytes(c));
  /* The group's communicator, at its first collective (which only its
   * members run). */
  kiln_nccl_comm comm = NULL;
  if ((status = get_comm(c->group, &comm)))
    return status;
  CUstream program_stream = kiln_cuda_stream_handle(stream), comm_stream = NULL;
  if ((status = communication_stream(&comm_stream)))
    return status;
  int captured = kiln_cuda_stream_capturing(program_stream);
  int overlap = kiln_rt_dist_overlap();
  CUstream on = overlap ? comm_stream : program_stream;
  size_t part = (size_t)(c->outer * c->inner);
  pthread_mutex_lock(&nccl_mutex);
  kiln_rt_dist_nccl_request *r = NULL;
  status = take_request(&r);
  pthread_mutex_unlock(&nccl_mutex);
  if (status)
    return status;
  /* `r` is this thread's until it is watched: no lock while queuing, as
   * NCCL may block (setting up its connections). */
  snprintf(r->what, sizeof(r->what), "%s of %zu %s in group %lld",
           call_name(c->kind), part,
           c->dtype == KILN_RT_DIST_F64 ? "doubles" : "floats",
           (long long)c->group);
  const char *call = NULL;
  int queued = 0;
  status = KILN_CUDA_CALL(cuEventRecord, (r->ready, program_stream));
  if (!status && overlap)
    status = KILN_CUDA_CALL(cuStreamWaitEvent, (comm_stream, r->ready, 0));
  if (!status && part) {
    if (!captured)
      kiln_dist_count(c); /* a graph's launches count its own */
    queued = 1;
    status = queue(c, comm, on, &call);
  }
  if (!status)
    status = KILN_CUDA_CALL(cuEventRecord, (r->done, on));
  else if (queued) {
    /* Part of it may be queued: the program's stream waits for that
     * before the run's buffers can go back. */
    kiln_cuda.cuEventRecord(r->done, on);
    if (overlap)
      kiln_cuda.cuStreamWaitEvent(program_stream, r->done, 0);
  }
  pthread_mutex_lock(&nccl_mutex);
  if (!status)
    status = watch(r, captured);
  if (status && !r->watched)
    release(r);
  pthread_mutex_unlock(&nccl_mutex);
  if (status)
    return kiln_dist_fail(status);
  *request = r;
  return KILN_RT_SUCCESS;
}

kiln_rt_status kiln_rt_dist_nccl_wait(kiln_rt_dist_nccl_request *request,
                                      kiln_rt_cuda_stream *stream) {
  if (!request)
    return kiln_rt_status_make(
        KILN_RT_INVALID_ARGUMENT,
        "kiln_rt_dist_nccl_wait: a wait for no collective");
  kiln_rt_status status = kiln_cuda_enter("kiln_rt_dist_nccl_wait");
  if (!status && kiln_rt_dist_overlap())
    status = KILN_CUDA_CALL(
        cuStreamWaitEvent, (kiln_cuda_stream_handle(stream), request->done, 0));
  pthread_mutex_lock(&nccl_mutex);
  release(request);
  pthread_mutex_unlock(&nccl_mutex);
  return status ? kiln_dist_fail(status) : KILN_RT_SUCCESS;
}

kiln_rt_status kiln_rt_dist_nccl_run(const kiln_rt_dist_collective *collective,
                                     kiln_rt_cuda_stream *stream) {
  kiln_rt_dist_nccl_request *request = NULL;
  kiln_rt_status status = kiln_rt_dist_nccl_start(collective, stream, &request);
  return status ? status : kiln_rt_dist_nccl_wait(request, stream);
}

kiln_rt_status
kiln_rt_dist_nccl_watch_begin(kiln_rt_cuda_stream *stream,
                              kiln_rt_dist_nccl_request **watch_out) {
  if (!watch_out)
    return kiln_rt_status_make(KILN_RT_INVALID_ARGUMENT,
                               "kiln_rt_dist_nccl_watch_begin: watch is NULL");
  *watch_out = NULL;
  kiln_rt_status status = enter("kiln_rt_dist_nccl_watch_begin");
  if (status)
    return status;
  pthread_mutex_lock(&nccl_mutex);
  kiln_rt_dist_nccl_request *r = NULL;
  status = take_request(&r);
  if (!status) {
    status = KILN_CUDA_CALL(cuEventRecord,
                            (r->ready, kiln_cuda_stream_handle(stream)));
    if (status)
      release(r);
  }
  pthread_mutex_unlock(&nccl_mutex);
  if (!status)
    *watch_out = r;
  return status;
}

kiln_rt_status kiln_rt_dist_nccl_watch_end(kiln_rt_dist_nccl_request *r,
                                           kiln_rt_cuda_stream *stream,
                                           const char *what) {
  if (!r)
    return kiln_rt_status_make(KILN_RT_INVALID_ARGUMENT,
                               "kiln_rt_dist_nccl_watch_end: watch is NULL");
  kiln_rt_status status = kiln_cuda_enter("kiln_rt_dist_nccl_watch_end");
  pthread_mutex_lock(&nccl_mutex);
  snprintf(r->what, sizeof(r->what), "%s", what ? what : "GPU work");
  if (!status)
    status = KILN_CUDA_CALL(cuEventRecord,
                            (r->done, kiln_cuda_stream_handle(stream)));
  if (!status)
    status = watch(r, 0);
  release(r);
  pthread_mutex_unlock(&nccl_mutex);
  return status;
}
