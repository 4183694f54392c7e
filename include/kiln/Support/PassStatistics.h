//===- PassStatistics.h - pass statistics that survive Release LLVM -*- C++
//-*-===//
//
// Debian's LLVM is built with NDEBUG and without LLVM_FORCE_ENABLE_STATS,
// which turns mlir::Pass::Statistic into a no-op and compiles out the
// -mlir-pass-statistics printer. kiln's passes also record their counts
// here, and kiln-opt prints them for -mlir-pass-statistics.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_SUPPORT_PASSSTATISTICS_H
#define KILN_SUPPORT_PASSSTATISTICS_H

#include "llvm/ADT/Statistic.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>

namespace kiln {

/// Adds `value` to `statistic` (a no-op unless LLVM tracks statistics) and
/// to kiln's own record of `name` for `passName`. The name and description
/// are repeated here because a no-op statistic does not keep them.
void addPassStatistic(llvm::StringRef passName, llvm::Statistic &statistic,
                      llvm::StringRef name, llvm::StringRef description,
                      uint64_t value);

/// Whether anything was recorded.
bool hasPassStatistics();

/// Prints the recorded statistics, pass by pass in the order they first
/// reported, statistics sorted by name, in -mlir-pass-statistics' format.
void printPassStatistics(llvm::raw_ostream &os);

} // namespace kiln

#endif // KILN_SUPPORT_PASSSTATISTICS_H
