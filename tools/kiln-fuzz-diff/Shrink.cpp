//===- Shrink.cpp - delta debugging of failing fuzz programs --------------===//
//
// Greedy reduction to a fixed point, each step kept only when the program
// still fails the same way:
//   - drop one result (of several);
//   - cut an op off: its value becomes a new argument of its type, and what
//     only it needed dies;
//   - bypass an op whose first operand has its type (x -> tanh(x) -> y
//     becomes x -> y).
// Shapes are not reduced yet.
//
//===----------------------------------------------------------------------===//

#include "Check.h"

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

Program kiln::fuzz::shrinkProgram(const Program &program, Backend backend,
                                  uint64_t seed, Outcome::Kind kind,
                                  unsigned timeoutSeconds) {
  Program best = program;
  auto stillFails = [&](const Program &candidate) {
    return checkProgram(candidate, backend, seed, timeoutSeconds).kind == kind;
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
