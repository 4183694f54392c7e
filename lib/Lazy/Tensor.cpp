//===- Tensor.cpp - lazy tensors ------------------------------------------===//

#include "kiln/Lazy/Tensor.h"
#include "Compiler/Cache/DiskCache.h"
#include "Compiler/Device/DeviceQueue.h"
#include "Compiler/Device/DeviceTensor.h"
#include "Compiler/Frontend/TraceCache.h"
#include "Lazy/CountedRuns.h"
#include "Lazy/ProgramLog.h"
#include "kiln/Lazy/Autocast.h"

#include "kiln_rt/kiln_rt.h"
#include "kiln_rt/kiln_rt_cuda.h"

#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/Twine.h"

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <map>
#include <mutex>

using namespace kiln;
using llvm::ArrayRef;

static llvm::Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

Tensor Tensor::make(llvm::Expected<NodeRef> node) {
  Tensor t;
  if (node)
    t.node = std::move(*node);
  else
    t.failure =
        std::make_shared<const std::string>(llvm::toString(node.takeError()));
  return t;
}

Tensor Tensor::invalid(std::shared_ptr<const std::string> error) {
  Tensor t;
  t.failure = std::move(error);
  return t;
}

std::string Tensor::getError() const {
  if (node)
    return "";
  return failure ? *failure : "an empty tensor";
}

Tensor Tensor::fromHost(const HostTensor &data) {
  return fromHost(HostTensor(data));
}

Tensor Tensor::fromHost(HostTensor &&data) {
  Tensor t;
  t.node =
      TraceNode::parameter(std::make_shared<const HostTensor>(std::move(data)));
  return t;
}

Tensor Tensor::fromHost(std::shared_ptr<const HostTensor> data) {
  Tensor t;
  t.node = TraceNode::parameter(std::move(data));
  return t;
}

Tensor Tensor::wrap(const void *data, DType dtype, ArrayRef<int64_t> shape) {
  llvm::Expected<HostTensor> borrowed =
      HostTensor::borrow(dtype, shape.vec(), const_cast<void *>(data));
  if (!borrowed)
    return make(borrowed.takeError());
  return fromHost(std::move(*borrowed));
}

Tensor Tensor::scalar(double value, DType dtype) {
  HostTensor data(dtype, {});
  data.setFromDouble(0, value);
  return fromHost(std::move(data));
}

Tensor Tensor::full(ArrayRef<int64_t> shape, double value, DType dtype) {
  return make(TraceNode::constant(dtype, shape, value));
}

Tensor Tensor::zeros(ArrayRef<int64_t> shape, DType dtype) {
  return full(shape, 0.0, dtype);
}

/// The first invalid tensor of `tensors`, if any.
static const Tensor *firstInvalid(ArrayRef<const Tensor *> tensors) {
  for (const Tensor *t : tensors)
    if (!t->ok())
      return t;
  return nullptr;
}

//===----------------------------------------------------------------------===//
// Broadcasting
//===----------------------------------------------------------------------===//

/// numpy's broadcast of `shapes`, or an error naming `op`.
static llvm::Expected<llvm::SmallVector<int64_t, 4>>
broadcastShape(llvm::StringRef op, ArrayRef<ArrayRef<int64_t>> shapes) {
  size_t rank = 0;
  for (ArrayRef<int64_t> s : shapes)
    rank = std::max(rank, s.size());
  llvm::SmallVector<int64_t, 4> shape(rank, 1);
  for (ArrayRef<int64_t> s : shapes) {
    for (size_t i = 0; i < s.size(); ++i) {
      int64_t &out = shape[rank - s.size() + i];
      if (s[i] == out || s[i] == 1)
        continue;
      if (out != 1) {
        std::string listed;
        for (ArrayRef<int64_t> u : shapes)
          listed += (listed.empty() ? "" : " and ") + getListString(u);
        return makeError(op + ": shapes " + listed + " do not broadcast");
      }
      out = s[i];
    }
  }
  return shape;
}

/// `node` broadcast to `shape` (trailing dims aligned), or itself.
static llvm::Expected<NodeRef> broadcastNode(NodeRef node,
                                             ArrayRef<int64_t> shape) {
  if (node->getShape() == shape)
    return node;
  size_t offset = shape.size() - node->getShape().size();
  llvm::SmallVector<int64_t, 4> dims;
  for (size_t i = 0; i < node->getShape().size(); ++i)
    dims.push_back(static_cast<int64_t>(offset + i));
  return TraceNode::broadcastInDim(node, shape, dims);
}

