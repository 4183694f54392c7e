//===- Fuse.cpp - the -kiln-fuse pass -------------------------------------===//
//
// Groups are sets of ops with a common iteration domain (the shape the
// kernel loops over). Ops are visited in program order; each starts in its
// own group and is merged with the groups of its fusible producers when
// (1) the domains agree, or the producer's group is read only through
// slices of the consumer's domain, or the consumer is a concat of unequal
// parts and the producer's domain is the part's shape (one nest per part); (2)
// the producer may feed a consumer in the same group (a concat or a reduction
// ends its group); and (3) no path leaves the merged group and comes back,
// which would be a cycle. The groups then become kiln.fusion_group ops and the
// block is put back in topological order.
//
// Row groups: a reduction over the trailing dims of its operand (rows of
// the leading dims, its "row rank" k) does not end its group when the
// group reads its result back: a broadcast along those dims, or an
// elementwise op on the row values (the reduction's shape), whose own
// consumers may be more of the same. The group's domain stays the rows'
// full shape; every reduction in it must be a row reduction of the same k,
// and it holds only elementwise ops, broadcasts and reductions (the row
// lowering's vocabulary, FusionGroup.cpp).
//
// Then an elementwise op that only one other group reads moves into that
// group when the two kernels move fewer bytes that way.
//
// Ops that -kiln-autodiff copied to recompute a value for the backward
// (kiln.recomputed) never share a group with an op that came before them
// (the forward's ops they read): the group would run there. They fuse with
// each other, with the backward ops after them that read them, and with
// those before them that run after a gap in the backward anyway
// (kiln.after_gap, which the pass removes). The
// block's new order keeps every op after those that came before it where
// its operands allow (sortKeepingOrder): the recomputation stays where the
// backward needs it.
//
//===----------------------------------------------------------------------===//

#include "Support/PassStatistics.h"
#include "kiln/Dialect/Kiln/IR/KilnDialect.h"
#include "kiln/Dialect/Kiln/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/EquivalenceClasses.h"
#include "llvm/ADT/SetVector.h"

#include <climits>
#include <queue>

namespace kiln {
#define GEN_PASS_DEF_KILNFUSE
#include "kiln/Dialect/Kiln/Transforms/Passes.h.inc"
} // namespace kiln

#include "kiln/Dialect/Kiln/Transforms/PassStatistics.h.inc"

using namespace mlir;
using namespace kiln;

namespace {

bool isFusible(Operation *op) {
  // A broadcast to dynamic dims reads its sizes from outside: groups are
  // isolated from above.
  if (auto broadcast = dyn_cast<BroadcastInDimOp>(op);
      broadcast && !broadcast.getSizes().empty())
    return false;
  // An add that accumulates a matmul's product is that matmul's epilogue.
  if (auto add = dyn_cast<AddOp>(op); add && getAccumulatedMatmul(add))
    return false;
  // A static iota is computed where it is read (its loop indices), never
  // stored: a cross-entropy's iota == label fuses into its row kernel.
  if (auto iota = dyn_cast<IotaOp>(op))
    return iota.getSizes().empty();
  return isa<KilnDialect>(op->getDialect()) &&
         (op->hasTrait<OpTrait::Elementwise>() ||
          isa<BroadcastInDimOp, SliceOp, ConcatOp, ReduceSumOp, ReduceMaxOp>(
              op));
}

/// The shape a kernel loops over for `op`, or none when `op` cannot share
/// a domain with anything (a concat of unequal parts).
std::optional<SmallVector<int64_t>> getDomain(Operation *op) {
  if (auto concat = dyn_cast<ConcatOp>(op)) {
    auto first = cast<RankedTensorType>(concat.getInputs().front().getType());
    for (Value input : concat.getInputs())
      if (input.getType() != first)
        return std::nullopt;
    return SmallVector<int64_t>(first.getShape());
  }
  if (isa<ReduceSumOp, ReduceMaxOp>(op))
    return SmallVector<int64_t>(
        cast<RankedTensorType>(op->getOperand(0).getType()).getShape());
  return SmallVector<int64_t>(
      cast<RankedTensorType>(op->getResult(0).getType()).getShape());
}

/// Whether `op` may be in a row group.
bool isRowMember(Operation *op) {
  return op->hasTrait<OpTrait::Elementwise>() ||
         isa<BroadcastInDimOp, ReduceSumOp, ReduceMaxOp, IotaOp>(op);
}

ArrayRef<int64_t> getResultShape(Operation *op) {
  return cast<RankedTensorType>(op->getResult(0).getType()).getShape();
}

class Grouping {
public:
  Grouping(Block &block, bool rowReductions)
      : block(block), rowReductions(rowReductions) {
    unsigned next = 0;
    for (Operation &op : block) {
      position[&op] = next++;
      groupAt.push_back(-1);
      if (isFusible(&op)) {
        fusible.push_back(&op);
        groupAt.back() = static_cast<int>(groups.size());
        groupOf[&op] = groups.size();
        parent.push_back(groups.size());
        Group group;
        group.members.insert(&op);
        group.domain = getDomain(&op);
        group.first = position[&op];
        if (op.hasAttr(kRecomputedAttrName))
          group.firstRecomputed = group.first;
        else if (!op.hasAttr(kAfterGapAttrName))
          group.firstInForward = group.first;
        groups.push_back(std::move(group));
      }
    }
  }

