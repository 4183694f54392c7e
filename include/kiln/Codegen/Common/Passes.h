//===- Passes.h - codegen passes both targets share -------------*- C++ -*-===//

#ifndef KILN_CODEGEN_COMMON_PASSES_H
#define KILN_CODEGEN_COMMON_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

#include "kiln/Support/Donation.h"

namespace kiln {

/// Makes `kernel` a private kernel function as -kiln-outline-kernels makes
/// them: `kiln.kernel`, its memref signature in `kiln.kernel_args` (for
/// -kiln-compact-kernel-abi) and `noinline`.
void markAsKernel(mlir::func::FuncOp kernel);

/// Which inputs of `func` each of its results may be written into
/// (-kiln-plan-donation): `func` is a host function after the buffer stage
/// whose first `numInputs` arguments are inputs and the others results.
/// Empty (nothing may be donated) when its body is not one block.
DonationPlan planDonation(mlir::func::FuncOp func, unsigned numInputs);

/// Moves each operation of `func` (as planDonation takes it) that reads an
/// input and writes a result element by element, but reads the input before
/// other operations do, to just after the input's last other reader when
/// nothing in between uses the result (-kiln-schedule-donation): that one
/// operation is then the input's last read and the result's first write,
/// and the result may take the input's buffer. No other input's last read
/// or result's first write moves earlier. Returns how many moved.
unsigned scheduleForDonation(mlir::func::FuncOp func, unsigned numInputs);

#define GEN_PASS_DECL
#include "kiln/Codegen/Common/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "kiln/Codegen/Common/Passes.h.inc"

} // namespace kiln

#endif // KILN_CODEGEN_COMMON_PASSES_H
