//===- Generator.cpp - random well-typed kiln programs --------------------===//
//
// Ops are drawn one at a time, each on values already defined, biased
// towards the most recent ones so that programs form chains (which fuse),
// with older values reused (shared subexpressions, multi-output groups).
// An op that needs a partner of a given type it cannot find gets a new
// argument of that type. Values stay below a magnitude cap so that no
// correct implementation overflows; comparisons take only exact operands
// (see Program.h).
//
//===----------------------------------------------------------------------===//

#include "ElementwiseRules.h"
#include "Program.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <cmath>
#include <numeric>

using namespace kiln;
using namespace kiln::fuzz;

namespace {

constexpr double maxMagnitude = 1e4;
/// Elements per value, at most (the emulated GPU runs one thread at a
/// time).
constexpr int64_t maxElements = 1 << 16;

/// The elementwise ops of `arity` operands whose rule needs positive
/// operands (or none) and whose magnitude limits `x` meets (x < 0: any),
/// also on integers when `integers`.
std::vector<const ElementwiseRule *>
elementwiseCandidates(int arity, bool positive, double magnitude,
                      bool integers = false) {
  std::vector<const ElementwiseRule *> candidates;
  for (const ElementwiseRule *rule : getElementwiseRules(arity)) {
    bool limited = rule->limitedOperands & 1;
    if ((rule->positiveOperands != 0) == positive &&
        (!integers || rule->integers) &&
        (!limited || magnitude <= rule->operandMagnitude))
      candidates.push_back(rule);
  }
  return candidates;
}

class Generator {
public:
  /// `depth`: how many kiln.vjp callees this program is inside.
  Generator(std::mt19937_64 &rng, int depth = 0) : rng(rng), depth(depth) {}

  Program run(int maxOps);

private:
  int64_t uniform(int64_t lo, int64_t hi) { // [lo, hi]
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
  }
  bool chance(double p) { return std::bernoulli_distribution(p)(rng); }
  /// Mostly small dims; sometimes large ones, so that parallel loops,
  /// several GPU blocks and split GEMMs are exercised too.
  int64_t randomDim() {
    static const int64_t small[] = {1, 2, 3, 4, 5, 7, 8, 16};
    static const int64_t large[] = {33, 64, 100, 128};
    return chance(0.1) ? large[uniform(0, 3)] : small[uniform(0, 7)];
  }
  ValueType randomType(DType dtype) {
    ValueType t{dtype, {}};
    do {
      t.shape.clear();
      int64_t rank = uniform(0, 3);
      for (int64_t i = 0; i < rank; ++i)
        t.shape.push_back(randomDim());
    } while (t.getNumElements() > maxElements);
    return t;
  }