/// Records `build` on the operands broadcast to one shape.
template <typename BuildFn>
static Tensor broadcasting(llvm::StringRef op,
                           ArrayRef<const Tensor *> operands, BuildFn build) {
  if (const Tensor *bad = firstInvalid(operands))
    return Tensor::invalid(bad->getFailure());
  llvm::SmallVector<ArrayRef<int64_t>, 3> shapes;
  for (const Tensor *t : operands)
    shapes.push_back(t->getShape());
  llvm::Expected<llvm::SmallVector<int64_t, 4>> shape =
      broadcastShape(op, shapes);
  if (!shape)
    return Tensor::make(shape.takeError());
  llvm::SmallVector<NodeRef, 3> nodes;
  for (const Tensor *t : operands) {
    llvm::Expected<NodeRef> node = broadcastNode(t->getNode(), *shape);
    if (!node)
      return Tensor::make(node.takeError());
    nodes.push_back(*node);
  }
  return Tensor::make(build(nodes));
}

/// Whether autocast runs `op` in f32 (TraceOps.def).
static bool runsInFloat32UnderAutocast(TraceOp op) {
  switch (op) {
#define KILN_TRACE_AUTOCAST_FLOAT32(Name) case TraceOp::Name:
#include "kiln/Trace/TraceOps.def"
    return true;
  default:
    return false;
  }
}

/// `x` in f32 when autocast widens the float32 list now (on cuda:
/// Autocast.h) and `x` is f16 or bf16.
static Tensor toFloat32UnderAutocast(const Tensor &x) {
  if (!x.ok() || (x.getDType() != DType::F16 && x.getDType() != DType::BF16) ||
      !isAutocastWideningMath())
    return x;
  return convert(x, DType::F32);
}

static Tensor binary(TraceOp op, const Tensor &a, const Tensor &b) {
  if (runsInFloat32UnderAutocast(op) && isAutocastWideningMath()) {
    Tensor wideA = toFloat32UnderAutocast(a), wideB = toFloat32UnderAutocast(b);
    if (wideA.ok() && wideB.ok() &&
        (wideA.getDType() != a.getDType() || wideB.getDType() != b.getDType()))
      return binary(op, wideA, wideB);
  }
  // Operands of one shape, the common case, skip the broadcast machinery.
  if (a.ok() && b.ok() && a.getShape() == b.getShape())
    return Tensor::make(TraceNode::elementwise(op, {a.getNode(), b.getNode()}));
  return broadcasting(getTraceOpName(op), {&a, &b},
                      [&](ArrayRef<NodeRef> nodes) {
                        return TraceNode::elementwise(op, nodes);
                      });
}

static Tensor unary(TraceOp op, const Tensor &x, ArrayRef<int64_t> attrs = {}) {
  if (!x.ok())
    return x;
  if (runsInFloat32UnderAutocast(op)) {
    Tensor wide = toFloat32UnderAutocast(x);
    return Tensor::make(TraceNode::elementwise(op, {wide.getNode()}, attrs));
  }
  return Tensor::make(TraceNode::elementwise(op, {x.getNode()}, attrs));
}

/// A scalar operand: a rank-0 parameter of `like`'s dtype.
static Tensor scalarLike(double value, const Tensor &like) {
  return Tensor::scalar(value, like.ok() ? like.getDType() : DType::F32);
}

static Tensor compare(TracePredicate predicate, const Tensor &a,
                      const Tensor &b) {
  return broadcasting("kiln.cmp", {&a, &b}, [&](ArrayRef<NodeRef> nodes) {
    return TraceNode::cmp(predicate, nodes[0], nodes[1]);
  });
}

//===----------------------------------------------------------------------===//
// Ops
//===----------------------------------------------------------------------===//

#define KILN_TRACE_UNARY(Name, OpName, Function)                               \
  Tensor kiln::Function(const Tensor &x) { return unary(TraceOp::Name, x); }
#define KILN_TRACE_UNARY_FLAG(Name, OpName, Function, Flag)                    \
  Tensor kiln::Function(const Tensor &x, bool Flag) {                          \
    return unary(TraceOp::Name, x, {Flag ? 1 : 0});                            \
  }
