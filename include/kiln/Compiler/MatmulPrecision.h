//===- MatmulPrecision.h - what f32 matrix products compute in --*- C++ -*-===//
//
// PyTorch's torch.set_float32_matmul_precision for kiln: a compile option
// (CompileOptions::matmulPrecision, part of every cache key) and the
// process-wide setting that the lazy tensors compile with. MLIR-free: the
// lazy API's header includes it.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_COMPILER_MATMULPRECISION_H
#define KILN_COMPILER_MATMULPRECISION_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

namespace kiln {

/// What a product of f32 matrices may compute in. A permission, as in
/// PyTorch: the CUDA backend uses it (cuBLAS on tensor cores); the CPU has
/// no faster path and computes every f32 product in f32.
enum class Float32MatmulPrecision {
  Highest, // f32 (the default)
  High,    // operands rounded to TF32 (10 mantissa bits), f32 sums
  Medium,  // operands rounded to bf16 (7 mantissa bits), f32 sums: kiln's
           // choice; PyTorch uses TF32 there on CUDA
};

/// "highest", "high" or "medium".
llvm::StringRef getFloat32MatmulPrecisionName(Float32MatmulPrecision precision);
/// The precision `name` spells, or an error listing the three names.
llvm::Expected<Float32MatmulPrecision>
parseFloat32MatmulPrecision(llvm::StringRef name);

/// The setting the lazy tensors (C++ and Python) compile with, from now on:
/// torch.set_float32_matmul_precision. Programs compiled under another
/// setting are cached apart. Thread-safe.
void setFloat32MatmulPrecision(Float32MatmulPrecision precision);
Float32MatmulPrecision getFloat32MatmulPrecision();

} // namespace kiln

#endif // KILN_COMPILER_MATMULPRECISION_H
