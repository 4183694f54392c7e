//===- Program.cpp - printing, bounds and dead code of fuzz programs ------===//

#include "Program.h"

#include "ElementwiseRules.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>
#include <limits>

using namespace kiln;
using namespace kiln::fuzz;

int64_t ValueType::getNumElements() const {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

const ValueType &Program::getType(int value) const {
  if (value < static_cast<int>(arguments.size()))
    return arguments[value];
  return ops[value - arguments.size()].type;
}

bool Program::isTuple(int value) const {
  return value >= static_cast<int>(arguments.size()) &&
         ops[value - arguments.size()].kind == OpKind::Vjp;
}

bool Program::hasVjp() const {
  return llvm::any_of(ops, [](const Op &op) { return op.kind == OpKind::Vjp; });
}

std::vector<int64_t>
kiln::fuzz::getTakeShape(const std::vector<int64_t> &operand,
                         const std::vector<int64_t> &indices, int64_t dim) {
  std::vector<int64_t> shape(operand.begin(), operand.begin() + dim);
  shape.insert(shape.end(), indices.begin(), indices.end());
  shape.insert(shape.end(), operand.begin() + dim + 1, operand.end());
  return shape;
}

namespace {
struct FloatLimits {
  double largest, smallestSubnormal;
};
} // namespace

/// The largest finite value and the smallest subnormal of a float type.
static const FloatLimits &getFloatLimits(DType dtype) {
  static const FloatLimits f64{1.7976931348623157e308, std::ldexp(1.0, -1074)};
  static const FloatLimits f32{3.4028234663852886e38, std::ldexp(1.0, -149)};
  static const FloatLimits f16{65504.0, std::ldexp(1.0, -24)};
  static const FloatLimits bf16{3.3895313892515355e38, std::ldexp(1.0, -133)};
  switch (dtype) {
  case DType::F64:
    return f64;
  case DType::F16:
    return f16;
  case DType::BF16:
    return bf16;
  default:
    return f32;
  }
}

double kiln::fuzz::getUnitRoundoff(DType dtype) {
  switch (dtype) {
  case DType::F64:
    return std::ldexp(1.0, -53);
  case DType::F32:
    return std::ldexp(1.0, -24);
  case DType::I1:
  case DType::I32:
  case DType::I64:
    return 0; // exact (values stay far below 2^31)
  case DType::F16:
    return std::ldexp(1.0, -11);
  case DType::BF16:
    return std::ldexp(1.0, -8);
  }
  return 1;
}

static void printType(llvm::raw_ostream &os, const ValueType &type) {
  os << getTensorTypeString(type.dtype, type.shape);
}

static void printInts(llvm::raw_ostream &os, const std::vector<int64_t> &v) {
  os << "array<i64";
  for (auto [i, x] : llvm::enumerate(v))
    os << (i ? ", " : ": ") << x;
  os << ">";
}

static const char *predicateName(int64_t predicate) {
  static const char *names[] = {"eq", "ne", "lt", "le", "gt", "ge"};
  return names[predicate];
}

/// The name of function `index` of the function called `parent`.
static std::string getCalleeName(const std::string &parent, size_t index) {
  return (parent == "main" ? "f" : parent + "_") + std::to_string(index);
}

static void printTypes(llvm::raw_ostream &os,
                       const std::vector<ValueType> &types) {
  for (auto [i, type] : llvm::enumerate(types)) {
    os << (i ? ", " : "");
    printType(os, type);
  }
}

/// `program` as `func.func @name`, after its callees.
static void printFunction(llvm::raw_ostream &os, const Program &program,
                          const std::string &name) {
  for (size_t f = 0; f < program.functions.size(); ++f)
    printFunction(os, program.functions[f], getCalleeName(name, f));
  size_t numArgs = program.arguments.size();
  auto value = [&](int v) -> std::string {
    if (v < static_cast<int>(numArgs))
      return "%arg" + std::to_string(v);
    const Op &op = program.ops[v - numArgs];
    if (op.kind != OpKind::VjpResult)
      return "%" + std::to_string(v - numArgs);
    const Op &vjp = program.ops[op.operands[0] - numArgs];
    return "%" + std::to_string(op.operands[0] - numArgs) +
           (vjp.resultTypes.size() > 1 ? "#" + std::to_string(op.ints[0]) : "");
  };
  std::vector<ValueType> resultTypes;
  for (int r : program.results)
    resultTypes.push_back(program.getType(r));
  os << "func.func " << (name == "main" ? "" : "private ") << "@" << name
     << "(";
  for (auto [i, type] : llvm::enumerate(program.arguments)) {
    os << (i ? ", " : "") << value(i) << ": ";
    printType(os, type);
  }
  os << ") -> (";
  printTypes(os, resultTypes);
  os << ") {\n";
  for (auto [i, op] : llvm::enumerate(program.ops)) {
    if (op.kind == OpKind::VjpResult)
      continue; // named by its Vjp's result group
    os << "  " << value(numArgs + i);
    if (op.kind == OpKind::Vjp && op.resultTypes.size() > 1)
      os << ":" << op.resultTypes.size();
    os << " = \"" << op.name << "\"(";
    for (auto [j, operand] : llvm::enumerate(op.operands))
      os << (j ? ", " : "") << value(operand);
    os << ")";
    switch (op.kind) {
    case OpKind::Cmp:
      os << " <{predicate = #kiln<predicate " << predicateName(op.ints[0])
         << ">}>";
      break;
    case OpKind::BroadcastInDim:
    case OpKind::Reduce:
      os << " <{dims = ";
      printInts(os, op.ints);
      os << "}>";
      break;
    case OpKind::Transpose:
      os << " <{perm = ";
      printInts(os, op.ints);
      os << "}>";
      break;
    case OpKind::Slice:
      os << " <{offsets = ";
      printInts(os, op.ints);
      os << ", sizes = ";
      printInts(os, op.ints2);
      os << "}>";
      break;
    case OpKind::Concat:
    case OpKind::Iota:
    case OpKind::Take:
    case OpKind::ScatterAdd:
    case OpKind::Argmax:
      os << " <{dim = " << op.ints[0] << " : i64}>";
      break;
    case OpKind::MatMul:
      os << " <{transpose_a = " << (op.ints[0] ? "true" : "false")
         << ", transpose_b = " << (op.ints[1] ? "true" : "false") << "}>";
      break;
    case OpKind::Constant: {
      char buffer[64];
      std::snprintf(buffer, sizeof(buffer), "%.17g", op.scalar);
      std::string literal = buffer;
      if (literal.find_first_of(".eEn") == std::string::npos)
        literal += ".0";
      os << " <{value = dense<" << literal << "> : ";
      printType(os, op.type);
      os << "}>";
      break;
    }
    case OpKind::Vjp:
      os << " <{callee = @" << getCalleeName(name, op.callee) << ", wrt = ";
      printInts(os, op.ints);
      os << "}>";
      break;
    default:
      break;
    }
    os << " : (";
    for (auto [j, operand] : llvm::enumerate(op.operands)) {
      os << (j ? ", " : "");
      printType(os, program.getType(operand));
    }
    os << ") -> ";
    if (op.kind == OpKind::Vjp) {
      os << "(";
      printTypes(os, op.resultTypes);
      os << ")";
    } else {
      printType(os, op.type);
    }
    os << "\n";
  }
  os << "  \"func.return\"(";
  for (auto [i, r] : llvm::enumerate(program.results))
    os << (i ? ", " : "") << value(r);
  os << ") : (";
  printTypes(os, resultTypes);
  os << ") -> ()\n}\n";
}

std::string Program::print() const {
  std::string text;
  llvm::raw_string_ostream os(text);
  printFunction(os, *this, "main");
  return text;
}

Program::Bounds Program::computeBounds(const KinkOracle &isExact) const {
  const double inf = std::numeric_limits<double>::infinity();
  if (hasVjp()) {
    // A gradient's bounds are those of its expansion (the generator's
    // view: an oracle's op indices would be the expansion's).
    std::vector<int> map;
    Bounds expanded = expandVjps(*this, &map).computeBounds();
    Bounds bounds;
    for (int v : map) {
      bounds.low.push_back(v < 0 ? -inf : expanded.low[v]);
      bounds.high.push_back(v < 0 ? inf : expanded.high[v]);
      bounds.error.push_back(v < 0 ? inf : expanded.error[v]);
    }
    return bounds;
  }
  Bounds bounds;
  bounds.low.assign(getNumValues(), -inf);
  bounds.high.assign(getNumValues(), inf);
  bounds.error.assign(getNumValues(), inf);
  // Arguments are uniform in [-1, 1) (i1: 0 or 1; integers: [-2, 9]), and
  // exact.
  for (size_t i = 0; i < arguments.size(); ++i) {
    DType dtype = arguments[i].dtype;
    bool isBool = dtype == DType::I1;
    bool isInteger = dtype == DType::I32 || dtype == DType::I64;
    bounds.low[i] = isBool ? 0 : isInteger ? -2 : -1;
    bounds.high[i] = isInteger ? 9 : 1;
    bounds.error[i] = 0;
  }
  for (size_t i = 0; i < ops.size(); ++i) {
    const Op &op = ops[i];
    int v = static_cast<int>(arguments.size() + i);
    double u = getUnitRoundoff(op.type.dtype);
    auto in = [&](size_t k) {
      return Interval{bounds.low[op.operands[k]], bounds.high[op.operands[k]]};
    };
    auto e = [&](size_t k) { return bounds.error[op.operands[k]]; };
    Interval r{-inf, inf};
    double E = inf;
    const std::string &name = op.name;
    switch (op.kind) {
    case OpKind::Unary:
    case OpKind::Binary: {
      const ElementwiseRule *rule = findElementwiseRule(name);
      if (!rule)
        break;
      std::vector<Interval> x;
      std::vector<double> errors;
      for (size_t k = 0; k < op.operands.size(); ++k) {
        x.push_back(in(k));
        errors.push_back(e(k));
      }
      rule->bound(x, errors, u, r, E);
      break;
    }
    case OpKind::Cmp:
      // Exact only when its operands are: a comparison near a tie may flip
      // on any error, so such an output is not compared. A kink is exact
      // where the values keep clear of the tie (the oracle knows them).
      r = {0, 1};
      if (op.isKink && std::isfinite(e(0)) && std::isfinite(e(1)))
        E = !isExact || isExact(static_cast<int>(i), e(0), e(1)) ? 0 : inf;
      else
        E = e(0) == 0 && e(1) == 0 ? 0 : inf;
      break;
    case OpKind::Select:
      r = {std::min(in(1).low, in(2).low), std::max(in(1).high, in(2).high)};
      E = e(0) == 0 ? std::max(e(1), e(2)) : inf;
      break;
    case OpKind::Convert: {
      r = in(0);
      double from = getUnitRoundoff(getType(op.operands[0]).dtype);
      E = e(0) + (u > from ? u * r.magnitude() : 0);
      // To an integer: truncation, which any error may move by one.
      if (isIntegerDType(op.type.dtype) && e(0) > 0)
        E = inf;
      break;
    }
    case OpKind::Iota: {
      r = {0, static_cast<double>(op.type.shape[op.ints[0]] - 1)};
      E = 0;
      break;
    }
    case OpKind::Take:
      // An element of the operand, or NaN (0 for integers) out of range.
      r = {std::min(in(0).low, 0.0), std::max(in(0).high, 0.0)};
      E = e(0);
      break;
    case OpKind::ScatterAdd: {
      // Each element gets up to n updates (every index may repeat).
      double n = static_cast<double>(getType(op.operands[1]).getNumElements());
      Interval x = in(0), upd = in(2);
      r = {x.low + n * std::min(upd.low, 0.0),
           x.high + n * std::max(upd.high, 0.0)};
      E = e(0) + n * e(2) + n * u * (x.magnitude() + n * upd.magnitude());
      break;
    }
    case OpKind::Argmax:
      // Exact only for exact operands: a near tie may go either way.
      r = {0,
           static_cast<double>(getType(op.operands[0]).shape[op.ints[0]] - 1)};
      E = e(0) == 0 ? 0 : inf;
      break;
    case OpKind::RngUniform:
      r = {0, 1};
      E = 0;
      break;
    case OpKind::BroadcastInDim:
    case OpKind::Reshape:
    case OpKind::Transpose:
    case OpKind::Slice:
      r = in(0);
      E = e(0);
      break;
    case OpKind::Concat:
      r = in(0);
      E = e(0);
      for (size_t k = 1; k < op.operands.size(); ++k) {
        r = {std::min(r.low, in(k).low), std::max(r.high, in(k).high)};
        E = std::max(E, e(k));
      }
      break;
    case OpKind::Reduce: {
      double n = 1;
      for (int64_t d : op.ints)
        n *= getType(op.operands[0]).shape[d];
      if (name == "kiln.reduce_max") {
        r = in(0);
        E = e(0);
      } else {
        // Any summation order: |fl(sum) - sum| <= (n - 1) u sum |x|.
        r = {n * in(0).low, n * in(0).high};
        E = n * e(0) + std::max(n - 1, 0.0) * u * n * in(0).magnitude();
      }
      break;
    }
    case OpKind::MatMul: {
      const ValueType &a = getType(op.operands[0]);
      double k = a.shape[a.shape.size() - (op.ints[0] ? 2 : 1)];
      double ma = in(0).magnitude(), mb = in(1).magnitude();
      r = {-k * ma * mb, k * ma * mb};
      E = k * (ma * e(1) + mb * e(0) + e(0) * e(1)) + (k + 1) * u * k * ma * mb;
      break;
    }
    case OpKind::Constant:
      r = {op.scalar, op.scalar};
      E = 0; // printed exactly (17 digits), rounded once by both sides
      break;
    case OpKind::Vjp:
    case OpKind::VjpResult:
      break; // not here: expanded above
    }
    if (u > 0 && std::isfinite(E)) {
      const FloatLimits &limits = getFloatLimits(op.type.dtype);
      // A result near the type's largest value may round to infinity; one
      // near zero rounds to a subnormal, absolutely (half its spacing).
      if (r.magnitude() + E >= limits.largest)
        E = inf;
      else
        E += limits.smallestSubnormal / 2;
    }
    bounds.low[v] = r.low;
    bounds.high[v] = r.high;
    bounds.error[v] = std::isnan(E) ? inf : E;
  }
  return bounds;
}

void Program::removeDeadCode() {
  int numArgs = static_cast<int>(arguments.size());
  std::vector<bool> live(getNumValues(), false);
  for (int r : results)
    live[r] = true;
  for (int i = static_cast<int>(ops.size()) - 1; i >= 0; --i)
    if (live[numArgs + i])
      for (int operand : ops[i].operands)
        live[operand] = true;
  // New numbers: live arguments, then live ops, in order.
  std::vector<int> renumber(getNumValues(), -1);
  std::vector<ValueType> keptArgs;
  for (int i = 0; i < numArgs; ++i)
    if (live[i]) {
      renumber[i] = static_cast<int>(keptArgs.size());
      keptArgs.push_back(arguments[i]);
    }
  std::vector<Op> keptOps;
  int next = static_cast<int>(keptArgs.size());
  for (int i = 0; i < static_cast<int>(ops.size()); ++i)
    if (live[numArgs + i]) {
      Op op = ops[i];
      for (int &operand : op.operands)
        operand = renumber[operand];
      renumber[numArgs + i] = next++;
      keptOps.push_back(std::move(op));
    }
  for (int &r : results)
    r = renumber[r];
  arguments = std::move(keptArgs);
  ops = std::move(keptOps);
  // Callees no live Vjp calls any more.
  std::vector<int> calleeIndex(functions.size(), -1);
  std::vector<Program> keptFunctions;
  for (Op &op : ops) {
    if (op.kind != OpKind::Vjp)
      continue;
    if (calleeIndex[op.callee] < 0) {
      calleeIndex[op.callee] = static_cast<int>(keptFunctions.size());
      keptFunctions.push_back(std::move(functions[op.callee]));
    }
    op.callee = calleeIndex[op.callee];
  }
  functions = std::move(keptFunctions);
}
