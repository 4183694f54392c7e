//===- Trace.cpp - the recorded program of lazy tensors -------------------===//

#include "kiln/Trace/Trace.h"
#include "Trace/NodeAllocator.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/Twine.h"

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <mutex>
#include <string>

using namespace kiln;
using llvm::ArrayRef;

static const TraceOpInfo traceOpInfos[] = {
#define KILN_TRACE_OP(Name, OpName, Arity, Result)                             \
  {OpName, Arity, TraceResultRule::Result, false, ""},
#define KILN_TRACE_UNARY(Name, OpName, Function)                               \
  {OpName, 1, TraceResultRule::SameAsOperands, true, ""},
#define KILN_TRACE_UNARY_FLAG(Name, OpName, Function, Flag)                    \
  {OpName, 1, TraceResultRule::SameAsOperands, true, #Flag},
#define KILN_TRACE_BINARY(Name, OpName, Function)                              \
  {OpName, 2, TraceResultRule::SameAsOperands, true, ""},
#include "kiln/Trace/TraceOps.def"
};

static const TraceOp allTraceOps[] = {
#define KILN_TRACE_OP(Name, OpName, Arity, Result) TraceOp::Name,
#include "kiln/Trace/TraceOps.def"
};

static_assert(std::size(traceOpInfos) == std::size(allTraceOps),
              "one table entry per trace op");

const TraceOpInfo &kiln::getTraceOpInfo(TraceOp op) {
  return traceOpInfos[static_cast<size_t>(op)];
}

ArrayRef<TraceOp> kiln::getAllTraceOps() { return allTraceOps; }

static std::atomic<int64_t> numTracedNodes{0};

int64_t kiln::getNumTracedNodes() {
  return numTracedNodes.load(std::memory_order_relaxed);
}

static std::string typeString(const NodeRef &node) {
  return getTensorTypeString(node->getDType(), node->getShape());
}

static llvm::Error opError(TraceOp op, const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 getTraceOpName(op) + ": " + message);
}

static bool isFloat(DType dtype) { return isFloatDType(dtype); }

static bool hasNegativeDim(ArrayRef<int64_t> shape) {
  return llvm::any_of(shape, [](int64_t d) { return d < 0; });
}

namespace {
/// A 64-bit hash of a sequence of words: xxHash64's round per word and its
/// final avalanche. Structural hashes are built on every recorded op, so
/// this is cheaper than llvm::hash_combine's general machinery; it is as
/// good a 64-bit hash for keying the cache of compiled programs.
class WordHasher {
public:
  WordHasher &add(uint64_t word) {
    state += word * prime2;
    state = (state << 31) | (state >> 33);
    state *= prime1;
    return *this;
  }
  /// The length, then each value: sequences of different lengths differ.
  WordHasher &add(ArrayRef<int64_t> words) {
    add(words.size());
    for (int64_t w : words)
      add(static_cast<uint64_t>(w));
    return *this;
  }
  WordHasher &add(ArrayRef<int32_t> words) {
    add(words.size());
    for (int32_t w : words)
      add(static_cast<uint64_t>(static_cast<int64_t>(w)));
    return *this;
  }
  uint64_t get() const {
    uint64_t h = state;
    h ^= h >> 33;
    h *= prime2;
    h ^= h >> 29;
    h *= prime3;
    h ^= h >> 32;
    return h;
  }

private:
  static constexpr uint64_t prime1 = 0x9E3779B185EBCA87ULL;
  static constexpr uint64_t prime2 = 0xC2B2AE3D27D4EB4FULL;
  static constexpr uint64_t prime3 = 0x165667B19E3779F9ULL;
  uint64_t state = 0x27D4EB2F165667C5ULL;
};
} // namespace

/// What a node computes besides its operands: a Constant's value, a Vjp's
/// callee.
static uint64_t getPayloadHash(TraceOp op, double scalar,
                               const TraceProgram *callee) {
  if (op == TraceOp::Vjp)
    return callee ? callee->hash : 0x6c617a79; // "lazy"
  uint64_t scalarBits = 0;
  if (op == TraceOp::Constant)
    std::memcpy(&scalarBits, &scalar, sizeof(scalarBits));
  return scalarBits;
}

/// What a node computes besides its operands, hashed.
static uint64_t hashLocal(TraceOp op, DType dtype, ArrayRef<int64_t> shape,
                          ArrayRef<int64_t> attrs, uint64_t payloadHash) {
  return WordHasher()
      .add(static_cast<uint64_t>(op) << 8 | static_cast<uint64_t>(dtype))
      .add(shape)
      .add(attrs)
      .add(payloadHash)
      .get();
}

/// The segment of the innermost CheckpointScope of this thread (0: none).
static thread_local uint64_t currentCheckpointSegment = 0;
/// Segments so far: every scope opens a new one.
static std::atomic<uint64_t> numCheckpointSegments{0};

namespace {
/// The lazy gradients not settled (TraceNode::vjp), and the nodes whose
/// value arrived after one of them was recorded: those keep their operands
/// while such a gradient is left, since its forward, as recorded, goes
/// through them. Value arrivals on computed nodes and the recording of
/// lazy gradients are ordered by the mutex: a gradient recorded at clock
/// c sees every value stamped up to c.
struct LazyGradients {
  std::mutex mutex;
  /// Value arrivals on computed nodes so far (written under the mutex).
  std::atomic<uint64_t> clock{0};
  struct Pending {
    const TraceNode *node;
    std::weak_ptr<const TraceNode> ref;
    uint64_t recordedAt;
    int64_t sequence;
  };
  /// In recording order.
  std::vector<Pending> pending;
  /// Nodes with a value that keep their operands, in arrival order.
  std::vector<const TraceNode *> keeping;

  /// Whether a pending gradient may go through a node recorded as
  /// `sequence` whose value arrived at `stamp`: one recorded after the
  /// node (its forward was recorded before it) and before the value.
  bool needed(int64_t sequence, uint64_t stamp) const {
    return llvm::any_of(pending, [&](const Pending &p) {
      return p.recordedAt < stamp && sequence < p.sequence;
    });
  }
};

LazyGradients &getLazyGradients() {
  // Never destroyed: nodes freed at exit still look for themselves here.
  static LazyGradients *gradients = new LazyGradients;
  return *gradients;
}

/// Values kept for lazy gradients beyond which the oldest gradients are
/// settled (so that a gradient held unread for long keeps a bounded part
/// of the later steps' graphs).
constexpr size_t kMaxKeptValues = 1024;

/// Whether kiln::grad records gradients lazily (KILN_LAZY_GRAD=0: no).
bool isLazyGradEnabled() {
  static const bool enabled = [] {
    const char *setting = std::getenv("KILN_LAZY_GRAD");
    return !setting || std::string(setting) != "0";
  }();
  return enabled;
}
} // namespace

/// Settles the lazy gradients recorded so far, or, with `whenTooManyKept`,
/// the older half of them when more values than the bound are kept for them
/// (so that settling is rare).
static void settlePendingGradients(bool whenTooManyKept) {
  LazyGradients &gradients = getLazyGradients();
  std::vector<NodeRef> settling;
  {
    std::lock_guard<std::mutex> lock(gradients.mutex);
    if (whenTooManyKept && gradients.keeping.size() <= kMaxKeptValues)
      return;
    size_t count = whenTooManyKept ? (gradients.pending.size() + 1) / 2
                                   : gradients.pending.size();
    for (size_t i = 0; i < count; ++i)
      if (NodeRef vjp = gradients.pending[i].ref.lock())
        settling.push_back(std::move(vjp));
  }
  for (const NodeRef &vjp : settling)
    TraceNode::settle(vjp);
}

uint64_t TraceNode::getValueClock() {
  return getLazyGradients().clock.load(std::memory_order_acquire);
}

