//===- Interpreter.cpp - reference evaluator of kiln programs -------------===//
//
// Values are dense row-major arrays of doubles tagged with their element
// type; each op rounds its result to that type. Shapes come from the runtime
// operands, so dynamic dims work.
//
//===----------------------------------------------------------------------===//

#include "Reference/Interpreter.h"
#include "Reference/AttentionReference.h"
#include "Reference/RankGroup.h"
#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "kiln/Support/ElementTypes.h"
#include "kiln/Support/Philox.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cmath>
#include <thread>

using namespace mlir;
using namespace kiln;
using kiln::DType;
using kiln::HostTensor;

using kiln::reference::Buffer;
using kiln::reference::RankGroup;
using kiln::reference::RankWorld;

namespace {

llvm::Error evalError(Operation *op, const llvm::Twine &message) {
  std::string name = op ? op->getName().getStringRef().str() : "reference";
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 name + ": " + message);
}

int64_t product(llvm::ArrayRef<int64_t> shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

std::vector<int64_t> stridesOf(llvm::ArrayRef<int64_t> shape) {
  std::vector<int64_t> strides(shape.size(), 1);
  for (int64_t i = static_cast<int64_t>(shape.size()) - 2; i >= 0; --i)
    strides[i] = strides[i + 1] * shape[i + 1];
  return strides;
}

/// Calls `fn(flatIndex, multiIndex)` for every element of `shape` in
/// row-major order.
void forEachIndex(
    llvm::ArrayRef<int64_t> shape,
    llvm::function_ref<void(int64_t, llvm::ArrayRef<int64_t>)> fn) {
  int64_t total = product(shape);
  std::vector<int64_t> index(shape.size(), 0);
  for (int64_t flat = 0; flat < total; ++flat) {
    fn(flat, index);
    for (int64_t d = static_cast<int64_t>(shape.size()) - 1; d >= 0; --d) {
      if (++index[d] < shape[d])
        break;
      index[d] = 0;
    }
  }
}

Buffer makeBuffer(DType dtype, std::vector<int64_t> shape) {
  Buffer b;
  b.dtype = dtype;
  b.data.assign(product(shape), 0.0);
  b.shape = std::move(shape);
  return b;
}

/// Integers are held in double, exactly within +-2^53: enough for ids,
/// labels, indices and sizes. Outside that range the interpreter stops
/// rather than give an inexact answer.
constexpr double kExactIntegerLimit = 9007199254740992.0; // 2^53

/// Rounds `b` to its element type: floats to nearest, integers wrapped to
/// their width (two's complement, as integer sums wrap). An error where an
/// integer leaves the exactly held range.
llvm::Error roundBuffer(Buffer &b, Operation *op) {
  if (b.dtype == DType::F64)
    return llvm::Error::success();
  if (kiln::isIntegerDType(b.dtype)) {
    for (double &v : b.data) {
      if (!(std::fabs(v) <= kExactIntegerLimit))
        return evalError(op, "an integer result leaves the range the "
                             "reference holds exactly (|x| <= 2^53)");
      v = static_cast<double>(
          kiln::wrapToDType(static_cast<int64_t>(v), b.dtype));
    }
    return llvm::Error::success();
  }
  for (double &v : b.data)
    v = kiln::roundToDType(v, b.dtype);
  return llvm::Error::success();
}

class Interpreter {
public:
  /// With a `world` of simulated ranks, the interpreter is rank `rank` of
  /// it; alone, its collectives are those of one rank (group 0).
  explicit Interpreter(ModuleOp module, RankWorld *world = nullptr,
                       int rank = 0)
      : symbols(module), world(world),
        group(world ? &world->getWorld() : nullptr), rank(rank) {}

  llvm::Expected<std::vector<Buffer>> call(func::FuncOp func,
                                           std::vector<Buffer> args, int depth);

private:
  llvm::Error evalBlock(Block &block, llvm::DenseMap<Value, Buffer> &env,
                        std::vector<Buffer> &results, int depth);
  llvm::Expected<std::vector<Buffer>>
  evalOp(Operation *op, std::vector<const Buffer *> operands, int depth);
  llvm::Expected<std::vector<Buffer>>
  evalVjp(VjpOp op, std::vector<const Buffer *> operands, int depth);
  llvm::Expected<Buffer> evalCollective(Operation *op, const Buffer &in);
  /// The sum of every rank's `value` (alone: `value`).
  llvm::Expected<double> sumOverRanks(double value);
  /// Whether `func` or a function it calls or differentiates runs a
  /// collective.
  bool reachesCollective(func::FuncOp func);

  SymbolTable symbols;
  RankWorld *world;
  RankGroup *group; /* the world's */
  int rank;
  /// Whether op results are rounded to their element type. Finite
  /// differences turn it off: rounding noise divided by the step would
  /// swamp the derivative.
  bool rounding = true;
  /// How many kiln.vjp finite differences are under way (nested ones are
  /// gradients of gradients).
  int differencing = 0;
};

/// An elementwise op, through its scalar semantics (the same function the
/// constant folder uses). Operands have the result's shape.
llvm::Expected<Buffer> evalElementwise(ScalarSemanticsOpInterface op,
                                       llvm::ArrayRef<const Buffer *> in) {
  for (const Buffer *operand : in)
    if (operand->shape != in.front()->shape)
      return evalError(op, "operand shapes differ");
  llvm::Expected<DType> dtype = kiln::getDType(
      cast<ShapedType>(op->getResult(0).getType()).getElementType());
  if (!dtype)
    return dtype.takeError();
  Buffer out = makeBuffer(*dtype, in.front()->shape);
  // On integers (i32/i64 operands, or i1 alongside them): exact 64-bit
  // two's-complement semantics. A float converted to an integer rounds
  // toward zero and saturates (roundToDType).
  bool integer = llvm::any_of(in, [](const Buffer *operand) {
    return kiln::isIntegerDType(operand->dtype);
  });
  if (integer) {
    llvm::SmallVector<int64_t, 4> ints(in.size());
    for (int64_t i = 0; i < out.size(); ++i) {
      for (auto [k, operand] : llvm::enumerate(in))
        ints[k] = static_cast<int64_t>(operand->data[i]);
      std::optional<int64_t> value = kiln::evaluateIntegerScalar(op, ints);
      if (!value)
        return evalError(op, "has no integer semantics");
      out.data[i] = kiln::isIntegerDType(*dtype)
                        ? static_cast<double>(kiln::wrapToDType(*value, *dtype))
                        : static_cast<double>(*value);
    }
    return out;
  }
  llvm::SmallVector<double, 4> args(in.size());
  for (int64_t i = 0; i < out.size(); ++i) {
    for (auto [k, operand] : llvm::enumerate(in))
      args[k] = operand->data[i];
    out.data[i] = op.evaluateScalar(args);
    // A float converted to an integer: toward zero, saturating, NaN to 0.
    if (kiln::isIntegerDType(*dtype))
      out.data[i] =
          static_cast<double>(kiln::convertToInteger(out.data[i], *dtype));
  }
  return out;
}

llvm::Expected<Buffer> evalConstant(ConstantOp op) {
  auto dense = dyn_cast<DenseElementsAttr>(op.getValue());
  if (!dense)
    return evalError(op, "only dense constants are supported");
  llvm::Expected<DType> dtype = kiln::getDType(dense.getElementType());
  if (!dtype)
    return dtype.takeError();
  Buffer b = makeBuffer(*dtype, dense.getType().getShape().vec());
  if (*dtype == DType::I1) {
    int64_t i = 0;
    for (bool v : dense.getValues<bool>())
      b.data[i++] = v;
  } else if (kiln::isIntegerDType(*dtype)) {
    int64_t i = 0;
    for (APInt v : dense.getValues<APInt>()) {
      int64_t value = v.getSExtValue();
      if (!(std::fabs(static_cast<double>(value)) <= kExactIntegerLimit))
        return evalError(op, "an integer constant leaves the range the "
                             "reference holds exactly (|x| <= 2^53)");
      b.data[i++] = static_cast<double>(value);
    }
  } else {
    int64_t i = 0;
    for (APFloat v : dense.getValues<APFloat>())
      b.data[i++] = v.convertToDouble();
  }
  return b;
}

/// An `index` value: a rank-0 f64 buffer (exact for sizes).
Buffer makeIndex(int64_t value) {
  Buffer b = makeBuffer(DType::F64, {});
  b.data[0] = static_cast<double>(value);
  return b;
}

/// The `index` value `b` holds.
int64_t getIndex(const Buffer &b) {
  return b.data.empty() ? 0 : static_cast<int64_t>(b.data[0]);
}

/// tensor.dim, index constants and index arithmetic: what programs with
/// dynamic dims use to compute sizes.
llvm::Expected<Buffer> evalIndexOp(Operation *op,
                                   llvm::ArrayRef<const Buffer *> in) {
  if (auto dim = dyn_cast<tensor::DimOp>(op)) {
    int64_t d = getIndex(*in[1]);
    if (d < 0 || d >= static_cast<int64_t>(in[0]->shape.size()))
      return evalError(op, "dim " + llvm::Twine(d) + " is out of range");
    return makeIndex(in[0]->shape[d]);
  }
  if (auto constant = dyn_cast<arith::ConstantOp>(op)) {
    auto value = dyn_cast<IntegerAttr>(constant.getValue());
    if (!value || !constant.getType().isIndex())
      return evalError(op, "only index constants are supported");
    return makeIndex(value.getInt());
  }
  int64_t a = getIndex(*in[0]), b = in.size() > 1 ? getIndex(*in[1]) : 0;
  if (isa<arith::AddIOp>(op))
    return makeIndex(a + b);
  if (isa<arith::SubIOp>(op))
    return makeIndex(a - b);
  if (isa<arith::MulIOp>(op))
    return makeIndex(a * b);
  if (isa<arith::DivUIOp, arith::DivSIOp, arith::CeilDivUIOp>(op)) {
    if (b == 0)
      return evalError(op, "division by zero");
    return makeIndex(isa<arith::CeilDivUIOp>(op) ? (a + b - 1) / b : a / b);
  }
  return evalError(op, "not supported by the reference interpreter");
}

llvm::Expected<Buffer> evalBroadcast(BroadcastInDimOp op,
                                     llvm::ArrayRef<const Buffer *> in) {
  RankedTensorType resultType = op.getType();
  ArrayRef<int64_t> dims = op.getDims();
  const Buffer &in0 = *in[0];
  std::vector<int64_t> shape = resultType.getShape().vec();
  // The dynamic dims are the size operands, in order.
  for (int64_t d = 0, next = 1; d < resultType.getRank(); ++d)
    if (resultType.isDynamicDim(d)) {
      if (next >= static_cast<int64_t>(in.size()))
        return evalError(op, "a dynamic result dim has no size");
      shape[d] = getIndex(*in[next++]);
      if (shape[d] < 0)
        return evalError(op, "size " + llvm::Twine(shape[d]) +
                                 " of result dim " + llvm::Twine(d) +
                                 " is negative");
    }
  for (auto [i, d] : llvm::enumerate(dims))
    if (in0.shape[i] != 1 && in0.shape[i] != shape[d])
      return evalError(op, "operand dim " + llvm::Twine(i) + " of size " +
                               llvm::Twine(in0.shape[i]) +
                               " does not broadcast to " +
                               llvm::Twine(shape[d]));
  Buffer out = makeBuffer(in0.dtype, shape);
  std::vector<int64_t> inStrides = stridesOf(in0.shape);
  forEachIndex(shape, [&](int64_t flat, ArrayRef<int64_t> index) {
    int64_t src = 0;
    for (auto [i, d] : llvm::enumerate(dims))
      src += (in0.shape[i] == 1 ? 0 : index[d]) * inStrides[i];
    out.data[flat] = in0.data[src];
  });
  return out;
}

llvm::Expected<Buffer> evalReshape(ReshapeOp op, const Buffer &in) {
  RankedTensorType type = op.getType();
  std::vector<int64_t> shape = type.getShape().vec();
  int64_t known = 1, dynamicCount = 0;
  for (int64_t d : shape) {
    if (ShapedType::isDynamic(d))
      ++dynamicCount;
    else
      known *= d;
  }
  if (dynamicCount > 1)
    return evalError(op, "cannot infer more than one dynamic result dim");
  if (dynamicCount == 1) {
    if (known == 0 || in.size() % known != 0)
      return evalError(op, "cannot infer the dynamic result dim");
    for (int64_t &d : shape)
      if (ShapedType::isDynamic(d))
        d = in.size() / known;
  }
  if (product(shape) != in.size())
    return evalError(op, "element count changes from " +
                             llvm::Twine(in.size()) + " to " +
                             llvm::Twine(product(shape)));
  Buffer out = in;
  out.shape = shape;
  return out;
}

Buffer evalTranspose(TransposeOp op, const Buffer &in) {
  ArrayRef<int64_t> perm = op.getPerm();
  std::vector<int64_t> shape;
  for (int64_t p : perm)
    shape.push_back(in.shape[p]);
  Buffer out = makeBuffer(in.dtype, shape);
  std::vector<int64_t> inStrides = stridesOf(in.shape);
  forEachIndex(shape, [&](int64_t flat, ArrayRef<int64_t> index) {
    int64_t src = 0;
    for (auto [i, p] : llvm::enumerate(perm))
      src += index[i] * inStrides[p];
    out.data[flat] = in.data[src];
  });
  return out;
}

llvm::Expected<Buffer> evalSlice(SliceOp op, const Buffer &in) {
  ArrayRef<int64_t> offsets = op.getOffsets();
  std::vector<int64_t> sizes(op.getSizes().begin(), op.getSizes().end());
  for (size_t d = 0; d < in.shape.size(); ++d)
    if (sizes[d] == -1)
      sizes[d] = in.shape[d]; // the whole dim
  for (size_t d = 0; d < in.shape.size(); ++d)
    if (offsets[d] > in.shape[d] || sizes[d] > in.shape[d] - offsets[d])
      return evalError(op, "slice of dim " + llvm::Twine(d) +
                               " is out of bounds for size " +
                               llvm::Twine(in.shape[d]));
  Buffer out = makeBuffer(in.dtype, sizes);
  std::vector<int64_t> inStrides = stridesOf(in.shape);
  forEachIndex(sizes, [&](int64_t flat, ArrayRef<int64_t> index) {
    int64_t src = 0;
    for (size_t d = 0; d < index.size(); ++d)
      src += (index[d] + offsets[d]) * inStrides[d];
    out.data[flat] = in.data[src];
  });
  return out;
}

llvm::Expected<Buffer> evalConcat(ConcatOp op,
                                  ArrayRef<const Buffer *> inputs) {
  int64_t dim = op.getDim();
  std::vector<int64_t> shape = inputs.front()->shape;
  shape[dim] = 0;
  for (const Buffer *in : inputs) {
    for (size_t d = 0; d < shape.size(); ++d)
      if (static_cast<int64_t>(d) != dim && in->shape[d] != shape[d])
        return evalError(op, "operands differ in dim " + llvm::Twine(d));
    shape[dim] += in->shape[dim];
  }
  Buffer out = makeBuffer(inputs.front()->dtype, shape);
  std::vector<int64_t> outStrides = stridesOf(shape);
  int64_t offset = 0;
  for (const Buffer *in : inputs) {
    forEachIndex(in->shape, [&](int64_t flat, ArrayRef<int64_t> index) {
      int64_t dst = 0;
      for (size_t d = 0; d < index.size(); ++d)
        dst += (index[d] + (static_cast<int64_t>(d) == dim ? offset : 0)) *
               outStrides[d];
      out.data[dst] = in->data[flat];
    });
    offset += in->shape[dim];
  }
  return out;
}

Buffer evalReduce(ArrayRef<int64_t> dims, const Buffer &in, bool isMax) {
  std::vector<int64_t> shape;
  for (size_t d = 0; d < in.shape.size(); ++d)
    if (!llvm::is_contained(dims, static_cast<int64_t>(d)))
      shape.push_back(in.shape[d]);
  Buffer out = makeBuffer(in.dtype, shape);
  std::fill(out.data.begin(), out.data.end(), isMax ? -INFINITY : 0.0);
  std::vector<int64_t> outStrides = stridesOf(shape);
  forEachIndex(in.shape, [&](int64_t flat, ArrayRef<int64_t> index) {
    int64_t dst = 0, k = 0;
    for (size_t d = 0; d < index.size(); ++d)
      if (!llvm::is_contained(dims, static_cast<int64_t>(d)))
        dst += index[d] * outStrides[k++];
    double &acc = out.data[dst];
    acc = isMax ? kiln::maximumOf(acc, in.data[flat]) : acc + in.data[flat];
  });
  return out;
}

llvm::Expected<Buffer> evalMatmul(MatmulOp op, const Buffer &a,
                                  const Buffer &b) {
  size_t rank = a.shape.size();
  bool ta = op.getTransposeA(), tb = op.getTransposeB();
  int64_t batch = rank == 3 ? a.shape[0] : 1;
  int64_t m = a.shape[rank - (ta ? 1 : 2)], k = a.shape[rank - (ta ? 2 : 1)];
  int64_t kb = b.shape[rank - (tb ? 1 : 2)], n = b.shape[rank - (tb ? 2 : 1)];
  if (k != kb || (rank == 3 && b.shape[0] != batch))
    return evalError(op, "operand shapes do not match");
  std::vector<int64_t> shape;
  if (rank == 3)
    shape.push_back(batch);
  shape.push_back(m);
  shape.push_back(n);
  Buffer out = makeBuffer(a.dtype, shape);
  int64_t aRows = a.shape[rank - 2], aCols = a.shape[rank - 1];
  int64_t bRows = b.shape[rank - 2], bCols = b.shape[rank - 1];
  for (int64_t p = 0; p < batch; ++p)
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double sum = 0;
        for (int64_t q = 0; q < k; ++q) {
          double x = ta ? a.data[p * aRows * aCols + q * aCols + i]
                        : a.data[p * aRows * aCols + i * aCols + q];
          double y = tb ? b.data[p * bRows * bCols + j * bCols + q]
                        : b.data[p * bRows * bCols + q * bCols + j];
          sum += x * y;
        }
        out.data[(p * m + i) * n + j] = sum;
      }
  return out;
}