  void refreshBounds() { bounds = program.computeBounds(); }
  bool isFloat(int v) const { return isFloatDType(program.getType(v).dtype); }
  bool isInteger(int v) const {
    return isIntegerDType(program.getType(v).dtype);
  }
  /// A float or an integer (not a bool).
  bool isNumeric(int v) const { return isFloat(v) || isInteger(v); }
  DType randomIndexType() { return chance(0.7) ? DType::I64 : DType::I32; }
  /// A float type: mostly f32, then f64, bf16 and f16 (storage types that
  /// compute in f32; their bounds come from their own unit roundoff).
  DType randomFloatType() {
    static const DType narrow[] = {DType::F64, DType::BF16, DType::F16};
    return chance(0.65) ? DType::F32 : narrow[uniform(0, 2)];
  }
  /// A float type other than `dtype`.
  DType otherFloatType(DType dtype) {
    DType other;
    do
      other = randomFloatType();
    while (other == dtype);
    return other;
  }
  /// An integer value of rank <= 2 to index with (mostly a new argument:
  /// [-2, 9], out of range and repeated often), renumbering `held`.
  int indices(std::initializer_list<int *> held) {
    int v = pick([&](int w) {
      return isInteger(w) && bounds.error[w] == 0 &&
             program.getType(w).shape.size() <= 2;
    });
    if (v >= 0 && chance(0.4))
      return v;
    ValueType type{randomIndexType(), {}};
    for (int64_t rank = uniform(0, 2); rank > 0; --rank)
      type.shape.push_back(chance(0.8) ? uniform(1, 6) : randomDim());
    return addArgument(type, held);
  }
  /// A value, mostly a recent one; `accept` filters.
  template <typename Fn> int pick(Fn accept) {
    int n = program.getNumValues();
    for (int attempt = 0; attempt < 8; ++attempt) {
      int v = chance(0.7)
                  ? n - 1 - static_cast<int>(uniform(0, std::min(3, n - 1)))
                  : static_cast<int>(uniform(0, n - 1));
      if (!program.isTuple(v) && accept(v))
        return v;
    }
    for (int v = n - 1; v >= 0; --v)
      if (!program.isTuple(v) && accept(v))
        return v;
    return -1;
  }
  /// A value of `type` (exact ones only, if asked), or a new argument.
  /// A new argument renumbers the ops' values: `held` are updated.
  int partner(const ValueType &type, bool exact,
              std::initializer_list<int *> held) {
    int v = pick([&](int w) {
      return program.getType(w) == type && (!exact || bounds.error[w] == 0);
    });
    return v >= 0 && chance(0.8) ? v : addArgument(type, held);
  }
  int addArgument(const ValueType &type, std::initializer_list<int *> held);
  /// addArgument, renumbering every value in `held`.
  int addArgument(const ValueType &type, std::vector<int> &held) {
    for (int &v : held)
      if (v >= static_cast<int>(program.arguments.size()))
        ++v;
    return addArgument(type, {});
  }
  /// Whether value `from` is computed from value `to`.
  bool dependsOn(int from, int to) const;
  /// Appends `op` if its bounds stay finite and below the cap.
  bool append(Op op);

  bool makeUnary(), makePositiveUnary(), makeBinary(), makePositiveBinary(),
      makeCmp(), makeSelect(), makeConvert(), makeBroadcast(), makeReshape(),
      makeTranspose(), makeSlice(), makeConcat(), makeReduce(), makeMatMul(),
      makeConstant(), makeVjp(), makeIntegerOp(), makeIota(), makeTake(),
      makeScatterAdd(), makeArgmax(), makeRngUniform();

  std::mt19937_64 &rng;
  int depth;
  Program program;
  /// `x` made safely positive (>= 0.5 after any error): abs(x) + c with a
  /// constant c, unless it is already.
  bool makePositive(int &x);

  Program::Bounds bounds;
};

} // namespace

int Generator::addArgument(const ValueType &type,
                           std::initializer_list<int *> held) {
  int at = static_cast<int>(program.arguments.size());
  for (int *v : held)
    if (*v >= at)
      ++*v;
  program.arguments.push_back(type);
  for (Op &op : program.ops)
    for (int &operand : op.operands)
      if (operand >= at)
        ++operand;
  for (int &r : program.results)
    if (r >= at)
      ++r;
  refreshBounds();
  return at;
}

bool Generator::append(Op op) {
  if (op.type.getNumElements() > maxElements)
    return false;
  program.ops.push_back(std::move(op));
  refreshBounds();
  int v = program.getNumValues() - 1;
  if (std::isfinite(bounds.magnitude(v)) &&
      bounds.magnitude(v) <= maxMagnitude && std::isfinite(bounds.error[v]))
    return true;
  program.ops.pop_back();
  refreshBounds();
  return false;
}

bool Generator::makeUnary() {
  int x = pick([&](int v) { return isFloat(v); });
  if (x < 0)
    return false;
  std::vector<const ElementwiseRule *> candidates =
      elementwiseCandidates(1, false, bounds.magnitude(x));
  const char *name = candidates[uniform(0, candidates.size() - 1)]->name;
  return append({OpKind::Unary, name, {x}, {}, {}, 0, program.getType(x)});
}

