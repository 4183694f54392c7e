//===- kiln-opt.cpp - mlir-opt with kiln registered -----------------------===//
//
// mlir-opt with the kiln dialect, kiln's passes and pipelines, and every
// upstream dialect and pass that kiln lowers to. --help lists mlir-opt's
// options and the passes; the options of LLVM's backends and IR passes,
// which kiln-opt never runs, are hidden (--help-hidden lists them).
//
//===----------------------------------------------------------------------===//

#include "kiln/Pipelines/Pipelines.h"
#include "kiln/Tools/ToolSupport.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Support/CommandLine.h"

int main(int argc, char **argv) {
  // What is registered now comes from LLVM's libraries (backends, IR
  // passes); MlirOptMain registers mlir-opt's own options when called.
  for (auto &[name, option] : llvm::cl::getRegisteredOptions()) {
    bool generic =
        llvm::any_of(option->Categories, [](llvm::cl::OptionCategory *c) {
          return c->getName() == "Generic Options";
        });
    if (!generic && option->getOptionHiddenFlag() == llvm::cl::NotHidden)
      option->setHiddenFlag(llvm::cl::Hidden);
  }
  kiln::registerAllKilnPasses();
  mlir::DialectRegistry registry;
  kiln::registerAllKilnDialects(registry);
  kiln::registerKilnTranslations(registry);
  bool statistics = llvm::any_of(llvm::ArrayRef(argv, argc), [](char *arg) {
    return llvm::StringRef(arg).starts_with("-mlir-pass-statistics") ||
           llvm::StringRef(arg).starts_with("--mlir-pass-statistics");
  });
  mlir::LogicalResult result =
      mlir::MlirOptMain(argc, argv, "kiln optimizer driver\n", registry);
  // LLVM without statistics prints an empty report: add kiln's own.
#if !LLVM_ENABLE_STATS
  if (statistics)
    kiln::tools::printPassStatistics(llvm::errs());
#else
  (void)statistics;
#endif
  return mlir::asMainReturnCode(result);
}
