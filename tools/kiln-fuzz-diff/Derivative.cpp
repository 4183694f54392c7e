//===- Derivative.cpp - the fuzzer's own reverse mode ---------------------===//
//
// Expands every Vjp of a fuzz program into explicit ops, so that the
// reference interpreter evaluates gradients exactly (no finite differences)
// and computeBounds bounds them like any other value. This is a second,
// independent derivation: -kiln-autodiff is what is under test. The rules
// are the textbook ones, with the tie rules docs/Dialect.md's op descriptions
// fix (relu and abs: 0 at 0; max and min: ties split evenly; reduce_max:
// the cotangent split evenly among the elements equal to the maximum).
// Every comparison a rule makes is marked as a kink: whether the compiled
// program decides it the same way depends on the values (Check.cpp asks).
//
// Callees are expanded first (innermost first, as -kiln-autodiff does), then
// inlined at the Vjp with their arguments bound to its operands, then
// differentiated from the cotangents back to the `wrt` arguments.
//
//===----------------------------------------------------------------------===//

#include "ElementwiseRules.h"
#include "Program.h"

#include <cmath>
#include <map>
#include <numeric>

using namespace kiln;
using namespace kiln::fuzz;

namespace {

class Expander : public DerivativeBuilder {
public:
  /// `program`'s values in `out`, its arguments bound to `args`.
  std::vector<int> expand(const Program &program, const std::vector<int> &args);

  Program out;

private:
  int emit(Op op) {
    out.ops.push_back(std::move(op));
    return out.getNumValues() - 1;
  }
  ValueType type(int v) const { return out.getType(v); }

  int unary(const char *name, int x) override {
    return emit({OpKind::Unary, name, {x}, {}, {}, 0, type(x)});
  }
  int binary(const char *name, int a, int b) override {
    return emit({OpKind::Binary, name, {a, b}, {}, {}, 0, type(a)});
  }
  int splat(const ValueType &t, double value) {
    return emit({OpKind::Constant, "kiln.constant", {}, {}, {}, value, t});
  }
  int splat(int like, double value) override {
    return splat(type(like), value);
  }
  int kink(int64_t predicate, int a, int b) override {
    Op op{OpKind::Cmp,
          "kiln.cmp",
          {a, b},
          {predicate},
          {},
          0,
          {DType::I1, type(a).shape}};
    op.isKink = true;
    return emit(std::move(op));
  }
  int select(int p, int a, int b) override {
    return emit({OpKind::Select, "kiln.select", {p, a, b}, {}, {}, 0, type(a)});
  }
  int broadcast(int x, const ValueType &to, std::vector<int64_t> dims) {
    return emit({OpKind::BroadcastInDim,
                 "kiln.broadcast_in_dim",
                 {x},
                 dims,
                 {},
                 0,
                 to});
  }
  int reduceSum(int x, const std::vector<int64_t> &dims) {
    if (dims.empty())
      return x;
    ValueType t{type(x).dtype, {}};
    for (size_t d = 0; d < type(x).shape.size(); ++d)
      if (std::find(dims.begin(), dims.end(), d) == dims.end())
        t.shape.push_back(type(x).shape[d]);
    return emit({OpKind::Reduce, "kiln.reduce_sum", {x}, dims, {}, 0, t});
  }
  int reshape(int x, const ValueType &to) {
    if (type(x) == to)
      return x;
    return emit({OpKind::Reshape, "kiln.reshape", {x}, {}, {}, 0, to});
  }
  int matmul(int a, int b, bool ta, bool tb, const ValueType &to) {
    return emit({OpKind::MatMul, "kiln.matmul", {a, b}, {ta, tb}, {}, 0, to});
  }

  /// The reverse mode over `callee` (no Vjp), inlined as `forward`.
  std::vector<int> differentiate(const Program &callee,
                                 const std::vector<int> &forward,
                                 const std::vector<int> &cotangents,
                                 const std::vector<int64_t> &wrt);
  /// Adds, through `contribute(operand, adjoint)`, the adjoints of `op`'s
  /// operands given its result's adjoint `g`; `x(k)` is operand k's
  /// forward value and `y` the result's.
  template <typename Contribute, typename Operand>
  void applyRule(const Op &op, const Program &callee, int g, int y, Operand x,
                 Contribute contribute);
};

} // namespace

