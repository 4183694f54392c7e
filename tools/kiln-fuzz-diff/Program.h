//===- Program.h - the random programs of kiln-fuzz-diff --------*- C++ -*-===//
//
// A random kiln program as a list of ops over numbered values, small enough
// to shrink by editing: arguments are values 0..N-1, op i defines value
// N+i. It prints as one `func.func @main` in the generic form that
// DIALECT.md fixes, so the printed text is also the reproducer.
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
};

struct Op {
  OpKind kind;
  std::string name;
  std::vector<int> operands;
  std::vector<int64_t> ints, ints2;
  double scalar = 0;
  ValueType type;
};

struct Program {
  std::vector<ValueType> arguments;
  std::vector<Op> ops;
  std::vector<int> results;

  int getNumValues() const {
    return static_cast<int>(arguments.size() + ops.size());
  }
  const ValueType &getType(int value) const;
  /// The generic-form MLIR text of `func.func @main`.
  std::string print() const;
  /// Per value, the bounds described above (infinite where an op's domain
  /// or a comparison's exactness cannot be guaranteed).
  struct Bounds {
    std::vector<double> low, high, error;
    double magnitude(int v) const {
      return std::max(std::abs(low[v]), std::abs(high[v]));
    }
  };
  Bounds computeBounds() const;
  /// Drops ops that no result needs and arguments nothing uses.
  void removeDeadCode();
};

/// The kiln op names the generator can emit, for `ops_covered`.
const std::vector<std::string> &getGeneratedOpNames();

/// A random well-typed program of at most `maxOps` ops.
Program generateProgram(std::mt19937_64 &rng, int maxOps);

/// The unit roundoff of `dtype` (2^-24 for f32).
double getUnitRoundoff(DType dtype);

} // namespace kiln::fuzz

#endif // KILN_TOOLS_FUZZ_PROGRAM_H
