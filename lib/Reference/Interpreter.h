//===- Interpreter.h - reference evaluator of kiln programs ----*- C++ -*-===//
//
// A small, obviously correct evaluator of kiln ops on host buffers, used to
// check compiled results. Every op computes in double and rounds its result
// to the element type, so its answers are what an exact implementation
// rounding once per op gives. Slow by design: no fusion, no tricks.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_REFERENCE_INTERPRETER_H
#define KILN_REFERENCE_INTERPRETER_H

#include "kiln/Support/HostTensor.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/Support/Error.h"

#include <vector>

namespace kiln::reference {

/// Evaluates `func` on `inputs` (one per argument, matching its type; dynamic
/// dims take the input's size). Supports every kiln op, func.call and
/// func.return. kiln.vjp is evaluated by central finite differences of its
/// callee in double precision, independently of -kiln-autodiff.
llvm::Expected<std::vector<HostTensor>>
evaluate(mlir::func::FuncOp func, llvm::ArrayRef<HostTensor> inputs);

/// Evaluates `func` as a group of ranks, one per entry of `perRankInputs`,
/// each on a thread of its own: the collectives combine the ranks' values
/// (group 0 is all of them; group i + 1 the ranks `groups[i]` lists, in
/// that order, as the runtime's kiln_rt_dist_group_create makes them), and
/// kiln.vjp of a function with collectives differentiates the sum over the
/// ranks of their objectives. Fails, naming the ranks, where one fails
/// (a collective of a group it is not in, say) or the ranks run different
/// collectives.
llvm::Expected<std::vector<std::vector<HostTensor>>>
evaluateRanks(mlir::func::FuncOp func,
              llvm::ArrayRef<std::vector<HostTensor>> perRankInputs,
              llvm::ArrayRef<std::vector<int>> groups = {});

} // namespace kiln::reference

#endif // KILN_REFERENCE_INTERPRETER_H
