//===- ShapeFunction.cpp - result shapes from input shapes ----------------===//

#include "Compiler/Compile/ShapeFunction.h"
#include "kiln/Dialect/Kiln/IR/KilnOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace kiln;

struct SizeExpr::Node {
  Kind kind;
  int64_t value = 0;
  int32_t input = 0, dim = 0;
  std::shared_ptr<const Node> lhs, rhs;
};

SizeExpr SizeExpr::constant(int64_t value) {
  return SizeExpr(std::make_shared<const Node>(Node{Kind::Constant, value}));
}

SizeExpr SizeExpr::inputDim(int32_t input, int32_t dim) {
  return SizeExpr(
      std::make_shared<const Node>(Node{Kind::InputDim, 0, input, dim}));
}

/// `kind` of `lhs` and `rhs`, folded when both are constants.
static SizeExpr combine(SizeExpr::Kind kind, const SizeExpr &lhs,
                        const SizeExpr &rhs,
                        std::optional<int64_t> (*fold)(int64_t, int64_t),
                        const std::function<SizeExpr(SizeExpr::Kind)> &make) {
  std::optional<int64_t> a = lhs.getConstant(), b = rhs.getConstant();
  if (a && b)
    if (std::optional<int64_t> folded = fold(*a, *b))
      return SizeExpr::constant(*folded);
  return make(kind);
}

#define KILN_SIZE_OP(Name, KindName, Fold)                                     \
  SizeExpr SizeExpr::Name(const SizeExpr &lhs, const SizeExpr &rhs) {          \
    return combine(                                                            \
        Kind::KindName, lhs, rhs,                                              \
        [](int64_t a, int64_t b) -> std::optional<int64_t> { Fold },           \
        [&](Kind kind) {                                                       \
          return SizeExpr(std::make_shared<const Node>(                        \
              Node{kind, 0, 0, 0, lhs.node, rhs.node}));                       \
        });                                                                    \
  }
KILN_SIZE_OP(add, Add, return a + b;)
KILN_SIZE_OP(sub, Sub, return a - b;)
KILN_SIZE_OP(mul, Mul, return a * b;)
KILN_SIZE_OP(floorDiv, FloorDiv, if (b == 0) return std::nullopt; return a / b;)
#undef KILN_SIZE_OP

std::optional<int64_t> SizeExpr::getConstant() const {
  if (node->kind == Kind::Constant)
    return node->value;
  return std::nullopt;
}

SizeExpr::Kind SizeExpr::getKind() const { return node->kind; }
int32_t SizeExpr::getInput() const { return node->input; }
int32_t SizeExpr::getDim() const { return node->dim; }
SizeExpr SizeExpr::getLhs() const { return SizeExpr(node->lhs); }
SizeExpr SizeExpr::getRhs() const { return SizeExpr(node->rhs); }

static bool isSame(const std::shared_ptr<const SizeExpr::Node> &a,
                   const std::shared_ptr<const SizeExpr::Node> &b);

bool SizeExpr::isSameAs(const SizeExpr &other) const {
  return isSame(node, other.node);
}

static bool isSame(const std::shared_ptr<const SizeExpr::Node> &a,
                   const std::shared_ptr<const SizeExpr::Node> &b) {
  if (a == b)
    return true;
  if (!a || !b || a->kind != b->kind)
    return false;
  switch (a->kind) {
  case SizeExpr::Kind::Constant:
    return a->value == b->value;
  case SizeExpr::Kind::InputDim:
    return a->input == b->input && a->dim == b->dim;
  default:
    return isSame(a->lhs, b->lhs) && isSame(a->rhs, b->rhs);
  }
}

static std::optional<int64_t>
evaluateNode(const SizeExpr::Node &node,
             llvm::ArrayRef<llvm::ArrayRef<int64_t>> shapes) {
  switch (node.kind) {
  case SizeExpr::Kind::Constant:
    return node.value;
  case SizeExpr::Kind::InputDim:
    if (node.input < 0 || static_cast<size_t>(node.input) >= shapes.size() ||
        node.dim < 0 ||
        static_cast<size_t>(node.dim) >= shapes[node.input].size())
      return std::nullopt;
    return shapes[node.input][node.dim];
  default:
    break;
  }
  std::optional<int64_t> a = evaluateNode(*node.lhs, shapes);
  std::optional<int64_t> b = evaluateNode(*node.rhs, shapes);
  if (!a || !b)
    return std::nullopt;
  switch (node.kind) {
  case SizeExpr::Kind::Add:
    return *a + *b;
  case SizeExpr::Kind::Sub:
    return *a - *b;
  case SizeExpr::Kind::Mul:
    return *a * *b;
  default:
    if (*b == 0)
      return std::nullopt;
    // Rounded down, as the runtime's host programs divide.
    return *a / *b - ((*a % *b != 0 && ((*a < 0) != (*b < 0))) ? 1 : 0);
  }
}