  void run() {
    for (Operation *consumer : fusible)
      for (Value operand : consumer->getOperands()) {
        Operation *producer = operand.getDefiningOp();
        if (producer && groupOf.count(producer))
          tryMerge(producer, consumer);
      }
  }

  /// After the merges: an elementwise op whose results only one other
  /// group reads moves into that group when that moves fewer bytes (the
  /// consumer reads the op's operands instead of the op's group writing its
  /// result). Merging in program order puts such an op in its producer's
  /// group; at the edge of an unrolled loop (a last step that also feeds
  /// the backward) that made the producer's kernel differ from every other
  /// step's.
  void sinkIntoConsumers() {
    bool changed = true;
    while (changed) {
      changed = false;
      for (Operation *op : llvm::reverse(fusible))
        changed |= trySink(op);
    }
  }

  /// Groups in program order of their first op, each in program order.
  SmallVector<SmallVector<Operation *>> getGroups() {
    SmallVector<SmallVector<Operation *>> result;
    llvm::DenseMap<unsigned, unsigned> index;
    for (Operation *op : fusible) {
      unsigned g = find(groupOf[op]);
      auto [it, inserted] = index.try_emplace(g, result.size());
      if (inserted)
        result.emplace_back();
      result[it->second].push_back(op);
    }
    return result;
  }

  /// How many groups hold row reductions that they read back.
  int64_t countRowGroups() {
    int64_t count = 0;
    for (auto [g, group] : llvm::enumerate(groups))
      count += find(g) == g && group.rowRank > 0;
    return count;
  }

private:
  struct Group {
    llvm::SetVector<Operation *> members;
    std::optional<SmallVector<int64_t>> domain;
    /// k when the group reads back row reductions over rows of its
    /// domain's first k dims; 0 when it does not.
    int64_t rowRank = 0;
    /// The position of its first op, and of its first copy that
    /// -kiln-autodiff made to recompute a value for the backward
    /// (kiln.recomputed), if any.
    unsigned first = 0;
    std::optional<unsigned> firstRecomputed;
    /// The position of its first op that may run in the forward: neither
    /// recomputed nor marked kiln.after_gap.
    std::optional<unsigned> firstInForward;
  };

  /// Whether one group may hold the ops of `a` and `b`: none of its
  /// recomputed ops has an op before it that may run in the forward. A
  /// group runs at its first op (sortKeepingOrder); with the forward's ops,
  /// a recomputation would run in the forward and its value would be kept
  /// to the backward, as if never recomputed.
  static bool keepsRecomputationsLate(const Group &a, const Group &b) {
    std::optional<unsigned> recomputed =
        earlier(a.firstRecomputed, b.firstRecomputed);
    std::optional<unsigned> inForward =
        earlier(a.firstInForward, b.firstInForward);
    return !recomputed || !inForward || *recomputed < *inForward;
  }

  /// The earlier of two positions, either of which may be missing.
  static std::optional<unsigned> earlier(std::optional<unsigned> a,
                                         std::optional<unsigned> b) {
    if (!a || (b && *b < *a))
      return b;
    return a;
  }

