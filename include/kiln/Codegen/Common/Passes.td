//===- Passes.td - codegen passes both targets share -------*- tablegen -*-===//

#ifndef KILN_CODEGEN_COMMON_PASSES_TD
#define KILN_CODEGEN_COMMON_PASSES_TD

include "mlir/Pass/PassBase.td"

def KilnFuseLinalgElementwise
    : Pass<"kiln-fuse-linalg-elementwise", "mlir::func::FuncOp"> {
  let summary = "Fuse elementwise linalg.generic producers into consumers";
  let description = [{
    Upstream's elementwise fusion patterns with kiln's control: a producer
    fuses into a consumer when all its uses are in that consumer (upstream's
    test pass requires a single use, so `x * x` would not fuse). A producer
    used by several ops is not fused, since each would recompute it.

    A `linalg.reduce` whose input an elementwise generic computes for it
    alone becomes a `linalg.generic` (upstream fuses into generics only),
    keeping its attributes, so that the producer fuses into the reduction:
    a loss or a norm reads its operands instead of a stored intermediate.
    Upstream's fused op drops the consumer's attributes: a reduction
    generic left without a kernel id (`kiln.kernel_id`) whose accumulator
    comes from a fill that it alone uses takes the fill's id (a kernel
    fills what it accumulates, so the two carried the same id).
  }];
  let dependentDialects = ["mlir::linalg::LinalgDialect"];
}

def KilnDistinctReturns : Pass<"kiln-distinct-returns", "mlir::func::FuncOp"> {
  let summary = "Give every returned buffer its own allocation";
  let description = [{
    Runs after bufferization. A function that returns one buffer twice (as
    written, or after CSE merged two identical computations) cannot hand it
    to two out-params, and upstream's results-to-out-params pass does not
    handle it. Each repeated return operand is copied into a fresh buffer.
  }];
  let dependentDialects = ["mlir::memref::MemRefDialect"];
}

def KilnFoldContractionLayouts
    : Pass<"kiln-fold-contraction-layouts", "mlir::func::FuncOp"> {
  let summary = "Fold transposes and batch-dim reshapes around BLAS "
                "contractions into their indexing maps";
  let description = [{
    Runs on linalg on tensors, before bufferization. A contraction with a
    `kiln_rt_` matmul `library_call` (loops `[batch..., m, n, k]`) reads
    and writes strided views, so layout changes around it need no copy:
    - a `linalg.transpose` operand, or a transpose that is the result's one
      user, becomes a permuted indexing map;
    - a `tensor.collapse_shape` operand that merges dims into a batch dim,
      or an `expand_shape` that is the result's one user and splits a batch
      dim, splits that batch loop; the other operands are expanded to match
      (views). The contraction then calls `kiln_rt_batch2_matmul_*`.
    Multi-head attention's head splits and merges around its batched GEMMs
    are such chains. A fold applies only while every matrix keeps a unit
    stride (its innermost dim is one of its two matrix dims), at most two
    batch loops remain, and (for results) the output is a fresh zero fill.
  }];
  let dependentDialects = ["mlir::bufferization::BufferizationDialect",
                           "mlir::linalg::LinalgDialect",
                           "mlir::tensor::TensorDialect"];
  let statistics = [
    Statistic<"numFolded", "kiln-folded-layouts",
              "layout ops folded into contractions">,
  ];
}

def KilnLinalgToRuntimeCalls
    : Pass<"kiln-linalg-to-runtime-calls", "mlir::ModuleOp"> {
  let summary = "Turn linalg ops marked with a kiln_rt_* library_call into "
                "runtime calls";
  let description = [{
    Runs after bufferization. A `linalg.generic` whose `library_call` names
    a kiln runtime entry point becomes a `func.call` of it, with every
    operand cast to a fully dynamic strided memref, so that one declaration
    serves every shape and layout (upstream's -convert-linalg-to-std
    declares one function type per static shape). An operand whose
    indexing map permutes the entry point's dim order (batch dims, then the
    matrix dims as the name's transpose flags say) is passed as a
    `memref.transpose` view in that order.
  }];
  let dependentDialects = ["mlir::func::FuncDialect",
                           "mlir::memref::MemRefDialect"];
}

