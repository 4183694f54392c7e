//===- Passes.h - kiln dialect transforms -----------------------*- C++ -*-===//

#ifndef KILN_DIALECT_KILN_TRANSFORMS_PASSES_H
#define KILN_DIALECT_KILN_TRANSFORMS_PASSES_H

#include "kiln/Dialect/Kiln/IR/KilnOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace kiln {

#define GEN_PASS_DECL
#include "kiln/Dialect/Kiln/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "kiln/Dialect/Kiln/Transforms/Passes.h.inc"

/// Registers -kiln-export-fusion-graph=FILE (its option string is the
/// file, which a declarative pass option cannot express).
void registerExportFusionGraphPass();

} // namespace kiln

#endif // KILN_DIALECT_KILN_TRANSFORMS_PASSES_H