bool Generator::makePositive(int &x) {
  if (bounds.low[x] - bounds.error[x] >= 0.5)
    return true;
  ValueType type = program.getType(x);
  if (!append({OpKind::Unary, "kiln.abs", {x}, {}, {}, 0, type}))
    return false;
  int magnitude = program.getNumValues() - 1;
  static const double shifts[] = {0.5, 1, 2};
  if (!append({OpKind::Constant,
               "kiln.constant",
               {},
               {},
               {},
               shifts[uniform(0, 2)],
               type}))
    return false;
  int shift = program.getNumValues() - 1;
  if (!append(
          {OpKind::Binary, "kiln.add", {magnitude, shift}, {}, {}, 0, type}))
    return false;
  x = program.getNumValues() - 1;
  return true;
}

bool Generator::makePositiveUnary() {
  int x = pick([&](int v) { return isFloat(v); });
  if (x < 0 || !makePositive(x))
    return false;
  std::vector<const ElementwiseRule *> candidates =
      elementwiseCandidates(1, true, bounds.magnitude(x));
  if (candidates.empty())
    return false;
  const char *name = candidates[uniform(0, candidates.size() - 1)]->name;
  return append({OpKind::Unary, name, {x}, {}, {}, 0, program.getType(x)});
}

bool Generator::makePositiveBinary() {
  int a = pick([&](int v) { return isFloat(v); });
  if (a < 0)
    return false;
  ValueType type = program.getType(a);
  std::vector<const ElementwiseRule *> candidates =
      elementwiseCandidates(2, true, -1);
  const ElementwiseRule &rule = *candidates[uniform(0, candidates.size() - 1)];
  int b = partner(type, false, {&a});
  // The operands the rule needs positive made so (div: b; pow: a), and the
  // limited ones small (pow's exponent).
  int *operands[] = {&a, &b};
  for (unsigned k = 0; k < 2; ++k) {
    if ((rule.positiveOperands >> k & 1) && !makePositive(*operands[k]))
      return false;
    if ((rule.limitedOperands >> k & 1) &&
        bounds.magnitude(*operands[k]) > rule.operandMagnitude)
      return false;
  }
  return append({OpKind::Binary, rule.name, {a, b}, {}, {}, 0, type});
}

bool Generator::makeBinary() {
  int a = pick([&](int v) { return isFloat(v); });
  if (a < 0)
    return false;
  ValueType type = program.getType(a);
  int b = chance(0.15) ? a : partner(type, false, {&a});
  std::vector<const ElementwiseRule *> candidates =
      elementwiseCandidates(2, false, -1);
  const char *name = candidates[uniform(0, candidates.size() - 1)]->name;
  return append({OpKind::Binary, name, {a, b}, {}, {}, 0, type});
}

bool Generator::makeCmp() {
  int a = pick([&](int v) { return isNumeric(v) && bounds.error[v] == 0; });
  if (a < 0)
    return false;
  ValueType type = program.getType(a);
  int b = partner(type, /*exact=*/true, {&a});
  return append({OpKind::Cmp,
                 "kiln.cmp",
                 {a, b},
                 {uniform(0, 5)},
                 {},
                 0,
                 {DType::I1, type.shape}});
}

bool Generator::makeSelect() {
  int p = pick([&](int v) {
    return program.getType(v).dtype == DType::I1 && bounds.error[v] == 0;
  });
  if (p < 0)
    return false;
  ValueType type{randomFloatType(), program.getType(p).shape};
  int a = partner(type, false, {&p});
  int b = partner(type, false, {&p, &a});
  return append({OpKind::Select, "kiln.select", {p, a, b}, {}, {}, 0, type});
}

