//===- Tensor.h - lazy tensors ---------------------------------*- C++ -*-===//
//
// kiln::Tensor is a cheap handle on a trace node: ops record, nothing runs
// until a value is needed (toHost, sync). Shapes and dtypes are checked
// when an op is recorded. A failed op gives an invalid tensor that carries
// the message (naming the op and the shapes); ops on it keep that first
// error, and materializing it returns it. No exceptions.
//
// Binary ops broadcast numpy-style (recorded as kiln.broadcast_in_dim);
// scalar operands are rank-0 parameters, so a new value (a new learning
// rate) never recompiles.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_LAZY_TENSOR_H
#define KILN_LAZY_TENSOR_H

#include "kiln/Compiler/Device.h"
#include "kiln/Compiler/MatmulPrecision.h"
#include "kiln/Trace/Trace.h"

#include "llvm/ADT/STLFunctionalExtras.h"

#include <string>
#include <vector>

namespace kiln {

class Tensor {
public:
  /// An invalid tensor ("an empty tensor" is its error).
  Tensor() = default;

  /// Data, copied in.
  static Tensor fromHost(const HostTensor &data);
  /// Data, moved in.
  static Tensor fromHost(HostTensor &&data);
  /// Data, shared: the tensor holds `data` for as long as any node needs it
  /// (its deleter may release the buffer's owner, as a numpy array's).
  static Tensor fromHost(std::shared_ptr<const HostTensor> data);
  /// The caller's row-major buffer, borrowed: neither copied nor written.
  /// It must stay alive and unchanged while the tensor, or a tensor
  /// recorded from it that is not computed yet, exists. Invalid for a bad
  /// shape or a buffer that is null or misaligned.
  static Tensor wrap(const void *data, DType dtype,
                     llvm::ArrayRef<int64_t> shape);
  /// A rank-0 parameter holding `value`.
  static Tensor scalar(double value, DType dtype = DType::F32);
  /// A constant, known when recording (part of the compiled program).
  static Tensor full(llvm::ArrayRef<int64_t> shape, double value,
                     DType dtype = DType::F32);
  static Tensor zeros(llvm::ArrayRef<int64_t> shape, DType dtype = DType::F32);

  bool ok() const { return node != nullptr; }
  /// Why the tensor is invalid; empty when it is valid.
  std::string getError() const;
  DType getDType() const { return node->getDType(); }
  llvm::ArrayRef<int64_t> getShape() const { return node->getShape(); }
  const NodeRef &getNode() const { return node; }

  /// Computes the tensor if it is not known yet, then returns a copy of
  /// its value. A tensor is computed at most once.
  llvm::Expected<HostTensor> toHost() const;
  /// Computes the tensor if it is not known yet, then returns its value
  /// itself, shared (no copy): read it, never write it.
  llvm::Expected<std::shared_ptr<const HostTensor>> materialize() const;