std::optional<int64_t>
SizeExpr::evaluate(llvm::ArrayRef<llvm::ArrayRef<int64_t>> inputShapes) const {
  return evaluateNode(*node, inputShapes);
}

llvm::Expected<std::vector<std::vector<int64_t>>>
ShapeFunction::evaluate(llvm::StringRef entryName,
                        llvm::ArrayRef<llvm::ArrayRef<int64_t>> shapes) const {
  auto fail = [&](const llvm::Twine &message) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "@" + entryName + ": " + message);
  };
  for (const ShapeCheck &check : checks) {
    std::optional<int64_t> a = check.lhs.evaluate(shapes);
    std::optional<int64_t> b = check.rhs.evaluate(shapes);
    if (!a || !b)
      return fail(check.what + ": a size divides by zero");
    if (check.atMost && *a > *b)
      return fail(check.what + ": " + llvm::Twine(*a) + " > " +
                  llvm::Twine(*b));
    if (!check.atMost && *a != *b)
      return fail(check.what + " differ: " + llvm::Twine(*b) + " and " +
                  llvm::Twine(*a));
  }
  std::vector<std::vector<int64_t>> results;
  for (const std::vector<SizeExpr> &dims : this->results) {
    std::vector<int64_t> shape;
    for (const SizeExpr &dim : dims) {
      std::optional<int64_t> size = dim.evaluate(shapes);
      if (!size || *size < 0)
        return fail("a result dim has no valid size for these inputs");
      shape.push_back(*size);
    }
    results.push_back(std::move(shape));
  }
  return results;
}

namespace {

llvm::Error inferError(Operation *op, const llvm::Twine &why) {
  std::string location;
  llvm::raw_string_ostream os(location);
  op->getLoc().print(os);
  return llvm::createStringError(
      llvm::inconvertibleErrorCode(),
      "cannot infer the result shapes from the input shapes: '" +
          op->getName().getStringRef() + "' at " + location + " " + why);
}

/// The forward pass over a body: each tensor's dims and each index value
/// as sizes.
class Inference {
public:
  explicit Inference(ModuleOp module) : module(module), symbols(module) {}

  std::vector<ShapeCheck> checks;

  /// Runs `block` with its arguments' dims given; returns the dims of what
  /// its terminator returns or yields.
  llvm::Expected<std::vector<SmallVector<SizeExpr>>>
  run(Block &block, llvm::ArrayRef<SmallVector<SizeExpr>> arguments,
      int depth) {
    if (depth > 16)
      return inferError(block.getParentOp(), "nests calls too deeply");
    for (auto [arg, argDims] : llvm::zip(block.getArguments(), arguments))
      dims[arg] = argDims;
    for (Operation &op : block) {
      if (op.hasTrait<OpTrait::IsTerminator>()) {
        std::vector<SmallVector<SizeExpr>> results;
        for (Value value : op.getOperands()) {
          auto it = dims.find(value);
          if (it == dims.end())
            return inferError(&op, "returns a value of unknown shape");
          results.push_back(it->second);
        }
        return results;
      }
      if (llvm::Error e = visit(&op, depth))
        return std::move(e);
    }
    return inferError(block.getParentOp(), "has no terminator");
  }

private:
  ModuleOp module;
  SymbolTable symbols;
  llvm::DenseMap<Value, SmallVector<SizeExpr>> dims;
  llvm::DenseMap<Value, SizeExpr> indices;

  /// Requires `a` == `b` (or `a` <= `b`) unless both are known to be.
  void require(const SizeExpr &a, const SizeExpr &b, Operation *op,
               const llvm::Twine &what, bool atMost = false) {
    std::optional<int64_t> x = a.getConstant(), y = b.getConstant();
    if ((x && y) || a.isSameAs(b))
      return;
    std::string prefix;
    if (auto file = dyn_cast<FileLineColLoc>(op->getLoc()))
      prefix =
          (file.getFilename().getValue() + ":" + llvm::Twine(file.getLine()) +
           ":" + llvm::Twine(file.getColumn()) + ": ")
              .str();
    checks.push_back(
        {a, b, atMost,
         (prefix + op->getName().getStringRef() + ": " + what).str()});
  }

  llvm::Expected<SmallVector<SizeExpr>> get(Operation *op, Value value) {
    auto it = dims.find(value);
    if (it == dims.end())
      return inferError(op, "reads a value of unknown shape");
    return it->second;
  }