/// The shape of `type` with its dynamic dims taken, in order, from the
/// `index` buffers `sizes`.
std::vector<int64_t> resolveShape(RankedTensorType type,
                                  ArrayRef<const Buffer *> sizes) {
  std::vector<int64_t> shape;
  size_t next = 0;
  for (int64_t d : type.getShape())
    shape.push_back(ShapedType::isDynamic(d) && next < sizes.size()
                        ? getIndex(*sizes[next++])
                        : d);
  return shape;
}

llvm::Expected<Buffer> evalIota(IotaOp op, ArrayRef<const Buffer *> sizes) {
  llvm::Expected<DType> dtype = kiln::getDType(op.getType().getElementType());
  if (!dtype)
    return dtype.takeError();
  Buffer out = makeBuffer(*dtype, resolveShape(op.getType(), sizes));
  int64_t dim = op.getDim();
  forEachIndex(out.shape, [&](int64_t flat, ArrayRef<int64_t> index) {
    out.data[flat] = static_cast<double>(index[dim]);
  });
  return out;
}

/// Calls `fn(flatOut, flatIndex, flatOperand or -1 when out of range)` for
/// every element of the gathered shape `operand.shape[:dim] + indices.shape
/// + operand.shape[dim+1:]`, in row-major order.
void forEachGathered(const Buffer &operand, const Buffer &indices, int64_t dim,
                     llvm::function_ref<void(int64_t, int64_t)> fn,
                     std::vector<int64_t> *gatheredShape = nullptr) {
  std::vector<int64_t> shape(operand.shape.begin(),
                             operand.shape.begin() + dim);
  shape.insert(shape.end(), indices.shape.begin(), indices.shape.end());
  shape.insert(shape.end(), operand.shape.begin() + dim + 1,
               operand.shape.end());
  if (gatheredShape)
    *gatheredShape = shape;
  std::vector<int64_t> operandStrides = stridesOf(operand.shape);
  std::vector<int64_t> indexStrides = stridesOf(indices.shape);
  int64_t indexRank = static_cast<int64_t>(indices.shape.size());
  int64_t extent = operand.shape[dim];
  forEachIndex(shape, [&](int64_t flat, ArrayRef<int64_t> index) {
    int64_t flatIndex = 0;
    for (int64_t k = 0; k < indexRank; ++k)
      flatIndex += index[dim + k] * indexStrides[k];
    double position = indices.data[flatIndex];
    if (!(position >= 0 && position < static_cast<double>(extent))) {
      fn(flat, -1);
      return;
    }
    int64_t source = static_cast<int64_t>(position) * operandStrides[dim];
    for (int64_t d = 0; d < dim; ++d)
      source += index[d] * operandStrides[d];
    for (size_t d = dim + 1; d < operand.shape.size(); ++d)
      source += index[d - 1 + indexRank] * operandStrides[d];
    fn(flat, source);
  });
}