#define KILN_TRACE_BINARY(Name, OpName, Function)                              \
  Tensor kiln::Function(const Tensor &a, const Tensor &b) {                    \
    return binary(TraceOp::Name, a, b);                                        \
  }
#include "kiln/Trace/TraceOps.def"

Tensor kiln::operator+(const Tensor &a, const Tensor &b) { return add(a, b); }
Tensor kiln::operator-(const Tensor &a, const Tensor &b) { return sub(a, b); }
Tensor kiln::operator*(const Tensor &a, const Tensor &b) { return mul(a, b); }
Tensor kiln::operator/(const Tensor &a, const Tensor &b) { return div(a, b); }
Tensor kiln::operator+(const Tensor &a, double b) {
  return a + scalarLike(b, a);
}
Tensor kiln::operator-(const Tensor &a, double b) {
  return a - scalarLike(b, a);
}
Tensor kiln::operator*(const Tensor &a, double b) {
  return a * scalarLike(b, a);
}
Tensor kiln::operator/(const Tensor &a, double b) {
  return a / scalarLike(b, a);
}
Tensor kiln::operator+(double a, const Tensor &b) {
  return scalarLike(a, b) + b;
}
Tensor kiln::operator-(double a, const Tensor &b) {
  return scalarLike(a, b) - b;
}
Tensor kiln::operator*(double a, const Tensor &b) {
  return scalarLike(a, b) * b;
}
Tensor kiln::operator/(double a, const Tensor &b) {
  return scalarLike(a, b) / b;
}
Tensor kiln::operator-(const Tensor &a) { return neg(a); }
Tensor kiln::gt(const Tensor &a, const Tensor &b) {
  return compare(TracePredicate::GT, a, b);
}
Tensor kiln::ge(const Tensor &a, const Tensor &b) {
  return compare(TracePredicate::GE, a, b);
}
Tensor kiln::lt(const Tensor &a, const Tensor &b) {
  return compare(TracePredicate::LT, a, b);
}
Tensor kiln::le(const Tensor &a, const Tensor &b) {
  return compare(TracePredicate::LE, a, b);
}
Tensor kiln::eq(const Tensor &a, const Tensor &b) {
  return compare(TracePredicate::EQ, a, b);
}
Tensor kiln::ne(const Tensor &a, const Tensor &b) {
  return compare(TracePredicate::NE, a, b);
}

Tensor kiln::stopGradient(const Tensor &x) {
  if (!x.ok())
    return x;
  return Tensor::make(TraceNode::stopGradient(x.getNode()));
}

Tensor kiln::convert(const Tensor &x, DType dtype) {
  if (!x.ok())
    return x;
  return Tensor::make(TraceNode::convert(x.getNode(), dtype));
}

Tensor kiln::where(const Tensor &cond, const Tensor &a, const Tensor &b) {
  return broadcasting("kiln.select", {&cond, &a, &b},
                      [&](ArrayRef<NodeRef> nodes) {
                        return TraceNode::select(nodes[0], nodes[1], nodes[2]);
                      });
}

Tensor kiln::reshape(const Tensor &x, ArrayRef<int64_t> shape) {
  if (!x.ok())
    return x;
  return Tensor::make(TraceNode::reshape(x.getNode(), shape));
}

Tensor kiln::transpose(const Tensor &x, ArrayRef<int64_t> perm) {
  if (!x.ok())
    return x;
  return Tensor::make(TraceNode::transpose(x.getNode(), perm));
}

Tensor kiln::slice(const Tensor &x, ArrayRef<int64_t> offsets,
                   ArrayRef<int64_t> sizes) {
  if (!x.ok())
    return x;
  return Tensor::make(TraceNode::slice(x.getNode(), offsets, sizes));
}

Tensor kiln::narrow(const Tensor &x, int64_t dim, int64_t start,
                    int64_t length) {
  if (!x.ok())
    return x;
  int64_t rank = x.getShape().size();
  if (dim < 0 || dim >= rank)
    return Tensor::make(makeError("kiln.slice: narrow along dim " +
                                  llvm::Twine(dim) + " of a rank-" +
                                  llvm::Twine(rank) + " tensor"));
  llvm::SmallVector<int64_t, 4> offsets(rank, 0);
  llvm::SmallVector<int64_t, 4> sizes(x.getShape());
  offsets[dim] = start;
  sizes[dim] = length;
  return slice(x, offsets, sizes);
}

