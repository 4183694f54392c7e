//===- Passes.td - kiln conversion passes ------------------*- tablegen -*-===//

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
           "lower matmuls to kiln_rt_matmul_* runtime calls (a BLAS found at "
           "run time; f16/bf16 operands into an f32 accumulator) instead of "
           "generated loops">,
    Option<"tensorCoreCalls", "tensor-core-calls", "bool",
           /*default=*/"false",
           "with blas, for a runtime whose products honour a precision "
           "(cuBLAS): name an f32 matmul's precision in its call "
           "(kiln_rt_matmul_f32tf32_*, kiln_rt_matmul_f32bf16_*); without "
           "it f32 products compute in f32">,
    Option<"parallelScatters", "parallel-scatters", "bool",
           /*default=*/"false",
           "lower kiln.scatter_add to parallel kernels that add each "
           "element's updates in index order along a chain (no host loop, no "
           "atomics: the GPU's) instead of one in-place add per index">,
    Option<"gpuAttention", "gpu-attention", "bool", /*default=*/"false",
           "lower kiln.attention and its gradient to kiln_gpu_attention_* "
           "calls (static shapes, the steps an attribute) that "
           "-kiln-attention-to-gpu replaces by generated GPU kernels, instead "
           "of the CPU runtime's kiln_rt_attention_*">
  ];
  let statistics = [
    Statistic<"numLoweredOps", "kiln-lowered-ops", "kiln ops lowered">,
    Statistic<"numKernelGroups", "kiln-kernel-groups",
              "fusion groups lowered to one linalg.generic">,
    Statistic<"numInlinedGroups", "kiln-inlined-groups",
              "fusion groups lowered op by op">
  ];
}

#endif // KILN_CONVERSION_PASSES_TD