Buffer evalTake(TakeOp op, const Buffer &operand, const Buffer &indices) {
  std::vector<int64_t> shape;
  forEachGathered(
      operand, indices, op.getDim(), [](int64_t, int64_t) {}, &shape);
  Buffer out = makeBuffer(operand.dtype, shape);
  // Out of range: NaN in a float result, 0 in an integer one.
  double missing = kiln::isFloatDType(operand.dtype) ? NAN : 0.0;
  forEachGathered(
      operand, indices, op.getDim(), [&](int64_t flat, int64_t source) {
        out.data[flat] = source < 0 ? missing : operand.data[source];
      });
  return out;
}

llvm::Expected<Buffer> evalScatterAdd(ScatterAddOp op, const Buffer &operand,
                                      const Buffer &indices,
                                      const Buffer &updates) {
  Buffer out = operand;
  std::vector<int64_t> shape;
  forEachGathered(
      operand, indices, op.getDim(), [](int64_t, int64_t) {}, &shape);
  if (shape != updates.shape)
    return evalError(
        op, "the updates' shape " + kiln::getListString(updates.shape) +
                " is not the gathered shape " + kiln::getListString(shape));
  // Row-major order of the updates: the order the contract fixes. Out of
  // range updates are dropped.
  forEachGathered(operand, indices, op.getDim(),
                  [&](int64_t flat, int64_t target) {
                    if (target >= 0)
                      out.data[target] += updates.data[flat];
                  });
  return out;
}

