/*===- FakeNccl.c - a stand-in libnccl.so.2 for one rank ------------------===*
 *
 * The stand-in CUDA driver's device memory is host memory, so a
 * communicator of one rank can run: every collective copies its operand,
 * at once, or as a host node of the graph that its stream captures.
 * FAKE_NCCL_FAIL=<call> makes that call fail (ncclCommInitRank,
 * ncclAllReduce, ...) with ncclSystemError; FAKE_NCCL_VERSION sets the
 * version it reports (default 2.18.5). FAKE_NCCL_HANG=<call> makes that
 * collective never end, as one whose peer died (its stream hangs: see the
 * stand-in driver); FAKE_NCCL_ASYNC_ERROR=1 makes ncclCommGetAsyncError
 * report ncclRemoteError once a collective has been queued. Each collective
 * is counted in fake_nccl_collectives.
 *
 *===----------------------------------------------------------------------===*/

#include <stdlib.h>
#include <string.h>

typedef struct {
  char internal[128];
} ncclUniqueId;
typedef void *ncclComm_t;

enum {
  ncclSuccess = 0,
  ncclSystemError = 2,
  ncclInvalidArgument = 4,
  ncclRemoteError = 6
};

/* The stand-in driver's, which this library links. */
int fake_cuda_capture_host(void *stream, void (*fn)(void *), const void *data,
                           size_t bytes);
void fake_cuda_hang_stream(void *stream);

int fake_nccl_collectives;
static int comm_object, aborted;

static int fails(const char *call) {
  const char *which = getenv("FAKE_NCCL_FAIL");
  return which && !strcmp(which, call);
}

int ncclGetVersion(int *version) {
  const char *forced = getenv("FAKE_NCCL_VERSION");
  *version = forced ? atoi(forced) : 21805;
  return fails("ncclGetVersion") ? ncclSystemError : ncclSuccess;
}

int ncclGetUniqueId(ncclUniqueId *id) {
  memset(id, 7, sizeof(*id));
  return fails("ncclGetUniqueId") ? ncclSystemError : ncclSuccess;
}

int ncclCommInitRank(ncclComm_t *comm, int nranks, ncclUniqueId id, int rank) {
  (void)id;
  if (fails("ncclCommInitRank"))
    return ncclSystemError;
  if (nranks != 1 || rank != 0)
    return ncclInvalidArgument; /* one rank only */
  *comm = &comm_object;
  return ncclSuccess;
}

int ncclCommGetAsyncError(ncclComm_t comm, int *error) {
  if (comm != &comm_object)
    return ncclInvalidArgument;
  const char *setting = getenv("FAKE_NCCL_ASYNC_ERROR");
  *error = setting && *setting == '1' && fake_nccl_collectives > 0
               ? ncclRemoteError
               : ncclSuccess;
  return ncclSuccess;
}

int ncclCommAbort(ncclComm_t comm) {
  if (comm != &comm_object)
    return ncclInvalidArgument;
  aborted = 1;
  return ncclSuccess;
}

static size_t element_bytes(int dtype) { return dtype == 8 ? 8 : 4; }

typedef struct {
  const void *send;
  void *receive;
  size_t bytes;
} copy_args;
static void run_copy(void *data) {
  const copy_args *args = data;
  memmove(args->receive, args->send, args->bytes);
}

static int copy(const char *call, const void *send, void *receive, size_t count,
                int dtype, ncclComm_t comm, void *stream) {
  if (fails(call))
    return ncclSystemError;
  if (comm != &comm_object || aborted || (dtype != 7 && dtype != 8))
    return ncclInvalidArgument;
  ++fake_nccl_collectives;
  const char *hang = getenv("FAKE_NCCL_HANG");
  if (hang && !strcmp(hang, call)) {
    fake_cuda_hang_stream(stream);
    return ncclSuccess;
  }
  copy_args args = {send, receive, count * element_bytes(dtype)};
  if (!fake_cuda_capture_host(stream, run_copy, &args, sizeof(args)))
    run_copy(&args);
  return ncclSuccess;
}

int ncclAllReduce(const void *send, void *receive, size_t count, int dtype,
                  int op, ncclComm_t comm, void *stream) {
  if (op != 0 && op != 2 && op != 4)
    return ncclInvalidArgument;
  return copy("ncclAllReduce", send, receive, count, dtype, comm, stream);
}

int ncclAllGather(const void *send, void *receive, size_t count, int dtype,
                  ncclComm_t comm, void *stream) {
  return copy("ncclAllGather", send, receive, count, dtype, comm, stream);
}

int ncclReduceScatter(const void *send, void *receive, size_t count, int dtype,
                      int op, ncclComm_t comm, void *stream) {
  (void)op;
  return copy("ncclReduceScatter", send, receive, count, dtype, comm, stream);
}

const char *ncclGetErrorString(int result) {
  switch (result) {
  case ncclSuccess:
    return "no error";
  case ncclSystemError:
    return "unhandled system error (stand-in)";
  case ncclInvalidArgument:
    return "invalid argument (stand-in)";
  case ncclRemoteError:
    return "remote process exited or there was a network error (stand-in)";
  default:
    return "unknown result code";
  }
}
