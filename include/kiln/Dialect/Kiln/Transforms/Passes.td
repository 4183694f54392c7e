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
  let dependentDialects = ["mlir::func::FuncDialect",
                           "mlir::tensor::TensorDialect"];
}

def KilnFuse : Pass<"kiln-fuse", "mlir::ModuleOp"> {
  let summary = "Form kiln.fusion_group regions, one kernel each";
  let description = [{
    Greedily and deterministically (program order) merges producers into
    consumers: elementwise ops, cmp, select and convert fuse with each other;
    broadcast_in_dim and slice of group inputs are entry nodes (the kernel
    reads a view); a slice of a value computed in the group fuses when every
    use of the producer is such a slice (the producer is evaluated at the
    sliced indices); a concat whose result is not read in the group is an
    exit node; reduce_sum and reduce_max end a group. A producer used
    outside its group becomes an extra output. matmul, reshape, transpose
    and constants stay outside. Merges that would create a cycle through an
    op outside the group are refused. Afterwards every elementwise,
    broadcast, slice, concat and reduction op is in exactly one group.

    Then an elementwise op whose result only one other group reads, over
    the same domain, moves into that group when the two kernels move fewer
    bytes that way (its operands read there instead of its result written
    and read back). Program order would leave it with its producer: at the
    edge of an unrolled loop, that made one step's kernel unlike the rest.

    Row groups: a reduction over a tensor's trailing dims (a row) whose
    result the group reads back (broadcast along those dims, or through
    elementwise ops on the row values first) stays in the group, with every
    op on those rows: softmax, LayerNorm and their gradients become one
    group, lowered as one row-resident kernel. Every reduction of a row
    group reduces the same trailing dims; row groups hold no slices or
    concats.
  }];
  let options = [
    Option<"rowReductions", "row-reductions", "bool", /*default=*/"true",
           "form row groups (reductions over trailing dims read back in "
           "the group); false: a reduction ends its group">
  ];
  let statistics = [
    Statistic<"numGroups", "kiln-fusion-groups", "fusion groups formed">,
    Statistic<"numRowGroups", "kiln-row-groups",
              "groups that hold row reductions read in the group">,
    Statistic<"numFusedOps", "kiln-fused-ops", "ops placed in fusion groups">
  ];
}

#endif // KILN_DIALECT_KILN_TRANSFORMS_PASSES_TD
