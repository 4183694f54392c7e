//===- Shrink.cpp - delta debugging of failing fuzz programs --------------===//
//
// Greedy reduction to a fixed point, each step kept only when the program
// still fails the same way:
//   - drop one result (of several);
//   - cut an op off: its value becomes a new argument of its type, and what
//     only it needed dies;
//   - bypass an op whose first operand has its type (x -> tanh(x) -> y
//     becomes x -> y);
//   - make a dim size smaller everywhere the program chooses it (to 1, or
//     to half), the other types following (Program::retype).
//
//===----------------------------------------------------------------------===//

#include "Check.h"

#include <functional>
#include <set>

using namespace kiln;
using namespace kiln::fuzz;

/// `program` with value `v` (an op's) replaced by a new argument.
static Program cutOff(const Program &program, int v) {
  Program cut = program;
  int numArgs = static_cast<int>(program.arguments.size());
  cut.arguments.push_back(program.getType(v));
  auto renumber = [&](int w) {
    if (w == v)
      return numArgs; // the new argument
    return w >= numArgs ? w + 1 : w;
  };
  for (Op &op : cut.ops)
    for (int &operand : op.operands)
      operand = renumber(operand);
  for (int &r : cut.results)
    r = renumber(r);
  cut.removeDeadCode();
  return cut;
}

/// `program` with op value `v` replaced, wherever used, by `by`.
static Program bypass(const Program &program, int v, int by) {
  Program cut = program;
  for (Op &op : cut.ops)
    for (int &operand : op.operands)
      if (operand == v)
        operand = by;
  for (int &r : cut.results)
    if (r == v)
      r = by;
  cut.removeDeadCode();
  return cut;
}

/// The dim sizes above 1 that `program` (or a callee) chooses.
static void collectSizes(const Program &program,
                         std::set<int64_t, std::greater<int64_t>> &sizes) {
  auto add = [&](const ValueType &type) {
    for (int64_t size : type.shape)
      if (size > 1)
        sizes.insert(size);
  };
  for (const ValueType &type : program.arguments)
    add(type);
  for (const Op &op : program.ops)
    if (op.kind == OpKind::Constant || op.kind == OpKind::BroadcastInDim ||
        op.kind == OpKind::Reshape || op.kind == OpKind::Iota ||
        op.kind == OpKind::RngUniform)
      add(op.type);
  for (const Program &callee : program.functions)
    collectSizes(callee, sizes);
}

Program kiln::fuzz::shrinkProgram(const Program &program, Backend backend,
                                  uint64_t seed, Outcome::Kind kind,
                                  unsigned timeoutSeconds, bool injectError) {
  Program best = program;
  auto stillFails = [&](const Program &candidate) {
    return checkProgram(candidate, backend, seed, timeoutSeconds, injectError)
               .kind == kind;
  };
  int budget = 300; // checks, each a compile
  bool progress = true;
  while (progress && budget > 0) {
    progress = false;
    for (size_t r = 0;
         best.results.size() > 1 && r < best.results.size() && budget > 0;
         ++r) {
      Program candidate = best;
      candidate.results.erase(candidate.results.begin() + r);
      candidate.removeDeadCode();
      --budget;
      if (stillFails(candidate)) {
        best = std::move(candidate);
        progress = true;
        --r;
      }
    }
    // Smaller dims: the largest sizes first, to 1, else to half.
    std::set<int64_t, std::greater<int64_t>> sizes;
    collectSizes(best, sizes);
    bool shrunk = false; // then the sizes are collected again
    for (int64_t size : sizes) {
      for (int64_t to : {int64_t(1), size / 2}) {
        if (shrunk || to < 1 || to == size || budget <= 0)
          continue;
        Program candidate = best;
        candidate.substituteSize(size, to);
        if (!candidate.retype())
          continue;
        --budget;
        if (stillFails(candidate)) {
          best = std::move(candidate);
          progress = shrunk = true;
        }
      }
    }
    // Later ops first: cutting one near the results removes the most.
    for (int i = static_cast<int>(best.ops.size()) - 1; i >= 0 && budget > 0;
         --i) {
      if (i >= static_cast<int>(best.ops.size()))
        continue;
      int v = static_cast<int>(best.arguments.size()) + i;
      const Op &op = best.ops[i];
      if (op.kind == OpKind::Vjp)
        continue; // a tuple: its results are cut or bypassed instead
      if (!op.operands.empty() && !best.isTuple(op.operands[0]) &&
          best.getType(op.operands[0]) == op.type) {
        Program candidate = bypass(best, v, op.operands[0]);
        --budget;
        if (stillFails(candidate)) {
          best = std::move(candidate);
          progress = true;
          continue;
        }
      }
      if (op.operands.empty())
        continue;
      Program candidate = cutOff(best, v);
      if (candidate.ops.size() >= best.ops.size())
        continue;
      --budget;
      if (stillFails(candidate)) {
        best = std::move(candidate);
        progress = true;
      }
    }
  }
  return best;
}
