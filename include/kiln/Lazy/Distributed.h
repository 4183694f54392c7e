//===- Distributed.h - collectives and data parallelism --------*- C++ -*-===//
//
// Collectives on lazy tensors, recorded like any op (kiln.all_reduce,
// kiln.all_gather, kiln.reduce_scatter), and the job they run in: the
// ranks that an MPI launcher started (mpirun -np N), or this process alone.
// Every rank must record the same collectives in the same order, on the
// same shapes, and compute the same tensors: a collective runs when its
// result is computed, so a rank that never asks for a value leaves the
// others waiting. The runtime checks that the ranks' programs agree before
// their first collective, and a rank that stops answering is an error
// after KILN_DIST_TIMEOUT_S seconds (default 300), not a hang.
//
// Data parallelism: each rank computes the gradients of its shard of the
// batch, then averages them (averageGradients) before its update, so every
// rank's weights stay equal to a single process's on the whole batch.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_LAZY_DISTRIBUTED_H
#define KILN_LAZY_DISTRIBUTED_H

#include "kiln/Lazy/Tensor.h"

#include "llvm/Support/Error.h"

#include <cstdint>
#include <vector>

namespace kiln {

/// How a collective combines the ranks' tensors.
enum class Reduction { Sum = 0, Mean = 1, Max = 2 };

/// Every rank's `t` combined elementwise; every rank gets the result.
Tensor allReduce(const Tensor &t, Reduction reduction = Reduction::Sum,
                 int64_t group = 0);
/// The ranks' `t` concatenated along `dim`, in rank order.
Tensor allGather(const Tensor &t, int64_t dim, int64_t group = 0);
/// allReduce of `t`, split into one equal part per rank along `dim`: this
/// rank's part.
Tensor reduceScatter(const Tensor &t, int64_t dim,
                     Reduction reduction = Reduction::Sum, int64_t group = 0);

namespace distributed {

/// Joins the job: with MPI where an MPI launcher started the process (or
/// KILN_DIST=mpi), alone otherwise. Idempotent. Collectives call it
/// themselves; call it first to know the rank and size before recording.
llvm::Error init();
/// This process's rank and the number of ranks (0 and 1 before init).
int rank();
int size();
/// "mpi" or "none".
const char *backend();

/// A communicator of the world's `ranks` (each once; a rank's place in the
/// list is its rank in the group), for the `group` argument of the
/// collectives. Every rank of the world calls it with the same list, in the
/// same order, members or not (as MPI_Comm_split): the handle then names
/// the same group on every rank. 0 is the world.
llvm::Expected<int64_t> newGroup(llvm::ArrayRef<int> ranks);
/// The number of ranks in `group`, and this rank's place in it (-1: not a
/// member); -1 for a handle that names no group.
int groupSize(int64_t group);
int groupRank(int64_t group);
/// Leaves the job: MPI_Finalize, or MPI_Abort after a failed collective
/// (the peers may be waiting on this rank). Call it once, at the end.
void finalize();

/// The mean over the ranks of each of `grads`: one all_reduce per bucket of
/// at most `bucketBytes` (default 25 MB, as PyTorch DDP), the gradients of a
/// bucket concatenated in order. Returns the averaged gradients, each of its
/// gradient's shape.
std::vector<Tensor> averageGradients(llvm::ArrayRef<Tensor> grads,
                                     int64_t bucketBytes = 25 << 20);

/// Counters of the collectives run so far, for tests and benchmarks.
struct Stats {
  uint64_t collectives = 0;
  uint64_t bytes = 0;
  /// Blocked waiting for a collective to end.
  double waitMs = 0;
  /// In any call of the collectives (start, progress, wait, the program
  /// check): the communication this thread did not overlap with its work.
  double busyMs = 0;
};
Stats stats();

} // namespace distributed
} // namespace kiln

#endif // KILN_LAZY_DISTRIBUTED_H
