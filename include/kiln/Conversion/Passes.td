//===- Passes.td - kiln conversion passes ---------------------*- tablegen -*-===//

#ifndef KILN_CONVERSION_PASSES_TD
#define KILN_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def KilnLowerToLinalg : Pass<"kiln-lower-to-linalg", "mlir::ModuleOp"> {
  let summary = "Lower kiln ops and fusion groups to linalg, tensor, arith and math";
  let description = [{
    Elementwise ops become `linalg.generic`, reductions `linalg.reduce`,
    matmul a `linalg.generic` contraction whose indexing maps apply the
    transpose flags (no transpose is materialized), layout ops become tensor
    ops and a concat becomes `tensor.empty` plus one `tensor.insert_slice` per
    operand, so that bufferization writes every producer into one buffer.
    f16 and bf16 are computed in f32. `kiln.vjp` must have been expanded.
  }];
  let dependentDialects = [
    "mlir::arith::ArithDialect", "mlir::bufferization::BufferizationDialect",
    "mlir::linalg::LinalgDialect", "mlir::math::MathDialect",
    "mlir::memref::MemRefDialect", "mlir::scf::SCFDialect",
    "mlir::tensor::TensorDialect"
  ];
  let options = [
    Option<"blas", "blas", "bool", /*default=*/"false",
           "lower f32/f64 matmuls to kiln_rt_matmul_* runtime calls (a BLAS "
           "found at run time) instead of generated loops">,
    Option<"parallelScatters", "parallel-scatters", "bool",
           /*default=*/"false",
           "lower kiln.scatter_add to parallel kernels that add each "
           "element's updates in index order along a chain (no host loop, no "
           "atomics: the GPU's) instead of one in-place add per index">
  ];
  let statistics = [
    Statistic<"numLoweredOps", "kiln-lowered-ops", "kiln ops lowered">,
    Statistic<"numKernelGroups", "kiln-kernel-groups",
              "fusion groups lowered to one linalg.generic">,
    Statistic<"numInlinedGroups", "kiln-inlined-groups",
              "fusion groups lowered op by op">
  ];
}

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

def KilnSerializeInnerLoops
    : Pass<"kiln-serialize-inner-loops", "mlir::func::FuncOp"> {
  let summary = "Keep the outer dims of each parallel loop parallel and run "
                "the innermost dim as a sequential loop";
  let description = [{
    `-convert-linalg-to-parallel-loops` makes every parallel dim of a linalg
    op one multi-dim `scf.parallel`; OpenMP then collapses them into a single
    index, whose div/mod address arithmetic defeats LLVM's loop vectorizer.
    This pass turns `scf.parallel (i, j)` into `scf.parallel (i) { scf.for j }`:
    threads split the outer dims and the contiguous innermost loop
    vectorizes. That loop carries an `llvm.loop_annotation` that asks LLVM
    to vectorize it at `vector-width` lanes: its iterations are independent,
    yet LLVM's cost model, which must guard against the buffers aliasing,
    otherwise often declines the transcendental-heavy bodies of fused
    kernels (see `-kiln-attach-loop-annotations`).

    It also asks LLVM to interleave `interleave` vector iterations (half as
    many when the loop touches more than 8 buffers, whose pointers and
    values then crowd the registers). A fused body's transcendentals are
    long chains of dependent FMAs and divides; independent iterations side
    by side hide their latency (the LSTM cell forward: 0.82 -> 0.65 ms).

    A loop nest too small to repay waking the other threads (fewer static
    innermost iterations than `min-parallel-iterations`; an OpenMP fork and
    join costs microseconds) becomes sequential `scf.for` loops, the
    innermost one vectorized likewise.
  }];
  let dependentDialects = ["mlir::scf::SCFDialect", "mlir::LLVM::LLVMDialect"];
  let options = [
    Option<"vectorWidth", "vector-width", "unsigned", /*default=*/"8",
           "lanes to vectorize the innermost loop with (8 fills an AVX2 "
           "register with f32; 0 leaves it to LLVM)">,
    Option<"interleave", "interleave", "unsigned", /*default=*/"4",
           "vector iterations to interleave (0 leaves it to LLVM)">,
    Option<"minParallelIterations", "min-parallel-iterations", "int64_t",
           /*default=*/"8192",
           "run a parallel loop nest with fewer (static) innermost "
           "iterations than this as sequential loops (0: never)">
  ];
}

