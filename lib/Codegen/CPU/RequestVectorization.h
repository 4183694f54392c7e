//===- RequestVectorization.h - loop annotations for LLVM ------*- C++ -*-===//
//
// Private to lib/Codegen/CPU: the vectorization request that
// -kiln-serialize-inner-loops and -kiln-lower-row-kernels put on the
// innermost loops they make.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_LIB_CONVERSION_SERIALIZEINNERLOOPS_REQUESTVECTORIZATION_H
#define KILN_LIB_CONVERSION_SERIALIZEINNERLOOPS_REQUESTVECTORIZATION_H

#include "mlir/Dialect/SCF/IR/SCF.h"

namespace kiln {

/// Asks LLVM to vectorize `loop` (an innermost loop, whose iterations carry
/// no dependence through memory) `width` lanes wide, interleaving
/// `interleave` vector iterations, whatever its cost model says; nothing
/// when the loop has inner loops, calls libm, or has fewer iterations than
/// `width`.
void requestVectorization(mlir::scf::ForOp loop, unsigned width,
                          unsigned interleave);

} // namespace kiln

#endif // KILN_LIB_CONVERSION_SERIALIZEINNERLOOPS_REQUESTVECTORIZATION_H
