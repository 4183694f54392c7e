//===- ElementwiseRules.h - what the fuzzer knows of each elementwise op -===//
//
// One rule per elementwise op of TraceOps.def (its KILN_TRACE_UNARY,
// KILN_TRACE_UNARY_FLAG and KILN_TRACE_BINARY lines), in one table
// (ElementwiseRules.cpp): the operands the generator must keep in the op's
// domain, the bounds of the result (Program::computeBounds) and the
// textbook derivative (Derivative.cpp's reverse mode, independent of
// -kiln-autodiff's VjpRules.cpp). The generator draws from the table and
// the lazy backend records through TraceOps.def, so a new elementwise op
// is covered by adding its rule; an op of TraceOps.def without one stops
// kiln-fuzz-diff with a message naming it.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_TOOLS_FUZZ_ELEMENTWISERULES_H
#define KILN_TOOLS_FUZZ_ELEMENTWISERULES_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <vector>

namespace kiln::fuzz {

/// Every element of a value lies in [low, high].
struct Interval {
  double low, high;
  double magnitude() const { return std::max(std::abs(low), std::abs(high)); }
};

inline Interval hull(std::initializer_list<double> values) {
  return {std::min(values), std::max(values)};
}

/// Applies a monotone increasing `f` to an interval.
template <typename Fn> Interval increasing(Interval x, Fn f) {
  return {f(x.low), f(x.high)};
}

/// Emits the ops of a derivative into a program (Derivative.cpp); values
/// are numbered as in Program.
class DerivativeBuilder {
public:
  virtual ~DerivativeBuilder() = default;
  virtual int unary(const char *name, int x) = 0;
  virtual int binary(const char *name, int a, int b) = 0;
  /// The constant `value` of `like`'s type.
  virtual int splat(int like, double value) = 0;
  /// A comparison that differentiation made (predicates as OpKind::Cmp:
  /// eq, ne, lt, le, gt, ge).
  virtual int kink(int64_t predicate, int a, int b) = 0;
  virtual int select(int predicate, int a, int b) = 0;

  int add(int a, int b) { return binary("kiln.add", a, b); }
  int sub(int a, int b) { return binary("kiln.sub", a, b); }
  int mul(int a, int b) { return binary("kiln.mul", a, b); }
  int div(int a, int b) { return binary("kiln.div", a, b); }
  int neg(int x) { return unary("kiln.neg", x); }
  /// `x` times the constant `c`.
  int scale(int x, double c) { return mul(x, splat(x, c)); }
  /// `g` where `p`, else 0.
  int keepWhere(int p, int g) { return select(p, g, splat(g, 0)); }
};

struct ElementwiseRule {
  /// The kiln op's name, "kiln.tanh".
  const char *name;
  int arity;
  /// Whether the op takes integer operands too (the generator's integer
  /// arithmetic draws it).
  bool integers = false;
  /// Operands the generator makes at least 0.5 first (bit k: operand k).
  unsigned positiveOperands = 0;
  /// Operands whose magnitude the generator keeps at most
  /// `operandMagnitude` (bit k: operand k), so that the result stays
  /// finite (exp, pow's exponent).
  unsigned limitedOperands = 0;
  double operandMagnitude = 0;
  /// The result's interval `r` and error bound `E` (see Program.h) from the
  /// operands' intervals `x` and errors `e`, with `u` the result type's unit
  /// roundoff. Left infinite where the operands may leave the domain.
  void (*bound)(llvm::ArrayRef<Interval> x, llvm::ArrayRef<double> e, double u,
                Interval &r, double &E);
  /// Adds, through `contribute(k, adjoint)`, operand k's adjoint given the
  /// result's adjoint `g`, the result `y` and the operands `x`.
  void (*derivative)(DerivativeBuilder &b, int g, int y, llvm::ArrayRef<int> x,
                     llvm::function_ref<void(size_t, int)> contribute);
};

/// The rule of elementwise op `name`, or null when it has none (not an
/// elementwise op of TraceOps.def).
const ElementwiseRule *findElementwiseRule(llvm::StringRef name);

/// The rules of TraceOps.def's elementwise ops of `arity` operands, in its
/// order. Exits with a message naming any op that has no rule.
const std::vector<const ElementwiseRule *> &getElementwiseRules(int arity);

} // namespace kiln::fuzz

#endif // KILN_TOOLS_FUZZ_ELEMENTWISERULES_H