std::vector<Tensor> kiln::chunk(const Tensor &x, int64_t chunks, int64_t dim) {
  if (!x.ok())
    return {x};
  int64_t rank = x.getShape().size();
  if (chunks <= 0 || dim < 0 || dim >= rank || x.getShape()[dim] % chunks != 0)
    return {Tensor::make(makeError(
        "kiln.slice: chunk into " + llvm::Twine(chunks) + " along dim " +
        llvm::Twine(dim) + " needs a dim that divides evenly"))};
  int64_t size = x.getShape()[dim] / chunks;
  std::vector<Tensor> parts;
  for (int64_t i = 0; i < chunks; ++i)
    parts.push_back(narrow(x, dim, i * size, size));
  return parts;
}

Tensor kiln::cat(ArrayRef<Tensor> parts, int64_t dim) {
  llvm::SmallVector<NodeRef, 4> nodes;
  for (const Tensor &part : parts) {
    if (!part.ok())
      return part;
    nodes.push_back(part.getNode());
  }
  return Tensor::make(TraceNode::concat(nodes, dim));
}

Tensor kiln::broadcastTo(const Tensor &x, ArrayRef<int64_t> shape) {
  if (!x.ok())
    return x;
  llvm::Expected<llvm::SmallVector<int64_t, 4>> result =
      broadcastShape("kiln.broadcast_in_dim", {x.getShape(), shape});
  if (!result)
    return Tensor::make(result.takeError());
  if (ArrayRef<int64_t>(*result) != shape)
    return Tensor::make(makeError("kiln.broadcast_in_dim: cannot broadcast "
                                  "to a smaller shape"));
  return Tensor::make(broadcastNode(x.getNode(), shape));
}

/// The sum of `x` over `dims`, in its own dtype (autocast aside).
static Tensor reduceSum(const Tensor &x, ArrayRef<int64_t> dims) {
  if (!x.ok())
    return x;
  return Tensor::make(TraceNode::reduce(TraceOp::ReduceSum, x.getNode(), dims));
}

Tensor kiln::sum(const Tensor &x, ArrayRef<int64_t> dims) {
  return reduceSum(toFloat32UnderAutocast(x), dims);
}

Tensor kiln::amax(const Tensor &x, ArrayRef<int64_t> dims) {
  if (!x.ok())
    return x;
  return Tensor::make(TraceNode::reduce(TraceOp::ReduceMax, x.getNode(), dims));
}

Tensor kiln::take(const Tensor &x, const Tensor &indices, int64_t dim) {
  if (!x.ok())
    return x;
  if (!indices.ok())
    return indices;
  return Tensor::make(TraceNode::take(x.getNode(), indices.getNode(), dim));
}

Tensor kiln::scatterAdd(const Tensor &x, const Tensor &indices,
                        const Tensor &updates, int64_t dim) {
  for (const Tensor *t : {&x, &indices, &updates})
    if (!t->ok())
      return *t;
  return Tensor::make(TraceNode::scatterAdd(x.getNode(), indices.getNode(),
                                            updates.getNode(), dim));
}

Tensor kiln::argmax(const Tensor &x, int64_t dim, DType indexType) {
  if (!x.ok())
    return x;
  return Tensor::make(TraceNode::argmax(x.getNode(), dim, indexType));
}

Tensor kiln::iota(ArrayRef<int64_t> shape, int64_t dim, DType dtype) {
  return Tensor::make(TraceNode::iota(dtype, shape, dim));
}

Tensor kiln::rngUniform(const Tensor &key, ArrayRef<int64_t> shape) {
  if (!key.ok())
    return key;
  return Tensor::make(TraceNode::rngUniform(key.getNode(), shape));
}

Tensor kiln::mean(const Tensor &x, ArrayRef<int64_t> dims) {
  if (!x.ok())
    return x;
  int64_t count = 1;
  for (int64_t d : dims)
    if (d >= 0 && d < static_cast<int64_t>(x.getShape().size()))
      count *= x.getShape()[d];
  // The reduction checks `dims`; an empty reduction divides by zero, as
  // numpy's mean of nothing is nan.
  // In x's dtype under autocast too (PyTorch casts sum, not mean).
  return reduceSum(x, dims) / static_cast<double>(count);
}