bool Generator::makeConvert() {
  int x = pick([&](int v) { return isNumeric(v); });
  if (x < 0)
    return false;
  ValueType type = program.getType(x);
  if (isInteger(x))
    type.dtype = randomFloatType();
  else if (bounds.error[x] == 0 && chance(0.3))
    type.dtype = randomIndexType(); // truncation of an exact value
  else
    type.dtype = otherFloatType(type.dtype);
  return append({OpKind::Convert, "kiln.convert", {x}, {}, {}, 0, type});
}

bool Generator::makeBroadcast() {
  int x = pick([&](int v) { return program.getType(v).shape.size() < 3; });
  if (x < 0)
    return false;
  const ValueType &from = program.getType(x);
  int64_t rank = from.shape.size();
  int64_t resultRank = uniform(rank, 3);
  // Which result dims the operand's dims map to: `rank` of them, in order.
  std::vector<int64_t> positions(resultRank);
  std::iota(positions.begin(), positions.end(), 0);
  std::shuffle(positions.begin(), positions.end(), rng);
  std::vector<int64_t> dims(positions.begin(), positions.begin() + rank);
  std::sort(dims.begin(), dims.end());
  ValueType type{from.dtype, std::vector<int64_t>(resultRank)};
  for (int64_t d = 0; d < resultRank; ++d)
    type.shape[d] = randomDim();
  for (int64_t i = 0; i < rank; ++i)
    if (from.shape[i] != 1 || chance(0.3))
      type.shape[dims[i]] = from.shape[i];
  return append({OpKind::BroadcastInDim,
                 "kiln.broadcast_in_dim",
                 {x},
                 dims,
                 {},
                 0,
                 type});
}

bool Generator::makeReshape() {
  int x = pick([&](int v) { return !program.getType(v).shape.empty(); });
  if (x < 0)
    return false;
  const ValueType &from = program.getType(x);
  // The element count's prime factors, dealt into up to three dims.
  std::vector<int64_t> factors;
  int64_t n = from.getNumElements();
  for (int64_t f = 2; n > 1 && f <= n; ++f)
    while (n % f == 0) {
      factors.push_back(f);
      n /= f;
    }
  std::shuffle(factors.begin(), factors.end(), rng);
  ValueType type{from.dtype, std::vector<int64_t>(uniform(1, 3), 1)};
  for (int64_t f : factors)
    type.shape[uniform(0, type.shape.size() - 1)] *= f;
  return append({OpKind::Reshape, "kiln.reshape", {x}, {}, {}, 0, type});
}

bool Generator::makeTranspose() {
  int x = pick([&](int v) { return program.getType(v).shape.size() >= 2; });
  if (x < 0)
    return false;
  const ValueType &from = program.getType(x);
  std::vector<int64_t> perm(from.shape.size());
  std::iota(perm.begin(), perm.end(), 0);
  std::shuffle(perm.begin(), perm.end(), rng);
  ValueType type{from.dtype, {}};
  for (int64_t p : perm)
    type.shape.push_back(from.shape[p]);
  return append({OpKind::Transpose, "kiln.transpose", {x}, perm, {}, 0, type});
}

bool Generator::makeSlice() {
  int x = pick([&](int v) { return !program.getType(v).shape.empty(); });
  if (x < 0)
    return false;
  const ValueType &from = program.getType(x);
  std::vector<int64_t> offsets, sizes;
  ValueType type{from.dtype, {}};
  for (int64_t size : from.shape) {
    if (chance(0.2)) { // the whole dim, as -1
      offsets.push_back(0);
      sizes.push_back(-1);
      type.shape.push_back(size);
      continue;
    }
    int64_t offset = uniform(0, size - 1);
    int64_t length = uniform(1, size - offset);
    offsets.push_back(offset);
    sizes.push_back(length);
    type.shape.push_back(length);
  }
  return append({OpKind::Slice, "kiln.slice", {x}, offsets, sizes, 0, type});
}