std::vector<int> Expander::expand(const Program &program,
                                  const std::vector<int> &args) {
  std::vector<int> map = args;
  std::map<int, std::vector<int>> gradients; // of each Vjp's value
  for (const Op &op : program.ops) {
    int v = static_cast<int>(map.size());
    if (op.kind == OpKind::VjpResult) {
      map.push_back(gradients.at(op.operands[0])[op.ints[0]]);
      continue;
    }
    if (op.kind != OpKind::Vjp) {
      Op copy = op;
      for (int &operand : copy.operands)
        operand = map[operand];
      map.push_back(emit(std::move(copy)));
      continue;
    }
    const Program &callee = program.functions[op.callee];
    size_t numArgs = callee.arguments.size();
    std::vector<int> calleeArgs, cotangents;
    for (size_t k = 0; k < op.operands.size(); ++k)
      (k < numArgs ? calleeArgs : cotangents).push_back(map[op.operands[k]]);
    // Innermost first: the callee without Vjp, inlined here.
    Program flat = expandVjps(callee);
    std::vector<int> forward = Expander::expand(flat, calleeArgs);
    gradients[v] = differentiate(flat, forward, cotangents, op.ints);
    map.push_back(-1);
  }
  return map;
}

std::vector<int> Expander::differentiate(const Program &callee,
                                         const std::vector<int> &forward,
                                         const std::vector<int> &cotangents,
                                         const std::vector<int64_t> &wrt) {
  int numArgs = static_cast<int>(callee.arguments.size());
  // Forward activity: only values that depend on a wrt argument get an
  // adjoint.
  std::vector<bool> active(callee.getNumValues(), false);
  for (int64_t index : wrt)
    active[index] = true;
  for (size_t i = 0; i < callee.ops.size(); ++i)
    for (int operand : callee.ops[i].operands)
      if (active[operand])
        active[numArgs + i] = true;
  std::vector<int> adjoint(callee.getNumValues(), -1);
  auto contribute = [&](int v, int g) {
    // Booleans and integers carry no gradient.
    if (!active[v] || !isFloatDType(callee.getType(v).dtype))
      return;
    adjoint[v] = adjoint[v] < 0 ? g : add(adjoint[v], g);
  };
  for (auto [k, r] : llvm::enumerate(callee.results))
    contribute(r, cotangents[k]);
  for (int i = static_cast<int>(callee.ops.size()) - 1; i >= 0; --i) {
    int v = numArgs + i;
    if (adjoint[v] < 0)
      continue;
    const Op &op = callee.ops[i];
    auto x = [&](size_t k) { return forward[op.operands[k]]; };
    applyRule(op, callee, adjoint[v], forward[v], x,
              [&](size_t k, int g) { contribute(op.operands[k], g); });
  }
  std::vector<int> gradients;
  for (int64_t index : wrt)
    gradients.push_back(adjoint[index] >= 0
                            ? adjoint[index]
                            : splat(callee.arguments[index], 0));
  return gradients;
}