llvm::Expected<Buffer> evalArgmax(ArgmaxOp op, const Buffer &in) {
  llvm::Expected<DType> dtype = kiln::getDType(op.getType().getElementType());
  if (!dtype)
    return dtype.takeError();
  int64_t dim = op.getDim();
  std::vector<int64_t> shape = in.shape;
  shape.erase(shape.begin() + dim);
  Buffer out = makeBuffer(*dtype, shape);
  std::vector<int64_t> strides = stridesOf(in.shape);
  int64_t extent = in.shape[dim];
  forEachIndex(shape, [&](int64_t flat, ArrayRef<int64_t> index) {
    int64_t base = 0;
    for (size_t d = 0, k = 0; d < in.shape.size(); ++d)
      if (static_cast<int64_t>(d) != dim)
        base += index[k++] * strides[d];
    int64_t best = 0;
    for (int64_t j = 1; j < extent; ++j) {
      double candidate = in.data[base + j * strides[dim]];
      double current = in.data[base + best * strides[dim]];
      // The first NaN is the maximum; otherwise the first largest value.
      if (std::isnan(current))
        break;
      if (std::isnan(candidate) || candidate > current)
        best = j;
    }
    out.data[flat] = static_cast<double>(best);
  });
  return out;
}

llvm::Expected<Buffer> evalRngUniform(RngUniformOp op, const Buffer &key) {
  if (key.size() != 2)
    return evalError(op, "the key must hold (seed, offset)");
  // Held exactly (|x| <= 2^53, checked where the key came from); negative
  // values are their two's-complement bits.
  uint64_t seed = static_cast<uint64_t>(static_cast<int64_t>(key.data[0]));
  uint64_t offset = static_cast<uint64_t>(static_cast<int64_t>(key.data[1]));
  Buffer out = makeBuffer(DType::F32, op.getType().getShape().vec());
  for (int64_t n = 0; n < out.size(); ++n)
    out.data[n] = kiln::philox::uniformValue(seed, offset, n);
  return out;
}

