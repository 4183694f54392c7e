//===- Program.h - the random programs of kiln-fuzz-diff --------*- C++ -*-===//
//
// A random kiln program as a list of ops over numbered values, small enough
// to shrink by editing: arguments are values 0..N-1, op i defines value
// N+i. It prints as one `func.func @main` in the generic form that
// docs/Dialect.md fixes, so the printed text is also the reproducer.
//
// Integer arguments are uniform in [-2, 9] (RandomInputs.cpp): as indices
// they are out of range (negative, or past a small dim) and repeated often.
//
// Every value carries bounds, recomputed from the ops by computeBounds():
// an interval [low, high] that holds every element (interval arithmetic
// from arguments in [-1, 1]), and `error`, an upper bound on how far any
// correct implementation (one that rounds each op's result once, up to a
// few ulps for transcendentals, and sums in any order) can be from the
// exact result. A comparison accepts
// |got - reference| <= 4 * error + tiny: the reference rounds too, so both
// sides' errors count. See kiln-fuzz-diff.cpp for the rules.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_TOOLS_FUZZ_PROGRAM_H
#define KILN_TOOLS_FUZZ_PROGRAM_H

#include "kiln/Support/HostTensor.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <vector>

namespace kiln::fuzz {

struct ValueType {
  DType dtype = DType::F32;
  std::vector<int64_t> shape;
  int64_t getNumElements() const;
  bool operator==(const ValueType &other) const {
    return dtype == other.dtype && shape == other.shape;
  }
};

enum class OpKind {
  Unary,          // name: kiln.tanh, ...
  Binary,         // kiln.add, ...
  Cmp,            // ints: {predicate}
  Select,         //
  Convert,        // result dtype
  BroadcastInDim, // ints: dims
  Reshape,        //
  Transpose,      // ints: perm
  Slice,          // ints: offsets, ints2: sizes
  Concat,         // ints: {dim}
  Reduce,         // name: kiln.reduce_sum / kiln.reduce_max; ints: dims
  MatMul,         // ints: {transpose_a, transpose_b}
  Constant,       // scalar: the splat value
  Vjp,            // ints: wrt; callee; resultTypes. Operands: the callee's
                  // arguments, then one cotangent per callee result. Its
                  // value is a tuple, read only by VjpResult.
  VjpResult,      // ints: {k}: the k-th result of the Vjp operand
  Iota,           // ints: {dim}; an i32, i64 or float result
  Take,           // ints: {dim}. Operands: values, integer indices
  ScatterAdd,     // ints: {dim}. Operands: values, integer indices, updates
  Argmax,         // ints: {dim}; an i32 or i64 result
  RngUniform,     // operand: a tensor<2xi64> key; an f32 result
};

struct Op {
  OpKind kind;
  std::string name;
  std::vector<int> operands;
  std::vector<int64_t> ints, ints2;
  double scalar = 0;
  ValueType type;
  /// Vjp: the index of its callee in the program's `functions`, and its
  /// results' types (one per wrt index).
  int callee = -1;
  std::vector<ValueType> resultTypes = {};
  /// A cmp made by differentiation (a kink: relu, abs, max, reduce_max).
  /// Its operands are rarely exact; computeBounds asks whether this one
  /// may flip (see KinkOracle).
  bool isKink = false;
};

struct Program {
  std::vector<ValueType> arguments;
  std::vector<Op> ops;
  std::vector<int> results;
  /// The callees of this program's Vjp ops (each may have its own).
  std::vector<Program> functions;

  int getNumValues() const {
    return static_cast<int>(arguments.size() + ops.size());
  }
  const ValueType &getType(int value) const;
  /// Whether `value` is a Vjp op's tuple (no tensor, no type).
  bool isTuple(int value) const;
  bool hasVjp() const;
  /// The generic-form MLIR text: the callees (private, @f0, @f0_1, ...),
  /// then `func.func @main`.
  std::string print() const;
  /// Per value, the bounds described above (infinite where an op's domain
  /// or a comparison's exactness cannot be guaranteed).
  struct Bounds {
    std::vector<double> low, high, error;
    double magnitude(int v) const {
      return std::max(std::abs(low[v]), std::abs(high[v]));
    }
  };
  /// Whether a kink cmp (the op at `opIndex`) is decided the same way by
  /// every implementation whose operands are within `errorA` and `errorB`
  /// of the exact ones. Without an oracle every kink counts as exact (the
  /// generator's view: it has no values).
  using KinkOracle =
      std::function<bool(int opIndex, double errorA, double errorB)>;
  Bounds computeBounds(const KinkOracle &isExact = nullptr) const;
  /// Drops ops that no result needs and arguments nothing uses.
  void removeDeadCode();
  /// Every dim of size `from` that the program chooses (arguments,
  /// constants, broadcasts' new dims, reshapes' results) made `to`, here
  /// and in the callees; then retype() must follow (Retype.cpp).
  void substituteSize(int64_t from, int64_t to);
  /// Re-derives every op's type from its operands', keeping slices inside
  /// their operands; false when the program no longer types.
  bool retype();
};

/// `program` with every Vjp expanded into explicit ops, innermost first,
/// by the fuzzer's own reverse mode (Derivative.cpp; independent of
/// -kiln-autodiff, with the tie rules that docs/Dialect.md's ops document).
/// The arguments are the same; `valueMap`, if given, maps each of
/// `program`'s values to the expanded one's (-1 for a Vjp's tuple).
Program expandVjps(const Program &program,
                   std::vector<int> *valueMap = nullptr);

/// The kiln op names the generator can emit, for `ops_covered`.
const std::vector<std::string> &getGeneratedOpNames();

/// A random well-typed program of at most `maxOps` ops (and as many again
/// in each callee of a kiln.vjp, nested at most twice).
Program generateProgram(std::mt19937_64 &rng, int maxOps);

/// The shape of kiln.take of `operand` at `indices` along `dim` (and of
/// kiln.scatter_add's updates): `indices`' dims in place of `dim`.
std::vector<int64_t> getTakeShape(const std::vector<int64_t> &operand,
                                  const std::vector<int64_t> &indices,
                                  int64_t dim);

/// The unit roundoff of `dtype` (2^-24 for f32).
double getUnitRoundoff(DType dtype);

} // namespace kiln::fuzz

#endif // KILN_TOOLS_FUZZ_PROGRAM_H