template <typename Contribute, typename Operand>
void Expander::applyRule(const Op &op, const Program &callee, int g, int y,
                         Operand x, Contribute contribute) {
  const std::string &name = op.name;
  switch (op.kind) {
  case OpKind::Unary:
  case OpKind::Binary: {
    std::vector<int> operands;
    for (size_t k = 0; k < op.operands.size(); ++k)
      operands.push_back(x(k));
    findElementwiseRule(op.name)->derivative(*this, g, y, operands, contribute);
    return;
  }
  case OpKind::Select:
    contribute(1, keepWhere(x(0), g));
    contribute(2, select(x(0), splat(type(g), 0), g));
    return;
  case OpKind::Convert:
    if (!isFloatDType(callee.getType(op.operands[0]).dtype))
      return; // from an integer: no gradient
    contribute(0, emit({OpKind::Convert,
                        "kiln.convert",
                        {g},
                        {},
                        {},
                        0,
                        callee.getType(op.operands[0])}));
    return;
  case OpKind::BroadcastInDim: {
    // Sum over the new dims and the size-1 dims that grew; the rest keep
    // their order (dims are increasing), and a reshape puts the 1s back.
    const ValueType &from = callee.getType(op.operands[0]);
    std::vector<int64_t> reduced;
    for (int64_t d = 0; d < static_cast<int64_t>(op.type.shape.size()); ++d) {
      auto it = std::find(op.ints.begin(), op.ints.end(), d);
      if (it == op.ints.end() ||
          (from.shape[it - op.ints.begin()] == 1 && op.type.shape[d] != 1))
        reduced.push_back(d);
    }
    contribute(0, reshape(reduceSum(g, reduced), from));
    return;
  }
  case OpKind::Reshape:
    contribute(0, reshape(g, callee.getType(op.operands[0])));
    return;
  case OpKind::Transpose: {
    std::vector<int64_t> inverse(op.ints.size());
    for (size_t i = 0; i < op.ints.size(); ++i)
      inverse[op.ints[i]] = static_cast<int64_t>(i);
    contribute(0, emit({OpKind::Transpose,
                        "kiln.transpose",
                        {g},
                        inverse,
                        {},
                        0,
                        callee.getType(op.operands[0])}));
    return;
  }
  case OpKind::Slice: {
    // g padded with zeros, one dim at a time.
    const ValueType &from = callee.getType(op.operands[0]);
    int padded = g;
    for (size_t d = 0; d < from.shape.size(); ++d) {
      int64_t length = op.ints2[d] < 0 ? from.shape[d] : op.ints2[d];
      int64_t before = op.ints[d], after = from.shape[d] - before - length;
      std::vector<int> parts;
      ValueType part = type(padded);
      if (before > 0) {
        part.shape[d] = before;
        parts.push_back(splat(part, 0));
      }
      parts.push_back(padded);
      if (after > 0) {
        part.shape[d] = after;
        parts.push_back(splat(part, 0));
      }
      if (parts.size() == 1)
        continue;
      ValueType result = type(padded);
      result.shape[d] = from.shape[d];
      padded = emit({OpKind::Concat,
                     "kiln.concat",
                     parts,
                     {static_cast<int64_t>(d)},
                     {},
                     0,
                     result});
    }
    contribute(0, padded);
    return;
  }
  case OpKind::Concat: {
    int64_t dim = op.ints[0], offset = 0;
    for (size_t k = 0; k < op.operands.size(); ++k) {
      const ValueType &part = callee.getType(op.operands[k]);
      std::vector<int64_t> offsets(part.shape.size(), 0);
      offsets[dim] = offset;
      contribute(k, emit({OpKind::Slice,
                          "kiln.slice",
                          {g},
                          offsets,
                          part.shape,
                          0,
                          part}));
      offset += part.shape[dim];
    }
    return;
  }
  case OpKind::Reduce: {
    const ValueType &from = callee.getType(op.operands[0]);
    std::vector<int64_t> kept;
    for (int64_t d = 0; d < static_cast<int64_t>(from.shape.size()); ++d)
      if (std::find(op.ints.begin(), op.ints.end(), d) == op.ints.end())
        kept.push_back(d);
    if (name == "kiln.reduce_sum") {
      contribute(0, broadcast(g, from, kept));
      return;
    }
    // Every element equal to the maximum gets g / (how many are).
    int hit = kink(0, x(0), broadcast(y, from, kept));
    int count = reduceSum(select(hit, splat(from, 1), splat(from, 0)), op.ints);
    contribute(0, keepWhere(hit, broadcast(div(g, count), from, kept)));
    return;
  }
  case OpKind::MatMul: {
    // C = A' B' (A' = A^T when transposed). dA' = g B'^T, dB' = A'^T g;
    // a transposed operand takes the transpose of its primed adjoint.
    int a = x(0), b = x(1);
    bool ta = op.ints[0] != 0, tb = op.ints[1] != 0;
    const ValueType &typeA = callee.getType(op.operands[0]);
    const ValueType &typeB = callee.getType(op.operands[1]);
    contribute(0, ta ? matmul(b, g, tb, true, typeA)
                     : matmul(g, b, false, !tb, typeA));
    contribute(1, tb ? matmul(g, a, true, ta, typeB)
                     : matmul(a, g, !ta, false, typeB));
    return;
  }
  case OpKind::Take: {
    // take's transpose: g added at the indices into zeros (out-of-range
    // elements dropped).
    const ValueType &from = callee.getType(op.operands[0]);
    contribute(0, emit({OpKind::ScatterAdd,
                        "kiln.scatter_add",
                        {splat(from, 0), x(1), g},
                        op.ints,
                        {},
                        0,
                        from}));
    return;
  }
  case OpKind::ScatterAdd: {
    // x: g. updates: g taken at the indices, 0 where an index is out of
    // range (those updates were dropped): where take(1) is 1.
    contribute(0, g);
    const ValueType &from = callee.getType(op.operands[0]);
    const ValueType &updates = callee.getType(op.operands[2]);
    auto takeAt = [&](int values) {
      return emit(
          {OpKind::Take, "kiln.take", {values, x(1)}, op.ints, {}, 0, updates});
    };
    int one = splat(updates, 1);
    int inRange = emit({OpKind::Cmp,
                        "kiln.cmp",
                        {takeAt(splat(from, 1)), one},
                        {0},
                        {},
                        0,
                        {DType::I1, updates.shape}});
    contribute(2, keepWhere(inRange, takeAt(g)));
    return;
  }
  case OpKind::Cmp:
  case OpKind::Constant:
  case OpKind::Vjp:
  case OpKind::VjpResult:
  case OpKind::Iota:
  case OpKind::Argmax:
  case OpKind::RngUniform:
    return; // no adjoint (and no Vjp: the callee was expanded first)
  }
}

Program kiln::fuzz::expandVjps(const Program &program,
                               std::vector<int> *valueMap) {
  Expander expander;
  expander.out.arguments = program.arguments;
  std::vector<int> args(program.arguments.size());
  std::iota(args.begin(), args.end(), 0);
  std::vector<int> map = expander.expand(program, args);
  for (int r : program.results)
    expander.out.results.push_back(map[r]);
  if (valueMap)
    *valueMap = std::move(map);
  return std::move(expander.out);
}