/// `reduced`, `x` reduced along `dim`, broadcast back to `x`'s shape.
static Tensor broadcastAlongDim(const Tensor &reduced, const Tensor &x,
                                int64_t dim) {
  if (!reduced.ok())
    return reduced;
  llvm::SmallVector<int64_t, 4> kept(x.getShape());
  kept[dim] = 1;
  return broadcastTo(reshape(reduced, kept), x.getShape());
}

/// `x` reduced along `dim` and broadcast back to its shape.
static Tensor reduceKeepingDim(const Tensor &x, int64_t dim,
                               Tensor (*reduce)(const Tensor &,
                                                ArrayRef<int64_t>)) {
  return broadcastAlongDim(reduce(x, {dim}), x, dim);
}

/// x - max(x) along `dim`, or an error naming `op` for a bad dim. The max
/// only keeps exp in range: no gradient flows through it (its exact
/// contribution to softmax's and log_softmax's gradients is zero), so none
/// is computed (no tie masks, no counts).
static Tensor shiftedByMax(llvm::StringRef op, const Tensor &x, int64_t dim) {
  if (!x.ok())
    return x;
  int64_t rank = x.getShape().size();
  if (dim < 0 || dim >= rank)
    return Tensor::make(makeError(op + ": dim " + llvm::Twine(dim) +
                                  " is out of range for rank " +
                                  llvm::Twine(rank)));
  // The gradient stops at the row maxima themselves, before the broadcast:
  // a derivative then receives them as rows, visibly constant along `dim`
  // (which -kiln-fuse-attention needs to recognize a softmax there).
  return x - broadcastAlongDim(stopGradient(amax(x, {dim})), x, dim);
}

Tensor kiln::softmax(const Tensor &x, int64_t dim) {
  Tensor e = exp(shiftedByMax("softmax", toFloat32UnderAutocast(x), dim));
  if (!e.ok())
    return e;
  return e / reduceKeepingDim(e, dim, sum);
}

Tensor kiln::logSoftmax(const Tensor &x, int64_t dim) {
  Tensor shifted = shiftedByMax("log_softmax", toFloat32UnderAutocast(x), dim);
  if (!shifted.ok())
    return shifted;
  return shifted - log(reduceKeepingDim(exp(shifted), dim, sum));
}

Tensor kiln::matmul(const Tensor &a, const Tensor &b, bool transposeA,
                    bool transposeB) {
  if (const Tensor *bad = firstInvalid({&a, &b}))
    return *bad;
  // Under autocast, products run in its dtype (tensor cores on the GPU);
  // f64 and integer operands are not cast.
  if (std::optional<DType> low = getActiveAutocastDType()) {
    auto cast = [&](const Tensor &t) {
      DType dtype = t.getDType();
      bool narrowable =
          dtype == DType::F32 || dtype == DType::F16 || dtype == DType::BF16;
      return narrowable && dtype != *low ? convert(t, *low) : t;
    };
    Tensor narrowA = cast(a), narrowB = cast(b);
    if (const Tensor *bad = firstInvalid({&narrowA, &narrowB}))
      return *bad;
    return Tensor::make(TraceNode::matmul(narrowA.getNode(), narrowB.getNode(),
                                          transposeA, transposeB));
  }
  return Tensor::make(
      TraceNode::matmul(a.getNode(), b.getNode(), transposeA, transposeB));
}

std::vector<Tensor> kiln::grad(ArrayRef<Tensor> outputs,
                               ArrayRef<Tensor> inputs,
                               ArrayRef<Tensor> gradOutputs) {
  auto failAll = [&](Tensor failed) {
    return std::vector<Tensor>(std::max<size_t>(inputs.size(), 1), failed);
  };
  llvm::SmallVector<NodeRef, 4> outputNodes, inputNodes, cotangents;
  for (ArrayRef<Tensor> list : {outputs, inputs, gradOutputs})
    for (const Tensor &t : list)
      if (!t.ok())
        return failAll(t);
  for (const Tensor &t : outputs)
    outputNodes.push_back(t.getNode());
  for (const Tensor &t : inputs)
    inputNodes.push_back(t.getNode());
  for (const Tensor &t : gradOutputs)
    cotangents.push_back(t.getNode());
  if (gradOutputs.empty()) {
    for (const NodeRef &output : outputNodes) {
      if (output->getNumElements() != 1)
        return failAll(Tensor::make(makeError(
            "kiln.vjp: output gradients may be left out only for outputs "
            "of one element, not " +
            getTensorTypeString(output->getDType(), output->getShape()))));
      llvm::Expected<NodeRef> one =
          TraceNode::constant(output->getDType(), output->getShape(), 1.0);
      if (!one)
        return failAll(Tensor::make(one.takeError()));
      cotangents.push_back(*one);
    }
  }
  llvm::Expected<std::vector<NodeRef>> grads =
      TraceNode::vjp(outputNodes, inputNodes, cotangents);
  if (!grads)
    return failAll(Tensor::make(grads.takeError()));
  std::vector<Tensor> result;
  for (NodeRef &g : *grads)
    result.push_back(Tensor::make(std::move(g)));
  return result;
}

