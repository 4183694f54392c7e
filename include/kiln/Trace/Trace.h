//===- Trace.h - the recorded program of lazy tensors -----------*- C++ -*-===//
//
// A lazy tensor records the op that makes it as a TraceNode: the op (one of
// the kiln dialect's, docs/Dialect.md), its attributes, its operands, and the
// result's dtype and shape, checked when the node is made. Nodes are
// immutable and shared; together they form a DAG, the trace.
//
// Every node carries a structural hash of the op, attributes, dtype, shape
// and the operands' hashes. Data never enters it: device data and
// non-constant scalars are Parameter nodes, hashed by dtype and shape only,
// so new data (a new batch, a new learning rate) is the same trace.
//
// A node's value, once computed, is stored on the node (setData), and from
// then on the node is a parameter of every program that needs it: nothing
// is computed twice, whichever tensor recorded what.
//
// A TraceProgram is what one materialization compiles: the nodes the
// outputs need, in an order where operands come first, each operand as an
// index, the parameters (nodes with data) numbered in that order. Its hash
// identifies the program (which parameter goes where included) and keys the
// cache of compiled executables.
//
// Plain C++ on LLVMSupport: recording never touches MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_TRACE_TRACE_H
#define KILN_TRACE_TRACE_H

#include "kiln/Support/HostTensor.h"
#include "kiln/Support/SpinMutex.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Error.h"

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

namespace kiln {

/// What a node computes. Besides the leaves, each is the kiln op of the
/// same name (TraceOps.def lists them all).
enum class TraceOp : uint8_t {
#define KILN_TRACE_OP(Name, OpName, Arity, Result) Name,
#include "kiln/Trace/TraceOps.def"
};

/// How a node's dtype and shape follow from its operands (TraceOps.def).
enum class TraceResultRule : uint8_t {
  SameAsOperands, // the operands' one type
  Bool,           // i1, of the operands' shape
  Given,          // from the maker's arguments
  Derived,        // computed from the operands and the attributes
  NoTensor,       // none of its own (a Vjp)
};

/// What the table says about one trace op.
struct TraceOpInfo {
  /// The kiln op it records ("kiln.add"), or "parameter" / "result".
  llvm::StringRef name;
  /// The operand count, or -1 for any number.
  int arity;
  TraceResultRule result;
  /// A float elementwise op T -> T or T, T -> T (the lazy API's math).
  bool isFloatElementwise;
  /// The name of a float elementwise op's one bool attribute, if it has
  /// one (kiln.gelu's "approximate"); the node's one attribute holds it.
  llvm::StringRef flag;
};

/// The table's entry for `op`.
const TraceOpInfo &getTraceOpInfo(TraceOp op);

/// Every trace op, in the table's order.
llvm::ArrayRef<TraceOp> getAllTraceOps();

/// kiln.cmp's predicates, in the dialect's order.
enum class TracePredicate : int64_t { EQ, NE, LT, LE, GT, GE };

/// The kiln op a trace op records ("kiln.add"), or "parameter".
inline llvm::StringRef getTraceOpName(TraceOp op) {
  return getTraceOpInfo(op).name;
}

/// Nodes recorded so far in this process (parameters included).
int64_t getNumTracedNodes();

class TraceNode;

/// While one lives, the nodes this thread records (but parameters and
/// constants) belong to a checkpoint segment of their own, as the ops of
/// `torch.utils.checkpoint.checkpoint`'s function: a gradient recomputes
/// the segment's values from its inputs where it needs them, instead of
/// keeping them from the forward (kiln::checkpoint). Scopes nest: the inner
/// one's nodes form a segment of their own.
class CheckpointScope {
public:
  CheckpointScope();
  ~CheckpointScope();
  CheckpointScope(const CheckpointScope &) = delete;
  CheckpointScope &operator=(const CheckpointScope &) = delete;

private:
  uint64_t previous;
};

/// A node's value in device memory (a CUDA buffer): its dtype, shape and
/// address. The compiler's device tensors implement it (and free the
/// buffer when the last holder lets go); the trace holds it, and copies it
/// to the host when asked.
class DeviceValue {
public:
  DeviceValue(DType dtype, llvm::ArrayRef<int64_t> shape, void *address,
              size_t bytes)
      : dtype(dtype), shape(shape), address(address), bytes(bytes) {}
  virtual ~DeviceValue();
  DType getDType() const { return dtype; }
  llvm::ArrayRef<int64_t> getShape() const { return shape; }
  void *getAddress() const { return address; }
  size_t getByteSize() const { return bytes; }
  /// The value in host memory: waits for the work that computes it, and
  /// fails with that work's error, if it failed.
  virtual llvm::Expected<HostTensor> download() const = 0;
  /// Whether the memory still holds the value (a device runtime that shut
  /// down took its memory with it).
  virtual bool isAlive() const { return true; }

private:
  DType dtype;
  llvm::SmallVector<int64_t, 4> shape;
  void *address;
  size_t bytes;
};
using NodeRef = std::shared_ptr<const TraceNode>;
struct TraceProgram;

/// What a gradient recorded by TraceNode::vjp calls: the function whose
/// vector-Jacobian product it is, and which of its parameters it is taken
/// with respect to.
struct VjpCall {
  std::shared_ptr<const TraceProgram> callee;
  /// The callee's arguments, one per parameter: a leaf of the gradient's
  /// outputs, a StopGradient, an input, or a zero Constant (the
  /// perturbation of a computed input).
  std::vector<NodeRef> arguments;
  /// The parameters the gradient is taken with respect to (sorted).
  llvm::SmallVector<int64_t, 4> wrt;
  /// Per input of the gradient: its result's index in `wrt`.
  llvm::SmallVector<int64_t, 4> resultOf;
};

class TraceNode {
  /// Only the makers construct nodes (through std::allocate_shared, for one
  /// allocation per node).
  struct PrivateTag {
    explicit PrivateTag() = default;
  };

public:
  TraceNode(PrivateTag, TraceOp op, DType dtype, llvm::ArrayRef<int64_t> shape,
            llvm::ArrayRef<NodeRef> operands, llvm::ArrayRef<int64_t> attrs,
            double scalar, std::shared_ptr<const TraceProgram> callee);
  /// Releases the operands without recursing, so that dropping the end of
  /// a long chain (a long training run's) cannot overflow the stack.
  ~TraceNode();