llvm::Expected<std::vector<Buffer>>
Interpreter::evalOp(Operation *op, std::vector<const Buffer *> in, int depth) {
  auto single =
      [](llvm::Expected<Buffer> b) -> llvm::Expected<std::vector<Buffer>> {
    if (!b)
      return b.takeError();
    std::vector<Buffer> v;
    v.push_back(std::move(*b));
    return v;
  };

  if (auto elementwise = dyn_cast<ScalarSemanticsOpInterface>(op))
    return single(evalElementwise(elementwise, in));
  return llvm::TypeSwitch<Operation *, llvm::Expected<std::vector<Buffer>>>(op)
      .Case([&](ConstantOp c) { return single(evalConstant(c)); })
      .Case([&](BroadcastInDimOp b) { return single(evalBroadcast(b, in)); })
      .Case<tensor::DimOp, arith::ConstantOp, arith::AddIOp, arith::SubIOp,
            arith::MulIOp, arith::DivUIOp, arith::DivSIOp, arith::CeilDivUIOp>(
          [&](Operation *indexOp) { return single(evalIndexOp(indexOp, in)); })
      .Case([&](ReshapeOp r) { return single(evalReshape(r, *in[0])); })
      .Case([&](TransposeOp t) { return single(evalTranspose(t, *in[0])); })
      .Case([&](SliceOp s) { return single(evalSlice(s, *in[0])); })
      .Case([&](ConcatOp c) { return single(evalConcat(c, in)); })
      .Case([&](ReduceSumOp r) {
        return single(evalReduce(r.getDims(), *in[0], /*isMax=*/false));
      })
      .Case([&](ReduceMaxOp r) {
        return single(evalReduce(r.getDims(), *in[0], /*isMax=*/true));
      })
      .Case([&](MatmulOp m) { return single(evalMatmul(m, *in[0], *in[1])); })
      .Case([&](IotaOp i) { return single(evalIota(i, in)); })
      .Case([&](TakeOp t) { return single(evalTake(t, *in[0], *in[1])); })
      .Case([&](ScatterAddOp s) {
        return single(evalScatterAdd(s, *in[0], *in[1], *in[2]));
      })
      .Case([&](ArgmaxOp a) { return single(evalArgmax(a, *in[0])); })
      .Case([&](RngUniformOp r) { return single(evalRngUniform(r, *in[0])); })

      .Case<AllReduceOp, AllGatherOp, ReduceScatterOp>(
          [&](Operation *c) { return single(evalCollective(c, *in[0])); })
      .Case([&](FusionGroupOp group) -> llvm::Expected<std::vector<Buffer>> {
        llvm::DenseMap<Value, Buffer> env;
        for (auto [arg, value] : llvm::zip(group.getBody().getArguments(), in))
          env[arg] = *value;
        std::vector<Buffer> results;
        if (llvm::Error e =
                evalBlock(group.getBody().front(), env, results, depth))
          return std::move(e);
        return results;
      })
      .Case([&](func::CallOp callOp) -> llvm::Expected<std::vector<Buffer>> {
        auto callee = symbols.lookup<func::FuncOp>(callOp.getCallee());
        if (!callee || callee.isExternal())
          return evalError(op, "callee @" + callOp.getCallee() +
                                   " is not a defined func.func");
        std::vector<Buffer> args;
        for (const Buffer *b : in)
          args.push_back(*b);
        return call(callee, std::move(args), depth + 1);
      })
      .Case([&](VjpOp vjp) { return evalVjp(vjp, in, depth); })
      .Case([&](AttentionOp attention) {
        return reference::evaluateAttention(attention, in);
      })
      .Case([&](AttentionGradOp grad) {
        return reference::evaluateAttentionGrad(grad, in);
      })
      .Default([&](Operation *) -> llvm::Expected<std::vector<Buffer>> {
        return evalError(op, "not supported by the reference interpreter");
      });
}

