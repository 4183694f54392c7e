//===- Passes.td - codegen passes for the GPU --------------*- tablegen -*-===//

#ifndef KILN_CODEGEN_GPU_PASSES_TD
#define KILN_CODEGEN_GPU_PASSES_TD

include "mlir/Pass/PassBase.td"

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

def KilnAttentionToGpu : Pass<"kiln-attention-to-gpu", "mlir::ModuleOp"> {
  let summary = "Run kiln.attention and its gradient as blockwise GPU "
                "kernels that never store the scores";
  let description = [{
    Each `func.call @kiln_gpu_attention_f32` (q, k, v, the score operands,
    then the result, row max and row sum buffers) and
    `func.call @kiln_gpu_attention_grad_f32` (q, k, v, o, m, l, do, the
    score operands, then dq, dk, dv), as `-kiln-lower-to-linalg` with
    `gpu-attention` makes them, becomes launches of `gpu.func`s generated
    for its shapes and its `kiln.score_steps`, in `gpu.module @kiln_gpu`.

    The forward is one launch: a block per batch and tile of T query rows,
    a thread per row; the keys and values come through shared memory T
    rows at a time, and each thread keeps its row's running maximum, sum
    and output in registers (an online softmax, rescaled only when the
    maximum grows). The backward is three launches, each with one
    accumulator row per thread: dq (a thread per query row, over the key
    tiles), dk and dv (a thread per key row, over the query tiles), each
    recomputing the probabilities from the saved row statistics and
    `rowsum(do * o)`. The `[N, Tq, Tk]` scores are never written. T is the
    largest of 64, 32, 16 and 8 whose tiles fit in 40 KiB of shared memory;
    head dims up to 128 (the lowering decomposes larger ones). The kernels
    compute in f32 on the SIMT units.

    Every kernel runs as the emulator runs it: each thread's rows and the
    tiles' cooperative loads are block-stride loops, so a block of one
    thread computes the same values.
  }];
  let dependentDialects = ["mlir::gpu::GPUDialect", "mlir::scf::SCFDialect",
                           "mlir::arith::ArithDialect",
                           "mlir::math::MathDialect",
                           "mlir::memref::MemRefDialect"];
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

#endif // KILN_CODEGEN_GPU_PASSES_TD