  TraceOp getOp() const { return op; }
  DType getDType() const { return dtype; }
  llvm::ArrayRef<int64_t> getShape() const { return shape; }
  llvm::ArrayRef<int64_t> getAttrs() const { return attrs; }
  /// A Constant's value.
  double getScalar() const { return scalar; }
  /// The structural hash: op, attributes, dtype, shape, operand hashes
  /// (and a Vjp's callee).
  uint64_t getHash() const { return hash; }
  /// The hash of what the node computes besides its operands: op,
  /// attributes, dtype, shape and payload (a program's entry adds where its
  /// operands are, so extracting a program hashes few words per entry).
  uint64_t getLocalHash() const { return localHash; }
  /// Dims (bit d: dim d, below 64) marked dynamic by kiln::markDynamic: a
  /// program with this node as a parameter compiles shape-generic in them
  /// from its first size. Not part of the hash. Thread-safe.
  uint64_t getDynamicMarks() const {
    return dynamicMarks.load(std::memory_order_relaxed);
  }
  void markDynamic(unsigned dim) const {
    if (dim < 64)
      dynamicMarks.fetch_or(uint64_t(1) << dim, std::memory_order_relaxed);
  }
  /// The checkpoint segment the node was recorded in (CheckpointScope),
  /// 0 for none. Which segments the node and its operands share is part of
  /// the hash; the number itself is not.
  uint64_t getCheckpointSegment() const { return checkpointSegment; }
  /// A Vjp's callee: the function whose vector-Jacobian product it is
  /// (null for a gradient recorded lazily: see isLazyVjp).
  const std::shared_ptr<const TraceProgram> &getCallee() const {
    return callee;
  }
  /// A Vjp recorded lazily: its operands are the gradient's outputs,
  /// inputs and output gradients (attrs {outputs, inputs}), and its
  /// VjpResults' index is their input's. Its callee is extracted when a
  /// program is compiled (TraceProgram::getLazyVjpCall), or when a value
  /// arrives that could cut its forward short (the node is then
  /// "settled": its operands become the call's arguments and output
  /// gradients).
  bool isLazyVjp() const { return op == TraceOp::Vjp && !callee; }
  /// Whether the node is a Vjp or depends on one through nodes that had
  /// no value when it was recorded.
  bool dependsOnVjp() const { return hasVjp; }
  int64_t getNumElements() const;