bool Generator::makeConcat() {
  int x = pick([&](int v) { return !program.getType(v).shape.empty(); });
  if (x < 0)
    return false;
  ValueType type = program.getType(x);
  int64_t dim = uniform(0, type.shape.size() - 1);
  std::vector<int> parts{x};
  int64_t extra = uniform(1, 2);
  for (int64_t i = 0; i < extra; ++i) {
    // A part that fits except along `dim`: an existing one, or a new
    // argument of another size there.
    int part = pick([&](int v) {
      const ValueType &t = program.getType(v);
      if (t.dtype != type.dtype || t.shape.size() != type.shape.size())
        return false;
      for (size_t d = 0; d < t.shape.size(); ++d)
        if (static_cast<int64_t>(d) != dim && t.shape[d] != type.shape[d])
          return false;
      return true;
    });
    if (part < 0 || chance(0.4)) {
      ValueType partType = type;
      partType.shape[dim] = randomDim();
      if (partType.getNumElements() > maxElements)
        return false;
      int at = static_cast<int>(program.arguments.size());
      for (int &p : parts)
        if (p >= at)
          ++p;
      part = addArgument(partType, {});
    }
    parts.push_back(part);
  }
  ValueType result = program.getType(parts[0]);
  result.shape[dim] = 0;
  for (int p : parts)
    result.shape[dim] += program.getType(p).shape[dim];
  return append({OpKind::Concat, "kiln.concat", parts, {dim}, {}, 0, result});
}

bool Generator::makeReduce() {
  int x = pick(
      [&](int v) { return isNumeric(v) && !program.getType(v).shape.empty(); });
  if (x < 0)
    return false;
  const ValueType &from = program.getType(x);
  std::vector<int64_t> dims;
  ValueType type{from.dtype, {}};
  for (int64_t d = 0; d < static_cast<int64_t>(from.shape.size()); ++d) {
    if (chance(0.5))
      dims.push_back(d);
    else
      type.shape.push_back(from.shape[d]);
  }
  if (dims.empty()) {
    dims.push_back(0);
    type.shape.erase(type.shape.begin());
  }
  return append({OpKind::Reduce,
                 chance(0.7) ? "kiln.reduce_sum" : "kiln.reduce_max",
                 {x},
                 dims,
                 {},
                 0,
                 type});
}

bool Generator::makeMatMul() {
  int a = pick([&](int v) {
    size_t rank = program.getType(v).shape.size();
    return isFloat(v) && (rank == 2 || rank == 3);
  });
  if (a < 0)
    return false;
  ValueType ta = program.getType(a);
  bool transposeA = chance(0.5), transposeB = chance(0.5);
  size_t r = ta.shape.size();
  int64_t m = ta.shape[r - (transposeA ? 1 : 2)];
  int64_t k = ta.shape[r - (transposeA ? 2 : 1)];
  int64_t n = randomDim();
  ValueType tb{ta.dtype, {}};
  if (r == 3)
    tb.shape.push_back(ta.shape[0]);
  if (transposeB)
    tb.shape.insert(tb.shape.end(), {n, k});
  else
    tb.shape.insert(tb.shape.end(), {k, n});
  if (tb.getNumElements() > maxElements)
    return false;
  // A partner of any n: look for one before making one.
  int b = pick([&](int v) {
    const ValueType &t = program.getType(v);
    return t.dtype == tb.dtype && t.shape.size() == r &&
           (r == 2 || t.shape[0] == tb.shape[0]) &&
           t.shape[r - (transposeB ? 1 : 2)] == k;
  });
  if (b < 0 || chance(0.3))
    b = partner(tb, false, {&a});
  const ValueType &bt = program.getType(b);
  n = bt.shape[r - (transposeB ? 2 : 1)];
  ValueType type{ta.dtype, {}};
  if (r == 3)
    type.shape.push_back(ta.shape[0]);
  type.shape.insert(type.shape.end(), {m, n});
  return append({OpKind::MatMul,
                 "kiln.matmul",
                 {a, b},
                 {transposeA ? 1 : 0, transposeB ? 1 : 0},
                 {},
                 0,
                 type});
}