  /// Recomputes `group.first` and `group.firstRecomputed` from its members.
  void updatePositions(Group &group) {
    group.firstRecomputed.reset();
    group.firstInForward.reset();
    group.first = UINT_MAX;
    for (Operation *op : group.members) {
      unsigned at = position.lookup(op);
      group.first = std::min(group.first, at);
      if (op->hasAttr(kRecomputedAttrName))
        group.firstRecomputed = earlier(group.firstRecomputed, at);
      else if (!op->hasAttr(kAfterGapAttrName))
        group.firstInForward = earlier(group.firstInForward, at);
    }
  }

  /// Whether `group` can be (part of) a row group of row rank `k` over
  /// `domain`: only row members, every reduction a row reduction of rank
  /// `k`, every op of the domain's shape or of its rows' shape (only
  /// elementwise ops and broadcasts of inputs, for the latter).
  bool fitsRowGroup(Group &group, ArrayRef<int64_t> domain, int64_t k) {
    if (group.rowRank != 0 && group.rowRank != k)
      return false;
    ArrayRef<int64_t> rows = domain.take_front(k);
    for (Operation *op : group.members) {
      if (!isRowMember(op))
        return false;
      if (isa<ReduceSumOp, ReduceMaxOp>(op)) {
        if (getRowReductionRank(op) != k ||
            cast<RankedTensorType>(op->getOperand(0).getType()).getShape() !=
                domain)
          return false;
        continue;
      }
      // Of the rows' shape: elementwise ops, and broadcasts of inputs (a
      // broadcast reads only group inputs).
      ArrayRef<int64_t> shape = getResultShape(op);
      if (shape != domain &&
          !(shape == rows && (op->hasTrait<OpTrait::Elementwise>() ||
                              isa<BroadcastInDimOp>(op))))
        return false;
    }
    return true;
  }

  /// The row rank k when `producer` -> `consumer` reads row values back: a
  /// row reduction, or an elementwise op on the rows of a row group, read
  /// by a broadcast along the reduced dims or by an elementwise op on the
  /// rows. 0 otherwise.
  int64_t getRowEdge(Operation *producer, Operation *consumer) {
    Group &p = groupFor(producer);
    int64_t k = getRowReductionRank(producer);
    if (k == 0 && p.rowRank > 0 && p.domain &&
        producer->hasTrait<OpTrait::Elementwise>() &&
        getResultShape(producer) ==
            ArrayRef<int64_t>(*p.domain).take_front(p.rowRank))
      k = p.rowRank;
    if (k == 0 || !p.domain)
      return 0;
    ArrayRef<int64_t> domain = *p.domain;
    if (auto broadcast = dyn_cast<BroadcastInDimOp>(consumer)) {
      ArrayRef<int64_t> dims = broadcast.getDims();
      bool alongRows = static_cast<int64_t>(dims.size()) == k &&
                       broadcast.getType().getShape() == domain;
      for (auto [i, d] : llvm::enumerate(dims))
        alongRows &= d == static_cast<int64_t>(i);
      return alongRows ? k : 0;
    }
    if (consumer->hasTrait<OpTrait::Elementwise>() &&
        getResultShape(consumer) == domain.take_front(k))
      return k;
    return 0;
  }

  /// Bytes a kernel of `group` reads and writes: its inputs once, and the
  /// results of its members that anything outside it uses. None when a
  /// size is not static.
  std::optional<int64_t> getTraffic(Group &group) {
    llvm::SmallPtrSet<Value, 16> inputs;
    int64_t bytes = 0;
    auto add = [&](Value v) {
      auto type = dyn_cast<RankedTensorType>(v.getType());
      if (!type || !type.hasStaticShape() ||
          !type.getElementType().isIntOrFloat())
        return false;
      bytes += type.getNumElements() *
               llvm::divideCeil(type.getElementTypeBitWidth(), 8);
      return true;
    };
    for (Operation *op : group.members) {
      for (Value operand : op->getOperands())
        if (!group.members.contains(operand.getDefiningOp()) &&
            inputs.insert(operand).second && !add(operand))
          return std::nullopt;
      for (Value result : op->getResults())
        if (llvm::any_of(result.getUsers(),
                         [&](Operation *user) {
                           return !group.members.contains(user);
                         }) &&
            !add(result))
          return std::nullopt;
    }
    return bytes;
  }