void TraceNode::releaseKeptOperands(llvm::SmallVectorImpl<NodeRef> &released) {
  LazyGradients &gradients = getLazyGradients();
  llvm::erase_if(gradients.keeping, [&](const TraceNode *node) {
    {
      std::lock_guard<SpinMutex> lock(node->dataMutex);
      if (gradients.needed(node->sequence, node->valueStamp))
        return false;
      for (NodeRef &operand : node->operands)
        released.push_back(std::move(operand));
      node->operands.clear();
    }
    // Only once its lock is let go: a destructor that sees it unlisted
    // frees the node without waiting for the mutex held here.
    node->listed.store(false, std::memory_order_release);
    return true;
  });
}

void TraceNode::unlistGradient(const TraceNode *vjp,
                               llvm::SmallVectorImpl<NodeRef> &released) {
  if (!vjp->listed.load(std::memory_order_relaxed))
    return;
  vjp->listed.store(false, std::memory_order_relaxed);
  LazyGradients &gradients = getLazyGradients();
  llvm::erase_if(gradients.pending, [&](const LazyGradients::Pending &p) {
    return p.node == vjp;
  });
  releaseKeptOperands(released);
}

CheckpointScope::CheckpointScope() : previous(currentCheckpointSegment) {
  currentCheckpointSegment =
      numCheckpointSegments.fetch_add(1, std::memory_order_relaxed) + 1;
}

CheckpointScope::~CheckpointScope() { currentCheckpointSegment = previous; }

TraceNode::TraceNode(PrivateTag, TraceOp op, DType dtype,
                     ArrayRef<int64_t> shape, ArrayRef<NodeRef> operands,
                     ArrayRef<int64_t> attrs, double scalar,
                     std::shared_ptr<const TraceProgram> callee)
    : op(op), dtype(dtype), shape(shape.begin(), shape.end()),
      operands(operands.begin(), operands.end()),
      attrs(attrs.begin(), attrs.end()), scalar(scalar),
      callee(std::move(callee)) {
  localHash = hashLocal(op, dtype, shape, attrs,
                        getPayloadHash(op, scalar, this->callee.get()));
  hasVjp = op == TraceOp::Vjp;
  WordHasher h;
  h.add(localHash).add(operands.size());
  for (const NodeRef &operand : operands) {
    h.add(operand->getHash());
    // An operand with a value is a leaf from now on.
    hasVjp |= operand->hasVjp && !operand->hasValue();
  }
  // Leaves are never recomputed: they are the segments' inputs.
  if (op != TraceOp::Parameter && op != TraceOp::Constant &&
      op != TraceOp::Vjp && op != TraceOp::VjpResult)
    checkpointSegment = currentCheckpointSegment;
  if (checkpointSegment) {
    // Which operands share the node's segment: the segments' shape, not
    // their numbers, so that every step of a training loop hashes alike.
    h.add(0x636b7074); // "ckpt"
    for (const NodeRef &operand : operands)
      h.add(operand->getCheckpointSegment() == checkpointSegment);
  }
  hash = h.get();
}

TraceNode::~TraceNode() {
  // The operands go to a per-thread list that the outermost destructor
  // drains; a node destroyed while draining only adds its own.
  thread_local std::vector<NodeRef> pending;
  thread_local bool draining = false;
  if (listed.load(std::memory_order_acquire)) {
    // Off the lists of lazy gradients; a gradient gone may let kept values
    // go.
    llvm::SmallVector<NodeRef, 8> released;
    {
      LazyGradients &gradients = getLazyGradients();
      std::lock_guard<std::mutex> lock(gradients.mutex);
      if (op == TraceOp::Vjp) {
        unlistGradient(this, released);
      } else if (listed.load(std::memory_order_relaxed)) {
        listed.store(false, std::memory_order_relaxed);
        llvm::erase(gradients.keeping, this);
      }
    }
    for (NodeRef &node : released)
      pending.push_back(std::move(node));
  }
  for (NodeRef &operand : operands)
    pending.push_back(std::move(operand));
  if (draining)
    return;
  draining = true;
  while (!pending.empty()) {
    NodeRef last = std::move(pending.back());
    pending.pop_back();
    last.reset();
  }
  draining = false;
}

NodeRef TraceNode::make(TraceOp op, DType dtype, ArrayRef<int64_t> shape,
                        ArrayRef<NodeRef> operands, ArrayRef<int64_t> attrs,
                        double scalar,
                        std::shared_ptr<const TraceProgram> callee,
                        bool recorded) {
  // Numbered in recording order: a node's operands were recorded before
  // it (the counter's one modification order sees to that across threads).
  int64_t sequence =
      recorded ? numTracedNodes.fetch_add(1, std::memory_order_relaxed) + 1 : 0;
  NodeRef node = std::allocate_shared<const TraceNode>(
      detail::NodeAllocator<TraceNode>(), PrivateTag(), op, dtype, shape,
      operands, attrs, scalar, std::move(callee));
  node->sequence = sequence;
  return node;
}