  /// Whether the node's value is known (on the host, the device or both).
  bool hasValue() const { return hasData.load(std::memory_order_acquire); }
  /// The node's value on the host: a parameter's data, or what a run
  /// computed. Null until known. A value known only on the device is
  /// copied to the host (once; the copy is kept); null when that fails
  /// (getHostData says why). Thread-safe.
  std::shared_ptr<const HostTensor> getData() const;
  llvm::Expected<std::shared_ptr<const HostTensor>> getHostData() const;
  /// The node's host value when it is stored, without taking a reference
  /// (a stored value never changes, so no lock): null otherwise. Valid
  /// while the node lives. `holders`, when given, gets how many hold the
  /// value (1: the node alone). Thread-safe.
  const HostTensor *peekHostData(long *holders = nullptr) const {
    if (!hasHost.load(std::memory_order_acquire))
      return nullptr;
    if (holders)
      *holders = data.use_count();
    return data.get();
  }
  /// The node's value on the device, when it is there. Thread-safe.
  std::shared_ptr<const DeviceValue> getDeviceData() const;
  /// Whether the node has had a value on the device. Thread-safe.
  bool hasDeviceData() const {
    return hasDevice.load(std::memory_order_acquire);
  }
  /// Stores the node's value on the device: as its value when it has none
  /// (as setData), or as the device copy of its host value (an upload, kept
  /// for every later program; one lost with its runtime is replaced).
  /// Fails when `value` does not have the node's dtype and shape.
  /// Thread-safe.
  llvm::Error setDeviceData(std::shared_ptr<const DeviceValue> value) const;
  /// Stores the node's value once computed; fails when `data` does not
  /// have the node's dtype and shape. The node then lets go of its
  /// operands: no program needs them through it any more, and a long
  /// training loop would otherwise keep every step's values alive. A value
  /// is stored once: when two threads compute the node at once, the first
  /// to store wins (both computed the same thing). Thread-safe.
  llvm::Error setData(std::shared_ptr<const HostTensor> data) const;
  /// Whether the node is a parameter of any program that needs it (a
  /// Parameter, or a node with a value); if not, its operands are added to
  /// `operands`. One consistent view under concurrent setData.
  bool isLeafOrGetOperands(llvm::SmallVectorImpl<NodeRef> &operands) const;
  /// The same as of value arrival `asOf` (getValueClock): a node whose
  /// value arrived later is not a leaf (its operands are kept while a lazy
  /// gradient recorded before may need them). For a lazy Vjp, `call` gets
  /// its call once settled (null before), in one view with its operands.
  /// `lost` is set (and the node taken as a leaf) when such a node has let
  /// go of its operands.
  bool isLeafOrGetOperands(llvm::SmallVectorImpl<NodeRef> &operands,
                           uint64_t asOf, std::shared_ptr<const VjpCall> *call,
                           bool *lost) const;
  /// Counts the values that computed nodes received (setData and
  /// setDeviceData) in this process.
  static uint64_t getValueClock();
  /// Settles lazy gradient `vjp` (isLazyVjp): extracts its callee as of
  /// the value arrival it was recorded at. Thread-safe; a settled one
  /// stays as it is. False when it is not settled (its forward is gone).
  static bool settle(const NodeRef &vjp);
  /// The value arrival a lazy gradient was recorded at.
  uint64_t getRecordedAt() const { return recordedAt; }
  /// A lazy gradient's call once settled, else null. Thread-safe.
  std::shared_ptr<const VjpCall> getSettledCall() const;
  /// The call of a gradient of `outputs` with respect to `inputs` (vjp),
  /// its callee extracted as of value arrival `asOf`.
  static llvm::Expected<VjpCall> buildVjpCall(llvm::ArrayRef<NodeRef> outputs,
                                              llvm::ArrayRef<NodeRef> inputs,
                                              uint64_t asOf);

