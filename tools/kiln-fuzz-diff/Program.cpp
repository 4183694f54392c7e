//===- Program.cpp - printing, bounds and dead code of fuzz programs ------===//

#include "Program.h"

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

double kiln::fuzz::getUnitRoundoff(DType dtype) {
  switch (dtype) {
  case DType::F64:
    return std::ldexp(1.0, -53);
  case DType::F32:
    return std::ldexp(1.0, -24);
  default:
    return std::ldexp(1.0, -8); // f16, bf16: not generated
  }
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

std::string Program::print() const {
  std::string text;
  llvm::raw_string_ostream os(text);
  auto value = [&](int v) {
    if (v < static_cast<int>(arguments.size()))
      return "%arg" + std::to_string(v);
    return "%" + std::to_string(v - arguments.size());
  };
  os << "func.func @main(";
  for (auto [i, type] : llvm::enumerate(arguments)) {
    os << (i ? ", " : "") << value(i) << ": ";
    printType(os, type);
  }
  os << ") -> (";
  for (auto [i, r] : llvm::enumerate(results)) {
    os << (i ? ", " : "");
    printType(os, getType(r));
  }
  os << ") {\n";
  for (auto [i, op] : llvm::enumerate(ops)) {
    os << "  " << value(arguments.size() + i) << " = \"" << op.name << "\"(";
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
    default:
      break;
    }
    os << " : (";
    for (auto [j, operand] : llvm::enumerate(op.operands)) {
      os << (j ? ", " : "");
      printType(os, getType(operand));
    }
    os << ") -> ";
    printType(os, op.type);
    os << "\n";
  }
  os << "  \"func.return\"(";
  for (auto [i, r] : llvm::enumerate(results))
    os << (i ? ", " : "") << value(r);
  os << ") : (";
  for (auto [i, r] : llvm::enumerate(results)) {
    os << (i ? ", " : "");
    printType(os, getType(r));
  }
  os << ") -> ()\n}\n";
  return text;
}

void Program::computeBounds(std::vector<double> &magnitude,
                            std::vector<double> &error) const {
  const double inf = std::numeric_limits<double>::infinity();
  magnitude.assign(getNumValues(), 0);
  error.assign(getNumValues(), 0);
  // Arguments are uniform in [-1, 1) (i1: 0 or 1), and exact.
  for (size_t i = 0; i < arguments.size(); ++i)
    magnitude[i] = 1;
  for (size_t i = 0; i < ops.size(); ++i) {
    const Op &op = ops[i];
    int v = static_cast<int>(arguments.size() + i);
    double u = getUnitRoundoff(op.type.dtype);
    auto m = [&](size_t k) { return magnitude[op.operands[k]]; };
    auto e = [&](size_t k) { return error[op.operands[k]]; };
    double &M = magnitude[v], &E = error[v];
    switch (op.kind) {
    case OpKind::Unary:
      // Transcendentals: a few ulps of their own (4u covers the
      // polynomial expansions), plus the operand's error times the slope.
      if (op.name == "kiln.neg" || op.name == "kiln.abs" ||
          op.name == "kiln.relu") {
        M = m(0);
        E = e(0);
      } else if (op.name == "kiln.tanh") {
        M = std::min(1.0, m(0));
        E = e(0) + 4 * u;
      } else if (op.name == "kiln.sigmoid") {
        M = 1;
        E = 0.25 * e(0) + 4 * u;
      } else if (op.name == "kiln.sin" || op.name == "kiln.cos") {
        M = 1;
        E = e(0) + 4 * u;
      } else if (op.name == "kiln.exp") {
        M = std::exp(m(0));
        E = M * (e(0) + 4 * u);
      } else {
        M = inf;
        E = inf;
      }
      break;
    case OpKind::Binary:
      if (op.name == "kiln.add" || op.name == "kiln.sub") {
        M = m(0) + m(1);
        E = e(0) + e(1) + u * M;
      } else if (op.name == "kiln.mul") {
        M = m(0) * m(1);
        E = m(0) * e(1) + m(1) * e(0) + e(0) * e(1) + u * M;
      } else { // max, min
        M = std::max(m(0), m(1));
        E = std::max(e(0), e(1));
      }
      break;
    case OpKind::Cmp:
      // Exact only when its operands are: a comparison near a tie may
      // flip on any error, so such an output is not compared.
      M = 1;
      E = e(0) == 0 && e(1) == 0 ? 0 : inf;
      break;
    case OpKind::Select:
      M = std::max(m(1), m(2));
      E = e(0) == 0 ? std::max(e(1), e(2)) : inf;
      break;
    case OpKind::Convert: {
      M = m(0);
      double from = getUnitRoundoff(getType(op.operands[0]).dtype);
      E = e(0) + (u > from ? u * M : 0);
      break;
    }
    case OpKind::BroadcastInDim:
    case OpKind::Reshape:
    case OpKind::Transpose:
    case OpKind::Slice:
      M = m(0);
      E = e(0);
      break;
    case OpKind::Concat:
      for (size_t k = 0; k < op.operands.size(); ++k) {
        M = std::max(M, m(k));
        E = std::max(E, e(k));
      }
      break;
    case OpKind::Reduce: {
      double n = 1;
      for (int64_t d : op.ints)
        n *= getType(op.operands[0]).shape[d];
      if (op.name == "kiln.reduce_max") {
        M = m(0);
        E = e(0);
      } else {
        // Any summation order: |fl(sum) - sum| <= (n - 1) u sum |x|.
        M = n * m(0);
        E = n * e(0) + std::max(n - 1, 0.0) * u * n * m(0);
      }
      break;
    }
    case OpKind::MatMul: {
      const ValueType &a = getType(op.operands[0]);
      double k = a.shape[a.shape.size() - (op.ints[0] ? 2 : 1)];
      M = k * m(0) * m(1);
      E = k * (m(0) * e(1) + m(1) * e(0) + e(0) * e(1)) + (k + 1) * u * M;
      break;
    }
    case OpKind::Constant:
      M = std::abs(op.scalar);
      E = 0; // printed exactly (17 digits), rounded once by both sides
      break;
    }
  }
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
}
