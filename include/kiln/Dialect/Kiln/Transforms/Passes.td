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

    Checkpointing: where a derivative op reads the value of a forward op
    marked `kiln.checkpoint = N` (recorded inside
    `kiln.utils.checkpoint.checkpoint`, segment N), it reads a copy instead,
    recomputed from the segment's inputs just before the first derivative
    op that needs it and marked `kiln.recomputed` (so that CSE keeps it
    apart). The forward's own values of the segment then die with the
    forward: the derivative stores only the segment's inputs, as
    `torch.utils.checkpoint.checkpoint` does.

    Automatic rematerialization (`remat=auto`: what kiln's compiles for
    the CPU use unless `KILN_REMAT=none`), for
    first derivatives (neither one that is differentiated again nor one of
    a derivative): the forward values that derivative ops read after a gap
    (a derivative op that no forward kernel can share: a product, a
    reduction, a gather, or one that reads such an op) are kept from the
    forward to the backward, the peak of a training step. In forward
    order, such a value of cheap ops (elementwise ops, broadcasts,
    reshapes, transposes, slices, counter-based random numbers) is
    recomputed in the same way when that keeps fewer bytes: the values its
    recomputation reads (through every cheap op whose value is not kept)
    are kept anyway (read by the derivative, returned by the function,
    arguments), or are smaller than it, and the arithmetic repeated is at
    most 8 units per byte saved (1 per element for an add, 4 for a random
    number, 8 for a transcendental function); a value that only products,
    gathers and other kernels that cannot take its recomputation in read
    needs a kernel of its own, and is recomputed only when it saves at
    least 1 MiB. A GELU's output is recomputed from its input, a
    LayerNorm's from its centred input and row statistics, a dropout mask
    from its key. The derivative's cheap ops that read only forward values
    and feed a gap are marked `kiln.recomputed` too, so that `-kiln-fuse`
    keeps them in the backward, and those after a gap `kiln.after_gap`, so
    that `-kiln-fuse` lets them share a kernel with a recomputation placed
    after them.
  }];
  let options = [
    Option<"prune", "prune", "bool", /*default=*/"true",
           "build adjoints only for active values (dead-edge elimination)">,
    Option<"remat", "remat", "std::string", /*default=*/"\"none\"",
           "none, or auto: recompute cheap elementwise values in the "
           "derivative when that keeps fewer bytes">,
    Option<"rematMinBytes", "remat-min-bytes", "int64_t",
           /*default=*/"65536",
           "remat=auto: the smallest value recomputed (or kept out of the "
           "forward's kernels); one recomputed in a kernel of its own "
           "saves at least 16 times as much">
  ];
  let statistics = [
    Statistic<"numVjpsExpanded", "kiln-vjps-expanded", "kiln.vjp ops expanded">,
    Statistic<"numAdjointOps", "kiln-adjoint-ops",
              "ops created by the reverse sweeps">,
    Statistic<"numPrunedEdges", "kiln-pruned-edges",
              "operand adjoints not built because the operand is inactive">,
    Statistic<"numPrunedOps", "kiln-pruned-ops",
              "forward ops not emitted because no adjoint needs them">,
    Statistic<"numRecomputedOps", "kiln-recomputed-ops",
              "checkpointed forward ops copied to be recomputed">,
    Statistic<"numRematerializedOps", "kiln-rematerialized-ops",
              "cheap forward ops copied to be recomputed (remat=auto)">
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

    Copies that `-kiln-autodiff` made to recompute forward values
    (`kiln.recomputed`) never share a group with an op before them, unless
    that op runs after a gap in the backward (`kiln.after_gap`, which this
    pass removes): the group would run in the forward.

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

def KilnGeneralizeBatch : Pass<"kiln-generalize-batch", "mlir::ModuleOp"> {
  let summary = "Make a static entry's batch dim dynamic, with every dim "
                "that follows it";
  let description = [{
    The batch is dim 0 of the entry's first argument of rank >= 1 (or of
    argument `arg`); its size is the batch size. The entry is replaced by a
    shape-generic function of the same name that computes what the static
    one computed, for any batch size.

    A shape analysis runs to a fixed point. A result dim is dynamic where
    the operand dims it comes from are. Where an op needs two sizes equal
    (elementwise operands, a matmul's contraction or batch, a concat's
    other dims, a vjp's cotangents and its callee's results) and only one
    is dynamic, the other is forced dynamic: an argument's dim becomes
    dynamic, an op passes the force on to the operand dims it comes from,
    and a splat constant or a broadcast's new (or size-1) dim takes the
    batch size as a `sizes` operand (`tensor.dim` of the first dynamic
    argument). Only dims of the batch's size are forced. A slice that takes
    a dynamic dim whole keeps it (`sizes` -1); a slice of part of it is
    static. Callees of `kiln.vjp` and `func.call` are analyzed with their
    operands' dynamic dims and cloned (`@f_batch0`, ...); a callee that
    needs more of its arguments dynamic forces them at the call.

    What cannot follow the batch is an error that names the op: a
    non-splat constant of the batch's size, a slice of part of the batch
    that meets the batch, a reshape that splits or merges it with other
    dims, a dim of another size that would have to follow it.

    ```mlir
    // Before: the batch is 4.
    func.func @f(%x: tensor<4x8xf32>, %b: tensor<8xf32>) -> tensor<4x8xf32> {
      %bb = kiln.broadcast_in_dim %b, dims = [1] : tensor<8xf32> -> tensor<4x8xf32>
      %y = kiln.add %x, %bb : tensor<4x8xf32>
      return %y : tensor<4x8xf32>
    }
    // After:
    func.func @f(%x: tensor<?x8xf32>, %b: tensor<8xf32>) -> tensor<?x8xf32> {
      %n = tensor.dim %x, %c0 : tensor<?x8xf32>
      %bb = kiln.broadcast_in_dim %b sizes(%n), dims = [1] : tensor<8xf32> -> tensor<?x8xf32>
      %y = kiln.add %x, %bb : tensor<?x8xf32>
      return %y : tensor<?x8xf32>
    }
    ```

    The static original stays, as `@f_static`, only where other functions
    call it. Tests use the pass to re-run static programs at other batch
    sizes (`kiln-run --generalize-batch --dim-sizes 1,3,7`).
  }];
  let options = [
    Option<"entry", "entry", "std::string", /*default=*/"\"\"",
           "the function to generalize (default: every public function)">,
    Option<"arg", "arg", "int64_t", /*default=*/"-1",
           "the argument whose dim 0 is the batch (default: the first of "
           "rank >= 1)">
  ];
  let dependentDialects = ["mlir::arith::ArithDialect",
                           "mlir::tensor::TensorDialect"];
}