  llvm::Expected<SizeExpr> getIndex(Operation *op, Value value) {
    auto it = indices.find(value);
    if (it == indices.end())
      return inferError(op, "reads an index it cannot follow");
    return it->second;
  }

  /// Sets `result`'s dims: a static dim is its size (and must equal what
  /// was computed, a run-time check).
  void set(Operation *op, Value result, SmallVector<SizeExpr> computed) {
    auto type = cast<RankedTensorType>(result.getType());
    for (int64_t d = 0; d < type.getRank(); ++d) {
      if (type.isDynamicDim(d))
        continue;
      SizeExpr size = SizeExpr::constant(type.getDimSize(d));
      if (static_cast<size_t>(d) < computed.size())
        require(computed[d], size, op,
                "the sizes of static result dim " + llvm::Twine(d) +
                    " and what computes it");
      else
        computed.resize(type.getRank());
      computed[d] = size;
    }
    dims[result] = std::move(computed);
  }

  llvm::Error visit(Operation *op, int depth);
  llvm::Error visitIndex(Operation *op);
  llvm::Error visitCall(Operation *op, func::FuncOp callee, ValueRange args,
                        int depth);
};

llvm::Error Inference::visitIndex(Operation *op) {
  if (auto dim = dyn_cast<tensor::DimOp>(op)) {
    auto source = get(op, dim.getSource());
    if (!source)
      return source.takeError();
    auto index = getIndex(op, dim.getIndex());
    if (!index)
      return index.takeError();
    std::optional<int64_t> d = index->getConstant();
    if (!d || *d < 0 || *d >= static_cast<int64_t>(source->size()))
      return inferError(op, "reads a dim that is not a constant in range");
    indices[dim.getResult()] = (*source)[*d];
    return llvm::Error::success();
  }
  if (auto constant = dyn_cast<arith::ConstantOp>(op)) {
    if (auto value = dyn_cast<IntegerAttr>(constant.getValue());
        value && constant.getType().isIndex())
      indices[constant.getResult()] = SizeExpr::constant(value.getInt());
    return llvm::Error::success(); // float constants are not sizes
  }
  auto lhs = getIndex(op, op->getOperand(0));
  if (!lhs)
    return lhs.takeError();
  auto rhs = getIndex(op, op->getOperand(1));
  if (!rhs)
    return rhs.takeError();
  SizeExpr result =
      llvm::TypeSwitch<Operation *, SizeExpr>(op)
          .Case([&](arith::AddIOp) { return SizeExpr::add(*lhs, *rhs); })
          .Case([&](arith::SubIOp) { return SizeExpr::sub(*lhs, *rhs); })
          .Case([&](arith::MulIOp) { return SizeExpr::mul(*lhs, *rhs); })
          .Default([&](Operation *) { return SizeExpr::floorDiv(*lhs, *rhs); });
  indices[op->getResult(0)] = result;
  return llvm::Error::success();
}

llvm::Error Inference::visitCall(Operation *op, func::FuncOp callee,
                                 ValueRange args, int depth) {
  if (!callee || callee.isExternal() || !callee.getBody().hasOneBlock())
    return inferError(op, "calls a function without one block of body");
  std::vector<SmallVector<SizeExpr>> argDims;
  for (Value arg : args) {
    auto d = get(op, arg);
    if (!d)
      return d.takeError();
    argDims.push_back(std::move(*d));
  }
  Inference inner(module);
  auto results = inner.run(callee.getBody().front(), argDims, depth + 1);
  if (!results)
    return results.takeError();
  llvm::append_range(checks, inner.checks);
  if (isa<func::CallOp>(op))
    for (auto [result, resultDims] : llvm::zip(op->getResults(), *results))
      set(op, result, resultDims);
  else {
    // A vjp: each gradient has its input's shape; each cotangent the
    // shape of the output it weighs.
    auto vjp = cast<VjpOp>(op);
    size_t numArgs = callee.getNumArguments();
    for (auto [i, ct] :
         llvm::enumerate(vjp.getOperands().drop_front(numArgs))) {
      auto ctDims = get(op, ct);
      if (!ctDims)
        return ctDims.takeError();
      if (i >= results->size())
        return inferError(op, "has more cotangents than the callee results");
      for (auto [d, pair] : llvm::enumerate(llvm::zip((*results)[i], *ctDims)))
        require(std::get<1>(pair), std::get<0>(pair), op,
                "the sizes of cotangent " + llvm::Twine(i) +
                    " and its output along dim " + llvm::Twine(d));
    }
    for (auto [result, wrt] : llvm::zip(vjp.getResults(), vjp.getWrt()))
      set(op, result, argDims[wrt]);
  }
  return llvm::Error::success();
}

llvm::Error Inference::visit(Operation *op, int depth) {
  if (op->getNumResults() == 1 && op->getResult(0).getType().isIndex())
    return visitIndex(op);
  if (isa<arith::ConstantOp>(op))
    return visitIndex(op);
  if (auto call = dyn_cast<func::CallOp>(op))
    return visitCall(op, symbols.lookup<func::FuncOp>(call.getCallee()),
                     call.getOperands(), depth);
  if (auto vjp = dyn_cast<VjpOp>(op)) {
    auto callee = symbols.lookup<func::FuncOp>(vjp.getCallee());
    if (!callee)
      return inferError(op, "names no function");
    return visitCall(op, callee,
                     vjp.getOperands().take_front(callee.getNumArguments()),
                     depth);
  }
  if (auto group = dyn_cast<FusionGroupOp>(op)) {
    std::vector<SmallVector<SizeExpr>> inputs;
    for (Value input : group.getInputs()) {
      auto d = get(op, input);
      if (!d)
        return d.takeError();
      inputs.push_back(std::move(*d));
    }
    auto results = run(group.getBody().front(), inputs, depth);
    if (!results)
      return results.takeError();
    for (auto [result, resultDims] : llvm::zip(group.getResults(), *results))
      set(op, result, resultDims);
    return llvm::Error::success();
  }

  // Kiln ops with one tensor result.
  if (op->getNumResults() != 1 ||
      !isa<RankedTensorType>(op->getResult(0).getType()))
    return inferError(op, "is not an op whose shapes it knows");
  Value result = op->getResult(0);
  std::vector<SmallVector<SizeExpr>> in;
  for (Value operand : op->getOperands()) {
    if (!isa<RankedTensorType>(operand.getType()))
      continue;
    auto d = get(op, operand);
    if (!d)
      return d.takeError();
    in.push_back(std::move(*d));
  }

  if (isa<ConstantOp>(op)) {
    set(op, result, {});
    return llvm::Error::success();
  }
  if (op->hasTrait<OpTrait::Elementwise>()) {
    for (size_t i = 1; i < in.size(); ++i)
      for (size_t d = 0; d < in[0].size() && d < in[i].size(); ++d)
        require(in[i][d], in[0][d], op,
                "the sizes of operands #0 and #" + llvm::Twine(i) +
                    " along dim " + llvm::Twine(d));
    set(op, result, in.empty() ? SmallVector<SizeExpr>() : in[0]);
    return llvm::Error::success();
  }
  if (auto broadcast = dyn_cast<BroadcastInDimOp>(op)) {
    RankedTensorType type = broadcast.getType();
    RankedTensorType operandType = broadcast.getOperand().getType();
    SmallVector<SizeExpr> out(type.getRank());
    for (int64_t d = 0; d < type.getRank(); ++d) {
      if (type.isDynamicDim(d)) {
        auto size =
            getIndex(op, broadcast.getSizes()[type.getDynamicDimIndex(d)]);
        if (!size)
          return size.takeError();
        out[d] = *size;
      } else {
        out[d] = SizeExpr::constant(type.getDimSize(d));
      }
    }
    for (auto [k, d] : llvm::enumerate(broadcast.getDims()))
      if (operandType.getDimSize(k) != 1)
        require(in[0][k], out[d], op,
                "the sizes of operand dim " + llvm::Twine(k) +
                    " and result dim " + llvm::Twine(d));
    set(op, result, out);
    return llvm::Error::success();
  }
  if (isa<ReshapeOp>(op)) {
    auto type = cast<RankedTensorType>(result.getType());
    // One dynamic result dim takes the rest of the elements; with two,
    // nothing says how they split.
    if (type.getNumDynamicDims() > 1)
      return inferError(op, "(a reshape to more than one dynamic dim)");
    SizeExpr count = SizeExpr::constant(1);
    for (const SizeExpr &d : in[0])
      count = SizeExpr::mul(count, d);
    int64_t known = 1;
    for (int64_t d = 0; d < type.getRank(); ++d)
      if (!type.isDynamicDim(d))
        known *= type.getDimSize(d);
    SmallVector<SizeExpr> out(type.getRank());
    for (int64_t d = 0; d < type.getRank(); ++d)
      out[d] = type.isDynamicDim(d)
                   ? SizeExpr::floorDiv(count, SizeExpr::constant(known))
                   : SizeExpr::constant(type.getDimSize(d));
    SizeExpr total = SizeExpr::constant(1);
    for (const SizeExpr &d : out)
      total = SizeExpr::mul(total, d);
    require(total, count, op, "the element counts of the operand and result");
    set(op, result, out);
    return llvm::Error::success();
  }
  if (auto transpose = dyn_cast<TransposeOp>(op)) {
    SmallVector<SizeExpr> out;
    for (int64_t p : transpose.getPerm())
      out.push_back(in[0][p]);
    set(op, result, out);
    return llvm::Error::success();
  }
  if (auto slice = dyn_cast<SliceOp>(op)) {
    SmallVector<SizeExpr> out;
    for (auto [d, size] : llvm::enumerate(slice.getSizes())) {
      if (size < 0) {
        out.push_back(in[0][d]);
        continue;
      }
      out.push_back(SizeExpr::constant(size));
      require(SizeExpr::constant(slice.getOffsets()[d] + size), in[0][d], op,
              "the end of the slice along dim " + llvm::Twine(d) +
                  " and the operand's size",
              /*atMost=*/true);
    }
    set(op, result, out);
    return llvm::Error::success();
  }
  if (auto concat = dyn_cast<ConcatOp>(op)) {
    int64_t along = static_cast<int64_t>(concat.getDim());
    SmallVector<SizeExpr> out = in[0];
    for (size_t i = 1; i < in.size(); ++i)
      for (size_t d = 0; d < out.size(); ++d) {
        if (static_cast<int64_t>(d) == along)
          out[d] = SizeExpr::add(out[d], in[i][d]);
        else
          require(in[i][d], in[0][d], op,
                  "the sizes of operands #0 and #" + llvm::Twine(i) +
                      " along dim " + llvm::Twine(d));
      }
    set(op, result, out);
    return llvm::Error::success();
  }
  if (isa<ReduceSumOp, ReduceMaxOp>(op)) {
    ArrayRef<int64_t> reduced = isa<ReduceSumOp>(op)
                                    ? cast<ReduceSumOp>(op).getDims()
                                    : cast<ReduceMaxOp>(op).getDims();
    SmallVector<SizeExpr> out;
    for (size_t d = 0; d < in[0].size(); ++d)
      if (!llvm::is_contained(reduced, static_cast<int64_t>(d)))
        out.push_back(in[0][d]);
    set(op, result, out);
    return llvm::Error::success();
  }
  if (auto matmul = dyn_cast<MatmulOp>(op)) {
    size_t r = in[0].size();
    bool ta = matmul.getTransposeA(), tb = matmul.getTransposeB();
    SizeExpr m = in[0][r - (ta ? 1 : 2)], k = in[0][r - (ta ? 2 : 1)];
    SizeExpr kb = in[1][r - (tb ? 1 : 2)], n = in[1][r - (tb ? 2 : 1)];
    require(kb, k, op, "contracted sizes");
    SmallVector<SizeExpr> out;
    if (r == 3) {
      require(in[1][0], in[0][0], op, "batch sizes");
      out.push_back(in[0][0]);
    }
    out.push_back(m);
    out.push_back(n);
    set(op, result, out);
    return llvm::Error::success();
  }
  if (cast<RankedTensorType>(result.getType()).hasStaticShape()) {
    set(op, result, {});
    return llvm::Error::success();
  }
  return inferError(op, "is not an op whose shapes it knows");
}

} // namespace