  /// Moves `op` into the one group that uses its result when both groups
  /// loop over its shape and the two kernels then move fewer bytes
  /// (sinkIntoConsumers). Acyclic groups stay acyclic: every use of `op`
  /// is in the target, which already depended on everything `op` reads.
  bool trySink(Operation *op) {
    if (!op->hasTrait<OpTrait::Elementwise>() || op->getNumResults() != 1)
      return false;
    unsigned from = find(groupOf[op]);
    std::optional<unsigned> to;
    for (Operation *user : op->getUsers()) {
      auto it = groupOf.find(user);
      if (it == groupOf.end())
        return false;
      unsigned g = find(it->second);
      if (g == from || (to && *to != g))
        return false;
      to = g;
    }
    if (!to)
      return false;
    Group &source = groups[from], &target = groups[*to];
    Group moved;
    moved.members.insert(op);
    updatePositions(moved);
    if (source.members.size() < 2 || !source.domain || !target.domain ||
        !keepsRecomputationsLate(moved, target) ||
        *source.domain != *target.domain ||
        getResultShape(op) != ArrayRef<int64_t>(*target.domain))
      return false;
    std::optional<int64_t> sourceBefore = getTraffic(source),
                           targetBefore = getTraffic(target);
    if (!sourceBefore || !targetBefore)
      return false;
    source.members.remove(op);
    target.members.insert(op);
    std::optional<int64_t> sourceAfter = getTraffic(source),
                           targetAfter = getTraffic(target);
    if (!sourceAfter || !targetAfter ||
        *sourceAfter + *targetAfter >= *sourceBefore + *targetBefore) {
      target.members.remove(op);
      source.members.insert(op);
      return false;
    }
    updatePositions(source);
    updatePositions(target);
    groupOf[op] = *to;
    groupAt[position.lookup(op)] = static_cast<int>(*to);
    return true;
  }

  /// Merges the groups of a row edge (getRowEdge) of row rank `k`.
  void tryRowMerge(Operation *producer, Operation *consumer, int64_t k) {
    unsigned pg = find(groupOf[producer]), cg = find(groupOf[consumer]);
    Group &p = groups[pg], &c = groups[cg];
    if (!keepsRecomputationsLate(p, c))
      return;
    SmallVector<int64_t> domain = *p.domain;
    if (!fitsRowGroup(p, domain, k) || !fitsRowGroup(c, domain, k))
      return;
    if (reachesThroughOutside(p, c) || reachesThroughOutside(c, p))
      return;
    absorb(pg, cg);
    c.domain = domain;
    c.rowRank = k;
  }

  /// Moves the members of group `pg` into group `cg`.
  void absorb(unsigned pg, unsigned cg) {
    Group &p = groups[pg], &c = groups[cg];
    for (Operation *op : p.members)
      c.members.insert(op);
    p.members.clear();
    c.first = std::min(c.first, p.first);
    c.firstRecomputed = earlier(c.firstRecomputed, p.firstRecomputed);
    c.firstInForward = earlier(c.firstInForward, p.firstInForward);
    parent[pg] = cg;
  }

  /// The group `g` was merged into (path halving keeps chains of merges,
  /// like a sum over every step, short).
  unsigned find(unsigned g) {
    while (parent[g] != g) {
      parent[g] = parent[parent[g]];
      g = parent[g];
    }
    return g;
  }
  Group &groupFor(Operation *op) { return groups[find(groupOf[op])]; }

  /// Every use of every value of `group` is a slice whose result has
  /// shape `domain`.
  bool readOnlyThroughSlices(Group &group, ArrayRef<int64_t> domain) {
    for (Operation *op : group.members)
      for (Operation *user : op->getUsers()) {
        if (group.members.contains(user))
          continue;
        auto slice = dyn_cast<SliceOp>(user);
        if (!slice || slice.getType().getShape() != domain)
          return false;
      }
    return true;
  }