bool Generator::makeConstant() {
  ValueType type = randomType(randomFloatType());
  double value = std::ldexp(static_cast<double>(uniform(-64, 64)), -4);
  return append({OpKind::Constant, "kiln.constant", {}, {}, {}, value, type});
}

bool Generator::makeIntegerOp() {
  int a = pick([&](int v) { return isInteger(v); });
  if (a < 0)
    return false;
  ValueType type = program.getType(a);
  if (chance(0.2)) {
    std::vector<const ElementwiseRule *> unary =
        elementwiseCandidates(1, false, -1, /*integers=*/true);
    const char *name = unary[uniform(0, unary.size() - 1)]->name;
    return append({OpKind::Unary, name, {a}, {}, {}, 0, type});
  }
  int b = chance(0.15) ? a : partner(type, false, {&a});
  std::vector<const ElementwiseRule *> binary =
      elementwiseCandidates(2, false, -1, /*integers=*/true);
  const char *name = binary[uniform(0, binary.size() - 1)]->name;
  return append({OpKind::Binary, name, {a, b}, {}, {}, 0, type});
}

bool Generator::makeIota() {
  ValueType type = randomType(chance(0.8) ? randomIndexType() : DType::F32);
  if (type.shape.empty())
    type.shape.push_back(randomDim());
  int64_t dim = uniform(0, type.shape.size() - 1);
  return append({OpKind::Iota, "kiln.iota", {}, {dim}, {}, 0, type});
}

bool Generator::makeTake() {
  int x = pick(
      [&](int v) { return isNumeric(v) && !program.getType(v).shape.empty(); });
  if (x < 0)
    return false;
  int64_t rank = program.getType(x).shape.size();
  int64_t dim = uniform(0, rank - 1);
  int idx = indices({&x});
  const ValueType &from = program.getType(x);
  ValueType type{from.dtype,
                 getTakeShape(from.shape, program.getType(idx).shape, dim)};
  return append({OpKind::Take, "kiln.take", {x, idx}, {dim}, {}, 0, type});
}

bool Generator::makeScatterAdd() {
  int x = pick(
      [&](int v) { return isNumeric(v) && !program.getType(v).shape.empty(); });
  if (x < 0)
    return false;
  int64_t rank = program.getType(x).shape.size();
  int64_t dim = uniform(0, rank - 1);
  int idx = indices({&x});
  const ValueType &from = program.getType(x);
  ValueType updates{from.dtype,
                    getTakeShape(from.shape, program.getType(idx).shape, dim)};
  if (updates.getNumElements() > maxElements)
    return false;
  int u = partner(updates, false, {&x, &idx});
  ValueType type = program.getType(x);
  return append({OpKind::ScatterAdd,
                 "kiln.scatter_add",
                 {x, idx, u},
                 {dim},
                 {},
                 0,
                 type});
}

bool Generator::makeArgmax() {
  // Exact operands only: a near tie may go either way otherwise.
  int x = pick([&](int v) {
    return isNumeric(v) && bounds.error[v] == 0 &&
           !program.getType(v).shape.empty();
  });
  if (x < 0)
    return false;
  const ValueType &from = program.getType(x);
  int64_t dim = uniform(0, from.shape.size() - 1);
  ValueType type{randomIndexType(), from.shape};
  type.shape.erase(type.shape.begin() + dim);
  return append({OpKind::Argmax, "kiln.argmax", {x}, {dim}, {}, 0, type});
}

bool Generator::makeRngUniform() {
  int key = partner({DType::I64, {2}}, false, {});
  ValueType type = randomType(DType::F32);
  return append(
      {OpKind::RngUniform, "kiln.rng_uniform", {key}, {}, {}, 0, type});
}

