/*===- FakeNccl.c - a stand-in libnccl.so.2 for one rank ------------------===*
 *
 * The stand-in CUDA driver's device memory is host memory, so a
 * communicator of one rank can run: every collective copies its operand.
 * FAKE_NCCL_FAIL=<call> makes that call fail (ncclCommInitRank,
 * ncclAllReduce, ...) with ncclSystemError; FAKE_NCCL_VERSION sets the
 * version it reports (default 2.18.5). Each collective is counted in
 * fake_nccl_collectives.
 *
 *===----------------------------------------------------------------------===*/

#include <stdlib.h>
#include <string.h>

typedef struct {
  char internal[128];
} ncclUniqueId;
typedef void *ncclComm_t;

enum { ncclSuccess = 0, ncclSystemError = 2, ncclInvalidArgument = 4 };

int fake_nccl_collectives;
static int comm_object;

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

static size_t element_bytes(int dtype) { return dtype == 8 ? 8 : 4; }

static int copy(const char *call, const void *send, void *receive, size_t count,
                int dtype, ncclComm_t comm) {
  if (fails(call))
    return ncclSystemError;
  if (comm != &comm_object || (dtype != 7 && dtype != 8))
    return ncclInvalidArgument;
  ++fake_nccl_collectives;
  memmove(receive, send, count * element_bytes(dtype));
  return ncclSuccess;
}

int ncclAllReduce(const void *send, void *receive, size_t count, int dtype,
                  int op, ncclComm_t comm, void *stream) {
  (void)stream;
  if (op != 0 && op != 2 && op != 4)
    return ncclInvalidArgument;
  return copy("ncclAllReduce", send, receive, count, dtype, comm);
}

int ncclAllGather(const void *send, void *receive, size_t count, int dtype,
                  ncclComm_t comm, void *stream) {
  (void)stream;
  return copy("ncclAllGather", send, receive, count, dtype, comm);
}

int ncclReduceScatter(const void *send, void *receive, size_t count, int dtype,
                      int op, ncclComm_t comm, void *stream) {
  (void)stream;
  (void)op;
  return copy("ncclReduceScatter", send, receive, count, dtype, comm);
}

const char *ncclGetErrorString(int result) {
  switch (result) {
  case ncclSuccess:
    return "no error";
  case ncclSystemError:
    return "unhandled system error (stand-in)";
  case ncclInvalidArgument:
    return "invalid argument (stand-in)";
  default:
    return "unknown result code";
  }
}
