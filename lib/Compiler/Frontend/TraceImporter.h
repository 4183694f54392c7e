//===- TraceImporter.h - a trace program as a kiln function -----*- C++ -*-===//
//
// The only place a recorded trace meets MLIR, on a cache miss: the program
// becomes `func.func @name(parameters...) -> (outputs...)` of kiln ops,
// which the CPU pipeline compiles like any kiln-run input (and which
// KILN_DUMP_TRACES writes out for kiln-opt and kiln-run).
//
//===----------------------------------------------------------------------===//

#ifndef KILN_COMPILER_FRONTEND_TRACEIMPORTER_H
#define KILN_COMPILER_FRONTEND_TRACEIMPORTER_H

#include "Compiler/Frontend/GenericShapes.h"
#include "kiln/Trace/Trace.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

namespace kiln {

/// The kiln-dialect module holding `program` as the public function `name`:
/// one argument per parameter (in the program's order), one result per
/// output. Each gradient's callee is a private function of the module
/// (`vjp_callee_<hash>`, one per distinct callee). The context must have the
/// kiln and func dialects loaded.
/// `program` as the function `name` of a new module; with `dynamic`, a
/// shape-generic function whose dynamic dims are those.
mlir::OwningOpRef<mlir::ModuleOp>
importTrace(mlir::MLIRContext &context, const TraceProgram &program,
            llvm::StringRef name = "main",
            const DynamicDims *dynamic = nullptr);

} // namespace kiln

#endif // KILN_COMPILER_FRONTEND_TRACEIMPORTER_H
