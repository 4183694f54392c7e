//===- ElementwiseRules.cpp - the fuzzer's rule for each elementwise op --===//
//
// Bounds: a transcendental adds a few ulps of its own (4u covers the
// polynomial expansions), plus the operand's error times the largest slope;
// a rounded arithmetic op adds u times its magnitude. Derivatives: the
// textbook ones, with the tie rules of the ops' descriptions (relu and abs:
// 0 at 0; max and min: ties split evenly), each comparison a kink.
//
//===----------------------------------------------------------------------===//

#include "ElementwiseRules.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/Support/raw_ostream.h"

#include <array>
#include <cstdlib>

using namespace kiln::fuzz;
using llvm::ArrayRef;

namespace {

using Contribute = llvm::function_ref<void(size_t, int)>;
using Bound = void (*)(ArrayRef<Interval>, ArrayRef<double>, double, Interval &,
                       double &);
using Derivative = void (*)(DerivativeBuilder &, int, int, ArrayRef<int>,
                            Contribute);

// The predicates of a kink, as OpKind::Cmp numbers them.
enum : int64_t { kEq = 0, kLt = 2, kGt = 4 };

ElementwiseRule unaryRule(const char *name, Bound bound,
                          Derivative derivative) {
  return {name, 1, false, 0, 0, 0, bound, derivative};
}

/// `rule`, drawn on integer operands too (Kiln_NumericTensor in KilnOps.td).
ElementwiseRule integersToo(ElementwiseRule rule) {
  rule.integers = true;
  return rule;
}

ElementwiseRule binaryRule(const char *name, Bound bound,
                           Derivative derivative) {
  return {name, 2, false, 0, 0, 0, bound, derivative};
}

/// max and min: the winner takes g; a tie gives half to each side.
template <int64_t wins>
void extremumDerivative(DerivativeBuilder &b, int g, int, ArrayRef<int> x,
                        Contribute contribute) {
  auto share = [&](int self, int other) {
    return b.select(b.kink(wins, self, other), g,
                    b.keepWhere(b.kink(kEq, self, other), b.scale(g, 0.5)));
  };
  contribute(0, share(x[0], x[1]));
  contribute(1, share(x[1], x[0]));
}

/// sin and cos: within [-1, 1], slopes at most 1.
void periodicBound(ArrayRef<Interval>, ArrayRef<double> e, double u,
                   Interval &r, double &E) {
  r = {-1, 1};
  E = e[0] + 4 * u;
}

std::vector<ElementwiseRule> makeRules() {
  std::vector<ElementwiseRule> rules;
  // Unary.
  rules.push_back(integersToo(unaryRule(
      "kiln.neg",
      [](ArrayRef<Interval> x, ArrayRef<double> e, double, Interval &r,
         double &E) {
        r = {-x[0].high, -x[0].low};
        E = e[0];
      },
      [](DerivativeBuilder &b, int g, int, ArrayRef<int>, Contribute c) {
        c(0, b.neg(g));
      })));
  rules.push_back(integersToo(unaryRule(
      "kiln.abs",
      [](ArrayRef<Interval> x, ArrayRef<double> e, double, Interval &r,
         double &E) {
        r = x[0].low >= 0    ? x[0]
            : x[0].high <= 0 ? Interval{-x[0].high, -x[0].low}
                             : Interval{0, x[0].magnitude()};
        E = e[0];
      },
      [](DerivativeBuilder &b, int g, int, ArrayRef<int> x, Contribute c) {
        int zero = b.splat(x[0], 0);
        c(0, b.select(b.kink(kGt, x[0], zero), g,
                      b.keepWhere(b.kink(kLt, x[0], zero), b.neg(g))));
      })));
  rules.push_back(unaryRule(
      "kiln.relu",
      [](ArrayRef<Interval> x, ArrayRef<double> e, double, Interval &r,
         double &E) {
        r = {std::max(x[0].low, 0.0), std::max(x[0].high, 0.0)};
        E = e[0];
      },
      [](DerivativeBuilder &b, int g, int, ArrayRef<int> x, Contribute c) {
        c(0, b.keepWhere(b.kink(kGt, x[0], b.splat(x[0], 0)), g));
      }));
  rules.push_back(unaryRule(
      "kiln.tanh",
      [](ArrayRef<Interval> x, ArrayRef<double> e, double u, Interval &r,
         double &E) {
        r = increasing(x[0], [](double t) { return std::tanh(t); });
        E = e[0] + 4 * u;
      },
      [](DerivativeBuilder &b, int g, int y, ArrayRef<int>, Contribute c) {
        c(0, b.mul(g, b.sub(b.splat(y, 1), b.mul(y, y))));
      }));
  rules.push_back(unaryRule(
      "kiln.sigmoid",
      [](ArrayRef<Interval> x, ArrayRef<double> e, double u, Interval &r,
         double &E) {
        r = increasing(x[0], [](double t) { return 1 / (1 + std::exp(-t)); });
        E = 0.25 * e[0] + 4 * u;
      },
      [](DerivativeBuilder &b, int g, int y, ArrayRef<int>, Contribute c) {
        c(0, b.mul(g, b.mul(y, b.sub(b.splat(y, 1), y))));
      }));
  rules.push_back(unaryRule(
      "kiln.sin", periodicBound,
      [](DerivativeBuilder &b, int g, int, ArrayRef<int> x, Contribute c) {
        c(0, b.mul(g, b.unary("kiln.cos", x[0])));
      }));
  rules.push_back(unaryRule(
      "kiln.cos", periodicBound,
      [](DerivativeBuilder &b, int g, int, ArrayRef<int> x, Contribute c) {
        c(0, b.mul(g, b.neg(b.unary("kiln.sin", x[0]))));
      }));
  rules.push_back(unaryRule(
      "kiln.erf",
      [](ArrayRef<Interval> x, ArrayRef<double> e, double u, Interval &r,
         double &E) {
        r = increasing(x[0], [](double t) { return std::erf(t); });
        E = 1.13 * e[0] + 4 * u;
      },
      [](DerivativeBuilder &b, int g, int, ArrayRef<int> x, Contribute c) {
        // 2 / sqrt(pi) exp(-x^2)
        int d =
            b.scale(b.unary("kiln.exp", b.neg(b.mul(x[0], x[0]))), M_2_SQRTPI);
        c(0, b.mul(g, d));
      }));
  rules.push_back(unaryRule(
      "kiln.gelu",
      [](ArrayRef<Interval> x, ArrayRef<double> e, double u, Interval &r,
         double &E) {
        // x Phi(x) >= -0.17; its slope is within [-0.13, 1.13].
        r = {-0.17, std::max(x[0].high, 0.0)};
        E = 1.13 * e[0] + 4 * u * std::max(1.0, x[0].magnitude());
      },
      [](DerivativeBuilder &b, int g, int, ArrayRef<int> x, Contribute c) {
        // Phi(x) + x phi(x):
        // 0.5 (1 + erf(x / sqrt 2)) + x exp(-x^2/2) / sqrt(2 pi)
        int a = x[0];
        int cdf = b.scale(
            b.add(b.splat(a, 1), b.unary("kiln.erf", b.scale(a, M_SQRT1_2))),
            0.5);
        int pdf = b.scale(b.unary("kiln.exp", b.scale(b.mul(a, a), -0.5)),
                          0.5 * M_2_SQRTPI * M_SQRT1_2);
        c(0, b.mul(g, b.add(cdf, b.mul(a, pdf))));
      }));
  ElementwiseRule exp = unaryRule(
      "kiln.exp",
      [](ArrayRef<Interval> x, ArrayRef<double> e, double u, Interval &r,
         double &E) {
        r = increasing(x[0], [](double t) { return std::exp(t); });
        E = r.high * (std::expm1(e[0]) + 4 * u);
      },
      [](DerivativeBuilder &b, int g, int y, ArrayRef<int>, Contribute c) {
        c(0, b.mul(g, y));
      });
  exp.limitedOperands = 1;
  exp.operandMagnitude = 3;
  rules.push_back(exp);
  // Positive operands only (the generator makes them so); the bounds stay
  // infinite unless the operand is positive even allowing for its error.
  ElementwiseRule log = unaryRule(
      "kiln.log",
      [](ArrayRef<Interval> x, ArrayRef<double> e, double u, Interval &r,
         double &E) {
        double lo = x[0].low - e[0];
        if (lo <= 0)
          return;
        r = increasing(x[0], [](double t) { return std::log(t); });
        E = e[0] / lo + 4 * u * std::max(1.0, r.magnitude());
      },
      [](DerivativeBuilder &b, int g, int, ArrayRef<int> x, Contribute c) {
        c(0, b.div(g, x[0]));
      });
  ElementwiseRule sqrt = unaryRule(
      "kiln.sqrt",
      [](ArrayRef<Interval> x, ArrayRef<double> e, double u, Interval &r,
         double &E) {
        double lo = x[0].low - e[0];
        if (lo <= 0)
          return;
        r = increasing(x[0], [](double t) { return std::sqrt(t); });
        E = e[0] / (2 * std::sqrt(lo)) + 4 * u * r.high;
      },
      [](DerivativeBuilder &b, int g, int y, ArrayRef<int>, Contribute c) {
        c(0, b.div(b.scale(g, 0.5), y));
      });
  ElementwiseRule rsqrt = unaryRule(
      "kiln.rsqrt",
      [](ArrayRef<Interval> x, ArrayRef<double> e, double u, Interval &r,
         double &E) {
        double lo = x[0].low - e[0];
        if (lo <= 0)
          return;
        r = {1 / std::sqrt(x[0].high), 1 / std::sqrt(x[0].low)};
        E = 0.5 * e[0] * std::pow(lo, -1.5) + 4 * u * r.high;
      },
      [](DerivativeBuilder &b, int g, int y, ArrayRef<int> x, Contribute c) {
        // -x^(-3/2) / 2 = -y / (2 x)
        c(0, b.div(b.mul(b.scale(g, -0.5), y), x[0]));
      });
  ElementwiseRule reciprocal = unaryRule(
      "kiln.reciprocal",
      [](ArrayRef<Interval> x, ArrayRef<double> e, double u, Interval &r,
         double &E) {
        double lo = x[0].low - e[0];
        if (lo <= 0)
          return;
        r = {1 / x[0].high, 1 / x[0].low};
        E = e[0] / (lo * lo) + 4 * u * r.high;
      },
      [](DerivativeBuilder &b, int g, int y, ArrayRef<int>, Contribute c) {
        c(0, b.neg(b.mul(g, b.mul(y, y))));
      });
  for (ElementwiseRule rule : {log, sqrt, rsqrt, reciprocal}) {
    rule.positiveOperands = 1;
    rules.push_back(rule);
  }

  // Binary.
  rules.push_back(integersToo(binaryRule(
      "kiln.add",
      [](ArrayRef<Interval> x, ArrayRef<double> e, double u, Interval &r,
         double &E) {
        r = {x[0].low + x[1].low, x[0].high + x[1].high};
        E = e[0] + e[1] + u * r.magnitude();
      },
      [](DerivativeBuilder &, int g, int, ArrayRef<int>, Contribute c) {
        c(0, g);
        c(1, g);
      })));
  rules.push_back(integersToo(binaryRule(
      "kiln.sub",
      [](ArrayRef<Interval> x, ArrayRef<double> e, double u, Interval &r,
         double &E) {
        r = {x[0].low - x[1].high, x[0].high - x[1].low};
        E = e[0] + e[1] + u * r.magnitude();
      },
      [](DerivativeBuilder &b, int g, int, ArrayRef<int>, Contribute c) {
        c(0, g);
        c(1, b.neg(g));
      })));
  rules.push_back(integersToo(binaryRule(
      "kiln.mul",
      [](ArrayRef<Interval> x, ArrayRef<double> e, double u, Interval &r,
         double &E) {
        Interval a = x[0], b = x[1];
        r = hull(
            {a.low * b.low, a.low * b.high, a.high * b.low, a.high * b.high});
        E = a.magnitude() * e[1] + b.magnitude() * e[0] + e[0] * e[1] +
            u * r.magnitude();
      },
      [](DerivativeBuilder &b, int g, int, ArrayRef<int> x, Contribute c) {
        c(0, b.mul(g, x[1]));
        c(1, b.mul(g, x[0]));
      })));
  rules.push_back(integersToo(binaryRule(
      "kiln.max",
      [](ArrayRef<Interval> x, ArrayRef<double> e, double, Interval &r,
         double &E) {
        r = {std::max(x[0].low, x[1].low), std::max(x[0].high, x[1].high)};
        E = std::max(e[0], e[1]);
      },
      extremumDerivative<kGt>)));
  rules.push_back(integersToo(binaryRule(
      "kiln.min",
      [](ArrayRef<Interval> x, ArrayRef<double> e, double, Interval &r,
         double &E) {
        r = {std::min(x[0].low, x[1].low), std::min(x[0].high, x[1].high)};
        E = std::max(e[0], e[1]);
      },
      extremumDerivative<kLt>)));
  ElementwiseRule div = binaryRule(
      "kiln.div",
      [](ArrayRef<Interval> x, ArrayRef<double> e, double u, Interval &r,
         double &E) {
        Interval a = x[0], b = x[1];
        double lo = b.low - e[1];
        if (lo <= 0)
          return;
        r = hull(
            {a.low / b.low, a.low / b.high, a.high / b.low, a.high / b.high});
        E = e[0] / lo + a.magnitude() * e[1] / (lo * lo) +
            4 * u * r.magnitude();
      },
      [](DerivativeBuilder &b, int g, int y, ArrayRef<int> x, Contribute c) {
        c(0, b.div(g, x[1]));
        c(1, b.neg(b.div(b.mul(g, y), x[1])));
      });
  div.positiveOperands = 2;
  rules.push_back(div);
  ElementwiseRule pow = binaryRule(
      "kiln.pow",
      [](ArrayRef<Interval> x, ArrayRef<double> e, double u, Interval &r,
         double &E) {
        // exp(b log a): corners of the exponent's interval.
        Interval a = x[0], b = x[1];
        double lo = a.low - e[0];
        if (lo <= 0)
          return;
        Interval logA = increasing(a, [](double t) { return std::log(t); });
        Interval exponent = hull({b.low * logA.low, b.low * logA.high,
                                  b.high * logA.low, b.high * logA.high});
        r = increasing(exponent, [](double t) { return std::exp(t); });
        double logMagnitude =
            std::max(std::abs(std::log(lo)), logA.magnitude());
        E = r.high *
                std::expm1(b.magnitude() * e[0] / lo + logMagnitude * e[1]) +
            8 * u * r.high;
      },
      [](DerivativeBuilder &b, int g, int y, ArrayRef<int> x, Contribute c) {
        // a > 0: b a^(b-1) and a^b log a.
        int power = b.binary("kiln.pow", x[0], b.sub(x[1], b.splat(x[1], 1)));
        c(0, b.mul(g, b.mul(x[1], power)));
        c(1, b.mul(g, b.mul(y, b.unary("kiln.log", x[0]))));
      });
  pow.positiveOperands = 1;
  pow.limitedOperands = 2;
  pow.operandMagnitude = 3;
  rules.push_back(pow);
  return rules;
}

const llvm::StringMap<ElementwiseRule> &getRuleMap() {
  static const llvm::StringMap<ElementwiseRule> map = [] {
    llvm::StringMap<ElementwiseRule> byName;
    for (const ElementwiseRule &rule : makeRules())
      byName[rule.name] = rule;
    return byName;
  }();
  return map;
}

} // namespace