def KilnSetMatmulPrecision : Pass<"kiln-set-matmul-precision",
                                  "mlir::ModuleOp"> {
  let summary = "Give each f32 kiln.matmul without a precision the given one";
  let description = [{
    The program-wide form of `torch.set_float32_matmul_precision`: every
    `kiln.matmul` of f32 operands that has no `precision` attribute gets
    `precision`; one that has one keeps it (a per-product choice wins).
    The pipelines run it after `-kiln-autodiff`, so that a gradient's
    products follow the setting too. `highest` changes nothing.

    ```mlir
    // -kiln-set-matmul-precision=precision=high
    %m = kiln.matmul %x, %w : tensor<4x8xf32>, tensor<8x16xf32> -> tensor<4x16xf32>
    // becomes
    %m = kiln.matmul %x, %w {precision = #kiln<precision high>} : tensor<4x8xf32>, tensor<8x16xf32> -> tensor<4x16xf32>
    ```
  }];
  let options = [
    Option<"precision", "precision", "::kiln::MatmulPrecision",
           /*default=*/"::kiln::MatmulPrecision::highest",
           "highest (f32), high (TF32 allowed) or medium (bf16 allowed)",
           [{::llvm::cl::values(
             clEnumValN(::kiln::MatmulPrecision::highest, "highest",
                        "f32 products in f32"),
             clEnumValN(::kiln::MatmulPrecision::high, "high",
                        "f32 products may round their operands to TF32"),
             clEnumValN(::kiln::MatmulPrecision::medium, "medium",
                        "f32 products may round their operands to bf16"))}]>
  ];
  let statistics = [
    Statistic<"numSet", "kiln-precisions-set",
              "f32 products given the precision">
  ];
}

