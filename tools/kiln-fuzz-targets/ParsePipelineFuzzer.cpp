//===- ParsePipelineFuzzer.cpp - arbitrary text through kiln's passes -----===//
//
// libFuzzer target: the input is parsed as a module, verified, and, where it
// holds only builtin, func and kiln ops (the language kiln programs are
// written in), run through -kiln-autodiff, -kiln-fuse and the
// -kiln-cpu-pipeline (to the LLVM dialect). Any outcome but a crash, a
// hang or a sanitizer report is fine: bad text must end in diagnostics.
// A pass that fails must have said why: a failure without an error
// diagnostic aborts, as does IR that no longer verifies after a pass
// (the pass manager's verifier, on after every pass here).
//
//===----------------------------------------------------------------------===//

#include "kiln/Pipelines/Pipelines.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>

namespace {
/// The registry, built once: registering every pass and pipeline is slow.
struct Setup {
  mlir::DialectRegistry registry;
  Setup() {
    kiln::registerAllKilnPasses();
    kiln::registerAllKilnDialects(registry);
  }
};
} // namespace

/// Whether every op of `module` is a builtin, func or kiln op.
static bool isKilnProgram(mlir::ModuleOp module) {
  bool ok = true;
  module->walk([&](mlir::Operation *op) {
    llvm::StringRef dialect = op->getName().getDialectNamespace();
    if (dialect != "builtin" && dialect != "func" && dialect != "kiln")
      ok = false;
  });
  return ok;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static Setup setup;
  mlir::MLIRContext context(setup.registry,
                            mlir::MLIRContext::Threading::DISABLED);
  bool sawError = false;
  mlir::ScopedDiagnosticHandler handler(&context, [&](mlir::Diagnostic &d) {
    sawError |= d.getSeverity() == mlir::DiagnosticSeverity::Error;
    return mlir::success();
  });
  // MLIR's lexer reads up to a NUL after the text (as every file and
  // std::string has); libFuzzer's buffer has none.
  std::string text(reinterpret_cast<const char *>(data), size);
  mlir::ParserConfig config(&context);
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceString<mlir::ModuleOp>(text, config);
  if (!module || !isKilnProgram(*module))
    return 0;

  mlir::PassManager pm(&context);
  pm.enableVerifier(true);
  if (mlir::failed(mlir::parsePassPipeline(
          "builtin.module(kiln-autodiff,kiln-fuse,kiln-cpu-pipeline)", pm))) {
    llvm::errs() << "the fuzz target's pass pipeline does not parse\n";
    std::abort();
  }
  if (mlir::failed(pm.run(*module)) && !sawError) {
    // A pass failed without saying why: a user would get no message.
    llvm::errs() << "a pass failed without an error diagnostic\n";
    std::abort();
  }
  return 0;
}
