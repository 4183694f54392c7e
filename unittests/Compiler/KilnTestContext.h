//===- KilnTestContext.h - a context with kiln's dialects ------*- C++ -*-===//

#ifndef KILN_UNITTESTS_COMPILER_KILNTESTCONTEXT_H
#define KILN_UNITTESTS_COMPILER_KILNTESTCONTEXT_H

#include "kiln/Pipelines/Pipelines.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "gtest/gtest.h"

namespace kiln {

/// A fixture whose context has every dialect kiln uses loaded, and which
/// parses modules into `module`.
class KilnTestContext : public ::testing::Test {
protected:
  KilnTestContext() {
    mlir::DialectRegistry registry;
    kiln::registerAllKilnDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
  }

  /// Parses `source` into `module`; false (and a failure) on a parse error.
  bool parse(llvm::StringRef source) {
    module = mlir::parseSourceString<mlir::ModuleOp>(source, &context);
    if (!module)
      ADD_FAILURE() << "the test module does not parse";
    return static_cast<bool>(module);
  }

  mlir::MLIRContext context;
  mlir::OwningOpRef<mlir::ModuleOp> module;
};

} // namespace kiln

#endif // KILN_UNITTESTS_COMPILER_KILNTESTCONTEXT_H