  /// Whether a path from `from` reaches `to` through ops outside both. A
  /// group is one node of the graph once it is built, so entering any
  /// member of another group continues from all of its members.
  ///
  /// The block is in SSA order, so a path only moves to later ops: none
  /// that starts after the last member of `to` can reach it. That bounds
  /// the search to the window between the two groups, which keeps fusing a
  /// long unrolled program linear rather than quadratic.
  bool reachesThroughOutside(Group &from, Group &to) {
    unsigned limit = 0;
    for (Operation *op : to.members)
      limit = std::max(limit, position.lookup(op));
    // Ops and groups seen by this search carry its stamp.
    ++searchStamp;
    if (opStamp.size() < groupAt.size()) {
      opStamp.assign(groupAt.size(), 0);
      groupStamp.assign(groups.size(), 0);
    }
    SmallVector<std::pair<Operation *, unsigned>> stack;
    // Users nested in a region count as the op of this block holding it.
    auto inBlock = [&](Operation *user) {
      return block.findAncestorOpInBlock(*user);
    };
    auto pushUsers = [&](Operation *op) -> bool {
      for (Operation *nested : op->getUsers()) {
        Operation *user = inBlock(nested);
        if (!user || to.members.contains(user))
          return true;
        unsigned pos = position.lookup(user);
        if (pos < limit && !from.members.contains(user))
          stack.push_back({user, pos});
      }
      return false;
    };
    // Direct edges between the two are what the merge absorbs; only paths
    // that leave through some other op can close a cycle.
    for (Operation *op : from.members)
      for (Operation *nested : op->getUsers()) {
        Operation *user = inBlock(nested);
        if (!user)
          return true;
        unsigned pos = position.lookup(user);
        if (pos < limit && !from.members.contains(user) &&
            !to.members.contains(user))
          stack.push_back({user, pos});
      }
    while (!stack.empty()) {
      auto [op, pos] = stack.pop_back_val();
      if (opStamp[pos] == searchStamp)
        continue;
      opStamp[pos] = searchStamp;
      if (groupAt[pos] < 0) {
        if (pushUsers(op))
          return true;
        continue;
      }
      unsigned g = find(groupAt[pos]);
      if (groupStamp[g] == searchStamp)
        continue;
      groupStamp[g] = searchStamp;
      for (Operation *member : groups[g].members) {
        opStamp[position.lookup(member)] = searchStamp;
        if (pushUsers(member))
          return true;
      }
    }
    return false;
  }

  void tryMerge(Operation *producer, Operation *consumer) {
    unsigned pg = find(groupOf[producer]), cg = find(groupOf[consumer]);
    if (pg == cg)
      return;
    if (rowReductions)
      if (int64_t k = getRowEdge(producer, consumer)) {
        tryRowMerge(producer, consumer, k);
        return;
      }
    // A concat is an exit and a reduction an epilogue: nothing in their
    // group reads them. Broadcasts read group inputs only.
    if (isa<ConcatOp, ReduceSumOp, ReduceMaxOp>(producer) ||
        isa<BroadcastInDimOp>(consumer))
      return;
    Group &p = groups[pg], &c = groups[cg];
    if (!p.domain || !keepsRecomputationsLate(p, c))
      return;
    if (!c.domain) {
      // A concat of unequal parts takes in each part's producer, which
      // becomes a loop nest of its own shape in the one kernel.
      auto concat = dyn_cast<ConcatOp>(consumer);
      auto partType =
          dyn_cast<RankedTensorType>(producer->getResult(0).getType());
      if (!concat || producer->getNumResults() != 1 || !partType ||
          partType.getShape() != ArrayRef<int64_t>(*p.domain))
        return;
    } else {
      bool sameDomain = *p.domain == *c.domain;
      bool slicedProducer =
          isa<SliceOp>(consumer) && readOnlyThroughSlices(p, *c.domain);
      if (!sameDomain && !slicedProducer)
        return;
    }
    // A row group takes only what its lowering can place on the rows.
    int64_t rowRank = std::max(p.rowRank, c.rowRank);
    if (rowRank > 0 && (!c.domain || !fitsRowGroup(p, *c.domain, rowRank) ||
                        !fitsRowGroup(c, *c.domain, rowRank)))
      return;
    // A group read through slices must not also have outputs of its own
    // domain; a group with a reduction or concat keeps its domain.
    if (reachesThroughOutside(p, c) || reachesThroughOutside(c, p))
      return;
    absorb(pg, cg);
    c.rowRank = rowRank;
  }