def KilnOutlineKernels : Pass<"kiln-outline-kernels", "mlir::ModuleOp"> {
  let summary = "Outline each linalg op on buffers into a kernel function, "
                "one function per structurally equal kernel";
  let description = [{
    Runs after bufferization. Every linalg op becomes a call of a private
    `kiln_kernel_N` function that holds it (constants it uses are cloned in,
    everything else is an argument). Kernels that print the same, which is
    equality up to value names and locations, share one function: an
    unrolled network compiles each distinct loop nest once, and LLVM sees
    small functions instead of one huge one. Kernels are `noinline` so that
    stays true; the host functions, which now only sequence calls and
    buffers, are `optnone` so that LLVM compiles them quickly.

    A kernel that another contains (the same inputs, some of its outputs
    and the ops only they need removed, in any order) runs as that one,
    its calls passing scratch for the outputs it lacks, when the larger
    kernel is called at least as often and does at most a quarter more
    (bytes of scratch against the bytes the smaller kernel moves; ops).
    An unrolled loop's last step, which needs no gradient of the initial
    state, then shares the kernel of every other step.

    With `loops`, an `scf.for` of a host function's body whose body only
    computes indices, loads them from buffers, takes views and runs loop
    nests (kiln.scatter_add's ordered adds) becomes one kernel with its
    nests: the host code keeps no loop, so the entry runs as a host program
    (with its memory plan), and the loop is one call instead of one per
    index. A GPU kernel cannot hold such a loop: the GPU pipeline leaves it.

    The module gets `kiln.kernel_launches` (calls per run, runtime library
    calls included) and `kiln.unique_kernels`.
  }];
  let dependentDialects = ["mlir::func::FuncDialect"];
  let options = [
    Option<"dedup", "dedup", "bool", /*default=*/"true",
           "share one function between equal kernels, and run kernels as "
           "larger ones that contain them (false: one per launch, for "
           "measuring)">,
    Option<"loops", "loops", "bool", /*default=*/"false",
           "a host loop over loop nests becomes one kernel (the CPU "
           "pipeline's)">
  ];
  let statistics = [
    Statistic<"numLaunches", "kiln-kernel-launches",
              "kernel and runtime calls per run">,
    Statistic<"numUniqueKernels", "kiln-unique-kernels",
              "kernel functions compiled">,
    Statistic<"numSubsetKernels", "kiln-subset-kernels",
              "kernels run as a larger kernel that contains them">
  ];
}

def KilnDeallocateBuffers
    : Pass<"kiln-deallocate-buffers", "mlir::ModuleOp"> {
  let summary = "Free each buffer after its last use; upstream's ownership "
                "analysis only where control flow needs it";
  let description = [{
    Runs after bufferization. kiln's host functions are straight-line code:
    one block whose buffers are allocated, passed to loop nests, kernels and
    runtime calls, and never returned (results are out-params). For such a
    function every `memref.alloc` gets a `memref.dealloc` right after the
    last use of the buffer or of any view of it, in one pass over the block.

    Upstream's `-buffer-deallocation-pipeline` handles any control flow, but
    its simplification pass takes time quadratic in the number of buffers
    (a second for a 100-step unrolled LSTM). It still runs, on the whole
    module, when some function is not straight-line: an allocation outside
    the top-level block, a view or use that is not understood (an op with
    memref results that is not a view, a return or store of a buffer), or
    deallocations already present.
  }];
  let dependentDialects = [
    "mlir::bufferization::BufferizationDialect", "mlir::memref::MemRefDialect",
    "mlir::scf::SCFDialect", "mlir::func::FuncDialect"
  ];
  let statistics = [
    Statistic<"numDeallocs", "kiln-deallocs", "deallocations inserted directly">,
    Statistic<"numFallbacks", "kiln-dealloc-fallbacks",
              "modules left to upstream's ownership-based deallocation">
  ];
}

def KilnReuseBuffers : Pass<"kiln-reuse-buffers", "mlir::ModuleOp"> {
  let summary = "Let a kernel write a new temporary into the buffer of one "
                "it reads for the last time, element by element";
  let description = [{
    Runs after `-kiln-deallocate-buffers`. Where a kernel call is the last
    access to a temporary (freed after it) and the first to a new one of
    the same type and size, and the kernel reads the old and writes the
    new element by element (one all-parallel `linalg.generic` that reads
    the one and writes the other through one permutation map, never
    reading the new one's old value, each passed whole and once), the new
    temporary takes the old one's buffer: one allocation, freed after the
    new one's last use. The two are then never live at once, which lowers
    the peak of the memory plan (a gradient written over the gradient it
    comes from, an activation over the product it reads). Runtime calls
    and host loops are left alone. With `reductions`, so is a kernel whose
    generic also reduces over some loops (an activation's gradient with its
    bias's, summed down the rows), for lowerings that run its body once per
    point (the CPU's; the GPU's split long reductions in two launches). The
    GPU pipeline does not run the pass: a kernel whose row values alias a
    buffer it writes is no GPU row kernel.
  }];
  let dependentDialects = ["mlir::memref::MemRefDialect"];
  let options = [
    Option<"reductions", "reductions", "bool", /*default=*/"false",
           "kernels that also reduce may write in place (their lowering "
           "runs the body once per point)">
  ];
  let statistics = [
    Statistic<"numReused", "kiln-reused-buffers",
              "temporaries written into a buffer their kernel read last">
  ];
}

def KilnScheduleDonation : Pass<"kiln-schedule-donation", "mlir::ModuleOp"> {
  let summary = "Move in-place updates after their input's other readers, "
                "so that their result may take the input's buffer";
  let description = [{
    Runs after the buffer stage, before `-kiln-plan-donation` (the same
    `inputs`). An update that reads an input and writes a result element by
    element (a kernel call or copy that `-kiln-plan-donation` would call in
    place) may still read the input before another operation does: an
    optimizer's step counter `t + 1` is written by its own kernel, and the
    fused update of each parameter recomputes it from `t` afterwards. The
    result cannot take the input's buffer there. Such an update moves to
    just after the input's last other reader when it takes arguments only
    (no temporary lives longer) and nothing in between uses its results.
    Every other input's last read and result's first write stay where they
    were or move later, so no donation is lost.
  }];
  let dependentDialects = ["mlir::func::FuncDialect"];
  let options = [
    Option<"inputs", "inputs", "int64_t", /*default=*/"-1",
           "how many leading arguments are inputs (the rest are results); "
           "-1: functions are left alone">
  ];
  let statistics = [
    Statistic<"numMoved", "kiln-moved-updates", "in-place updates moved">
  ];
}

def KilnPlanDonation : Pass<"kiln-plan-donation", "mlir::ModuleOp"> {
  let summary = "Find which inputs each result may be written into (donated "
                "buffers)";
  let description = [{
    Runs after the buffer stage (results are out-params, after the `inputs`
    inputs). A caller that drops an input after a run may donate its
    buffer to a result of its type (kiln.jit does for the state it
    rebinds). For each public host function this records, as
    `kiln.donation`:
    - `last_reads`: per input, the position (in the block's order) of the
      last operation that reads it or a view of it, -1 for none;
    - `first_writes`: per result, the first operation that uses it;
    - `in_place`: (input, result) pairs that one operation both reads and
      writes, safely: a kernel call or copy passing both whole, where the
      kernel's only use of each is one all-parallel `linalg.generic` that
      reads the input and writes the result through the same permutation
      map and never reads the result's old value.
    A result may take an input's buffer when the input's last read comes
    before the result's first write, or both are one such operation
    (kiln::DonationPlan::allows). Anything else (a runtime call, a host
    loop, a view that is not the whole buffer) is not in place.
  }];
  let dependentDialects = ["mlir::func::FuncDialect"];
  let options = [
    Option<"inputs", "inputs", "int64_t", /*default=*/"-1",
           "how many leading arguments are inputs (the rest are results); "
           "-1: functions are left alone">
  ];
}

def KilnElideCopies : Pass<"kiln-elide-copies", "mlir::func::FuncOp"> {
  let summary = "Forward copies out of dead buffers, and write kernel "
                "outputs straight into the view they are copied to";
  let description = [{
    Runs after copy-before-write bufferization, which needs no alias
    analysis (one-shot's is quadratic in a long straight-line function) and
    copies wherever it writes. First, `memref.copy %a, %b` between two
    allocations of one type, where %b has no use before the copy and %a no
    use after it (nor any view of it), is removed and %b's uses use %a:
    that is the in-place write the analysis would have found.
    Then `%t = memref.alloc; <kernel writes %t>;
    memref.copy %t, %view` becomes `<kernel writes %view>` when %t has no
    other use, %view is a static subview of a fresh allocation that nothing
    else reads until the copy, and every other region of that allocation the
    kernel touches is disjoint from %view. One-shot bufferization cannot
    prove the parts of a multi-output kernel's concat exit disjoint; this
    makes each part a write into its slice of the one destination. A copy
    out of a `collapse_shape` of %t is first made a copy of %t into the
    matching `expand_shape` of the view, so that a kernel writing a
    reshaped layout (a matmul writing merged attention heads) writes its
    slice too.
  }];
  let dependentDialects = ["mlir::memref::MemRefDialect"];
}

def KilnExpandMath : Pass<"kiln-expand-math"> {
  let summary = "Expand math ops into vectorizable polynomial approximations";
  let description = [{
    Rewrites transcendental `math` ops (tanh, exp, log, sin, cos, rsqrt,
    powf, ...) into arith-only polynomial forms, so that the CPU code calls
    no scalar libm routine and the loop vectorizer can widen it. f32 tanh,
    exp, sin and cos are kiln's own forms; sin and cos reduce by pi/2 in
    three parts, within 2e-7 for |x| < 12868.
  }];
  let dependentDialects = [
    "mlir::arith::ArithDialect", "mlir::math::MathDialect",
    "mlir::vector::VectorDialect"
  ];
}

#endif // KILN_CODEGEN_COMMON_PASSES_TD