const ElementwiseRule *kiln::fuzz::findElementwiseRule(llvm::StringRef name) {
  auto it = getRuleMap().find(name);
  return it == getRuleMap().end() ? nullptr : &it->second;
}

const std::vector<const ElementwiseRule *> &
kiln::fuzz::getElementwiseRules(int arity) {
  static const std::array<std::vector<const ElementwiseRule *>, 2> byArity =
      [] {
        std::vector<const ElementwiseRule *> unary, binary;
        auto add =
            [](std::vector<const ElementwiseRule *> &list, const char *name) {
              const ElementwiseRule *rule = findElementwiseRule(name);
              if (!rule) {
                llvm::errs()
                    << "kiln-fuzz-diff has no rule for " << name
                    << " (TraceOps.def): add one to ElementwiseRules.cpp\n";
                std::exit(2);
              }
              list.push_back(rule);
            };
#define KILN_TRACE_UNARY(Name, OpName, Function) add(unary, OpName);
#define KILN_TRACE_UNARY_FLAG(Name, OpName, Function, Flag) add(unary, OpName);
#define KILN_TRACE_BINARY(Name, OpName, Function) add(binary, OpName);
#include "kiln/Trace/TraceOps.def"
        return std::array<std::vector<const ElementwiseRule *>, 2>{unary,
                                                                   binary};
      }();
  return byArity[arity - 1];
}