  /// Internal: a tensor of `node`, or carrying `error`.
  static Tensor make(llvm::Expected<NodeRef> node);
  static Tensor invalid(std::shared_ptr<const std::string> error);
  const std::shared_ptr<const std::string> &getFailure() const {
    return failure;
  }

private:
  NodeRef node;
  std::shared_ptr<const std::string> failure;
};

// Where materialized programs run: kiln::Device, setDevice and getDevice
// (kiln/Compiler/Device.h; KILN_DEVICE=cpu|cuda|auto sets the start).

/// Computes every tensor of `tensors` that is not known yet, with one
/// executable (one compile on a cache miss, one run).
llvm::Error sync(llvm::ArrayRef<Tensor> tensors);

/// Waits for the work queued on the device (programs on the cuda device
/// return once queued; reading a result waits for its work). Fails with
/// the error of the first program whose work failed, naming it; later
/// queued work is dropped with it.
llvm::Error synchronize();

/// What the lazy tensors have done in this process.
struct Metrics {
  int64_t tracedOps = 0; // nodes recorded (data included, replays' not)
  int64_t compiles = 0, cacheHits = 0, cacheMisses = 0;
  int64_t runs = 0;
  /// Calls of captured steps replayed (kiln::Jit, kiln.jit): their programs
  /// are counted in `runs` too.
  int64_t replays = 0;
  /// Outputs of replayed steps written into the buffer of the input they
  /// replace (donated: state a step rebinds, held by nothing else), and
  /// their bytes: memory neither allocated nor held twice.
  int64_t donatedBuffers = 0, donatedBytes = 0;
  double compileMs = 0, runMs = 0;
  /// Of runMs, the time in kernels (and BLAS calls), and their count; only
  /// while kernel timing is on (setKernelTiming).
  double kernelMs = 0;
  int64_t kernelLaunches = 0;
  /// Bytes of host memory held by the runtime's allocator now (tensor data
  /// and the buffer cache's blocks).
  uint64_t liveBytes = 0;
  /// The most bytes of host memory the allocator held at once (tensor data
  /// and the arenas of runs: their planned buffers), since the process
  /// started or resetPeakMemoryStats(); the device's likewise.
  uint64_t peakBytes = 0, devicePeakBytes = 0;
  /// The CUDA device: bytes copied from the host to the device and back
  /// (every copy of the process), and bytes of device memory held now
  /// (tensors on the device; not the caching allocator's free blocks).
  uint64_t h2dBytes = 0, d2hBytes = 0, deviceLiveBytes = 0;
  /// The CUDA device's graphs (every graph of the process): launches,
  /// captures (new graphs, and graphs captured again because a product's
  /// buffer moved), and kernel nodes given new buffers in place.
  uint64_t graphLaunches = 0, graphCaptures = 0, graphNodeUpdates = 0;
  /// The compile cache on disk (every compile of the process): entries
  /// loaded instead of compiled, lookups that missed, entries written,
  /// evicted and found corrupt, and the bytes read and written.
  int64_t diskHits = 0, diskMisses = 0, diskWrites = 0, diskEvictions = 0,
          diskCorrupt = 0, diskBytesRead = 0, diskBytesWritten = 0;
  /// MLIR contexts the lazy tensors made: 0 while every program came from
  /// a cache, 1 after the first real compile.
  int64_t mlirContexts = 0;
  /// Automatic dynamic dims: shape-generic programs compiled (a program
  /// that differed from an earlier one only in sizes), and misses that one
  /// of them ran with no compile. KILN_DYNAMIC=0 turns them off.
  int64_t genericCompiles = 0, genericHits = 0;
};
Metrics metrics();

/// Starts the peaks of metrics() again from what is live now (PyTorch's
/// torch.cuda.reset_peak_memory_stats), for the device and the host.
void resetPeakMemoryStats();

/// Marks dim `dim` of `t` dynamic: a program that reads `t` as an input
/// compiles shape-generic in that dim (and in every computed dim of its
/// size) from its first size, rather than at its second (what happens for
/// every dim without marks). Fails for a dim out of range or past 63.
llvm::Error markDynamic(const Tensor &t, int64_t dim);
/// Times every kernel launch from now on (off by default: it costs two
/// clock reads per launch, and on the GPU a wait for each run), for
/// Metrics::kernelMs. KILN_KERNEL_TIMING=1 turns it on from the start.
void setKernelTiming(bool enabled);
/// Says on stderr why each trace-cache miss missed: the first entry where
/// the program differs from the closest cached one (as KILN_EXPLAIN_MISS=1).
void setExplainMisses(bool enabled);

// Elementwise, with numpy broadcasting.
Tensor operator+(const Tensor &a, const Tensor &b);
Tensor operator-(const Tensor &a, const Tensor &b);
Tensor operator*(const Tensor &a, const Tensor &b);
Tensor operator/(const Tensor &a, const Tensor &b);
Tensor operator+(const Tensor &a, double b);
Tensor operator-(const Tensor &a, double b);
Tensor operator*(const Tensor &a, double b);
Tensor operator/(const Tensor &a, double b);
Tensor operator+(double a, const Tensor &b);
Tensor operator-(double a, const Tensor &b);
Tensor operator*(double a, const Tensor &b);
Tensor operator/(double a, const Tensor &b);
Tensor operator-(const Tensor &a);

// The float math of TraceOps.def, one function per op: neg, exp, log, tanh,
// sigmoid, relu, sqrt, rsqrt, abs, sin, cos, reciprocal, erf,
// gelu(x, approximate = false) (the tanh form when approximate), and the
// broadcasting add, sub, mul, div, maximum, minimum and pow (a ** b). Each
// records the kiln op of the same name (docs/Dialect.md has their semantics).
#define KILN_TRACE_UNARY(Name, OpName, Function)                               \
  Tensor Function(const Tensor &x);
#define KILN_TRACE_UNARY_FLAG(Name, OpName, Function, Flag)                    \
  Tensor Function(const Tensor &x, bool Flag = false);
#define KILN_TRACE_BINARY(Name, OpName, Function)                              \
  Tensor Function(const Tensor &a, const Tensor &b);
#include "kiln/Trace/TraceOps.def"

/// a > b (and the others), broadcast: an i1 tensor.
Tensor gt(const Tensor &a, const Tensor &b);
Tensor ge(const Tensor &a, const Tensor &b);
Tensor lt(const Tensor &a, const Tensor &b);
Tensor le(const Tensor &a, const Tensor &b);
Tensor eq(const Tensor &a, const Tensor &b);
Tensor ne(const Tensor &a, const Tensor &b);
/// `x`, through which no gradient flows (PyTorch's detach, JAX's
/// stop_gradient): a leaf to every gradient taken of what reads it.
Tensor stopGradient(const Tensor &x);
/// `x` in another element type.
Tensor convert(const Tensor &x, DType dtype);
/// cond ? a : b, broadcast.
Tensor where(const Tensor &cond, const Tensor &a, const Tensor &b);

// Shapes.
Tensor reshape(const Tensor &x, llvm::ArrayRef<int64_t> shape);
Tensor transpose(const Tensor &x, llvm::ArrayRef<int64_t> perm);
/// The box of `sizes` at `offsets` (kiln.slice; unit strides).
Tensor slice(const Tensor &x, llvm::ArrayRef<int64_t> offsets,
             llvm::ArrayRef<int64_t> sizes);
/// The `length` entries of `dim` from `start` (PyTorch's narrow).
Tensor narrow(const Tensor &x, int64_t dim, int64_t start, int64_t length);
/// `chunks` equal parts along `dim` (the dim must divide evenly).
std::vector<Tensor> chunk(const Tensor &x, int64_t chunks, int64_t dim);
Tensor cat(llvm::ArrayRef<Tensor> parts, int64_t dim);
/// `x` broadcast to `shape` (numpy rules).
Tensor broadcastTo(const Tensor &x, llvm::ArrayRef<int64_t> shape);

// Reductions and products.
Tensor sum(const Tensor &x, llvm::ArrayRef<int64_t> dims);
Tensor amax(const Tensor &x, llvm::ArrayRef<int64_t> dims);
/// The mean over `dims` (sorted, unique); those dims are removed.
Tensor mean(const Tensor &x, llvm::ArrayRef<int64_t> dims);
/// exp(x) / sum(exp(x)) along `dim`, computed as exp(x - max) / sum for
/// range; and its logarithm, x - max - log(sum(exp(x - max))).
Tensor softmax(const Tensor &x, int64_t dim);
Tensor logSoftmax(const Tensor &x, int64_t dim);
Tensor matmul(const Tensor &a, const Tensor &b, bool transposeA = false,
              bool transposeB = false);

// Integer indices and random numbers.
/// numpy.take along `dim` (an embedding lookup): i32 or i64 `indices` of
/// any shape; an index out of range gives NaN (0 in an integer result).
Tensor take(const Tensor &x, const Tensor &indices, int64_t dim);
/// `x` with each slice of `updates` added at the index `indices` names
/// along `dim` (take's transpose); out-of-range updates are dropped, and
/// repeated indices accumulate in row-major order (the same bits always).
Tensor scatterAdd(const Tensor &x, const Tensor &indices, const Tensor &updates,
                  int64_t dim);
/// The index of the first maximum along `dim` (the first NaN wins).
Tensor argmax(const Tensor &x, int64_t dim, DType indexType = DType::I64);
/// The index along `dim` of every element of `shape`, as `dtype`.
Tensor iota(llvm::ArrayRef<int64_t> shape, int64_t dim,
            DType dtype = DType::I64);
/// Uniform f32 numbers in [0, 1) from a [2] i64 key (seed, offset):
/// kiln.rng_uniform, Philox4x32-10; a new key is data, never a new program.
Tensor rngUniform(const Tensor &key, llvm::ArrayRef<int64_t> shape);

// Gradients.
/// The gradients of `outputs` with respect to `inputs`, weighted by
/// `gradOutputs` (one per output, of its shape), as PyTorch's
/// torch.utils.checkpoint.checkpoint: `fn(inputs)`, recorded as a
/// checkpoint segment (CheckpointScope): a gradient recomputes the values
/// computed inside from `inputs` when it needs them, instead of keeping
/// them from the forward. The values and gradients are those of `fn`.
std::vector<Tensor>
checkpoint(llvm::function_ref<std::vector<Tensor>(llvm::ArrayRef<Tensor>)> fn,
           llvm::ArrayRef<Tensor> inputs);

/// torch.autograd.grad: one tensor per input, of its shape. Recorded
/// lazily as one kiln.vjp, so gradients of gradients work, and the
/// compiler computes only what the gradients asked for need.
/// `gradOutputs` may be left out when every output has one element (a
/// loss): each is then weighted by 1. On an error, every result carries it.
/// A tensor whose value was computed before this call (toHost, sync) is
/// data from then on, as after PyTorch's detach(): gradients do not flow
/// through it to what computed it (that is let go of, to keep memory flat).
std::vector<Tensor> grad(llvm::ArrayRef<Tensor> outputs,
                         llvm::ArrayRef<Tensor> inputs,
                         llvm::ArrayRef<Tensor> gradOutputs = {});

} // namespace kiln

#endif // KILN_LAZY_TENSOR_H