  Block &block;
  bool rowReductions;
  /// Each op's index in the block, which is a topological order.
  llvm::DenseMap<Operation *, unsigned> position;
  SmallVector<Operation *> fusible;
  llvm::DenseMap<Operation *, unsigned> groupOf;
  SmallVector<Group> groups;
  /// Union-find over groups: each group's parent, itself for the ones
  /// still standing.
  std::vector<unsigned> parent;
  /// By position: the op's initial group, or -1 when it is not fusible.
  std::vector<int> groupAt;
  /// Marks of reachesThroughOutside, by op position and by group.
  std::vector<unsigned> opStamp, groupStamp;
  unsigned searchStamp = 0;
};

/// Replaces the ops of `members` (in program order) by one fusion group.
FusionGroupOp buildGroup(ArrayRef<Operation *> members) {
  llvm::SmallPtrSet<Operation *, 16> inGroup(members.begin(), members.end());
  llvm::SetVector<Value> inputs;
  SmallVector<Value> outputs;
  for (Operation *op : members) {
    for (Value operand : op->getOperands())
      if (!inGroup.contains(operand.getDefiningOp()))
        inputs.insert(operand);
    for (Value result : op->getResults())
      if (llvm::any_of(result.getUsers(), [&](Operation *user) {
            return !inGroup.contains(user);
          }))
        outputs.push_back(result);
  }

  Operation *last = members.back();
  OpBuilder b(last->getContext());
  b.setInsertionPointAfter(last);
  SmallVector<Type> outputTypes;
  for (Value v : outputs)
    outputTypes.push_back(v.getType());
  auto group = FusionGroupOp::create(b, last->getLoc(), outputTypes,
                                     inputs.getArrayRef());
  Block *body = b.createBlock(&group.getBody());
  IRMapping mapping;
  for (Value input : inputs)
    mapping.map(input, body->addArgument(input.getType(), input.getLoc()));
  for (Operation *op : members)
    b.clone(*op, mapping);
  SmallVector<Value> yielded;
  for (Value v : outputs)
    yielded.push_back(mapping.lookup(v));
  YieldOp::create(b, last->getLoc(), yielded);

  for (auto [old, replacement] : llvm::zip(outputs, group.getResults()))
    old.replaceUsesWithIf(replacement, [&](OpOperand &use) {
      return !inGroup.contains(use.getOwner());
    });
  for (Operation *op : llvm::reverse(members))
    op->erase();
  return group;
}

/// Gives each fusible user of a broadcast its own copy of it. A broadcast
/// is an indexing map, not work: shared, it would be materialized as some
/// group's output (every step of an unrolled LSTM reading one broadcast
/// bias), which also makes the group that owns it differ from the rest.
void duplicateSharedBroadcasts(Block &block) {
  for (auto broadcast :
       llvm::make_early_inc_range(block.getOps<BroadcastInDimOp>())) {
    SmallVector<OpOperand *> uses;
    for (OpOperand &use : broadcast->getUses())
      if (isFusible(use.getOwner()))
        uses.push_back(&use);
    if (uses.size() < 2)
      continue;
    // The first fusible user keeps the original (which may have others).
    for (OpOperand *use : llvm::drop_begin(uses)) {
      OpBuilder b(use->getOwner());
      use->set(b.clone(*broadcast)->getResult(0));
    }
  }
}

/// The most elementwise ops an input chain (isInputChain) may have: every
/// element of the kernel that reads it recomputes them, which costs less
/// than the memory traffic of any kernel (and loops over the dims it does
/// not vary along hoist it) but is not free.
constexpr int kMaxInputChainOps = 8;

/// Whether `value` is computed from the function's arguments and splat
/// constants by elementwise ops and broadcasts alone, with at most
/// `budget` elementwise ops (counted down): a loss scale, the scalar start
/// of a backward. A value that a reduction computes is not one: row groups
/// keep those once per row.
bool isInputChain(Value value, int &budget) {
  Operation *def = value.getDefiningOp();
  if (!def)
    return true;
  if (auto constant = dyn_cast<ConstantOp>(def))
    return isa<SplatElementsAttr>(constant.getValue());
  if (auto broadcast = dyn_cast<BroadcastInDimOp>(def))
    return isInputChain(broadcast.getOperand(), budget);
  if (!isa_and_nonnull<KilnDialect>(def->getDialect()) ||
      !def->hasTrait<OpTrait::Elementwise>() || def->getNumResults() != 1 ||
      --budget < 0)
    return false;
  return llvm::all_of(def->getOperands(), [&](Value operand) {
    return isInputChain(operand, budget);
  });
}

/// `value` (an input chain) computed at `shape`, its dim i placed at
/// `dims[i]`: its leaves broadcast, its ops cloned on the larger shape.
Value rebuildBroadcast(OpBuilder &b, Location loc, Value value,
                       ArrayRef<int64_t> dims, ArrayRef<int64_t> shape) {
  Operation *def = value.getDefiningOp();
  if (auto broadcast = dyn_cast_or_null<BroadcastInDimOp>(def)) {
    SmallVector<int64_t> composed;
    for (int64_t d : broadcast.getDims())
      composed.push_back(dims[d]);
    return rebuildBroadcast(b, loc, broadcast.getOperand(), composed, shape);
  }
  auto type = RankedTensorType::get(
      shape, cast<RankedTensorType>(value.getType()).getElementType());
  if (!def || isa<ConstantOp>(def))
    return BroadcastInDimOp::create(b, loc, type, value, dims);
  SmallVector<Value> operands;
  for (Value operand : def->getOperands())
    operands.push_back(rebuildBroadcast(b, loc, operand, dims, shape));
  OperationState state(def->getLoc(), def->getName());
  state.addOperands(operands);
  state.addTypes(type);
  state.addAttributes(def->getAttrs());
  return b.create(state)->getResult(0);
}

/// Moves each input chain (isInputChain) that a broadcast reads into the
/// broadcast's shape, so that it joins the kernel that reads the broadcast
/// rather than being a kernel of its own (the loss-scale multiply at the
/// start of every backward).
void sinkInputChainsIntoBroadcasts(Block &block) {
  SmallVector<Operation *> maybeDead;
  for (auto broadcast :
       llvm::make_early_inc_range(block.getOps<BroadcastInDimOp>())) {
    Operation *def = broadcast.getOperand().getDefiningOp();
    int budget = kMaxInputChainOps;
    if (!def || isa<ConstantOp, BroadcastInDimOp>(def) ||
        !broadcast.getType().hasStaticShape() ||
        !isInputChain(broadcast.getOperand(), budget))
      continue;
    OpBuilder b(broadcast);
    Value sunk =
        rebuildBroadcast(b, broadcast.getLoc(), broadcast.getOperand(),
                         broadcast.getDims(), broadcast.getType().getShape());
    broadcast.replaceAllUsesWith(sunk);
    broadcast.erase();
    maybeDead.push_back(def);
  }
  // The chains no broadcast reads any more (and nothing else did).
  llvm::SmallPtrSet<Operation *, 8> erased;
  while (!maybeDead.empty()) {
    Operation *op = maybeDead.pop_back_val();
    if (erased.contains(op) || !op->use_empty() || !isPure(op))
      continue;
    erased.insert(op);
    for (Value operand : op->getOperands())
      if (Operation *def = operand.getDefiningOp())
        maybeDead.push_back(def);
    op->erase();
  }
}

/// Orders `block`'s ops topologically, each as early as its operands allow
/// but never before an op that came first (`rank`: the original position;
/// a group's is its first member's), and the terminator last. Upstream's
/// sortTopologically schedules every ready op in one sweep and defers the
/// rest to the next: a group that sits at its last member defers the ops
/// that read it, and whatever did not wait moves ahead of them. Values
/// that -kiln-autodiff recomputes for a checkpointed segment just before
/// the backward uses them were moved into the forward that way, and kept
/// alive through it: the memory checkpointing saves was spent again.
/// Returns false on a cycle.
bool sortKeepingOrder(Block &block,
                      const llvm::DenseMap<Operation *, int64_t> &rank) {
  SmallVector<Operation *> ops;
  llvm::DenseMap<Operation *, unsigned> index;
  for (Operation &op : block.without_terminator()) {
    index[&op] = ops.size();
    ops.push_back(&op);
  }
  // Edges from each op to the block's ops that use its results (in nested
  // regions too), and how many operands each still waits for.
  std::vector<SmallVector<unsigned, 4>> users(ops.size());
  std::vector<unsigned> waiting(ops.size(), 0);
  for (unsigned i = 0; i < ops.size(); ++i) {
    llvm::SmallDenseSet<unsigned, 8> producers;
    ops[i]->walk([&](Operation *nested) {
      for (Value operand : nested->getOperands()) {
        Operation *def = operand.getDefiningOp();
        if (!def || def->getBlock() != &block)
          continue;
        auto it = index.find(def);
        if (it != index.end() && it->second != i)
          producers.insert(it->second);
      }
    });
    for (unsigned p : producers)
      users[p].push_back(i);
    waiting[i] = producers.size();
  }
  auto rankOf = [&](unsigned i) {
    auto it = rank.find(ops[i]);
    return std::make_pair(it == rank.end() ? INT64_MAX : it->second, i);
  };
  auto later = [&](unsigned a, unsigned b) { return rankOf(a) > rankOf(b); };
  std::priority_queue<unsigned, std::vector<unsigned>, decltype(later)> ready(
      later);
  for (unsigned i = 0; i < ops.size(); ++i)
    if (waiting[i] == 0)
      ready.push(i);
  SmallVector<Operation *> order;
  while (!ready.empty()) {
    unsigned i = ready.top();
    ready.pop();
    order.push_back(ops[i]);
    for (unsigned user : users[i])
      if (--waiting[user] == 0)
        ready.push(user);
  }
  if (order.size() != ops.size())
    return false;
  Operation *terminator =
      block.mightHaveTerminator() ? block.getTerminator() : nullptr;
  for (Operation *op : order)
    terminator ? op->moveBefore(terminator)
               : op->moveBefore(&block, block.end());
  return true;
}

struct KilnFusePass : kiln::impl::KilnFuseBase<KilnFusePass> {
  using Base::Base;

