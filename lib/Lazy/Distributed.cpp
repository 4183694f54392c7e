//===- Distributed.cpp - collectives and data parallelism -----------------===//

#include "kiln/Lazy/Distributed.h"
#include "Support/RuntimeError.h"

#include "kiln_rt/kiln_rt.h"
#include "kiln_rt/kiln_rt_dist.h"

using namespace kiln;

static int64_t getNumElements(const Tensor &t) {
  int64_t count = 1;
  for (int64_t d : t.getShape())
    count *= d;
  return count;
}

llvm::Error distributed::init() {
  return takeRuntimeError(kiln_rt_dist_init());
}

int distributed::rank() { return kiln_rt_dist_rank(); }
int distributed::size() { return kiln_rt_dist_size(); }
const char *distributed::backend() { return kiln_rt_dist_backend(); }
void distributed::finalize() { kiln_rt_dist_finalize(); }

distributed::Stats distributed::stats() {
  kiln_rt_dist_stats counts;
  kiln_rt_dist_get_stats(&counts);
  Stats out;
  out.collectives = counts.collectives;
  out.bytes = counts.bytes;
  out.waitMs = counts.wait_ns / 1e6;
  out.busyMs = counts.busy_ns / 1e6;
  return out;
}

/// The ranks a recorded collective runs over: its group's (the world's
/// after init, or one that newGroup made and this rank is in).
static llvm::Expected<int64_t> getRanks(int64_t group) {
  if (llvm::Error e = distributed::init())
    return std::move(e);
  int ranks = kiln_rt_dist_group_size(group);
  if (ranks < 0)
    return llvm::createStringError(
        "group " + std::to_string(group) +
        " is not a communicator (0 is the world; distributed::newGroup makes "
        "others)");
  if (kiln_rt_dist_group_rank(group) < 0)
    return llvm::createStringError("rank " +
                                   std::to_string(distributed::rank()) +
                                   " is not in group " + std::to_string(group));
  return ranks;
}

llvm::Expected<int64_t> distributed::newGroup(llvm::ArrayRef<int> ranks) {
  if (llvm::Error e = init())
    return std::move(e);
  int64_t group = 0;
  if (llvm::Error e = takeRuntimeError(kiln_rt_dist_group_create(
          ranks.data(), static_cast<int>(ranks.size()), &group)))
    return std::move(e);
  return group;
}

int distributed::groupSize(int64_t group) {
  return kiln_rt_dist_group_size(group);
}

int distributed::groupRank(int64_t group) {
  return kiln_rt_dist_group_rank(group);
}

static Tensor collective(TraceOp op, const Tensor &t, Reduction reduction,
                         int64_t dim, int64_t group) {
  if (!t.ok())
    return t;
  llvm::Expected<int64_t> ranks = getRanks(group);
  if (!ranks)
    return Tensor::make(ranks.takeError());
  return Tensor::make(TraceNode::collective(
      op, t.getNode(), static_cast<int64_t>(reduction), dim, group, *ranks));
}

Tensor kiln::allReduce(const Tensor &t, Reduction reduction, int64_t group) {
  return collective(TraceOp::AllReduce, t, reduction, 0, group);
}

Tensor kiln::allGather(const Tensor &t, int64_t dim, int64_t group) {
  return collective(TraceOp::AllGather, t, Reduction::Sum, dim, group);
}

Tensor kiln::reduceScatter(const Tensor &t, int64_t dim, Reduction reduction,
                           int64_t group) {
  return collective(TraceOp::ReduceScatter, t, reduction, dim, group);
}

std::vector<Tensor> distributed::averageGradients(llvm::ArrayRef<Tensor> grads,
                                                  int64_t bucketBytes) {
  std::vector<Tensor> averaged(grads.size());
  for (size_t i = 0; i < grads.size(); ++i)
    if (!grads[i].ok())
      averaged[i] = grads[i];
  // Buckets of one dtype, in the gradients' order.
  std::vector<std::vector<size_t>> buckets;
  for (DType dtype : {DType::F32, DType::F64, DType::F16, DType::BF16}) {
    std::vector<size_t> bucket;
    int64_t bytes = 0;
    for (size_t i = 0; i < grads.size(); ++i) {
      if (!grads[i].ok() || grads[i].getDType() != dtype)
        continue;
      int64_t size =
          static_cast<int64_t>(getNumElements(grads[i]) * getDTypeSize(dtype));
      if (!bucket.empty() && bytes + size > bucketBytes) {
        buckets.push_back(std::move(bucket));
        bucket.clear();
        bytes = 0;
      }
      bucket.push_back(i);
      bytes += size;
    }
    if (!bucket.empty())
      buckets.push_back(std::move(bucket));
  }
  for (const std::vector<size_t> &bucket : buckets) {
    if (bucket.size() == 1) {
      averaged[bucket[0]] = allReduce(grads[bucket[0]], Reduction::Mean);
      continue;
    }
    // One buffer: the gradients' kernels write their slices of it.
    std::vector<Tensor> flat;
    for (size_t i : bucket)
      flat.push_back(reshape(grads[i], {getNumElements(grads[i])}));
    Tensor mean = allReduce(cat(flat, 0), Reduction::Mean);
    int64_t offset = 0;
    for (size_t i : bucket) {
      int64_t count = getNumElements(grads[i]);
      averaged[i] =
          reshape(narrow(mean, 0, offset, count), grads[i].getShape());
      offset += count;
    }
  }
  return averaged;
}
