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

} // namespace kiln::reference

#endif // KILN_REFERENCE_INTERPRETER_H