bool Generator::dependsOn(int from, int to) const {
  int numArgs = static_cast<int>(program.arguments.size());
  std::vector<int> stack{from};
  std::vector<bool> seen(program.getNumValues(), false);
  while (!stack.empty()) {
    int v = stack.back();
    stack.pop_back();
    if (v == to)
      return true;
    if (v < numArgs || seen[v])
      continue;
    seen[v] = true;
    for (int operand : program.ops[v - numArgs].operands)
      stack.push_back(operand);
  }
  return false;
}

bool Generator::makeVjp() {
  // Second order at most: a callee's callee has no kiln.vjp.
  if (depth >= 2)
    return false;
  Generator inner(rng, depth + 1);
  Program callee = inner.run(static_cast<int>(uniform(2, depth ? 6 : 12)));
  // Float results only (a cotangent of an i1 or an integer means nothing).
  std::vector<int> results;
  for (int r : callee.results)
    if (isFloatDType(callee.getType(r).dtype))
      results.push_back(r);
  if (results.empty())
    return false;
  callee.results = results;
  callee.removeDeadCode();
  if (callee.arguments.empty())
    return false; // nothing to differentiate with respect to
  // A random non-empty subset of the float arguments (an integer has no
  // gradient: wrt naming one is a verifier error).
  std::vector<int64_t> wrt, floats;
  int64_t numArgs = static_cast<int64_t>(callee.arguments.size());
  for (int64_t i = 0; i < numArgs; ++i)
    if (isFloatDType(callee.arguments[i].dtype))
      floats.push_back(i);
  for (int64_t i : floats)
    if (chance(0.5))
      wrt.push_back(i);
  if (wrt.empty() && !floats.empty())
    wrt.push_back(floats[uniform(0, floats.size() - 1)]);
  if (wrt.empty())
    return false;
  // The callee's arguments: values none of which is computed from another
  // (kiln.vjp differentiates with respect to its parameters, the lazy
  // API's grad with respect to tensors: they agree only then), or new
  // arguments. Then one cotangent per result, any value of its type.
  std::vector<int> operands;
  for (const ValueType &type : callee.arguments) {
    // Exact values in [-1, 1], as the callee was generated for (its
    // comparisons then stay exact, and its domains safe).
    int v = pick([&](int w) {
      return program.getType(w) == type && bounds.error[w] == 0 &&
             bounds.magnitude(w) <= 1 &&
             llvm::none_of(operands, [&](int chosen) {
               return dependsOn(w, chosen) || dependsOn(chosen, w);
             });
    });
    operands.push_back(v >= 0 && chance(0.7) ? v : addArgument(type, operands));
  }
  for (int r : callee.results) {
    ValueType type = callee.getType(r);
    int v = pick([&](int w) { return program.getType(w) == type; });
    operands.push_back(v >= 0 && chance(0.7) ? v : addArgument(type, operands));
  }
  Op vjp{OpKind::Vjp, "kiln.vjp", operands, wrt, {}, 0, {}};
  vjp.callee = static_cast<int>(program.functions.size());
  for (int64_t i : wrt)
    vjp.resultTypes.push_back(callee.arguments[i]);
  program.functions.push_back(std::move(callee));
  program.ops.push_back(vjp);
  int tuple = program.getNumValues() - 1;
  for (size_t k = 0; k < wrt.size(); ++k)
    program.ops.push_back({OpKind::VjpResult,
                           "kiln.vjp",
                           {tuple},
                           {static_cast<int64_t>(k)},
                           {},
                           0,
                           vjp.resultTypes[k]});
  refreshBounds();
  bool bounded = true;
  for (int v = tuple + 1; v < program.getNumValues(); ++v)
    bounded &=
        std::isfinite(bounds.error[v]) && bounds.magnitude(v) <= maxMagnitude;
  if (bounded)
    return true;
  program.ops.resize(tuple - program.arguments.size());
  program.functions.pop_back();
  refreshBounds();
  return false;
}