def KilnLowerRowKernels : Pass<"kiln-lower-row-kernels", "mlir::func::FuncOp"> {
  let summary = "Run a row kernel's loop nests row by row, keeping each "
                "row's reductions in registers";
  let description = [{
    A row group (`-kiln-fuse`) becomes a kernel of several linalg ops on
    buffers: fills of row accumulators, one nest per reduction phase, and
    nests that write the results. Each nest reads the buffers the kernel
    writes only through maps that start with the row dims d0..dk-1 (other
    buffers, such as a mask shared by every head, may be read with any
    map), so the nests can run one row after another:

      scf.parallel (rows) {
        %max = scf.for (row) iter_args(-inf) { ... }   // phase 1
        %sum = scf.for (row) iter_args(0) { ... %max ... }  // phase 2
        scf.for (row) { store ... %max ... %sum ... }  // the results
      }

    A row is then read while it is in cache, a reduction's accumulator is a
    register rather than a memory location that the buffers might alias,
    and a row value that a later nest reads is the SSA value, not a load.
    Sums are marked `reassoc` (kiln's sums may be computed in any order,
    see docs/Reliability.md), so that LLVM vectorizes them; every innermost
    loop asks for vectorization as `-kiln-serialize-inner-loops` does.

    Store versus recompute, within the row: a costly value (a math op, a
    division) of a phase's body that a later nest over the whole row
    computes again (the same ops over the same elements of buffers not
    written in between: softmax's `exp(x - max)`, needed by the sum and by
    the results) is stored by the phase in a row-sized scratch
    (`memref.alloca` in a `memref.alloca_scope` per row) and loaded by the
    later nest, while the row is in L1: one exp per element instead of
    two. Rows whose scratch would exceed `max-scratch-bytes` recompute.
    A division by a row value (or any value defined outside the loop) is a
    multiplication by its reciprocal, computed once per row: two roundings
    instead of one (docs/Reliability.md), and no divide per element.
    Kernels of any other shape are left alone.
  }];
  let dependentDialects = ["mlir::scf::SCFDialect", "mlir::LLVM::LLVMDialect",
                           "mlir::memref::MemRefDialect"];
  let options = [
    Option<"vectorWidth", "vector-width", "unsigned", /*default=*/"8",
           "lanes to vectorize each innermost loop with (0 leaves it to "
           "LLVM)">,
    Option<"interleave", "interleave", "unsigned", /*default=*/"4",
           "vector iterations to interleave (0 leaves it to LLVM)">,
    Option<"maxScratchBytes", "max-scratch-bytes", "int64_t",
           /*default=*/"16384",
           "the largest row scratch that keeps a phase's costly values for a "
           "later nest (0: always recompute)">
  ];
}