//===----------------------------------------------------------------------===//
// Materialization
//===----------------------------------------------------------------------===//

namespace {
/// Runs of materialized programs, for metrics().
struct RunCounters {
  std::mutex mutex;
  int64_t runs = 0;
  double runMs = 0;
  int64_t replays = 0;
  int64_t donatedBuffers = 0, donatedBytes = 0;
  RunProfile kernels;
  std::atomic<bool> timeKernels{false};
};
RunCounters &getRunCounters() {
  static RunCounters *counters = [] {
    auto *made = new RunCounters();
    // KILN_KERNEL_TIMING=1 starts with kernel timing on (setKernelTiming).
    const char *timing = std::getenv("KILN_KERNEL_TIMING");
    made->timeKernels = timing && llvm::StringRef(timing) == "1";
    return made;
  }();
  return *counters;
}
} // namespace

void kiln::setKernelTiming(bool enabled) {
  getRunCounters().timeKernels.store(enabled, std::memory_order_relaxed);
}

llvm::Error kiln::markDynamic(const Tensor &t, int64_t dim) {
  if (!t.ok())
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "markDynamic: " + t.getError());
  int64_t rank = static_cast<int64_t>(t.getShape().size());
  if (dim < 0 || dim >= rank || dim >= 64)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "markDynamic: dim " + std::to_string(dim) +
                                       " is out of range for a "
                                       "tensor of rank " +
                                       std::to_string(rank));
  t.getNode()->markDynamic(static_cast<unsigned>(dim));
  return llvm::Error::success();
}

Metrics kiln::metrics() {
  Metrics m;
  m.tracedOps = getNumTracedNodes();
  TraceCacheStats cache = TraceCache::global().getStats();
  m.compiles = cache.compiles;
  m.cacheHits = cache.hits;
  m.cacheMisses = cache.misses;
  m.compileMs = cache.compileMs;
  m.mlirContexts = cache.contexts;
  m.genericCompiles = cache.genericCompiles;
  m.genericHits = cache.genericHits;
  DiskCacheStats disk = DiskCache::getStats();
  m.diskHits = disk.hits;
  m.diskMisses = disk.misses;
  m.diskWrites = disk.writes;
  m.diskEvictions = disk.evictions;
  m.diskCorrupt = disk.corrupt;
  m.diskBytesRead = disk.bytesRead;
  m.diskBytesWritten = disk.bytesWritten;
  {
    RunCounters &counters = getRunCounters();
    std::lock_guard<std::mutex> lock(counters.mutex);
    m.runs = counters.runs;
    m.runMs = counters.runMs;
    m.replays = counters.replays;
    m.donatedBuffers = counters.donatedBuffers;
    m.donatedBytes = counters.donatedBytes;
    m.kernelMs = counters.kernels.kernelNs / 1e6;
    m.kernelLaunches = counters.kernels.launches;
  }
  kiln_rt_host_stats host;
  kiln_rt_host_get_stats(&host);
  m.liveBytes = host.live_bytes;
  m.peakBytes = host.peak_bytes;
  kiln_rt_cuda_transfer_stats transfers;
  kiln_rt_cuda_get_transfer_stats(&transfers);
  m.h2dBytes = transfers.host_to_device_bytes;
  m.d2hBytes = transfers.device_to_host_bytes;
  kiln_rt_cuda_memory_stats device;
  kiln_rt_cuda_get_memory_stats(&device);
  m.deviceLiveBytes = device.live_bytes;
  m.devicePeakBytes = device.peak_bytes;
  kiln_rt_cuda_graph_stats graphs;
  kiln_rt_cuda_get_graph_stats(&graphs);
  m.graphLaunches = graphs.launches;
  m.graphCaptures = graphs.captures;
  m.graphNodeUpdates = graphs.node_updates;
  return m;
}