int64_t TraceNode::getNumElements() const {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

NodeRef TraceNode::parameter(DType dtype, ArrayRef<int64_t> shape) {
  return make(TraceOp::Parameter, dtype, shape, {});
}

NodeRef TraceNode::parameter(std::shared_ptr<const HostTensor> data,
                             bool recorded) {
  NodeRef node = make(TraceOp::Parameter, data->getDType(), data->getShape(),
                      {}, {}, 0, nullptr, recorded);
  node->data = std::move(data);
  node->hasHost.store(true, std::memory_order_release);
  node->hasData.store(true, std::memory_order_release);
  return node;
}

NodeRef TraceNode::parameter(std::shared_ptr<const DeviceValue> value,
                             bool recorded) {
  NodeRef node = make(TraceOp::Parameter, value->getDType(), value->getShape(),
                      {}, {}, 0, nullptr, recorded);
  node->device = std::move(value);
  node->hasDevice.store(true, std::memory_order_release);
  node->hasData.store(true, std::memory_order_release);
  return node;
}

DeviceValue::~DeviceValue() = default;

std::shared_ptr<const HostTensor> TraceNode::getData() const {
  if (hasHost.load(std::memory_order_acquire))
    return data;
  if (!hasDevice.load(std::memory_order_acquire))
    return nullptr;
  llvm::Expected<std::shared_ptr<const HostTensor>> host = getHostData();
  if (!host) {
    llvm::consumeError(host.takeError());
    return nullptr;
  }
  return *host;
}

llvm::Expected<std::shared_ptr<const HostTensor>>
TraceNode::getHostData() const {
  if (hasHost.load(std::memory_order_acquire))
    return data;
  std::lock_guard<SpinMutex> lock(dataMutex);
  if (data || !device)
    return data;
  // Copied once, under the lock: a second reader waits for the first.
  llvm::Expected<HostTensor> host = device->download();
  if (!host)
    return host.takeError();
  data = std::make_shared<const HostTensor>(std::move(*host));
  hasHost.store(true, std::memory_order_release);
  return data;
}

llvm::Error
TraceNode::checkResultType(const char *what, std::optional<DType> valueType,
                           std::optional<ArrayRef<int64_t>> shape) const {
  if (valueType && *valueType == dtype && shape && *shape == getShape())
    return llvm::Error::success();
  return opError(op, std::string(what) + " of type " +
                         (valueType ? getTensorTypeString(*valueType, *shape)
                                    : std::string("(none)")) +
                         " cannot be the result " +
                         getTensorTypeString(dtype, getShape()));
}

std::shared_ptr<const DeviceValue> TraceNode::getDeviceData() const {
  // Under the lock: a copy lost with its runtime is replaced.
  std::lock_guard<SpinMutex> lock(dataMutex);
  return device;
}

llvm::Error
TraceNode::setDeviceData(std::shared_ptr<const DeviceValue> value) const {
  if (!value)
    return checkResultType("a device value", std::nullopt, std::nullopt);
  if (llvm::Error e = checkResultType("a device value", value->getDType(),
                                      value->getShape()))
    return e;
  llvm::SmallVector<NodeRef, 2> released;
  bool bound = false;
  {
    std::unique_lock<std::mutex> gradientsLock;
    if (op != TraceOp::Parameter && !hasData.load(std::memory_order_acquire))
      gradientsLock = std::unique_lock<std::mutex>(getLazyGradients().mutex);
    std::lock_guard<SpinMutex> lock(dataMutex);
    if (device && device->isAlive())
      return llvm::Error::success();
    std::shared_ptr<const DeviceValue> lost = std::move(device);
    device = std::move(value);
    hasDevice.store(true, std::memory_order_release);
    if (!hasData.load(std::memory_order_relaxed)) {
      bound = arrive(released);
      hasData.store(true, std::memory_order_release);
    }
  }
  // Released outside the lock (the destructor walks long chains).
  if (bound)
    settlePendingGradients(/*whenTooManyKept=*/true);
  return llvm::Error::success();
}

llvm::Error TraceNode::setData(std::shared_ptr<const HostTensor> value) const {
  if (!value)
    return checkResultType("a value", std::nullopt, std::nullopt);
  if (llvm::Error e =
          checkResultType("a value", value->getDType(), value->getShape()))
    return e;
  if (hasData.load(std::memory_order_acquire))
    return llvm::Error::success();
  llvm::SmallVector<NodeRef, 2> released;
  bool bound = false;
  {
    std::unique_lock<std::mutex> gradientsLock;
    if (op != TraceOp::Parameter)
      gradientsLock = std::unique_lock<std::mutex>(getLazyGradients().mutex);
    std::lock_guard<SpinMutex> lock(dataMutex);
    if (hasData.load(std::memory_order_relaxed))
      return llvm::Error::success();
    data = std::move(value);
    hasHost.store(true, std::memory_order_release);
    bound = arrive(released);
    hasData.store(true, std::memory_order_release);
  }
  // Released outside the lock (the destructor walks long chains).
  if (bound)
    settlePendingGradients(/*whenTooManyKept=*/true);
  return llvm::Error::success();
}

bool TraceNode::arrive(llvm::SmallVectorImpl<NodeRef> &released) const {
  if (op == TraceOp::Parameter)
    return false; // a leaf to every gradient, without operands
  LazyGradients &gradients = getLazyGradients();
  valueStamp = gradients.clock.load(std::memory_order_relaxed) + 1;
  gradients.clock.store(valueStamp, std::memory_order_release);
  if (!gradients.needed(sequence, valueStamp)) {
    for (NodeRef &operand : operands)
      released.push_back(std::move(operand));
    operands.clear();
    return false;
  }
  listed.store(true, std::memory_order_relaxed);
  gradients.keeping.push_back(this);
  return gradients.keeping.size() > kMaxKeptValues;
}

bool TraceNode::isLeafOrGetOperands(
    llvm::SmallVectorImpl<NodeRef> &result) const {
  bool lost = false; // as of now: a value is a leaf, never lost
  return isLeafOrGetOperands(result, ~uint64_t(0), nullptr, &lost);
}

bool TraceNode::isLeafOrGetOperands(llvm::SmallVectorImpl<NodeRef> &result,
                                    uint64_t asOf,
                                    std::shared_ptr<const VjpCall> *call,
                                    bool *lost) const {
  if (op == TraceOp::Parameter)
    return true;
  if (hasData.load(std::memory_order_acquire) && asOf == ~uint64_t(0))
    return true;
  std::lock_guard<SpinMutex> lock(dataMutex);
  if ((data || device) && valueStamp <= asOf)
    return true;
  // A value that arrived after `asOf`: its operands are kept for the lazy
  // gradients recorded before (unless something let them go).
  if ((data || device) && operands.empty() && op != TraceOp::Constant &&
      op != TraceOp::Iota) {
    *lost = true;
    return true;
  }
  result.append(operands.begin(), operands.end());
  if (call && op == TraceOp::Vjp)
    *call = settledCall;
  return false;
}

llvm::Expected<NodeRef>
TraceNode::constant(DType dtype, ArrayRef<int64_t> shape, double value) {
  if (hasNegativeDim(shape))
    return opError(TraceOp::Constant,
                   "negative dim in shape " + getListString(shape));
  return make(TraceOp::Constant, dtype, shape, {}, {},
              roundToDType(value, dtype));
}

/// The elementwise ops that take i32/i64 too (two's complement), as
/// the contract lists them.
static bool acceptsIntegers(TraceOp op) {
  switch (op) {
  case TraceOp::Neg:
  case TraceOp::Abs:
  case TraceOp::Add:
  case TraceOp::Sub:
  case TraceOp::Mul:
  case TraceOp::Max:
  case TraceOp::Min:
    return true;
  default:
    return false;
  }
}

llvm::Expected<NodeRef> TraceNode::elementwise(TraceOp op,
                                               ArrayRef<NodeRef> operands,
                                               ArrayRef<int64_t> attrs) {
  const TraceOpInfo &info = getTraceOpInfo(op);
  if (!info.isFloatElementwise)
    return opError(op, "not a float elementwise op");
  size_t arity = info.arity;
  if (operands.size() != arity)
    return opError(op, "takes " + llvm::Twine(arity) + " operands, got " +
                           llvm::Twine(operands.size()));
  size_t numFlags = info.flag.empty() ? 0 : 1;
  if (attrs.size() != numFlags ||
      llvm::any_of(attrs, [](int64_t a) { return a != 0 && a != 1; }))
    return opError(op, "takes " + llvm::Twine(numFlags) +
                           " bool attributes, got " + getListString(attrs));
  const NodeRef &first = operands.front();
  if (!isFloat(first->getDType()) &&
      !(isIntegerDType(first->getDType()) && acceptsIntegers(op)))
    return opError(op, std::string(acceptsIntegers(op)
                                       ? "needs float or i32/i64 operands"
                                       : "needs float operands") +
                           ", got " + typeString(first));
  if (arity == 2 && (operands[1]->getDType() != first->getDType() ||
                     operands[1]->getShape() != first->getShape()))
    return opError(op, "operand types differ: " + typeString(first) + " and " +
                           typeString(operands[1]));
  return make(op, first->getDType(), first->getShape(), operands, attrs);
}

llvm::Expected<NodeRef> TraceNode::cmp(TracePredicate predicate,
                                       const NodeRef &lhs, const NodeRef &rhs) {
  if (lhs->getDType() != rhs->getDType() || lhs->getShape() != rhs->getShape())
    return opError(TraceOp::Cmp, "operand types differ: " + typeString(lhs) +
                                     " and " + typeString(rhs));
  // kiln.cmp compares numbers (docs/Dialect.md); bools are compared by select.
  if (!isFloat(lhs->getDType()) && !isIntegerDType(lhs->getDType()))
    return opError(TraceOp::Cmp,
                   "needs float or i32/i64 operands, got " + typeString(lhs));
  return make(TraceOp::Cmp, DType::I1, lhs->getShape(), {lhs, rhs},
              {static_cast<int64_t>(predicate)});
}

llvm::Expected<NodeRef> TraceNode::select(const NodeRef &pred,
                                          const NodeRef &onTrue,
                                          const NodeRef &onFalse) {
  if (pred->getDType() != DType::I1)
    return opError(TraceOp::Select,
                   "the predicate must be i1, got " + typeString(pred));
  if (onTrue->getDType() != onFalse->getDType() ||
      onTrue->getShape() != onFalse->getShape() ||
      pred->getShape() != onTrue->getShape())
    return opError(TraceOp::Select,
                   "operand shapes differ: " + typeString(pred) + ", " +
                       typeString(onTrue) + " and " + typeString(onFalse));
  return make(TraceOp::Select, onTrue->getDType(), onTrue->getShape(),
              {pred, onTrue, onFalse});
}

NodeRef TraceNode::stopGradient(const NodeRef &operand) {
  return make(TraceOp::StopGradient, operand->getDType(), operand->getShape(),
              {operand});
}

llvm::Expected<NodeRef> TraceNode::convert(const NodeRef &operand,
                                           DType dtype) {
  return make(TraceOp::Convert, dtype, operand->getShape(), {operand});
}

llvm::Expected<NodeRef> TraceNode::broadcastInDim(const NodeRef &operand,
                                                  ArrayRef<int64_t> shape,
                                                  ArrayRef<int64_t> dims) {
  auto fail = [&](const llvm::Twine &why) {
    return opError(TraceOp::BroadcastInDim,
                   typeString(operand) + " to " +
                       getTensorTypeString(operand->getDType(), shape) +
                       " with dims " + getListString(dims) + ": " + why);
  };
  if (hasNegativeDim(shape))
    return fail("negative result dim");
  if (dims.size() != operand->getShape().size())
    return fail("one dim per operand dim is needed");
  for (auto [i, d] : llvm::enumerate(dims)) {
    if (d < 0 || d >= static_cast<int64_t>(shape.size()) ||
        (i > 0 && d <= dims[i - 1]))
      return fail("dims must be increasing and within the result's rank");
    int64_t size = operand->getShape()[i];
    if (size != 1 && size != shape[d])
      return fail("operand dim " + llvm::Twine(i) + " (size " +
                  llvm::Twine(size) + ") is neither 1 nor result dim " +
                  llvm::Twine(d) + " (size " + llvm::Twine(shape[d]) + ")");
  }
  return make(TraceOp::BroadcastInDim, operand->getDType(), shape, {operand},
              dims);
}

llvm::Expected<NodeRef> TraceNode::reshape(const NodeRef &operand,
                                           ArrayRef<int64_t> shape) {
  int64_t count = 1;
  for (int64_t d : shape)
    count *= d;
  if (hasNegativeDim(shape) || count != operand->getNumElements())
    return opError(TraceOp::Reshape,
                   typeString(operand) + " has " +
                       llvm::Twine(operand->getNumElements()) +
                       " elements, which shape " + getListString(shape) +
                       " does not hold");
  return make(TraceOp::Reshape, operand->getDType(), shape, {operand});
}

llvm::Expected<NodeRef> TraceNode::transpose(const NodeRef &operand,
                                             ArrayRef<int64_t> perm) {
  ArrayRef<int64_t> in = operand->getShape();
  auto notPermutation = [&] {
    return opError(TraceOp::Transpose,
                   getListString(perm) +
                       " is not a permutation of the dims of " +
                       typeString(operand));
  };
  if (perm.size() != in.size())
    return notPermutation();
  llvm::SmallVector<bool, 4> seen(in.size(), false);
  llvm::SmallVector<int64_t, 4> shape;
  for (int64_t p : perm) {
    if (p < 0 || p >= static_cast<int64_t>(in.size()) || seen[p])
      return notPermutation();
    seen[p] = true;
    shape.push_back(in[p]);
  }
  return make(TraceOp::Transpose, operand->getDType(), shape, {operand}, perm);
}

llvm::Expected<NodeRef> TraceNode::slice(const NodeRef &operand,
                                         ArrayRef<int64_t> offsets,
                                         ArrayRef<int64_t> sizes) {
  ArrayRef<int64_t> in = operand->getShape();
  auto fail = [&] {
    return opError(TraceOp::Slice, "offsets " + getListString(offsets) +
                                       " and sizes " + getListString(sizes) +
                                       " do not fit in " + typeString(operand));
  };
  if (offsets.size() != in.size() || sizes.size() != in.size())
    return fail();
  for (size_t d = 0; d < in.size(); ++d)
    // (offset + size could overflow: compare with what is left instead.)
    if (offsets[d] < 0 || sizes[d] < 0 || offsets[d] > in[d] ||
        sizes[d] > in[d] - offsets[d])
      return fail();
  llvm::SmallVector<int64_t, 8> attrs(offsets.begin(), offsets.end());
  attrs.append(sizes.begin(), sizes.end());
  return make(TraceOp::Slice, operand->getDType(), sizes, {operand}, attrs);
}

llvm::Expected<NodeRef> TraceNode::concat(ArrayRef<NodeRef> parts,
                                          int64_t dim) {
  if (parts.empty())
    return opError(TraceOp::Concat, "needs at least one operand");
  const NodeRef &first = parts.front();
  int64_t rank = first->getShape().size();
  if (dim < 0 || dim >= rank)
    return opError(TraceOp::Concat, "dim " + llvm::Twine(dim) +
                                        " is not a dim of " +
                                        typeString(first));
  llvm::SmallVector<int64_t, 4> shape(first->getShape());
  shape[dim] = 0;
  for (const NodeRef &part : parts) {
    bool fits = part->getDType() == first->getDType() &&
                static_cast<int64_t>(part->getShape().size()) == rank;
    for (int64_t d = 0; fits && d < rank; ++d)
      fits = d == dim || part->getShape()[d] == first->getShape()[d];
    if (!fits)
      return opError(TraceOp::Concat,
                     typeString(part) + " does not match " + typeString(first) +
                         " except along dim " + llvm::Twine(dim));
    shape[dim] += part->getShape()[dim];
  }
  return make(TraceOp::Concat, first->getDType(), shape, parts, {dim});
}

llvm::Expected<NodeRef> TraceNode::reduce(TraceOp op, const NodeRef &operand,
                                          ArrayRef<int64_t> dims) {
  if (op != TraceOp::ReduceSum && op != TraceOp::ReduceMax)
    return opError(op, "not a reduction");
  if (!isFloat(operand->getDType()) && !isIntegerDType(operand->getDType()))
    return opError(op, "needs a float or i32/i64 operand, got " +
                           typeString(operand));
  int64_t rank = operand->getShape().size();
  for (auto [i, d] : llvm::enumerate(dims))
    if (d < 0 || d >= rank || (i > 0 && d <= dims[i - 1]))
      return opError(op, "dims " + getListString(dims) +
                             " must be sorted, unique dims of " +
                             typeString(operand));
  llvm::SmallVector<int64_t, 4> shape;
  for (int64_t d = 0; d < rank; ++d)
    if (!llvm::is_contained(dims, d))
      shape.push_back(operand->getShape()[d]);
  return make(op, operand->getDType(), shape, {operand}, dims);
}

llvm::Expected<NodeRef> TraceNode::iota(DType dtype, ArrayRef<int64_t> shape,
                                        int64_t dim) {
  if (hasNegativeDim(shape))
    return opError(TraceOp::Iota,
                   "negative dim in shape " + getListString(shape));
  if (dim < 0 || dim >= static_cast<int64_t>(shape.size()))
    return opError(TraceOp::Iota, "dim " + llvm::Twine(dim) +
                                      " is not a dim of " +
                                      getTensorTypeString(dtype, shape));
  if (dtype == DType::I1)
    return opError(TraceOp::Iota, "needs an integer or float type, not i1");
  return make(TraceOp::Iota, dtype, shape, {}, {dim});
}

/// `operand.shape[:dim] + indices.shape + operand.shape[dim+1:]`.
static llvm::SmallVector<int64_t, 4>
gatheredShape(const NodeRef &operand, const NodeRef &indices, int64_t dim) {
  ArrayRef<int64_t> shape = operand->getShape();
  llvm::SmallVector<int64_t, 4> result(shape.take_front(dim));
  llvm::append_range(result, indices->getShape());
  llvm::append_range(result, shape.drop_front(dim + 1));
  return result;
}

/// Checks a gather's or scatter's dim and indices.
static llvm::Error checkGather(TraceOp op, const NodeRef &operand,
                               const NodeRef &indices, int64_t dim) {
  int64_t rank = operand->getShape().size();
  if (dim < 0 || dim >= rank)
    return opError(op, "dim " + llvm::Twine(dim) + " is not a dim of " +
                           typeString(operand));
  if (!isIntegerDType(indices->getDType()))
    return opError(op,
                   "indices must be i32 or i64, not " + typeString(indices));
  return llvm::Error::success();
}

llvm::Expected<NodeRef> TraceNode::take(const NodeRef &operand,
                                        const NodeRef &indices, int64_t dim) {
  if (llvm::Error e = checkGather(TraceOp::Take, operand, indices, dim))
    return std::move(e);
  return make(TraceOp::Take, operand->getDType(),
              gatheredShape(operand, indices, dim), {operand, indices}, {dim});
}

llvm::Expected<NodeRef> TraceNode::scatterAdd(const NodeRef &operand,
                                              const NodeRef &indices,
                                              const NodeRef &updates,
                                              int64_t dim) {
  if (llvm::Error e = checkGather(TraceOp::ScatterAdd, operand, indices, dim))
    return std::move(e);
  if (operand->getDType() == DType::I1)
    return opError(TraceOp::ScatterAdd,
                   "cannot add into " + typeString(operand));
  llvm::SmallVector<int64_t, 4> expected = gatheredShape(operand, indices, dim);
  if (updates->getDType() != operand->getDType() ||
      updates->getShape() != ArrayRef<int64_t>(expected))
    return opError(TraceOp::ScatterAdd,
                   "updates " + typeString(updates) + " should be " +
                       getTensorTypeString(operand->getDType(), expected) +
                       " for " + typeString(operand) + " and indices " +
                       typeString(indices));
  return make(TraceOp::ScatterAdd, operand->getDType(), operand->getShape(),
              {operand, indices, updates}, {dim});
}

llvm::Expected<NodeRef> TraceNode::argmax(const NodeRef &operand, int64_t dim,
                                          DType indexType) {
  int64_t rank = operand->getShape().size();
  if (dim < 0 || dim >= rank)
    return opError(TraceOp::Argmax, "dim " + llvm::Twine(dim) +
                                        " is not a dim of " +
                                        typeString(operand));
  if (operand->getDType() == DType::I1)
    return opError(TraceOp::Argmax, "needs a float or integer operand, not " +
                                        typeString(operand));
  if (!isIntegerDType(indexType))
    return opError(TraceOp::Argmax,
                   "indices are i32 or i64, not " + getDTypeName(indexType));
  llvm::SmallVector<int64_t, 4> shape(operand->getShape());
  shape.erase(shape.begin() + dim);
  return make(TraceOp::Argmax, indexType, shape, {operand}, {dim});
}

llvm::Expected<NodeRef> TraceNode::rngUniform(const NodeRef &key,
                                              ArrayRef<int64_t> shape) {
  if (key->getDType() != DType::I64 || key->getShape() != ArrayRef<int64_t>{2})
    return opError(TraceOp::RngUniform,
                   "the key must be tensor<2xi64> (seed, offset), not " +
                       typeString(key));
  if (hasNegativeDim(shape))
    return opError(TraceOp::RngUniform,
                   "negative dim in shape " + getListString(shape));
  return make(TraceOp::RngUniform, DType::F32, shape, {key});
}

llvm::Expected<NodeRef> TraceNode::matmul(const NodeRef &lhs,
                                          const NodeRef &rhs, bool transposeA,
                                          bool transposeB) {
  ArrayRef<int64_t> a = lhs->getShape(), b = rhs->getShape();
  auto fail = [&](const llvm::Twine &why) {
    return opError(TraceOp::MatMul, typeString(lhs) + (transposeA ? "^T" : "") +
                                        " x " + typeString(rhs) +
                                        (transposeB ? "^T" : "") + ": " + why);
  };
  if (lhs->getDType() != rhs->getDType() || !isFloat(lhs->getDType()))
    return fail("operands need one float element type");
  if (a.size() != b.size() || (a.size() != 2 && a.size() != 3))
    return fail("operands must both be 2-D, or both 3-D (batched)");
  size_t r = a.size();
  if (r == 3 && a[0] != b[0])
    return fail("batch sizes differ");
  int64_t m = transposeA ? a[r - 1] : a[r - 2];
  int64_t k = transposeA ? a[r - 2] : a[r - 1];
  int64_t kb = transposeB ? b[r - 1] : b[r - 2];
  int64_t n = transposeB ? b[r - 2] : b[r - 1];
  if (k != kb)
    return fail("contracted sizes " + llvm::Twine(k) + " and " +
                llvm::Twine(kb) + " differ");
  llvm::SmallVector<int64_t, 3> shape;
  if (r == 3)
    shape.push_back(a[0]);
  shape.push_back(m);
  shape.push_back(n);
  return make(TraceOp::MatMul, lhs->getDType(), shape, {lhs, rhs},
              {transposeA ? 1 : 0, transposeB ? 1 : 0});
}

llvm::Expected<NodeRef> TraceNode::collective(TraceOp op,
                                              const NodeRef &operand,
                                              int64_t reduction, int64_t dim,
                                              int64_t group, int64_t ranks) {
  if (op != TraceOp::AllReduce && op != TraceOp::AllGather &&
      op != TraceOp::ReduceScatter)
    return opError(op, "not a collective");
  if (!isFloat(operand->getDType()))
    return opError(op, "needs a float operand, got " + typeString(operand));
  if (reduction < 0 || reduction > 2)
    return opError(op, "reduction " + llvm::Twine(reduction) +
                           " is none of sum (0), mean (1), max (2)");
  if (group < 0)
    return opError(op,
                   "group " + llvm::Twine(group) + " is not a communicator");
  if (ranks < 1)
    return opError(op, "a group of " + llvm::Twine(ranks) + " ranks");
  if (op == TraceOp::AllReduce)
    return make(op, operand->getDType(), operand->getShape(), {operand},
                {reduction, group});
  int64_t rank = operand->getShape().size();
  if (dim < 0 || dim >= rank)
    return opError(op, "dim " + llvm::Twine(dim) + " is not a dim of " +
                           typeString(operand));
  llvm::SmallVector<int64_t, 4> shape(operand->getShape());
  if (op == TraceOp::AllGather) {
    shape[dim] *= ranks;
    return make(op, operand->getDType(), shape, {operand}, {dim, group});
  }
  if (shape[dim] % ranks != 0)
    return opError(op, typeString(operand) + " does not split into " +
                           llvm::Twine(ranks) + " equal parts along dim " +
                           llvm::Twine(dim));
  shape[dim] /= ranks;
  return make(op, operand->getDType(), shape, {operand},
              {reduction, dim, group});
}

/// The checkpoint segment of `entry` in its program: none for a parameter.
static uint64_t getSegment(const TraceProgram::Entry &entry) {
  return entry.isParameter ? 0 : entry.node->getCheckpointSegment();
}

/// What `entry` contributes to its program: op, attributes, type, payload
/// (the node's local hash) and operand positions (so that x + x and x + y
/// differ). A parameter is its type only, whatever computed its value.
static uint64_t hashEntry(const TraceProgram::Entry &entry,
                          ArrayRef<TraceProgram::Entry> entries,
                          const VjpCall *call = nullptr) {
  const TraceNode *node = entry.node.get();
  // A parameter's local hash is its type's (a Parameter node's own).
  uint64_t local =
      !entry.isParameter || node->getOp() == TraceOp::Parameter
          ? node->getLocalHash()
          : hashLocal(TraceOp::Parameter, node->getDType(), node->getShape(),
                      {}, getPayloadHash(TraceOp::Parameter, 0, nullptr));
  WordHasher h;
  h.add(local).add(ArrayRef<int32_t>(entry.operands));
  // A checkpointed entry: which of its operands share its segment.
  if (uint64_t segment = getSegment(entry)) {
    h.add(0x636b7074); // "ckpt"
    for (int32_t operand : entry.operands)
      h.add(getSegment(entries[operand]) == segment);
  }
  // A settled lazy gradient: what it calls (its operands are the call's
  // arguments).
  if (call)
    h.add(0x736574746c6564) // "settled"
        .add(call->callee->hash)
        .add(ArrayRef<int64_t>(call->wrt))
        .add(ArrayRef<int64_t>(call->resultOf));
  return h.get();
}

/// Whether two lazy gradients' calls (null: not settled) are the same.
static bool callTheSame(const VjpCall *a, const VjpCall *b) {
  // Not settled: each stands for its own forward as recorded (two recorded
  // at other times may differ), and each is checked for values arrived
  // since.
  if (!a || !b)
    return false;
  return a->callee->hash == b->callee->hash && a->wrt == b->wrt &&
         a->resultOf == b->resultOf;
}

/// Whether two computed entries compute the same thing (`aCall` and
/// `bCall`: their calls, for lazy gradients).
static bool computeTheSame(const TraceProgram::Entry &a,
                           const TraceProgram::Entry &b,
                           const VjpCall *aCall = nullptr,
                           const VjpCall *bCall = nullptr) {
  const TraceNode &x = *a.node, &y = *b.node;
  if (x.getOp() != y.getOp() || x.getDType() != y.getDType() ||
      x.getShape() != y.getShape() || x.getAttrs() != y.getAttrs() ||
      a.operands != b.operands || (getSegment(a) != 0) != (getSegment(b) != 0))
    return false;
  if (x.getOp() == TraceOp::Constant)
    return getPayloadHash(TraceOp::Constant, x.getScalar(), nullptr) ==
           getPayloadHash(TraceOp::Constant, y.getScalar(), nullptr);
  if (x.getOp() == TraceOp::Vjp) {
    if (x.isLazyVjp() || y.isLazyVjp())
      return x.isLazyVjp() && y.isLazyVjp() && callTheSame(aCall, bCall);
    return x.getCallee()->hash == y.getCallee()->hash;
  }
  return true;
}

/// The program's hash, from its entries' and its outputs.
static void rehash(TraceProgram &program) {
  WordHasher h;
  h.add(program.entries.size());
  for (uint64_t entryHash : program.entryHashes)
    h.add(entryHash);
  h.add(ArrayRef<int32_t>(program.outputs));
  program.hash = h.get();
}

TraceProgram TraceProgram::extract(
    ArrayRef<NodeRef> outputs,
    const std::vector<std::pair<NodeRef, NodeRef>> &substitutes,
    bool stopAtStopGradients, uint64_t asOf) {
  TraceProgram program;
  // Per node seen: its entry, or -1 while its operands are being entered.
  llvm::SmallDenseMap<const TraceNode *, int32_t, 128> index;
  llvm::DenseMap<const TraceNode *, NodeRef> substituteOf;
  for (const auto &[node, substitute] : substitutes)
    substituteOf[node.get()] = substitute;
  // Computed entries by hash, for hash-consing; the nodes folded into an
  // earlier entry are kept alive so that their addresses stay unique keys.
  llvm::SmallDenseMap<uint64_t, int32_t, 128> consed;
  // Sized by the largest program this thread extracted: a vector of
  // entries that grows copies them (SmallVector's move may throw).
  thread_local size_t sizeHint = 64;
  index.reserve(sizeHint);
  consed.reserve(sizeHint);
  program.entries.reserve(sizeHint);
  program.entryHashes.reserve(sizeHint);
  // Iterative post-order: a node is entered once all its operands are.
  // Nodes with a value are parameters: their operands are not needed. The
  // operands of the nodes on the stack are one vector, each frame's a
  // range of it, held (so that a concurrent setData cannot free them)
  // beside their addresses; a node's entry takes over the reference that
  // held it, so that an entry costs one reference count, not three.
  struct Frame {
    const TraceNode *node;
    /// Where the reference to `node` is: its slot in `operands`, or -1
    /// for a root (in `root`).
    int32_t slot;
    uint32_t firstOperand, nextOperand;
    bool leaf;
    /// A lazy gradient's call, when it was settled.
    std::shared_ptr<const VjpCall> call;
  };
  llvm::SmallVector<Frame, 32> stack;
  llvm::SmallVector<NodeRef, 64> operands;
  llvm::SmallVector<const TraceNode *, 64> operandNodes;
  NodeRef root;
  // Lazy gradients not settled, with the nodes of their outputs and inputs.
  llvm::SmallVector<std::pair<int32_t, llvm::SmallVector<const TraceNode *, 8>>,
                    2>
      lazyForwards;
  auto push = [&](const TraceNode *node, int32_t slot) {
    uint32_t first = operands.size();
    std::shared_ptr<const VjpCall> call;
    bool leaf =
        node->isLeafOrGetOperands(operands, asOf, &call, &program.incomplete);
    // A lazy gradient that a value may have cut short since it was recorded
    // (the loss read first, say) is settled before its forward is walked.
    if (!leaf && !call && node->isLazyVjp() &&
        node->getRecordedAt() != TraceNode::getValueClock()) {
      NodeRef self = slot < 0 ? root : operands[slot];
      operands.truncate(first);
      TraceNode::settle(self);
      leaf =
          node->isLeafOrGetOperands(operands, asOf, &call, &program.incomplete);
    }
    if (!leaf && stopAtStopGradients &&
        node->getOp() == TraceOp::StopGradient) {
      leaf = true;
      operands.truncate(first);
    }
    if (!substituteOf.empty())
      for (NodeRef &operand : llvm::drop_begin(operands, first)) {
        auto it = substituteOf.find(operand.get());
        if (it != substituteOf.end() && it->second.get() != node)
          operand = it->second;
      }
    for (const NodeRef &operand : llvm::drop_begin(operands, first))
      operandNodes.push_back(operand.get());
    stack.push_back(Frame{node, slot, first, first, leaf, std::move(call)});
  };
  auto visit = [&](const NodeRef &output) {
    if (!index.try_emplace(output.get(), -1).second)
      return;
    root = output;
    push(output.get(), -1);
    while (!stack.empty()) {
      Frame &frame = stack.back();
      if (frame.nextOperand < operands.size()) {
        int32_t slot = static_cast<int32_t>(frame.nextOperand++);
        const TraceNode *operand = operandNodes[slot];
        if (index.try_emplace(operand, -1).second)
          push(operand, slot);
        continue;
      }
      Entry entry{frame.slot < 0 ? std::move(root)
                                 : std::move(operands[frame.slot]),
                  frame.leaf,
                  {}};
      std::shared_ptr<const VjpCall> call = std::move(frame.call);
      for (const TraceNode *operand :
           llvm::drop_begin(operandNodes, frame.firstOperand))
        entry.operands.push_back(index.lookup(operand));
      // A lazy gradient not settled: the nodes of its outputs and inputs.
      llvm::SmallVector<const TraceNode *, 8> lazyForwardNodes;
      if (!call && !entry.isParameter && entry.node->isLazyVjp()) {
        ArrayRef<int64_t> attrs = entry.node->getAttrs();
        lazyForwardNodes.assign(
            operandNodes.begin() + frame.firstOperand,
            operandNodes.begin() + frame.firstOperand +
                std::min<size_t>(attrs[0] + attrs[1],
                                 operandNodes.size() - frame.firstOperand));
      }
      operands.truncate(frame.firstOperand);
      operandNodes.truncate(frame.firstOperand);
      stack.pop_back();
      bool lazyVjp = !entry.isParameter && entry.node->isLazyVjp();
      uint64_t entryHash = hashEntry(entry, program.entries, call.get());
      int32_t id = static_cast<int32_t>(program.entries.size());
      int32_t &slot = index[entry.node.get()];
      if (!entry.isParameter) {
        auto [it, inserted] = consed.try_emplace(entryHash, id);
        if (!inserted &&
            computeTheSame(program.entries[it->second], entry,
                           lazyVjp ? program.getSettledCall(it->second)
                                   : nullptr,
                           call.get())) {
          slot = it->second;
          program.folded.push_back(std::move(entry.node));
          program.foldedInto.push_back(it->second);
          continue;
        }
      }
      slot = id;
      if (entry.isParameter)
        program.parameters.push_back(id);
      if (lazyVjp) {
        if (!call)
          lazyForwards.emplace_back(
              id, ArrayRef<const TraceNode *>(lazyForwardNodes));
        program.lazyVjps.emplace_back(id, std::move(call));
      }
      program.entries.push_back(std::move(entry));
      program.entryHashes.push_back(entryHash);
    }
  };
  for (const NodeRef &output : outputs) {
    const NodeRef *target = &output;
    if (!substituteOf.empty())
      if (auto it = substituteOf.find(output.get()); it != substituteOf.end())
        target = &it->second;
    visit(*target);
    program.outputs.push_back(index.lookup(target->get()));
  }
  sizeHint = std::max<size_t>(sizeHint, index.size());
  // A lazy gradient not settled stands for its forward as recorded: the
  // program's entries are that forward when no value arrived since (one
  // that did may have cut it short here). Otherwise it is settled (its
  // forward is still there) and the program extracted again.
  bool settled = false;
  // Nor when one of its outputs or inputs shares an entry with another
  // node (hash-consing): the program would not say which one it is for.
  // One that cannot be settled makes the program incomplete (its entries
  // are not that forward).
  llvm::SmallDenseSet<int32_t, 8> merged(program.foldedInto.begin(),
                                         program.foldedInto.end());
  for (const auto &[id, nodes] : lazyForwards) {
    const NodeRef &vjp = program.entries[id].node;
    bool distinct = llvm::all_of(nodes, [&](const TraceNode *node) {
      int32_t at = index.lookup(node);
      return program.entries[at].node.get() == node && !merged.contains(at);
    });
    if (distinct && vjp->getRecordedAt() == TraceNode::getValueClock())
      continue;
    if (TraceNode::settle(vjp) && vjp->getSettledCall())
      settled = true;
    else
      program.incomplete = true;
  }
  if (settled)
    return extract(outputs, substitutes, stopAtStopGradients, asOf);
  rehash(program);
  return program;
}

const VjpCall *TraceProgram::getSettledCall(int32_t index) const {
  for (const auto &[id, call] : lazyVjps)
    if (id == index)
      return call.get();
  return nullptr;
}

/// Whether `callee`, or a callee it calls, computes one of `nodes` (rather
/// than taking it as an argument).
static bool
computesAnyOf(const TraceProgram &callee,
              const llvm::SmallDenseSet<const TraceNode *, 4> &nodes) {
  for (auto [i, entry] : llvm::enumerate(callee.entries)) {
    if (entry.isParameter)
      continue;
    if (nodes.contains(entry.node.get()))
      return true;
    if (entry.node->getOp() == TraceOp::Vjp)
      if (const TraceProgram *inner = callee.getCallee(static_cast<int32_t>(i));
          inner && computesAnyOf(*inner, nodes))
        return true;
  }
  // Nodes folded into an entry are computed there too.
  return llvm::any_of(callee.folded, [&](const NodeRef &node) {
    return nodes.contains(node.get());
  });
}

/// The error of a lazy gradient whose forward is no longer there.
static llvm::Error lostForwardError() {
  return opError(TraceOp::Vjp,
                 "internal error: the forward of a gradient recorded "
                 "lazily is gone (set KILN_LAZY_GRAD=0 and report it)");
}

llvm::Expected<VjpCall> TraceNode::buildVjpCall(ArrayRef<NodeRef> outputs,
                                                ArrayRef<NodeRef> inputs,
                                                uint64_t asOf) {
  // The callee's argument for each input: the input itself when it is a
  // leaf, else the perturbation `delta` of `input + delta`.
  std::vector<std::pair<NodeRef, NodeRef>> substitutes;
  llvm::SmallDenseMap<const TraceNode *, NodeRef, 8> argumentOf;
  llvm::SmallDenseSet<const TraceNode *, 4> deltas, perturbed;
  for (const NodeRef &input : inputs) {
    if (argumentOf.count(input.get()))
      continue;
    llvm::SmallVector<NodeRef, 2> operands;
    bool lost = false;
    if (input->isLeafOrGetOperands(operands, asOf, nullptr, &lost)) {
      if (lost)
        return lostForwardError();
      argumentOf[input.get()] = input;
      continue;
    }
    NodeRef delta = parameter(input->getDType(), input->getShape());
    NodeRef perturbedInput = make(TraceOp::Add, input->getDType(),
                                  input->getShape(), {input, delta});
    substitutes.emplace_back(input, perturbedInput);
    deltas.insert(delta.get());
    perturbed.insert(input.get());
    argumentOf[input.get()] = std::move(delta);
  }
  auto callee = std::make_shared<TraceProgram>(TraceProgram::extract(
      outputs, substitutes, /*stopAtStopGradients=*/true, asOf));
  if (callee->incomplete)
    return lostForwardError();
  // A perturbation reaches what the callee computes itself, not what an
  // inner gradient recomputes in its own callee.
  for (auto [i, entry] : llvm::enumerate(callee->entries))
    if (!entry.isParameter && entry.node->getOp() == TraceOp::Vjp)
      if (const TraceProgram *inner =
              callee->getCallee(static_cast<int32_t>(i));
          inner && computesAnyOf(*inner, perturbed))
        return opError(TraceOp::Vjp,
                       "a gradient of a gradient is taken with respect to a "
                       "computed tensor that the inner gradient recomputes; "
                       "take it with respect to leaves (data or parameters)");

  // Inputs that nothing reads are arguments too: their gradient is zero.
  llvm::SmallDenseMap<const TraceNode *, int64_t, 32> positionOf;
  for (auto [i, p] : llvm::enumerate(callee->parameters))
    positionOf[callee->entries[p].node.get()] = static_cast<int64_t>(i);
  for (const NodeRef &input : inputs) {
    const NodeRef &argument = argumentOf[input.get()];
    if (positionOf.count(argument.get()))
      continue;
    int32_t id = static_cast<int32_t>(callee->entries.size());
    positionOf[argument.get()] =
        static_cast<int64_t>(callee->parameters.size());
    callee->entries.push_back(TraceProgram::Entry{argument, true, {}});
    callee->entryHashes.push_back(
        hashEntry(callee->entries.back(), callee->entries));
    callee->parameters.push_back(id);
  }
  rehash(*callee);

  VjpCall call;
  for (const NodeRef &input : inputs)
    call.wrt.push_back(positionOf.lookup(argumentOf[input.get()].get()));
  llvm::sort(call.wrt);
  call.wrt.erase(std::unique(call.wrt.begin(), call.wrt.end()), call.wrt.end());
  for (const NodeRef &input : inputs) {
    int64_t position = positionOf.lookup(argumentOf[input.get()].get());
    call.resultOf.push_back(llvm::find(call.wrt, position) - call.wrt.begin());
  }
  // In the caller, a perturbation is zero.
  for (int32_t p : callee->parameters) {
    const NodeRef &argument = callee->entries[p].node;
    call.arguments.push_back(deltas.contains(argument.get())
                                 ? make(TraceOp::Constant, argument->getDType(),
                                        argument->getShape(), {})
                                 : argument);
  }
  call.callee = std::move(callee);
  return call;
}

std::shared_ptr<const VjpCall> TraceNode::getSettledCall() const {
  std::lock_guard<SpinMutex> lock(dataMutex);
  return settledCall;
}

bool TraceNode::settle(const NodeRef &vjp) {
  if (!vjp->isLazyVjp())
    return true;
  llvm::SmallVector<NodeRef, 8> operands;
  {
    std::lock_guard<SpinMutex> lock(vjp->dataMutex);
    if (vjp->settledCall)
      return true;
    operands.assign(vjp->operands.begin(), vjp->operands.end());
  }
  size_t numOutputs = vjp->attrs[0], numInputs = vjp->attrs[1];
  if (operands.size() != 2 * numOutputs + numInputs)
    return false;
  ArrayRef<NodeRef> all(operands);
  llvm::Expected<VjpCall> built =
      buildVjpCall(all.take_front(numOutputs), all.slice(numOutputs, numInputs),
                   vjp->recordedAt);
  if (!built) {
    // Its forward is gone (an internal error, which the programs that need
    // it report): it keeps nothing for it any more.
    llvm::consumeError(built.takeError());
    llvm::SmallVector<NodeRef, 8> released;
    std::lock_guard<std::mutex> lock(getLazyGradients().mutex);
    unlistGradient(vjp.get(), released);
    return false;
  }
  auto call = std::make_shared<const VjpCall>(std::move(*built));
  llvm::SmallVector<NodeRef, 2> settledOperands(call->arguments.begin(),
                                                call->arguments.end());
  settledOperands.append(all.begin() + numOutputs + numInputs, all.end());
  // Released outside the locks (the destructor walks long chains).
  llvm::SmallVector<NodeRef, 8> released;
  {
    std::lock_guard<SpinMutex> lock(vjp->dataMutex);
    if (!vjp->settledCall) {
      released.append(std::make_move_iterator(vjp->operands.begin()),
                      std::make_move_iterator(vjp->operands.end()));
      vjp->operands = std::move(settledOperands);
      vjp->settledCall = std::move(call);
    }
  }
  std::lock_guard<std::mutex> lock(getLazyGradients().mutex);
  unlistGradient(vjp.get(), released);
  return true;
}

/// Whether the forward of a gradient of `outputs` (to the leaves and
/// StopGradients) goes through a gradient. Walked only where a node's flag
/// says it may (the flag is set when the node is recorded; a value that
/// arrives later makes it stale).
static bool forwardHasVjp(ArrayRef<NodeRef> outputs) {
  llvm::SmallVector<NodeRef, 32> stack;
  llvm::DenseSet<const TraceNode *> seen;
  for (const NodeRef &output : outputs)
    if (output->dependsOnVjp() && seen.insert(output.get()).second)
      stack.push_back(output);
  llvm::SmallVector<NodeRef, 4> operands;
  while (!stack.empty()) {
    NodeRef node = stack.pop_back_val();
    if (node->getOp() == TraceOp::Vjp)
      return true;
    operands.clear();
    if (node->getOp() == TraceOp::StopGradient ||
        node->isLeafOrGetOperands(operands))
      continue;
    for (NodeRef &operand : operands)
      if (operand->dependsOnVjp() && seen.insert(operand.get()).second)
        stack.push_back(std::move(operand));
  }
  return false;
}

llvm::Expected<std::vector<NodeRef>>
TraceNode::vjp(ArrayRef<NodeRef> outputs, ArrayRef<NodeRef> inputs,
               ArrayRef<NodeRef> cotangents) {
  if (outputs.empty() || inputs.empty())
    return opError(TraceOp::Vjp, "needs at least one output and one input");
  if (cotangents.size() != outputs.size())
    return opError(TraceOp::Vjp, llvm::Twine(outputs.size()) + " outputs but " +
                                     llvm::Twine(cotangents.size()) +
                                     " output gradients");
  for (auto [i, output] : llvm::enumerate(outputs)) {
    if (!isFloat(output->getDType()))
      return opError(TraceOp::Vjp, "output " + llvm::Twine(i) + " is " +
                                       typeString(output) +
                                       ", which has no gradient");
    const NodeRef &cotangent = cotangents[i];
    if (cotangent->getDType() != output->getDType() ||
        cotangent->getShape() != output->getShape())
      return opError(TraceOp::Vjp, "the gradient of output " + llvm::Twine(i) +
                                       " is " + typeString(cotangent) +
                                       ", not " + typeString(output));
  }
  for (auto [i, input] : llvm::enumerate(inputs))
    if (!isFloat(input->getDType()))
      return opError(TraceOp::Vjp, "input " + llvm::Twine(i) + " is " +
                                       typeString(input) +
                                       ", which has no gradient");

  NodeRef vjpNode;
  llvm::SmallVector<int64_t, 4> resultOf;
  if (isLazyGradEnabled() && !forwardHasVjp(outputs)) {
    // Recorded lazily: the callee is extracted with the program that needs
    // the gradient (whose entries hold its forward anyway), or when a
    // value arrives that could cut the forward short.
    llvm::SmallVector<NodeRef, 8> operands(outputs.begin(), outputs.end());
    operands.append(inputs.begin(), inputs.end());
    operands.append(cotangents.begin(), cotangents.end());
    vjpNode = make(TraceOp::Vjp, DType::F32, {}, operands,
                   {static_cast<int64_t>(outputs.size()),
                    static_cast<int64_t>(inputs.size())});
    {
      LazyGradients &gradients = getLazyGradients();
      std::lock_guard<std::mutex> lock(gradients.mutex);
      vjpNode->recordedAt = gradients.clock.load(std::memory_order_relaxed);
      gradients.pending.push_back(
          {vjpNode.get(), vjpNode, vjpNode->recordedAt, vjpNode->sequence});
      vjpNode->listed.store(true, std::memory_order_relaxed);
    }
    for (size_t i = 0; i < inputs.size(); ++i)
      resultOf.push_back(static_cast<int64_t>(i));
  } else {
    // A gradient through a gradient: the lazy ones are settled first, so
    // that the callee sees what each calls.
    settlePendingGradients(/*whenTooManyKept=*/false);
    llvm::Expected<VjpCall> call = buildVjpCall(outputs, inputs, ~uint64_t(0));
    if (!call)
      return call.takeError();
    llvm::SmallVector<NodeRef, 8> operands(call->arguments.begin(),
                                           call->arguments.end());
    operands.append(cotangents.begin(), cotangents.end());
    vjpNode = make(TraceOp::Vjp, DType::F32, {}, operands, call->wrt, 0,
                   std::move(call->callee));
    resultOf = std::move(call->resultOf);
  }

  std::vector<NodeRef> grads;
  for (auto [i, input] : llvm::enumerate(inputs))
    grads.push_back(make(TraceOp::VjpResult, input->getDType(),
                         input->getShape(), {vjpNode}, {resultOf[i]}));
  return grads;
}

llvm::Expected<const VjpCall *>
TraceProgram::getLazyVjpCall(int32_t index) const {
  if (const VjpCall *call = getSettledCall(index))
    return call;
  for (const auto &[id, call] : derivedCalls)
    if (id == index)
      return call.get();
  const TraceNode &vjp = *entries[index].node;
  ArrayRef<int64_t> attrs = vjp.getAttrs();
  // Its own outputs and inputs (the entries may hold nodes equal to them),
  // unless it was settled since the program was extracted.
  llvm::SmallVector<NodeRef, 8> operands;
  std::shared_ptr<const VjpCall> call;
  bool lost = false;
  if (!vjp.isLazyVjp() || attrs.size() != 2 ||
      vjp.isLeafOrGetOperands(operands, ~uint64_t(0), &call, &lost) ||
      (!call &&
       operands.size() != static_cast<size_t>(2 * attrs[0] + attrs[1])))
    return opError(TraceOp::Vjp, "internal error: entry " + llvm::Twine(index) +
                                     " is not a lazy gradient");
  if (!call) {
    ArrayRef<NodeRef> all(operands);
    llvm::Expected<VjpCall> built = TraceNode::buildVjpCall(
        all.take_front(attrs[0]), all.slice(attrs[0], attrs[1]),
        vjp.getRecordedAt());
    if (built) {
      call = std::make_shared<const VjpCall>(std::move(*built));
    } else {
      // Settled meanwhile, and what it kept let go of: its call is of the
      // same forward.
      call = vjp.getSettledCall();
      if (!call)
        return built.takeError();
      llvm::consumeError(built.takeError());
    }
  }
  derivedCalls.emplace_back(index, std::move(call));
  return derivedCalls.back().second.get();
}

const TraceProgram *TraceProgram::getCallee(int32_t index) const {
  const TraceNode &node = *entries[index].node;
  if (node.getOp() != TraceOp::Vjp)
    return nullptr;
  if (node.getCallee())
    return node.getCallee().get();
  llvm::Expected<const VjpCall *> call = getLazyVjpCall(index);
  if (!call) {
    llvm::consumeError(call.takeError());
    return nullptr;
  }
  return (*call)->callee.get();
}

std::string TraceProgram::describe(int32_t index) const {
  const Entry &entry = entries[index];
  std::string s = entry.isParameter ? std::string("parameter")
                                    : getTraceOpName(entry.node->getOp()).str();
  if (!entry.isParameter && !entry.node->getAttrs().empty())
    s += " " + getListString(entry.node->getAttrs());
  if (!entry.operands.empty()) {
    s += "(";
    for (auto [i, operand] : llvm::enumerate(entry.operands))
      s += (i ? ", %" : "%") + std::to_string(operand);
    s += ")";
  }
  if (entry.node->getOp() == TraceOp::Vjp && !entry.isParameter)
    return s; // no tensor type of its own
  return s + " : " +
         getTensorTypeString(entry.node->getDType(), entry.node->getShape());
}