def KilnLowerColumnReductions
    : Pass<"kiln-lower-column-reductions", "mlir::func::FuncOp"> {
  let summary = "Run a reduction over a buffer's outer dim (a bias gradient) "
                "block of columns by block, each row of a block contiguous";
  let description = [{
    A `linalg.generic` on buffers whose largest operands are contiguous in
    a parallel dim, with a reduction dim after it in the loop order (the
    sum over the rows of a [rows, cols] buffer, next to the elementwise work
    fused with it), would become a nest in that order: each column walked
    down the rows, one element of every buffer per row, a whole row apart.
    Instead it becomes

      scf.parallel (other parallel dims, blocks of columns) {
        scf.for (reduction dims) {
          scf.for (the block's columns) { body }
        }
      }

    Each row of a block is one contiguous run, the block's accumulators
    stay in L1, and the innermost loop asks for vectorization as
    `-kiln-serialize-inner-loops` does. A block is a multiple of the vector
    width, at least `vector-width` x `interleave` columns, at most 512, and
    narrow enough that the columns make 8 blocks where they can; the sums
    then keep their order (rows in sequence), bit for bit the default
    nest's.

    Narrow blocks make short runs (a [1024, 256] sum in 8 blocks: 128
    bytes a row, a new page for the prefetcher every run). So where every
    output the reduction does not index accumulates with a float add, mul,
    max or min, the reduction has 32768 elements or more, and the other
    parallel dims and blocks of up to 1024 columns make fewer than 8
    iterations, the blocks are that wide and the first reduction dim is
    split instead: up to 8 chunks of at least 16 rows, run in parallel,
    each accumulating into its own row of a scratch of partial results
    (the first chunk starting from the output, the others from the
    identity), combined into the output in chunk order afterwards. The
    order is fixed by the shapes: the same result every run. Other ops are
    left alone.
  }];
  let dependentDialects = ["mlir::scf::SCFDialect", "mlir::LLVM::LLVMDialect",
                           "mlir::memref::MemRefDialect",
                           "mlir::arith::ArithDialect"];
  let options = [
    Option<"vectorWidth", "vector-width", "unsigned", /*default=*/"8",
           "lanes to vectorize each block's loop with (0 leaves it to LLVM)">,
    Option<"interleave", "interleave", "unsigned", /*default=*/"4",
           "vector iterations to interleave (0 leaves it to LLVM)">
  ];
}

def KilnAttachLoopAnnotations
    : Pass<"kiln-attach-loop-annotations", "mlir::ModuleOp"> {
  let summary = "Make the `llvm.loop_annotation` attributes that lowering "
                "left on branches the branches' own loop annotations";
  let description = [{
    `-convert-scf-to-cf` moves an `scf.for`'s `llvm.loop_annotation` to the
    loop's back edge, and `-convert-cf-to-llvm` keeps it there as a
    discardable attribute, which the translation to LLVM IR ignores: it reads
    only the `loop_annotation` property of `llvm.br` and `llvm.cond_br`. This
    pass moves the one into the other.
  }];
  let dependentDialects = ["mlir::LLVM::LLVMDialect"];
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

    The module gets `kiln.kernel_launches` (calls per run, runtime library
    calls included) and `kiln.unique_kernels`.
  }];
  let dependentDialects = ["mlir::func::FuncDialect"];
  let options = [
    Option<"dedup", "dedup", "bool", /*default=*/"true",
           "share one function between equal kernels, and run kernels as "
           "larger ones that contain them (false: one per launch, for "
           "measuring)">
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

def KilnCompactKernelAbi
    : Pass<"kiln-compact-kernel-abi", "mlir::ModuleOp"> {
  let summary = "Pass each kernel buffer as one pointer instead of a memref "
                "descriptor";
  let description = [{
    Runs on the LLVM dialect, after the conversion. A kernel's buffers have
    static sizes and strides (only the offset varies: see
    `-kiln-outline-kernels`), so of the `3 + 2 * rank` scalars that the
    descriptor convention passes, the kernel reads two: the aligned pointer
    and the offset. The caller now adds the offset to the pointer and passes
    that alone; the kernel rebuilds its constants. A deep network's host
    function makes hundreds of launches, and each call shrinks from about 20
    arguments to about 3, which is most of its machine-code time.

    A kernel is rewritten only when its `kiln.kernel_args` (the memref
    signature that `-kiln-outline-kernels` records) matches its LLVM
    signature and every use of it is a direct call; any other is left as is.
  }];
  let dependentDialects = ["mlir::LLVM::LLVMDialect"];
  let statistics = [
    Statistic<"numCompactedKernels", "kiln-compacted-kernels",
              "kernels now taking one pointer per buffer">
  ];
}

def KilnMergeEntryWrappers
    : Pass<"kiln-merge-entry-wrappers", "mlir::ModuleOp"> {
  let summary = "Move each function that only its C wrapper calls into that "
                "wrapper";
  let description = [{
    Runs on the LLVM dialect. `llvm.emit_c_interface` gives a function `F` a
    wrapper `_mlir_ciface_F` that takes pointers to memref descriptors,
    loads them and calls `F` with every field as a scalar: hundreds of
    arguments for a network with many weights, which LLVM's schedulers
    handle in time quadratic in their number. When the wrapper is `F`'s only
    user and `F` is a single block, `F`'s body moves into the wrapper (with
    `F`'s `passthrough` attributes) and `F` is erased: the JIT then calls
    the wrapper alone. Meant for the JIT, where nothing else calls `F`.
  }];
  let dependentDialects = ["mlir::LLVM::LLVMDialect"];
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
    no scalar libm routine and the loop vectorizer can widen it.
  }];
  let dependentDialects = [
    "mlir::arith::ArithDialect", "mlir::math::MathDialect",
    "mlir::vector::VectorDialect"
  ];
}

