//===- RankGroup.cpp - simulated ranks of a collective --------------------===//

#include "Reference/RankGroup.h"
#include "kiln/Dialect/Kiln/IR/KilnOps.h"

#include "llvm/ADT/Twine.h"

using namespace kiln;
using namespace kiln::reference;

static llvm::Error groupError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message.str());
}

llvm::Expected<Buffer> RankGroup::exchange(int rank,
                                           const std::string &description,
                                           const Buffer &operand,
                                           Combine combine) {
  std::unique_lock<std::mutex> lock(mutex);
  // The last round's results are taken before this one's are posted.
  changed.wait(lock, [&] { return taking == 0; });
  uint64_t round = generation;
  posted[rank] = &operand;
  descriptions[rank] = description;
  auto anyLeft = [&] {
    for (int r = 0; r < numRanks; ++r)
      if (left[r] && !posted[r])
        return r;
    return -1;
  };
  if (++arrived == numRanks) {
    error.clear();
    results.clear();
    for (int r = 1; r < numRanks && error.empty(); ++r)
      if (descriptions[r] != descriptions[0])
        error = "rank " + std::to_string(r) + " runs " + descriptions[r] +
                " where rank 0 runs " + descriptions[0];
    if (error.empty()) {
      llvm::Expected<std::vector<Buffer>> combined = combine(posted);
      if (!combined)
        error = llvm::toString(combined.takeError());
      else
        results = std::move(*combined);
    }
    arrived = 0;
    taking = numRanks;
    std::fill(posted.begin(), posted.end(), nullptr);
    ++generation;
    changed.notify_all();
  } else {
    changed.wait(lock, [&] { return generation != round || anyLeft() >= 0; });
    if (generation == round) {
      // A rank left: this round never completes.
      int gone = anyLeft();
      posted[rank] = nullptr;
      --arrived;
      changed.notify_all();
      return groupError("rank " + llvm::Twine(gone) +
                        " left the group before " + description);
    }
  }
  llvm::Expected<Buffer> mine = error.empty()
                                    ? llvm::Expected<Buffer>(results[rank])
                                    : llvm::Expected<Buffer>(groupError(error));
  if (--taking == 0)
    changed.notify_all();
  return mine;
}

void RankGroup::leave(int rank) {
  std::lock_guard<std::mutex> lock(mutex);
  left[rank] = true;
  changed.notify_all();
}

/// The elementwise reduction of `operands` (one shape).
static Buffer reduceRanks(int64_t reduction,
                          llvm::ArrayRef<const Buffer *> operands) {
  Buffer out = *operands[0];
  for (size_t r = 1; r < operands.size(); ++r)
    for (int64_t i = 0; i < out.size(); ++i)
      out.data[i] = reduction == 2
                        ? maximumOf(out.data[i], operands[r]->data[i])
                        : out.data[i] + operands[r]->data[i];
  if (reduction == 1)
    for (double &v : out.data)
      v /= static_cast<double>(operands.size());
  return out;
}

/// [outer][inner] views of `shape` split at `dim`: the elements before it,
/// and from it on.
static std::pair<int64_t, int64_t> splitAt(llvm::ArrayRef<int64_t> shape,
                                           int64_t dim) {
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < static_cast<int64_t>(shape.size()); ++d)
    (d < dim ? outer : inner) *= shape[d];
  return {outer, inner};
}

llvm::Expected<std::vector<Buffer>>
kiln::reference::combineCollective(llvm::StringRef kind, int64_t reduction,
                                   int64_t dim,
                                   llvm::ArrayRef<const Buffer *> operands) {
  size_t n = operands.size();
  auto shapeOf = [](const Buffer *b) {
    std::string s;
    for (int64_t d : b->shape)
      s += (s.empty() ? "" : "x") + std::to_string(d);
    return s.empty() ? std::string("a scalar") : s;
  };
  for (size_t r = 1; r < n; ++r)
    if (operands[r]->shape != operands[0]->shape)
      return groupError("rank " + llvm::Twine(r) + "'s operand is " +
                        shapeOf(operands[r]) + " where rank 0's is " +
                        shapeOf(operands[0]));
  std::vector<Buffer> results;
  if (kind == "kiln.all_reduce") {
    Buffer sum = reduceRanks(reduction, operands);
    results.assign(n, sum);
    return results;
  }
  if (dim < 0 || dim >= static_cast<int64_t>(operands[0]->shape.size()))
    return groupError("dim " + llvm::Twine(dim) + " out of range");
  if (kind == "kiln.all_gather") {
    auto [outer, inner] = splitAt(operands[0]->shape, dim);
    Buffer gathered = *operands[0];
    gathered.shape[dim] *= static_cast<int64_t>(n);
    gathered.data.assign(gathered.data.size() * n, 0.0);
    for (int64_t o = 0; o < outer; ++o)
      for (size_t r = 0; r < n; ++r)
        std::copy_n(operands[r]->data.begin() + o * inner, inner,
                    gathered.data.begin() + (o * n + r) * inner);
    results.assign(n, gathered);
    return results;
  }
  if (kind == "kiln.reduce_scatter") {
    Buffer whole = reduceRanks(reduction, operands);
    if (whole.shape[dim] % static_cast<int64_t>(n) != 0)
      return groupError("size " + llvm::Twine(whole.shape[dim]) + " at dim " +
                        llvm::Twine(dim) + " does not split into " +
                        llvm::Twine(n) + " parts");
    Buffer part = whole;
    part.shape[dim] /= static_cast<int64_t>(n);
    auto [outer, inner] = splitAt(part.shape, dim);
    part.data.assign(outer * inner, 0.0);
    for (size_t r = 0; r < n; ++r) {
      for (int64_t o = 0; o < outer; ++o)
        std::copy_n(whole.data.begin() + (o * n + r) * inner, inner,
                    part.data.begin() + o * inner);
      results.push_back(part);
    }
    return results;
  }
  return groupError(kind + " is not a collective");
}

kiln::reference::RankWorld::RankWorld(int size,
                                      llvm::ArrayRef<std::vector<int>> made) {
  std::vector<int> world(size);
  for (int r = 0; r < size; ++r)
    world[r] = r;
  members.push_back(std::move(world));
  members.insert(members.end(), made.begin(), made.end());
  for (const std::vector<int> &ranks : members)
    groups.push_back(
        std::make_unique<RankGroup>(static_cast<int>(ranks.size())));
}

llvm::Expected<std::pair<kiln::reference::RankGroup *, int>>
kiln::reference::RankWorld::lookup(int64_t id, int rank) {
  if (id < 0 || id >= static_cast<int64_t>(groups.size()))
    return groupError("group " + llvm::Twine(id) +
                      " is not a communicator of the simulated ranks (0 is "
                      "the world; " +
                      llvm::Twine(groups.size() - 1) + " group(s) made)");
  const std::vector<int> &ranks = members[id];
  auto found = llvm::find(ranks, rank);
  if (found == ranks.end())
    return groupError("rank " + llvm::Twine(rank) + " is not in group " +
                      llvm::Twine(id));
  return std::make_pair(groups[id].get(),
                        static_cast<int>(found - ranks.begin()));
}

void kiln::reference::RankWorld::leave(int rank) {
  for (size_t g = 0; g < groups.size(); ++g) {
    auto found = llvm::find(members[g], rank);
    if (found != members[g].end())
      groups[g]->leave(static_cast<int>(found - members[g].begin()));
  }
}
