//===- RandomInputs.h - deterministic random program inputs -----*- C++ -*-===//
//
// The inputs `kiln-run --random-inputs SEED` gives a program, and that
// kiln-fuzz-diff gives its programs, so that a fuzzer's reproducer runs on
// exactly the values that failed.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_SUPPORT_RANDOMINPUTS_H
#define KILN_SUPPORT_RANDOMINPUTS_H

#include "kiln/Support/HostTensor.h"

#include <cstdint>

namespace kiln {

/// Argument `index`'s values from `seed`: uniform in [-1, 1) (i1: 0 or 1;
/// i32 and i64: integers in [-2, 9], which as indices are often out of
/// range or repeated), from splitmix64, the same on every platform. Fails when
/// the shape cannot be allocated.
llvm::Expected<HostTensor> makeRandomInput(DType dtype,
                                           llvm::ArrayRef<int64_t> shape,
                                           uint64_t seed, size_t index);

} // namespace kiln

#endif // KILN_SUPPORT_RANDOMINPUTS_H
