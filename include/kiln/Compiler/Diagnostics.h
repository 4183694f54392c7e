//===- Diagnostics.h - one-line errors from MLIR diagnostics ---*- C++ -*-===//
//
// Tools report one clear line per failure. This handler keeps the first
// error diagnostic as "file:line:col: message" and swallows the rest.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_COMPILER_DIAGNOSTICS_H
#define KILN_COMPILER_DIAGNOSTICS_H

#include "mlir/IR/Diagnostics.h"

#include <string>

namespace kiln {

/// "file:line:col" of the innermost file location in `loc`, or its printed
/// form when it has none.
std::string formatLocation(mlir::Location loc);

class FirstErrorCollector {
public:
  explicit FirstErrorCollector(mlir::MLIRContext *context);

  /// The first error, or `fallback` when there was none.
  std::string getFirstErrorOr(llvm::StringRef fallback) const;

private:
  std::string firstError;
  mlir::ScopedDiagnosticHandler handler;
};

} // namespace kiln

#endif // KILN_COMPILER_DIAGNOSTICS_H