  // Makers: each checks its operands and attributes and fails with a
  // message that names the op and the shapes involved.
  static NodeRef parameter(DType dtype, llvm::ArrayRef<int64_t> shape);
  /// A parameter holding `data`. One that is not `recorded` (a replayed
  /// step's result) is not counted in getNumTracedNodes().
  static NodeRef parameter(std::shared_ptr<const HostTensor> data,
                           bool recorded = true);
  /// A parameter whose value is on the device (a replayed step's result on
  /// the cuda device).
  static NodeRef parameter(std::shared_ptr<const DeviceValue> value,
                           bool recorded = true);
  static llvm::Expected<NodeRef>
  constant(DType dtype, llvm::ArrayRef<int64_t> shape, double value);
  /// The float elementwise ops, unary or binary (operands of one type);
  /// `attrs` is an op's flag (0 or 1) when the table gives it one.
  static llvm::Expected<NodeRef>
  elementwise(TraceOp op, llvm::ArrayRef<NodeRef> operands,
              llvm::ArrayRef<int64_t> attrs = {});
  static llvm::Expected<NodeRef> cmp(TracePredicate predicate,
                                     const NodeRef &lhs, const NodeRef &rhs);
  static llvm::Expected<NodeRef>
  select(const NodeRef &pred, const NodeRef &onTrue, const NodeRef &onFalse);
  static llvm::Expected<NodeRef> convert(const NodeRef &operand, DType dtype);
  static llvm::Expected<NodeRef> broadcastInDim(const NodeRef &operand,
                                                llvm::ArrayRef<int64_t> shape,
                                                llvm::ArrayRef<int64_t> dims);
  static llvm::Expected<NodeRef> reshape(const NodeRef &operand,
                                         llvm::ArrayRef<int64_t> shape);
  /// `operand`, through which no gradient flows (TraceOp::StopGradient).
  static NodeRef stopGradient(const NodeRef &operand);
  static llvm::Expected<NodeRef> transpose(const NodeRef &operand,
                                           llvm::ArrayRef<int64_t> perm);
  static llvm::Expected<NodeRef> slice(const NodeRef &operand,
                                       llvm::ArrayRef<int64_t> offsets,
                                       llvm::ArrayRef<int64_t> sizes);
  static llvm::Expected<NodeRef> concat(llvm::ArrayRef<NodeRef> parts,
                                        int64_t dim);
  /// ReduceSum or ReduceMax over `dims` (sorted, unique).
  static llvm::Expected<NodeRef> reduce(TraceOp op, const NodeRef &operand,
                                        llvm::ArrayRef<int64_t> dims);
  static llvm::Expected<NodeRef> matmul(const NodeRef &lhs, const NodeRef &rhs,
                                        bool transposeA, bool transposeB);
  /// The index along `dim`, as `dtype` (an integer or a float type).
  static llvm::Expected<NodeRef>
  iota(DType dtype, llvm::ArrayRef<int64_t> shape, int64_t dim);
  /// numpy.take along `dim` with i32/i64 `indices` (kiln.take).
  static llvm::Expected<NodeRef> take(const NodeRef &operand,
                                      const NodeRef &indices, int64_t dim);
  /// `operand` with `updates` added at the positions `indices` name along
  /// `dim` (kiln.scatter_add).
  static llvm::Expected<NodeRef> scatterAdd(const NodeRef &operand,
                                            const NodeRef &indices,
                                            const NodeRef &updates,
                                            int64_t dim);
  /// The first maximum's index along `dim`, as `indexType` (i32 or i64).
  static llvm::Expected<NodeRef> argmax(const NodeRef &operand, int64_t dim,
                                        DType indexType);
  /// f32 uniform numbers of `shape` from a [2] i64 key (seed, offset).
  static llvm::Expected<NodeRef> rngUniform(const NodeRef &key,
                                            llvm::ArrayRef<int64_t> shape);
  /// A collective over the `ranks` ranks of communicator `group`:
  /// AllReduce (attrs {reduction, group}), AllGather ({dim, group}: the
  /// result is `ranks` times the operand at `dim`) or ReduceScatter
  /// ({reduction, dim, group}: the operand's size at `dim` must be a
  /// multiple of `ranks`). `reduction` is kiln::Reduction's value (0 sum,
  /// 1 mean, 2 max); `dim` is ignored by AllReduce.
  static llvm::Expected<NodeRef> collective(TraceOp op, const NodeRef &operand,
                                            int64_t reduction, int64_t dim,
                                            int64_t group, int64_t ranks);
  /// The gradients of `outputs` with respect to `inputs`, weighted by
  /// `cotangents` (one per output, of its type): one VjpResult node per
  /// input, of its type, recorded as one kiln.vjp.
  ///
  /// The callee is what computes `outputs` from the leaves they need (the
  /// parameters, and nodes with a value), as recorded now. A computed
  /// input gets a zero perturbation in the callee (the gradient with
  /// respect to `input + delta` at delta = 0), so that paths through one
  /// input to another count, as in PyTorch. The callee recomputes the
  /// forward; the compiler's CSE merges it with the caller's.
  static llvm::Expected<std::vector<NodeRef>>
  vjp(llvm::ArrayRef<NodeRef> outputs, llvm::ArrayRef<NodeRef> inputs,
      llvm::ArrayRef<NodeRef> cotangents);

private:
  /// A value has arrived (under dataMutex, and the lazy gradients' mutex
  /// for a computed node): stamps it, and lets go of the operands into
  /// `released` or, when a lazy gradient recorded before may need them,
  /// keeps them. True when more than the bound are kept for them.
  bool arrive(llvm::SmallVectorImpl<NodeRef> &released) const;
  /// Lets go of the operands kept for lazy gradients that no pending one
  /// needs (the lazy gradients' mutex held).
  static void releaseKeptOperands(llvm::SmallVectorImpl<NodeRef> &released);
  /// Takes lazy gradient `vjp` off the pending ones, if it is there, and
  /// lets go of what was kept for it alone (the mutex held).
  static void unlistGradient(const TraceNode *vjp,
                             llvm::SmallVectorImpl<NodeRef> &released);