/// A collective: alone, over one rank; in a group, at its rendezvous.
llvm::Expected<Buffer> Interpreter::evalCollective(Operation *op,
                                                   const Buffer &in) {
  CollectiveAttributes attributes = *getCollectiveAttributes(op);
  int64_t reduction = attributes.reduction, dim = attributes.dim,
          groupId = attributes.group;
  if (!world && groupId != 0)
    return evalError(op, "group " + llvm::Twine(groupId) +
                             " is not a communicator of one rank (evaluate "
                             "groups with evaluateRanks)");
  StringRef kind = op->getName().getStringRef();
  int ranks = 1;
  auto combine = [&](ArrayRef<const Buffer *> operands) {
    return kiln::reference::combineCollective(kind, reduction, dim, operands);
  };
  llvm::Expected<Buffer> result = [&]() -> llvm::Expected<Buffer> {
    if (!group) {
      const Buffer *alone[] = {&in};
      llvm::Expected<std::vector<Buffer>> results = combine(alone);
      if (!results)
        return results.takeError();
      return std::move(results->front());
    }
    llvm::Expected<std::pair<RankGroup *, int>> member =
        world->lookup(groupId, rank);
    if (!member)
      return member.takeError();
    auto [communicator, position] = *member;
    ranks = communicator->size();
    std::string description;
    llvm::raw_string_ostream os(description);
    os << kind << " " << reduction << " dim " << dim << " group " << groupId
       << " of " << op->getOperand(0).getType();
    return communicator->exchange(position, description, in, combine);
  }();
  if (!result)
    return evalError(op, llvm::toString(result.takeError()));
  // The ranks are known only now: the result type must agree.
  auto type = cast<RankedTensorType>(op->getResult(0).getType());
  for (int64_t d = 0; d < type.getRank(); ++d)
    if (!type.isDynamicDim(d) && type.getDimSize(d) != result->shape[d])
      return evalError(op, "the result is " + llvm::Twine(result->shape[d]) +
                               " at dim " + llvm::Twine(d) + " over " +
                               llvm::Twine(ranks) + " rank(s), not " +
                               llvm::Twine(type.getDimSize(d)));
  return result;
}

bool Interpreter::reachesCollective(func::FuncOp func) {
  llvm::SmallPtrSet<Operation *, 8> seen;
  llvm::SmallVector<func::FuncOp> work = {func};
  while (!work.empty()) {
    func::FuncOp next = work.pop_back_val();
    if (!next || !seen.insert(next).second)
      continue;
    bool found = false;
    next.walk([&](Operation *op) {
      if (isa<AllReduceOp, AllGatherOp, ReduceScatterOp>(op))
        found = true;
      else if (auto call = dyn_cast<func::CallOp>(op))
        work.push_back(symbols.lookup<func::FuncOp>(call.getCallee()));
      else if (auto vjp = dyn_cast<VjpOp>(op))
        work.push_back(symbols.lookup<func::FuncOp>(vjp.getCallee()));
    });
    if (found)
      return true;
  }
  return false;
}

llvm::Expected<double> Interpreter::sumOverRanks(double value) {
  if (!group)
    return value;
  Buffer mine;
  mine.dtype = DType::F64;
  mine.shape = {1};
  mine.data = {value};
  llvm::Expected<Buffer> sum =
      group->exchange(rank, "the finite differences' objective", mine,
                      [](ArrayRef<const Buffer *> operands) {
                        return kiln::reference::combineCollective(
                            "kiln.all_reduce", 0, 0, operands);
                      });
  if (!sum)
    return sum.takeError();
  return sum->data[0];
}

