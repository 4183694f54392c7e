//===- kiln-compile.cpp - compile a kiln function into a module file ------===//
//
// kiln-compile FILE.mlir [--entry NAME] [--backend cpu|cuda] [--chip sm_XX]
//              -o M.kiln
//
// Writes one ahead-of-time module (kiln_rt_module.h): the entry's signature,
// its host program and its kernels (CPU: a shared object; CUDA: PTX). The
// runtime alone runs it, in a program that links no MLIR or LLVM, and
// `kiln-run M.kiln` runs it as it runs the .mlir file.
//
//===----------------------------------------------------------------------===//

#include "kiln/Compiler/Diagnostics.h"
#include "kiln/Compiler/Executable.h"
#include "kiln/Pipelines/Pipelines.h"
#include "kiln/Tools/ToolSupport.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

static cl::OptionCategory kilnCompileOptions("kiln-compile options");

static cl::opt<std::string> inputFile(cl::Positional, cl::Required,
                                      cl::desc("<FILE.mlir>"),
                                      cl::cat(kilnCompileOptions));
static cl::opt<std::string> outputFile("o", cl::Required,
                                       cl::desc("the module file to write"),
                                       cl::value_desc("M.kiln"),
                                       cl::cat(kilnCompileOptions));
static cl::opt<std::string>
    entryName("entry",
              cl::desc("function to compile (default: main, or the only "
                       "public function)"),
              cl::cat(kilnCompileOptions));
static cl::opt<std::string> backend("backend",
                                    cl::desc("cpu or cuda (default: cpu)"),
                                    cl::init("cpu"),
                                    cl::cat(kilnCompileOptions));
static cl::opt<std::string>
    chip("chip",
         cl::desc("with --backend cuda: the GPU to compile for, e.g. sm_90 "
                  "(default: the device's own, else sm_80)"),
         cl::cat(kilnCompileOptions));
static cl::opt<std::string>
    libdevicePath("libdevice",
                  cl::desc("with --backend cuda: libdevice.10.bc to link, for "
                           "f64 transcendentals (default: $KILN_LIBDEVICE)"),
                  cl::value_desc("PATH"), cl::cat(kilnCompileOptions));
static cl::opt<std::string>
    blasMode("blas",
             cl::desc("matmuls through a BLAS (cuBLAS for cuda): auto, on or "
                      "off (default: auto: when one is found here)"),
             cl::init("auto"), cl::cat(kilnCompileOptions));

[[noreturn]] static void fail(const Twine &message) {
  errs() << "kiln-compile: error: " << message << "\n";
  std::exit(1);
}

int main(int argc, char **argv) {
  InitLLVM initLLVM(argc, argv);
  cl::HideUnrelatedOptions(kilnCompileOptions);
  cl::ParseCommandLineOptions(
      argc, argv, "kiln-compile: compile a kiln function into a module\n");

  Expected<kiln::Device> device = kiln::parseDevice(backend);
  if (!device || *device == kiln::Device::Auto) {
    if (!device)
      consumeError(device.takeError());
    fail("unknown backend '" + backend + "' (expected cpu or cuda)");
  }
  if (*device == kiln::Device::Cpu)
    for (auto [name, given] :
         {std::pair<StringRef, bool>{"--chip", !chip.empty()},
          {"--libdevice", !libdevicePath.empty()}})
      if (given)
        fail(name + " needs --backend cuda");

  mlir::DialectRegistry registry;
  kiln::registerAllKilnDialects(registry);
  mlir::MLIRContext context(registry);
  context.disableMultithreading();
  kiln::FirstErrorCollector errors(&context);

  auto file = MemoryBuffer::getFileOrSTDIN(inputFile);
  if (!file)
    fail("cannot read '" + inputFile + "': " + file.getError().message());
  if (kiln::tools::isAotModule((*file)->getBuffer()))
    fail("'" + inputFile + "' is already a compiled module");
  SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(*file), SMLoc());
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceFile<mlir::ModuleOp>(sourceMgr, &context);
  if (!module)
    fail(errors.getFirstErrorOr("cannot parse '" + inputFile + "'"));
  Expected<std::string> entry = kiln::findEntry(*module, entryName);
  if (!entry)
    fail(toString(entry.takeError()));

  kiln::CompileOptions options;
  options.device = *device;
  options.chip = chip;
  options.libdevice = libdevicePath;
  options.noCache = true;
  if (blasMode == "on")
    options.blas = true;
  else if (blasMode == "off")
    options.blas = false;
  else if (blasMode != "auto")
    fail("--blas must be auto, on or off");
  Expected<std::string> bytes =
      kiln::tools::compileAotModule(*module, *entry, options);
  if (!bytes)
    fail(toString(bytes.takeError()));

  // Written whole or not at all: a temporary file beside it, then a rename.
  SmallString<128> temporary(outputFile);
  temporary += ".tmp-%%%%%%";
  int fd;
  if (std::error_code ec = sys::fs::createUniqueFile(temporary, fd, temporary))
    fail("cannot write '" + outputFile + "': " + ec.message());
  {
    raw_fd_ostream os(fd, /*shouldClose=*/true);
    os << *bytes;
    os.close();
    if (os.has_error()) {
      sys::fs::remove(temporary);
      fail("cannot write '" + outputFile + "': " + os.error().message());
    }
  }
  if (std::error_code ec = sys::fs::rename(temporary, outputFile)) {
    sys::fs::remove(temporary);
    fail("cannot write '" + outputFile + "': " + ec.message());
  }
  return 0;
}