def KilnAutocast : Pass<"kiln-autocast", "mlir::ModuleOp"> {
  let summary = "Run f32 products in bf16 or f16, as torch.autocast does";
  let description = [{
    Each `kiln.matmul` of f32 operands becomes a product of its operands
    converted to `dtype`, whose result is converted back to f32, so that
    every type outside it stays: the product runs on tensor cores (cuBLAS)
    with f32 sums and is rounded once to `dtype`, as PyTorch's autocast
    returns it, and its epilogue reads the narrow result. Products of
    other types (f64, or already narrow) are left alone. The pipelines run
    it after `-kiln-autodiff` for their `autocast` option, so gradients'
    products run narrow too. The lazy tensors' `kiln.autocast` casts while
    recording instead (kiln/Lazy/Autocast.h); this is the same for programs
    written in IR.

    ```mlir
    // -kiln-autocast=dtype=bf16
    %m = kiln.matmul %x, %w : tensor<4x8xf32>, tensor<8x16xf32> -> tensor<4x16xf32>
    // becomes
    %a = kiln.convert %x : tensor<4x8xf32> -> tensor<4x8xbf16>
    %b = kiln.convert %w : tensor<8x16xf32> -> tensor<8x16xbf16>
    %p = kiln.matmul %a, %b : tensor<4x8xbf16>, tensor<8x16xbf16> -> tensor<4x16xbf16>
    %m = kiln.convert %p : tensor<4x16xbf16> -> tensor<4x16xf32>
    ```
  }];
  let options = [
    Option<"dtype", "dtype", "std::string", /*default=*/"\"bf16\"",
           "the products' type: bf16 or f16">
  ];
  let statistics = [
    Statistic<"numNarrowed", "kiln-autocast-products",
              "f32 products run narrow">
  ];
}

def KilnFuseAttention : Pass<"kiln-fuse-attention", "mlir::ModuleOp"> {
  let summary = "Form kiln.attention where a softmax row feeds only a product";
  let description = [{
    Recognizes the dataflow of attention, whatever model wrote it: scores
    `q·kᵀ` (a `kiln.matmul`, through reshapes and a transpose of k),
    rewritten elementwise by a chain of products, quotients, sums and
    differences with values that do not depend on them (a scale, an additive
    or causal mask) and selects against masks, then a softmax along the last
    dim (`exp(x − max)`, divided by its sum) whose values feed only a second
    `kiln.matmul` with v. The chain becomes the op's `score_steps`, each
    mask or scale a rank-3 operand read broadcast (its `broadcast_in_dim`
    dropped); the row maxima that a derivative receives (the softmax's
    stopped shift) come from the op's `row_max`. Anything else (another
    reader of the scores or the probabilities, a dynamic or non-f32 shape)
    is left as it is. The pipelines run it before `-kiln-autodiff`, whose
    rule for `kiln.attention` is `kiln.attention_grad`.

    ```mlir
    %s = kiln.matmul %q, %k {transpose_b = true} : tensor<4x16x8xf32>, tensor<4x16x8xf32> -> tensor<4x16x16xf32>
    %t = kiln.mul %s, %scale : tensor<4x16x16xf32>
    ... softmax of %t along dim 2 ...
    %o = kiln.matmul %p, %v : tensor<4x16x16xf32>, tensor<4x16x8xf32> -> tensor<4x16x8xf32>
    // becomes
    %o, %m, %l = kiln.attention %q, %k, %v score(%scale3 : tensor<1x1x1xf32>) steps [0, 0, -1] : ...
    ```
  }];
  let statistics = [
    Statistic<"numFused", "kiln-attentions", "attentions formed">
  ];
}

def KilnDecomposeAttention : Pass<"kiln-decompose-attention",
                                  "mlir::ModuleOp"> {
  let summary = "Write kiln.attention and kiln.attention_grad as matmuls "
                "and a softmax";
  let description = [{
    Replaces each `kiln.attention` and `kiln.attention_grad` with the
    primitive ops that compute it: the scores as a `kiln.matmul`, their
    rewrites, the softmax and the products (and, for the gradient, the
    softmax's backward). For a target without a blockwise attention kernel
    (`-kiln-gpu-pipeline` today), and for the derivative of either op,
    which `-kiln-autodiff` takes through this form.

    ```mlir
    %o, %m, %l = kiln.attention %q, %k, %v steps [] : ...
    // becomes
    %s = kiln.matmul %q, %k {transpose_b = true} : ...
    %m = kiln.reduce_max %s, dims = [2] : ...
    ...
    ```
  }];
}

#endif // KILN_DIALECT_KILN_TRANSFORMS_PASSES_TD
