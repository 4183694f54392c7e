//===- PassStatistics.h - statistics kept in Release LLVM ------*- C++ -*-===//
//
// Debian's LLVM is built with NDEBUG and without LLVM_FORCE_ENABLE_STATS,
// which turns mlir::Pass::Statistic into a no-op and compiles out the
// -mlir-pass-statistics printer. kiln's passes also record their counts
// here, named as their Passes.td names them, and kiln-opt prints them for
// -mlir-pass-statistics.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_SUPPORT_PASSSTATISTICS_H
#define KILN_SUPPORT_PASSSTATISTICS_H

#include "mlir/Pass/Pass.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/Statistic.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>

namespace kiln {

/// One statistic of a pass, as its Passes.td declares it. kiln-tblgen
/// -gen-pass-statistics writes a Passes.td's statistics as a table of these,
/// `kPassStatistics` in PassStatistics.h.inc beside its Passes.h.inc.
struct PassStatisticInfo {
  const char *pass;        // the pass's argument, "kiln-autodiff"
  const char *member;      // the statistic's C++ member, "numVjpsExpanded"
  const char *name;        // its name, "kiln-vjps-expanded"
  const char *description; // its description
};

/// Adds `value` to `statistic` of `pass` (a no-op unless LLVM tracks
/// statistics) and to kiln's own record, under the name and description
/// that `table` (the pass's kPassStatistics) gives it. The Release LLVM's
/// statistic keeps neither.
void addPassStatistic(mlir::Pass &pass, mlir::Pass::Statistic &statistic,
                      uint64_t value, llvm::ArrayRef<PassStatisticInfo> table);

/// Whether anything was recorded.
bool hasPassStatistics();

/// Prints the recorded statistics, pass by pass in the order they first
/// reported, statistics sorted by name, in -mlir-pass-statistics' format.
void printPassStatistics(llvm::raw_ostream &os);

} // namespace kiln

#endif // KILN_SUPPORT_PASSSTATISTICS_H