  void runOnOperation() override {
    int64_t groupCount = 0, opCount = 0, rowGroupCount = 0;
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      if (func.isExternal() || !func.getBody().hasOneBlock())
        continue;
      Block &block = func.getBody().front();
      sinkInputChainsIntoBroadcasts(block);
      duplicateSharedBroadcasts(block);
      Grouping grouping(block, rowReductions);
      grouping.run();
      grouping.sinkIntoConsumers();
      rowGroupCount += grouping.countRowGroups();
      // Each op's place in the order, a group's its first member's.
      llvm::DenseMap<Operation *, int64_t> rank;
      for (auto [i, op] : llvm::enumerate(block))
        rank[&op] = static_cast<int64_t>(i);
      for (SmallVector<Operation *> &members : grouping.getGroups()) {
        int64_t first = rank.lookup(members.front());
        for (Operation *member : members)
          rank.erase(member);
        rank[buildGroup(members)] = first;
        ++groupCount;
        opCount += members.size();
      }
      // Group ops sit at their last member; users that came earlier move
      // after them, and nothing else moves. The merges kept the graph of
      // groups acyclic.
      if (!sortKeepingOrder(block, rank)) {
        func.emitError("kiln-fuse formed a cycle of fusion groups");
        return signalPassFailure();
      }
    }
    // The marks of -kiln-autodiff's remat=auto served the grouping.
    getOperation()->walk(
        [](Operation *op) { op->removeAttr(kAfterGapAttrName); });
    getOperation()->setAttr(
        kiln::KilnDialect::FusionGroupsAttrHelper::getNameStr(),
        Builder(&getContext()).getI64IntegerAttr(groupCount));
    kiln::addPassStatistic(*this, numGroups, groupCount, kPassStatistics);
    kiln::addPassStatistic(*this, numFusedOps, opCount, kPassStatistics);
    kiln::addPassStatistic(*this, numRowGroups, rowGroupCount, kPassStatistics);
  }
};

} // namespace