  /// Success when a value of `valueType` and `shape` (none: no value) can
  /// be the node's; else an error naming `what` and both types.
  llvm::Error
  checkResultType(const char *what, std::optional<DType> valueType,
                  std::optional<llvm::ArrayRef<int64_t>> shape) const;

  static NodeRef make(TraceOp op, DType dtype, llvm::ArrayRef<int64_t> shape,
                      llvm::ArrayRef<NodeRef> operands,
                      llvm::ArrayRef<int64_t> attrs = {}, double scalar = 0,
                      std::shared_ptr<const TraceProgram> callee = nullptr,
                      bool recorded = true);

  TraceOp op;
  DType dtype;
  llvm::SmallVector<int64_t, 4> shape;
  /// Guarded by dataMutex once the node is shared: setData clears it.
  mutable llvm::SmallVector<NodeRef, 2> operands;
  llvm::SmallVector<int64_t, 4> attrs;
  double scalar;
  std::shared_ptr<const TraceProgram> callee;
  uint64_t checkpointSegment = 0;
  uint64_t localHash, hash;
  /// A lazy Vjp's: the value arrivals before it was recorded (set before
  /// it is shared).
  mutable uint64_t recordedAt = 0;
  /// The node's place in recording order (getNumTracedNodes when made; 0
  /// for a replay's results). Set before the node is shared.
  mutable int64_t sequence = 0;
  /// When the node's value arrived (getValueClock; 0 for none, or a
  /// Parameter's). Guarded by dataMutex.
  mutable uint64_t valueStamp = 0;
  /// A lazy Vjp's call once settled. Guarded by dataMutex.
  mutable std::shared_ptr<const VjpCall> settledCall;
  /// In the lists of lazy gradients: a lazy Vjp not settled, a node with a
  /// value that keeps its operands for one.
  mutable std::atomic<bool> listed{false};
  bool hasVjp = false;
  mutable std::atomic<uint64_t> dynamicMarks{0};
  mutable SpinMutex dataMutex;
  mutable std::shared_ptr<const HostTensor> data;
  mutable std::shared_ptr<const DeviceValue> device;
  /// Set (release) once a value (`data` or `device`) is stored.
  mutable std::atomic<bool> hasData{false};
  /// Set (release) once `data` is stored; it never changes after, so
  /// readers that see it set (acquire) read it without the lock. (`device`
  /// is read under the lock: a copy lost with its runtime is replaced.)
  mutable std::atomic<bool> hasHost{false}, hasDevice{false};
};

/// The nodes some outputs need, ready to import and run.
struct TraceProgram {
  struct Entry {
    /// Held, so that the program's nodes outlive a concurrent setData that
    /// lets go of them.
    NodeRef node;
    /// A parameter of the program: a Parameter node, or one with data
    /// (whose operands the program then does not need).
    bool isParameter = false;
    /// Indices into `entries` of the node's operands (none for parameters).
    llvm::SmallVector<int32_t, 2> operands;
  };
  /// Operands before their users; parameters in first-use order.
  std::vector<Entry> entries;
  /// Indices into `entries`: the parameters (in the program's argument
  /// order) and the outputs (in the order asked for).
  std::vector<int32_t> parameters, outputs;
  /// Identifies the program: equal hashes, equal programs (with
  /// overwhelming probability), whatever data the parameters hold.
  uint64_t hash = 0;
  /// Per entry, the hash of what it contributes (op, attributes, type and
  /// operand positions): where two programs first differ.
  std::vector<uint64_t> entryHashes;
  /// Nodes hash-consing folded into an earlier entry (they compute what it
  /// computes), held alive with the program, and the entry of each.
  std::vector<NodeRef> folded;
  std::vector<int32_t> foldedInto;
  /// The entries that are lazy gradients (TraceNode::isLazyVjp), each with
  /// its call when it was settled as extracted; null: its operands are the
  /// gradient's outputs, inputs and output gradients, and its call is
  /// derived from them (getLazyVjpCall).
  std::vector<std::pair<int32_t, std::shared_ptr<const VjpCall>>> lazyVjps;
  /// Set when an extraction as of a value arrival met a value whose
  /// operands were let go of, or a lazy gradient could not be settled (the
  /// program is not what it stands for; TraceCache refuses it).
  bool incomplete = false;