Program Generator::run(int maxOps) {
  int numArgs = static_cast<int>(uniform(1, 3));
  for (int i = 0; i < numArgs; ++i)
    program.arguments.push_back(randomType(randomFloatType()));
  refreshBounds();
  int numOps = static_cast<int>(uniform(1, std::max(1, maxOps)));
  using Maker = bool (Generator::*)();
  // A callee differentiates more often: second-order programs.
  const std::pair<Maker, int> makers[] = {
      {&Generator::makeUnary, 6},         {&Generator::makeBinary, 6},
      {&Generator::makePositiveUnary, 2}, {&Generator::makePositiveBinary, 2},
      {&Generator::makeCmp, 1},           {&Generator::makeSelect, 1},
      {&Generator::makeConvert, 1},       {&Generator::makeBroadcast, 2},
      {&Generator::makeReshape, 1},       {&Generator::makeTranspose, 1},
      {&Generator::makeSlice, 2},         {&Generator::makeConcat, 2},
      {&Generator::makeReduce, 2},        {&Generator::makeMatMul, 2},
      {&Generator::makeConstant, 1},      {&Generator::makeVjp, depth ? 8 : 3},
      {&Generator::makeIntegerOp, 1},     {&Generator::makeIota, 1},
      {&Generator::makeTake, 2},          {&Generator::makeScatterAdd, 1},
      {&Generator::makeArgmax, 1},        {&Generator::makeRngUniform, 1}};
  // A third of the programs are built around a gradient.
  if (depth == 0 && chance(0.3))
    makeVjp();
  int total = 0;
  for (const auto &[maker, weight] : makers)
    total += weight;
  for (int attempts = 0;
       static_cast<int>(program.ops.size()) < numOps && attempts < 4 * numOps;
       ++attempts) {
    int64_t draw = uniform(0, total - 1);
    for (const auto &[maker, weight] : makers) {
      if ((draw -= weight) < 0) {
        (this->*maker)();
        break;
      }
    }
  }
  // Results: the last value, and sometimes a few earlier ones.
  int n = program.getNumValues();
  program.results.push_back(n - 1);
  for (int extra = program.ops.empty() ? 0 : static_cast<int>(uniform(0, 2));
       extra > 0; --extra) {
    int v = static_cast<int>(uniform(program.arguments.size(), n - 1));
    if (v >= 0 && !program.isTuple(v) &&
        std::find(program.results.begin(), program.results.end(), v) ==
            program.results.end())
      program.results.push_back(v);
  }
  // Gradients nothing reads are results (else they would be dead code).
  for (int v = 0; v < n; ++v) {
    const Op *op = v >= static_cast<int>(program.arguments.size())
                       ? &program.ops[v - program.arguments.size()]
                       : nullptr;
    bool used = llvm::any_of(program.ops, [&](const Op &user) {
      return llvm::is_contained(user.operands, v);
    });
    if (op && op->kind == OpKind::VjpResult && !used && chance(0.8) &&
        !llvm::is_contained(program.results, v))
      program.results.push_back(v);
  }
  program.removeDeadCode();
  return program;
}

Program kiln::fuzz::generateProgram(std::mt19937_64 &rng, int maxOps) {
  return Generator(rng).run(maxOps);
}

const std::vector<std::string> &kiln::fuzz::getGeneratedOpNames() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> all;
    for (int arity : {1, 2})
      for (const ElementwiseRule *rule : getElementwiseRules(arity))
        all.push_back(rule->name);
    for (const char *name :
         {"kiln.cmp", "kiln.select", "kiln.convert", "kiln.broadcast_in_dim",
          "kiln.reshape", "kiln.transpose", "kiln.slice", "kiln.concat",
          "kiln.reduce_sum", "kiln.reduce_max", "kiln.matmul", "kiln.constant",
          "kiln.vjp", "kiln.iota", "kiln.take", "kiln.scatter_add",
          "kiln.argmax", "kiln.rng_uniform"})
      all.push_back(name);
    return all;
  }();
  return names;
}