/// The vjp by central finite differences of the callee, evaluated in
/// double without rounding: an independent check of -kiln-autodiff (and, for
/// a vjp of a vjp, of the derivative of a derivative). One Richardson step
/// cancels the central difference's h^2 term: (4 D(h/2) - D(h)) / 3, whose
/// error is O(h^4) in truncation and about u |f| / h in rounding. With
/// h = 1e-3 relative, both are near 1e-13 of the scale for first order
/// (h = 1e-5 instead where the two steps disagree: a kink nearby);
/// for second order the outer difference divides the inner one's rounding
/// noise by h: a few 1e-9 (kiln-run's --check-reference allows for both).
llvm::Expected<std::vector<Buffer>>
Interpreter::evalVjp(VjpOp op, std::vector<const Buffer *> in, int depth) {
  auto callee = symbols.lookup<func::FuncOp>(op.getCallee());
  if (!callee)
    return evalError(op, "callee @" + op.getCallee() + " not found");
  size_t numArgs = callee.getFunctionType().getNumInputs();
  std::vector<Buffer> args;
  for (size_t i = 0; i < numArgs; ++i)
    args.push_back(*in[i]);
  bool savedRounding = rounding;
  rounding = false;
  ++differencing;
  llvm::scope_exit restore([&] {
    rounding = savedRounding;
    --differencing;
  });

  // With collectives in the callee over several ranks, the function
  // differentiated is every rank's objective summed, of every rank's
  // inputs: each rank's elements are perturbed in turn (the owner's alone)
  // while every rank evaluates the callee, in step.
  bool overRanks = group && group->size() > 1 && reachesCollective(callee);
  int owners = overRanks ? group->size() : 1;

  // <cotangents, f(args)>, summed over every float result.
  auto localObjective =
      [&](std::vector<Buffer> point) -> llvm::Expected<double> {
    llvm::Expected<std::vector<Buffer>> outs =
        call(callee, std::move(point), depth + 1);
    if (!outs)
      return outs.takeError();
    double total = 0;
    for (size_t r = 0; r < outs->size(); ++r) {
      const Buffer &ct = *in[numArgs + r];
      if (!kiln::isFloatDType((*outs)[r].dtype))
        continue;
      for (int64_t e = 0; e < ct.size(); ++e)
        total += ct.data[e] * (*outs)[r].data[e];
    }
    return total;
  };
  auto objective = [&](std::vector<Buffer> point) -> llvm::Expected<double> {
    llvm::Expected<double> local = localObjective(std::move(point));
    if (!local || !overRanks)
      return local;
    return sumOverRanks(*local);
  };

  // A callee that differentiates (or calls) itself is only as smooth as
  // those inner differences: the narrow step's estimate carries their
  // noise divided by 1e-5, so only a larger disagreement is a kink.
  bool noisyCallee = false;
  callee.walk([&](Operation *inner) {
    noisyCallee |= isa<VjpOp, func::CallOp>(inner);
  });

  std::vector<Buffer> grads;
  for (int64_t index : op.getWrt()) {
    Buffer grad = makeBuffer(args[index].dtype, args[index].shape);
    for (int owner = 0; owner < owners; ++owner)
      for (int64_t e = 0; e < grad.size(); ++e) {
        bool mine = !overRanks || owner == rank;
        double x = args[index].data[e];
        // The central difference with step `h`.
        auto central = [&](double h) -> llvm::Expected<double> {
          std::vector<Buffer> plus = args, minus = args;
          if (mine) {
            plus[index].data[e] = x + h;
            minus[index].data[e] = x - h;
          }
          llvm::Expected<double> up = objective(std::move(plus));
          if (!up)
            return up.takeError();
          llvm::Expected<double> down = objective(std::move(minus));
          if (!down)
            return down.takeError();
          return (*up - *down) / (2 * h);
        };
        auto richardson = [&](double h) -> llvm::Expected<double> {
          llvm::Expected<double> coarse = central(h);
          if (!coarse)
            return coarse.takeError();
          llvm::Expected<double> fine = central(h / 2);
          if (!fine)
            return fine.takeError();
          return (4 * *fine - *coarse) / 3;
        };
        double scale = std::max(1.0, std::fabs(x));
        llvm::Expected<double> wide = richardson(1e-3 * scale);
        if (!wide)
          return wide.takeError();
        // Inside an outer difference (a gradient of a gradient) the inner one
        // must be a smooth function of the point: the wide step only.
        if (differencing > 1) {
          if (mine)
            grad.data[e] = *wide;
          continue;
        }
        llvm::Expected<double> narrow = richardson(1e-5 * scale);
        if (!narrow)
          return narrow.takeError();
        // Where the two disagree, a kink (relu, max, a select's predicate) is
        // within the wide step: the narrow step, which did not cross it, is
        // the derivative there.
        double agree = (noisyCallee ? 1e-5 : 1e-8) *
                       std::max({1.0, std::fabs(*wide), std::fabs(*narrow)});
        if (mine)
          grad.data[e] = std::fabs(*wide - *narrow) <= agree ? *wide : *narrow;
      }
    grads.push_back(std::move(grad));
  }
  return grads;
}

llvm::Error Interpreter::evalBlock(Block &block,
                                   llvm::DenseMap<Value, Buffer> &env,
                                   std::vector<Buffer> &results, int depth) {
  for (Operation &op : block) {
    if (isa<func::ReturnOp, YieldOp>(op)) {
      for (Value v : op.getOperands())
        results.push_back(env.at(v));
      return llvm::Error::success();
    }
    std::vector<const Buffer *> operands;
    for (Value v : op.getOperands()) {
      auto it = env.find(v);
      if (it == env.end())
        return evalError(&op, "operand is not defined in this block");
      operands.push_back(&it->second);
    }
    llvm::Expected<std::vector<Buffer>> outs = evalOp(&op, operands, depth);
    if (!outs)
      return outs.takeError();
    if (outs->size() != op.getNumResults())
      return evalError(&op, "produced the wrong number of results");
    for (auto [value, buffer] : llvm::zip(op.getResults(), *outs)) {
      if (rounding || kiln::isIntegerDType(buffer.dtype))
        if (llvm::Error e = roundBuffer(buffer, &op))
          return e;
      env[value] = std::move(buffer);
    }
  }
  return evalError(block.getParentOp(), "block has no terminator");
}