  /// The call of lazy gradient entry `index`: as settled, or extracted from
  /// its outputs as of its recording (kept for the next ask). Fails when
  /// that forward is no longer there (an internal error).
  llvm::Expected<const VjpCall *> getLazyVjpCall(int32_t index) const;
  /// The call of lazy gradient entry `index` as settled when extracted
  /// (null if it was not).
  const VjpCall *getSettledCall(int32_t index) const;
  /// The callee of Vjp entry `index` (either kind), or null when it has
  /// none to give.
  const TraceProgram *getCallee(int32_t index) const;

  /// "kiln.add(%2, %3) : tensor<4x8xf32>", or "parameter : ..." for a
  /// parameter: entry `index` for a person.
  std::string describe(int32_t index) const;

  /// Collects what `outputs` need. A node reached twice is one entry, and
  /// so are two nodes that compute the same thing from the same entries
  /// (hash-consing: a trace recorded twice is computed once).
  /// `substitutes` replaces, wherever a node is an operand or an output,
  /// that node by another (the substitute's own operands excepted).
  /// `stopAtStopGradients` (a gradient's callee) makes each StopGradient
  /// node a parameter, whose value the caller computes.
  /// A lazy gradient found not settled is settled first unless no value
  /// arrived since it was recorded (so that the program's entries are its
  /// forward as recorded). `asOf` extracts as of a value arrival
  /// (isLeafOrGetOperands).
  static TraceProgram
  extract(llvm::ArrayRef<NodeRef> outputs,
          const std::vector<std::pair<NodeRef, NodeRef>> &substitutes = {},
          bool stopAtStopGradients = false, uint64_t asOf = ~uint64_t(0));

private:
  /// Derived calls of lazy gradients not settled, by entry.
  mutable std::vector<std::pair<int32_t, std::shared_ptr<const VjpCall>>>
      derivedCalls;
};

} // namespace kiln

#endif // KILN_TRACE_TRACE_H