#endif // KILN_CONVERSION_PASSES_TD

def KilnMapKernelsToGpu : Pass<"kiln-map-kernels-to-gpu", "mlir::ModuleOp"> {
  let summary = "Turn each outlined kernel into a GPU kernel with a real "
                "thread mapping, launched from the host functions";
  let description = [{
    Runs after `-kiln-outline-kernels`. Each `kiln_kernel_N` function (its
    linalg ops on buffers) becomes a `gpu.func` of the same name in the
    `gpu.module @kiln_gpu`, and each call of it a `gpu.launch_func` of
    `block-size` threads per block over a 1-D grid.

    Every linalg op is one grid-stride loop over its parallel iteration
    space, in row-major order: thread `t` of the grid handles elements `t`,
    `t + gridDim * blockDim`, ... Where the innermost dim is contiguous in
    every operand it reads or writes (or not read at all: a broadcast) and a
    multiple of `vector-width`, each thread takes `vector-width` elements
    at a time with 128-bit loads and stores; whether every buffer is aligned
    for that is checked once per launch (a uniform branch), and the scalar
    loop runs otherwise. The upstream mapping (`-gpu-map-parallel-loops`)
    gives one thread per block.

    A reduction over the innermost dim (a row sum or max) that combines its
    accumulator once with an associative float op gets one warp per output:
    the lanes stride over the row, coalesced, and combine with a
    `gpu.subgroup_reduce` (warp shuffles); lane 0 stores. Rows of 1024 or
    more get a block per output instead: the block's threads stride over the
    row, each warp reduces by shuffles, lane 0 of each leaves its total in
    shared memory (a workgroup attribution of 32 f32 slots), and after a
    `gpu.barrier` every warp reduces the slots; thread 0 stores. Other reduction
    dims run as a sequential loop per output element (a column sum is then
    coalesced across threads). A fill of an output followed by its
    reduction is one loop (the accumulator starts at the fill value).

    A row kernel (a fusion group's reductions over trailing dims read back
    in the group: softmax, LayerNorm, their gradients; see
    `-kiln-lower-row-kernels`) is one launch: a warp per row, or a block
    for rows of 1024 or more, grid-striding over the rows. On each row the
    kernel's ops run in turn: a reduction as each thread's share of the row
    (its accumulators in registers), combined by shuffles (and shared
    memory across a block's warps); a nest over the row by the threads
    striding over it; a nest over the rows in every thread. Row values
    (the max, the sum, the mean) are SSA scalars every thread of the unit
    holds, stored once for the caller. Every nest walks the row alike, and
    what a nest over the row writes is read at the same element only, so a
    thread reads only what it wrote itself and no barrier is needed between
    nests. Where every nest over the row allows the vector path (as above)
    and the buffers are aligned, each thread takes `vector-width` elements
    of the row at a time. Kernels that do not qualify (a transposed read of what the
    kernel wrote, aliasing arguments, reductions that do not shuffle) keep
    the launches below.

    Ops of a kernel run one after another in the one launch only while no
    op reads or overwrites what an earlier one wrote (concat parts); a
    dependence starts another launch (`kiln_kernel_N_1`, ...). Two arguments
    are one buffer where some call passes views of one buffer that may share
    an element: static subviews (composed through casts and subviews) whose
    index ranges are apart along some dim do not (a concat's parts); any
    other pair of views of one buffer does.

    Buffers of dynamic shape (a batch): each loop reads its bounds from the
    kernel's buffers (`memref.dim`), with the vector path where the
    innermost size is static; such kernels have no warp reductions or row
    kernels (their reductions are sequential loops). The grid is computed
    at the launch from the call's buffers: the widest loop's elements (or
    vector groups) over `block-size`, at most `max-blocks`, and none for no
    elements.

    A reduction in the warp or block form above whose outputs are too few
    to fill the device (fewer than 256) and long (32768 elements or more
    each: a loss, a global norm) is split across the grid
    (`split-reductions`, on by default). Each output's elements, its
    reduction dims flattened, are cut in S parts of ceil(length / S)
    elements (the last shorter), S the least of 1024, length / 4096 and
    1024 / outputs (so outputs times S is at most 1024 blocks, each part
    about 4096 elements or more), and the nest runs in two launches: the
    first reduces each part into a buffer of partial results (a block per
    part; the buffer is `memref<(outputs * S) x f32>`, an output's parts
    adjacent), the second each output's S partials into the output
    (combined with the value it starts from, as before). The buffer is a
    new last argument of the kernel, allocated before each call and freed
    after it. Static shapes only; row kernels keep their rows in one block,
    and a reduction whose input is read along the reduction other than
    contiguously (a transposed read, which the column form reads coalesced),
    or whose output may share elements with an input, is not split.
  }];
  let dependentDialects = ["mlir::gpu::GPUDialect", "mlir::scf::SCFDialect",
                           "mlir::vector::VectorDialect",
                           "mlir::arith::ArithDialect",
                           "mlir::memref::MemRefDialect"];
  let options = [
    Option<"blockSize", "block-size", "unsigned", /*default=*/"256",
           "threads per block">,
    Option<"vectorWidth", "vector-width", "unsigned", /*default=*/"4",
           "f32 elements per thread and step on the vector path (4: 128-bit "
           "accesses; 1: scalar only)">,
    Option<"maxBlocks", "max-blocks", "unsigned", /*default=*/"8192",
           "blocks per launch at most; the grid-stride loop covers the rest">,
    Option<"splitReductions", "split-reductions", "bool", /*default=*/"true",
           "split long reductions with few outputs across the grid (two "
           "launches through a buffer of partial results)">
  ];
  let statistics = [
    Statistic<"numKernels", "kiln-gpu-kernels", "GPU kernels made">,
    Statistic<"numSplitReductions", "kiln-gpu-split-reductions",
              "long reductions split across the grid">,
    Statistic<"numRowKernels", "kiln-gpu-row-kernels",
              "row kernels run as a warp or a block per row">,
    Statistic<"numVectorized", "kiln-gpu-vectorized-loops",
              "loops with a vector path">
  ];
}

def KilnEmulateGpuLaunches
    : Pass<"kiln-emulate-gpu-launches", "mlir::ModuleOp"> {
  let summary = "Run the GPU kernels of -kiln-map-kernels-to-gpu on the "
                "CPU, one thread after another, to test them without a GPU";
  let description = [{
    Each `gpu.func` of `gpu.module @kiln_gpu` becomes a `kiln.kernel`
    function again, its body inside a loop over the launch's threads
    (`gpu.block_id`, `gpu.thread_id`, `gpu.block_dim` and `gpu.grid_dim`
    become their values, see below), and each `gpu.launch_func` a call
    of it. The index arithmetic, the alignment checks and both the vector
    and the scalar paths then run, and check, as compiled for the GPU.
    Every thread runs as a block of one thread (a launch of B blocks of T
    threads as B * T blocks of 1: the same global thread ids and grid
    stride), so a block's `gpu.barrier` waits for no one and is dropped, and
    its shared memory (workgroup attributions) is a stack buffer of the
    thread's own. Warps are one lane wide
    (`gpu.lane_id` is 0, `gpu.subgroup_size` 1, and a `gpu.subgroup_reduce`
    is its operand): a warp reduction's indexing and per-lane loop run as
    compiled, and the cross-lane combination, upstream's shuffle lowering,
    is left to the GPU tests.
  }];
  let dependentDialects = ["mlir::func::FuncDialect", "mlir::scf::SCFDialect",
                           "mlir::arith::ArithDialect",
                           "mlir::memref::MemRefDialect"];
}

def KilnStridedCopiesToLinalg
    : Pass<"kiln-strided-copies-to-linalg", "mlir::ModuleOp"> {
  let summary = "Make copies between strided views linalg.copy ops, which "
                "become kernels";
  let description = [{
    A `memref.copy` whose source or target is not one contiguous block (a
    transposed or sliced view) becomes a `linalg.copy`. Run before
    -kiln-outline-kernels in the GPU pipeline, it makes such a copy a kernel
    of its own (a grid-stride loop on the GPU) rather than a host step that
    a device memcpy cannot do. Copies between contiguous buffers stay
    `memref.copy` (one device-to-device memcpy). With dynamic sizes, a
    buffer is one block only where its outermost dim alone is dynamic (a
    batch of rows); other dynamic copies become kernels too.
  }];
  let dependentDialects = ["mlir::linalg::LinalgDialect"];
}

def KilnLowerNativeFloatOps
    : Pass<"kiln-lower-native-float-ops", "mlir::gpu::GPUModuleOp"> {
  let summary = "Replace the libdevice calls of -convert-gpu-to-nvvm that PTX "
                "has instructions for with LLVM intrinsics";
  let description = [{
    -convert-gpu-to-nvvm turns many float ops on f32 and f64 into calls of
    libdevice (`__nv_fmaxf`, `__nv_fabsf`, `__nv_sqrtf`, ...), which stay
    unresolved in the PTX unless libdevice is linked; upstream links it only
    where it happens to find a CUDA toolkit at compile time. This pass runs
    right after and replaces the calls of functions that PTX has
    instructions for with LLVM intrinsics of the same semantics, which the
    NVPTX backend selects directly: `fmax`/`fmin` (`llvm.intr.maxnum`/
    `minnum`: `max.f32`/`min.f32`), `fmod` (`llvm.frem`, an expansion),
    `copysign`, `fma`, `fabs`, `sqrt` (`sqrt.rn`, IEEE rounding), `floor`,
    `ceil`, `trunc`, `round` and `rint` (`llvm.intr.roundeven`), each in
    its f32 (`...f`) and f64 form. Declarations left without calls are
    erased. The PTX is then the same on every machine. Transcendentals are
    not here: kiln's f32 expansions (-kiln-expand-math) run before, and f64
    ones need libdevice (the GPU pipeline's `libdevice` option).
  }];
}

def KilnCheckLibdeviceCalls
    : Pass<"kiln-check-libdevice-calls", "mlir::gpu::GPUModuleOp"> {
  let summary = "Refuse kernels that call libdevice (`__nv_*`) where it is "
                "not linked";
  let description = [{
    Runs after -convert-gpu-to-nvvm in a GPU pipeline without libdevice.
    A call of a `__nv_*` function left there would be an unresolved symbol
    when the driver loads the PTX; this names it, at the op it came from,
    and says how to link libdevice instead.
  }];
}

def KilnDropBinaryTimings
    : Pass<"kiln-drop-binary-timings", "mlir::ModuleOp"> {
  let summary = "Drop the compile timings in the objects of gpu.binary ops";
  let description = [{
    `gpu-module-to-binary` records how long each step took (for instance
    `LLVMIRToISATimeInMs`) in each object's properties, which makes the
    output differ from run to run. This drops every property whose name
    ends in `TimeInMs` and keeps the others.
  }];
}

def KilnLowerWarpOps : Pass<"kiln-lower-warp-ops", "mlir::gpu::GPUModuleOp"> {
  let summary = "Lower the warp ops of -kiln-map-kernels-to-gpu for a GPU "
                "whose warps have `warp-size` lanes";
  let description = [{
    `gpu.subgroup_size` becomes the constant `warp-size`, and each
    `gpu.subgroup_reduce` a butterfly of `gpu.shuffle xor` (upstream's
    patterns), which -convert-gpu-to-nvvm turns into `shfl.sync.bfly`.
  }];
  let dependentDialects = ["mlir::gpu::GPUDialect",
                           "mlir::arith::ArithDialect"];
  let options = [
    Option<"warpSize", "warp-size", "unsigned", /*default=*/"32",
           "lanes per warp (32 on NVIDIA GPUs)">
  ];
}