std::vector<Tensor> kiln::checkpoint(
    llvm::function_ref<std::vector<Tensor>(llvm::ArrayRef<Tensor>)> fn,
    llvm::ArrayRef<Tensor> inputs) {
  CheckpointScope scope;
  return fn(inputs);
}

void kiln::resetPeakMemoryStats() {
  kiln_rt_host_reset_peak();
  kiln_rt_cuda_reset_peak_memory();
}

/// Runs `run` (with a profile when kernel timing is on), counting the run,
/// its time and its kernels in metrics().
template <typename Results>
static llvm::Expected<Results>
countRun(llvm::function_ref<llvm::Expected<Results>(RunProfile *)> run) {
  RunCounters &counters = getRunCounters();
  RunProfile profile;
  bool timeKernels = counters.timeKernels.load(std::memory_order_relaxed);
  auto start = std::chrono::steady_clock::now();
  llvm::Expected<Results> results = run(timeKernels ? &profile : nullptr);
  if (!results)
    return results.takeError();
  std::lock_guard<std::mutex> lock(counters.mutex);
  ++counters.runs;
  counters.kernels.launches += profile.launches;
  counters.kernels.kernelNs += profile.kernelNs;
  counters.runMs += std::chrono::duration<double, std::milli>(
                        std::chrono::steady_clock::now() - start)
                        .count();
  return results;
}

llvm::Expected<std::vector<HostTensor>> kiln::detail::runCounted(
    const Executable &executable, ArrayRef<const HostTensor *> args,
    ArrayRef<HostTensor *> into, const std::vector<bool> *direct) {
  return countRun<std::vector<HostTensor>>([&](RunProfile *profile) {
    return into.empty() ? executable.run(args, profile)
                        : executable.runInto(args, into, profile, direct);
  });
}

llvm::Expected<std::vector<std::shared_ptr<const DeviceValue>>>
kiln::detail::runCountedOnDevice(const Executable &executable,
                                 ArrayRef<const DeviceValue *> args,
                                 llvm::StringRef label) {
  return countRun<std::vector<std::shared_ptr<const DeviceValue>>>(
      [&](RunProfile *profile) {
        return executable.runOnDevice(args, profile, label);
      });
}

llvm::Error kiln::synchronize() { return waitForDevice(); }

/// Uploads a one-element tensor once per value: a step's scalars (a
/// learning rate, 1/N) are new nodes at every step, but the same values,
/// and device values are never written once made.
static llvm::Expected<std::shared_ptr<const CudaDeviceTensor>>
uploadScalar(const HostTensor &host) {
  static std::mutex mutex;
  static std::map<std::string, std::shared_ptr<const CudaDeviceTensor>> cache;
  std::string key(static_cast<const char *>(host.getData()),
                  host.getByteSize());
  key += static_cast<char>(host.getDType());
  for (int64_t dim : host.getShape())
    key += "," + std::to_string(dim);
  std::lock_guard<std::mutex> lock(mutex);
  auto found = cache.find(key);
  if (found != cache.end() && found->second->isAlive())
    return found->second;
  llvm::Expected<std::shared_ptr<const CudaDeviceTensor>> uploaded =
      CudaDeviceTensor::upload(host);
  if (!uploaded)
    return uploaded.takeError();
  if (cache.size() >= 1024) // bounded: programs with many distinct scalars
    cache.clear();
  cache[key] = *uploaded;
  return uploaded;
}

llvm::Expected<std::shared_ptr<const DeviceValue>>
kiln::detail::getOnDevice(const TraceNode &node) {
  std::shared_ptr<const DeviceValue> value = node.getDeviceData();
  if (value && value->isAlive())
    return value;
  // Host data goes to the device once; the copy stays with the node for
  // every later program.
  llvm::Expected<std::shared_ptr<const HostTensor>> host = node.getHostData();
  if (!host)
    return host.takeError();
  if (!*host)
    return makeError("a tensor without a value reaches the tensors asked "
                     "for");
  llvm::Expected<std::shared_ptr<const CudaDeviceTensor>> uploaded =
      (*host)->getNumElements() == 1 ? uploadScalar(**host)
                                     : CudaDeviceTensor::upload(**host);
  if (!uploaded)
    return uploaded.takeError();
  if (llvm::Error e = node.setDeviceData(*uploaded))
    return std::move(e);
  return node.getDeviceData();
}

