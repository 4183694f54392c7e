//===- Passes.td - kiln dialect transforms ---------------------*- tablegen -*-===//

#ifndef KILN_DIALECT_KILN_TRANSFORMS_PASSES_TD
#define KILN_DIALECT_KILN_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def KilnAutodiff : Pass<"kiln-autodiff", "mlir::ModuleOp"> {
  let summary = "Expand kiln.vjp into explicit reverse-mode derivative ops";
  let description = [{
    Expands every `kiln.vjp` in the module, innermost first, so that callees
    that themselves contain `kiln.vjp` (gradients of gradients) work. The
    callee is flattened (calls and fusion groups inlined), its primal is
    recomputed at the vjp, and a reverse sweep applies one VJP rule per op.

    With `prune` (the default), an activity analysis marks a value active
    only when it depends on a `wrt` argument through differentiable edges
    and reaches a result whose cotangent is not zero. Adjoints are built for
    active values only, so `grad(y, x)` of an MLP never builds a
    weight-gradient matmul, and forward values that no adjoint needs are
    not emitted. `prune=false` is the naive derivation: adjoints for every
    float value that reaches a result, and gradients for every argument,
    kept so that the benefit can be measured.

    Zero cotangents stay symbolic. Recursive callees, calls to external
    functions and ops without a derivative rule are rejected.
  }];
  let options = [
    Option<"prune", "prune", "bool", /*default=*/"true",
           "build adjoints only for active values (dead-edge elimination)">
  ];
  let statistics = [
    Statistic<"numVjpsExpanded", "kiln-vjps-expanded", "kiln.vjp ops expanded">,
    Statistic<"numAdjointOps", "kiln-adjoint-ops",
              "ops created by the reverse sweeps">,
    Statistic<"numPrunedEdges", "kiln-pruned-edges",
              "operand adjoints not built because the operand is inactive">,
    Statistic<"numPrunedOps", "kiln-pruned-ops",
              "forward ops not emitted because no adjoint needs them">
  ];
  let dependentDialects = ["mlir::func::FuncDialect"];
}

#endif // KILN_DIALECT_KILN_TRANSFORMS_PASSES_TD
