//===- RowKernelAnalysis.h - which kernels run row by row ------*- C++ -*-===//
//
// A kernel of linalg ops on buffers whose every access is row-local: the
// ops share their leading k parallel dims (the rows), reductions reduce
// the dims after them, and a buffer the kernel writes is read on the same
// row only. -kiln-lower-row-kernels runs such a kernel as one loop over the
// rows on the CPU; -kiln-map-kernels-to-gpu as a warp or a block per row.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_LIB_CONVERSION_ROWKERNELS_ROWKERNELANALYSIS_H
#define KILN_LIB_CONVERSION_ROWKERNELS_ROWKERNELANALYSIS_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"

#include <optional>

namespace kiln::row_kernels {

/// How a kernel's op runs on one row.
enum class NestKind { Fill, Phase, Domain, Rows };

struct RowKernel {
  int64_t k = 0;
  llvm::SmallVector<int64_t> rows; // the row dims' sizes
  llvm::SmallVector<std::pair<mlir::Operation *, NestKind>> ops;
};

/// Whether `map` reads row-locally: its first k results are d0..dk-1 and
/// the rest use no row dim (`rowPrefixed`), or no result uses a row dim;
/// results are dims or constants.
bool classifyMap(mlir::AffineMap map, int64_t k, bool &rowPrefixed);

/// Whether every result of `map` is a dim or a constant.
bool isDimsOrConstants(mlir::AffineMap map);

/// The row kernel `func` is, if it is one.
std::optional<RowKernel> matchRowKernel(mlir::func::FuncOp func);

} // namespace kiln::row_kernels

#endif // KILN_LIB_CONVERSION_ROWKERNELS_ROWKERNELANALYSIS_H