void kiln::detail::countReplay(int64_t donatedBuffers, int64_t donatedBytes) {
  RunCounters &counters = getRunCounters();
  std::lock_guard<std::mutex> lock(counters.mutex);
  ++counters.replays;
  counters.donatedBuffers += donatedBuffers;
  counters.donatedBytes += donatedBytes;
}

llvm::Error kiln::sync(ArrayRef<Tensor> tensors) {
  std::vector<NodeRef> outputs;
  outputs.reserve(tensors.size());
  llvm::SmallPtrSet<const TraceNode *, 8> seen;
  for (const Tensor &t : tensors) {
    if (!t.ok())
      return makeError(t.getError());
    if (!t.getNode()->hasValue() && seen.insert(t.getNode().get()).second)
      outputs.push_back(t.getNode());
  }
  if (outputs.empty())
    return llvm::Error::success();
  TraceProgram program = TraceProgram::extract(outputs);
  if (llvm::Error e = checkDevice())
    return e;
  llvm::Expected<std::shared_ptr<const Executable>> exe =
      TraceCache::global().get(program, getDevice(),
                               getFloat32MatmulPrecision());
  if (!exe)
    return exe.takeError();
  if ((*exe)->getDevice() == Device::Cuda) {
    // On the device: its values passed by address, host values uploaded
    // (once per node), and the results kept there.
    std::vector<std::shared_ptr<const DeviceValue>> inputs;
    std::vector<const DeviceValue *> args;
    for (int32_t p : program.parameters) {
      llvm::Expected<std::shared_ptr<const DeviceValue>> value =
          detail::getOnDevice(*program.entries[p].node);
      if (!value)
        return value.takeError();
      args.push_back(value->get());
      inputs.push_back(std::move(*value));
    }
    // Queued: an error of its work is reported where a result is read,
    // naming the program.
    std::string label = "the cuda program computing " +
                        program.describe(program.outputs.front());
    if (program.outputs.size() > 1)
      label += " (and " + std::to_string(program.outputs.size() - 1) +
               " more results)";
    llvm::Expected<std::vector<std::shared_ptr<const DeviceValue>>> results =
        detail::runCountedOnDevice(**exe, args, label);
    if (!results)
      return results.takeError();
    for (auto [node, result] : llvm::zip(outputs, *results))
      if (llvm::Error e = node->setDeviceData(std::move(result)))
        return e;
    detail::noteProgramRan(program, *exe, outputs);
    return llvm::Error::success();
  }
  // On the host: a value on the device is copied back (once per node).
  std::vector<std::shared_ptr<const HostTensor>> inputs;
  std::vector<const HostTensor *> args;
  inputs.reserve(program.parameters.size());
  args.reserve(program.parameters.size());
  for (int32_t p : program.parameters) {
    llvm::Expected<std::shared_ptr<const HostTensor>> data =
        program.entries[p].node->getHostData();
    if (!data)
      return data.takeError();
    if (!*data)
      return makeError("a parameter without data reaches the tensors asked "
                       "for");
    args.push_back(data->get());
    inputs.push_back(std::move(*data));
  }
  llvm::Expected<std::vector<HostTensor>> results =
      detail::runCounted(**exe, args);
  if (!results)
    return results.takeError();
  for (auto [node, result] : llvm::zip(outputs, *results))
    if (llvm::Error e = node->setData(
            std::make_shared<const HostTensor>(std::move(result))))
      return e;
  detail::noteProgramRan(program, *exe, outputs);
  return llvm::Error::success();
}

void kiln::setExplainMisses(bool enabled) {
  TraceCache::global().setExplainMisses(enabled);
}

llvm::Expected<std::shared_ptr<const HostTensor>> Tensor::materialize() const {
  if (llvm::Error e = sync({*this}))
    return std::move(e);
  return node->getHostData();
}

llvm::Expected<HostTensor> Tensor::toHost() const {
  llvm::Expected<std::shared_ptr<const HostTensor>> data = materialize();
  if (!data)
    return data.takeError();
  return HostTensor(**data);
}
