//===- Passes.td - codegen passes for the CPU --------------*- tablegen -*-===//

#ifndef KILN_CODEGEN_CPU_PASSES_TD
#define KILN_CODEGEN_CPU_PASSES_TD

include "mlir/Pass/PassBase.td"

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

#endif // KILN_CODEGEN_CPU_PASSES_TD
