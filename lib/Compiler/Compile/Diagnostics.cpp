//===- Diagnostics.cpp - one-line error reports from MLIR diagnostics -----===//

#include "kiln/Compiler/Diagnostics.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Location.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

std::string kiln::formatLocation(Location loc) {
  std::string text;
  llvm::raw_string_ostream os(text);
  if (auto file = loc->findInstanceOf<FileLineColLoc>())
    os << file.getFilename().getValue() << ":" << file.getLine() << ":"
       << file.getColumn();
  else
    loc.print(os);
  return text;
}

kiln::FirstErrorCollector::FirstErrorCollector(MLIRContext *context)
    : handler(context, [this](Diagnostic &diag) {
        if (diag.getSeverity() == DiagnosticSeverity::Error &&
            firstError.empty())
          firstError = formatLocation(diag.getLocation()) + ": " + diag.str();
        return success();
      }) {}

std::string
kiln::FirstErrorCollector::getFirstErrorOr(llvm::StringRef fallback) const {
  return firstError.empty() ? fallback.str() : firstError;
}
