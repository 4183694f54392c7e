//===- RankGroup.h - simulated ranks of a collective ------------*- C++ -*-===//
//
// The reference interpreter's ranks: one interpreter per rank, each on a
// thread of its own, meeting at a RankGroup for every collective. Each rank
// posts its operand; the last to arrive computes every rank's result (in
// double, in rank order, so the answer does not depend on who came last);
// each takes its own. Ranks that disagree on the collective, or a rank
// that left before it, make it fail on every rank instead of hanging.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_REFERENCE_RANKGROUP_H
#define KILN_REFERENCE_RANKGROUP_H

#include "kiln/Support/HostTensor.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/Error.h"

#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace kiln::reference {

/// A value of the interpreter: dense, row-major, in double, tagged with
/// its element type.
struct Buffer {
  DType dtype = DType::F32;
  std::vector<int64_t> shape;
  std::vector<double> data;

  int64_t size() const { return static_cast<int64_t>(data.size()); }
};

class RankGroup {
public:
  explicit RankGroup(int size)
      : numRanks(size), posted(size), descriptions(size), left(size) {}

  int size() const { return numRanks; }

  /// Every rank's result from every rank's operand, in rank order.
  using Combine = llvm::function_ref<llvm::Expected<std::vector<Buffer>>(
      llvm::ArrayRef<const Buffer *>)>;

  /// Posts `rank`'s `operand` for the collective that `description` names
  /// (the op, its attributes and operand type: every rank must post the
  /// same) and waits for the others; the last to arrive runs `combine`.
  /// Returns `rank`'s result.
  llvm::Expected<Buffer> exchange(int rank, const std::string &description,
                                  const Buffer &operand, Combine combine);

  /// `rank` runs no more collectives: the others' next ones fail.
  void leave(int rank);

private:
  std::mutex mutex;
  std::condition_variable changed;
  int numRanks;
  int arrived = 0, taking = 0;
  uint64_t generation = 0;
  std::vector<const Buffer *> posted;
  std::vector<std::string> descriptions;
  std::vector<bool> left;
  std::vector<Buffer> results;
  std::string error;
};

/// The communicators of simulated ranks: the world (group 0, every rank
/// in order) and groups of some of its ranks (1, 2, ... as the runtime's
/// kiln_rt_dist_group_create numbers them), each a RankGroup of its own.
class RankWorld {
public:
  /// `groups[i]` lists the world ranks of group i + 1, each once, in their
  /// order in it (checked by evaluateRanks).
  RankWorld(int size, llvm::ArrayRef<std::vector<int>> groups);

  RankGroup &getWorld() { return *groups.front(); }
  /// Group `id`, and `rank`'s place in it; an error naming why not (no
  /// such group, or `rank` is not in it).
  llvm::Expected<std::pair<RankGroup *, int>> lookup(int64_t id, int rank);
  /// `rank` runs no more collectives, in any of its groups.
  void leave(int rank);

private:
  std::vector<std::unique_ptr<RankGroup>> groups;
  std::vector<std::vector<int>> members;
};

/// kiln.all_reduce, kiln.all_gather and kiln.reduce_scatter over the
/// ranks' `operands`: `kind` is the op's name, `reduction` 0 sum, 1 mean,
/// 2 max; `dim` for the latter two.
llvm::Expected<std::vector<Buffer>>
combineCollective(llvm::StringRef kind, int64_t reduction, int64_t dim,
                  llvm::ArrayRef<const Buffer *> operands);

} // namespace kiln::reference

#endif // KILN_REFERENCE_RANKGROUP_H