llvm::Expected<ShapeFunction> kiln::inferShapeFunction(func::FuncOp entry) {
  if (entry.isExternal() || !entry.getBody().hasOneBlock())
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "the entry must have one block of body");
  auto module = entry->getParentOfType<ModuleOp>();
  Inference inference(module);
  std::vector<SmallVector<SizeExpr>> arguments;
  for (auto [i, type] : llvm::enumerate(entry.getArgumentTypes())) {
    auto tensor = dyn_cast<RankedTensorType>(type);
    if (!tensor)
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     "an argument is not a ranked tensor");
    SmallVector<SizeExpr> argDims;
    for (int64_t d = 0; d < tensor.getRank(); ++d)
      argDims.push_back(tensor.isDynamicDim(d)
                            ? SizeExpr::inputDim(static_cast<int32_t>(i),
                                                 static_cast<int32_t>(d))
                            : SizeExpr::constant(tensor.getDimSize(d)));
    arguments.push_back(std::move(argDims));
  }
  auto results = inference.run(entry.getBody().front(), arguments, 0);
  if (!results)
    return results.takeError();
  ShapeFunction function;
  function.checks = std::move(inference.checks);
  for (SmallVector<SizeExpr> &resultDims : *results)
    function.results.emplace_back(resultDims.begin(), resultDims.end());
  return function;
}