llvm::Expected<std::vector<Buffer>>
Interpreter::call(func::FuncOp func, std::vector<Buffer> args, int depth) {
  if (depth > 64)
    return evalError(func, "call depth exceeds 64 (recursion?)");
  if (func.isExternal())
    return evalError(func, "@" + func.getSymName() + " has no body");
  if (!func.getBody().hasOneBlock())
    return evalError(func,
                     "@" + func.getSymName() + " must have a single block");
  Block &block = func.getBody().front();
  if (block.getNumArguments() != args.size())
    return evalError(func, "argument count mismatch");
  llvm::DenseMap<Value, Buffer> env;
  for (auto [arg, buffer] : llvm::zip(block.getArguments(), args))
    env[arg] = std::move(buffer);
  std::vector<Buffer> results;
  if (llvm::Error e = evalBlock(block, env, results, depth))
    return std::move(e);
  return results;
}

/// `inputs` as the interpreter's arguments of `func`.
llvm::Expected<std::vector<Buffer>> toArguments(func::FuncOp func,
                                                ArrayRef<HostTensor> inputs) {
  FunctionType type = func.getFunctionType();
  if (inputs.size() != type.getNumInputs())
    return evalError(func, "@" + func.getSymName() + " takes " +
                               llvm::Twine(type.getNumInputs()) +
                               " arguments, got " + llvm::Twine(inputs.size()));
  std::vector<Buffer> args;
  for (auto [i, input] : llvm::enumerate(inputs)) {
    if (llvm::Error e = kiln::checkMatchesType(input, type.getInput(i),
                                               "argument " + std::to_string(i)))
      return std::move(e);
    Buffer b = makeBuffer(input.getDType(), input.getShape().vec());
    for (int64_t j = 0; j < b.size(); ++j)
      b.data[j] = input.getAsDouble(j);
    if (kiln::isIntegerDType(input.getDType()))
      for (int64_t j = 0; j < b.size(); ++j)
        if (std::llabs(input.getAsInt64(j)) >
            static_cast<int64_t>(kExactIntegerLimit))
          return evalError(func, "argument " + llvm::Twine(i) +
                                     " holds an integer beyond the range "
                                     "the reference holds exactly "
                                     "(|x| <= 2^53)");
    args.push_back(std::move(b));
  }
  return args;
}

std::vector<HostTensor> toHostTensors(std::vector<Buffer> &results) {
  std::vector<HostTensor> outputs;
  for (Buffer &b : results) {
    HostTensor t(b.dtype, b.shape);
    bool integer = kiln::isIntegerDType(b.dtype);
    for (int64_t j = 0; j < b.size(); ++j)
      if (integer)
        t.setFromInt64(j, static_cast<int64_t>(b.data[j]));
      else
        t.setFromDouble(j, b.data[j]);
    outputs.push_back(std::move(t));
  }
  return outputs;
}

} // namespace

llvm::Expected<std::vector<std::vector<HostTensor>>>
kiln::reference::evaluateRanks(func::FuncOp func,
                               ArrayRef<std::vector<HostTensor>> perRankInputs,
                               ArrayRef<std::vector<int>> groups) {
  int ranks = static_cast<int>(perRankInputs.size());
  if (ranks < 1)
    return evalError(func, "a group needs at least one rank");
  auto module = func->getParentOfType<ModuleOp>();
  if (!module)
    return evalError(func, "function is not inside a module");
  for (size_t g = 0; g < groups.size(); ++g) {
    llvm::SmallDenseSet<int> seen;
    for (int r : groups[g])
      if (r < 0 || r >= ranks || !seen.insert(r).second)
        return evalError(func,
                         "group " + llvm::Twine(g + 1) + " names rank " +
                             llvm::Twine(r) +
                             (r < 0 || r >= ranks ? " of no rank" : " twice"));
    if (groups[g].empty())
      return evalError(func, "group " + llvm::Twine(g + 1) + " has no rank");
  }
  RankWorld world(ranks, groups);
  std::vector<std::optional<llvm::Expected<std::vector<Buffer>>>> outcomes(
      ranks);
  std::vector<std::thread> threads;
  for (int r = 0; r < ranks; ++r)
    threads.emplace_back([&, r] {
      llvm::Expected<std::vector<Buffer>> args =
          toArguments(func, perRankInputs[r]);
      if (!args) {
        outcomes[r].emplace(args.takeError());
      } else {
        Interpreter interpreter(module, &world, r);
        outcomes[r].emplace(interpreter.call(func, std::move(*args), 0));
      }
      world.leave(r);
    });
  for (std::thread &thread : threads)
    thread.join();
  std::vector<std::vector<HostTensor>> results;
  llvm::Error errors = llvm::Error::success();
  for (int r = 0; r < ranks; ++r) {
    llvm::Expected<std::vector<Buffer>> &outcome = *outcomes[r];
    if (!outcome) {
      errors = llvm::joinErrors(
          std::move(errors),
          llvm::createStringError(llvm::inconvertibleErrorCode(),
                                  "rank " + std::to_string(r) + ": " +
                                      llvm::toString(outcome.takeError())));
      continue;
    }
    results.push_back(toHostTensors(*outcome));
  }
  if (errors)
    return std::move(errors);
  return results;
}

llvm::Expected<std::vector<HostTensor>>
kiln::reference::evaluate(func::FuncOp func, ArrayRef<HostTensor> inputs) {
  llvm::Expected<std::vector<Buffer>> args = toArguments(func, inputs);
  if (!args)
    return args.takeError();
  auto module = func->getParentOfType<ModuleOp>();
  if (!module)
    return evalError(func, "function is not inside a module");
  Interpreter interpreter(module);
  llvm::Expected<std::vector<Buffer>> results =
      interpreter.call(func, std::move(*args), 0);
  if (!results)
    return results.takeError();
  return toHostTensors(*results);
}
