//===- kiln-run.cpp - compile and run a kiln function on .npy data --------===//
//
//   kiln-run FILE.mlir [--entry NAME] [--backend cpu|cuda] [--input X.npy]...
//            [--random-inputs SEED] [--output-dir DIR] [--print]
//            [--repeat N] [--report] [--check-reference]
//
// Every bad input ends with one line on stderr and exit code 1.
//
//===----------------------------------------------------------------------===//

#include "kiln/Compiler/Diagnostics.h"
#include "kiln/Compiler/Executable.h"
#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "kiln/Dialect/Kiln/Transforms/Passes.h"
#include "kiln/Pipelines/Pipelines.h"
#include "kiln/Support/ElementTypes.h"
#include "kiln/Support/Npy.h"
#include "kiln/Tools/ToolSupport.h"
#include "kiln_rt/kiln_rt_cuda.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>

using namespace llvm;
using kiln::HostTensor;

/// kiln-run's own options; --help shows only these (--help-hidden shows
/// LLVM's too).
static cl::OptionCategory kilnRunOptions("kiln-run options");

static cl::opt<std::string> inputFile(cl::cat(kilnRunOptions), cl::Positional,
                                      cl::desc("<FILE.mlir>"), cl::Required);
static cl::opt<std::string>
    entryName(cl::cat(kilnRunOptions), "entry",
              cl::desc("function to run (default: main, or the only "
                       "public function)"),
              cl::init(""));
static cl::opt<std::string> backend(cl::cat(kilnRunOptions), "backend",
                                    cl::desc("cpu or cuda (default: cpu)"),
                                    cl::init("cpu"));
static cl::list<std::string>
    inputs(cl::cat(kilnRunOptions), "input",
           cl::desc(".npy file for the next argument, in order (default: none; "
                    "--random-inputs or constants)"));
static cl::opt<int64_t>
    randomSeed(cl::cat(kilnRunOptions), "random-inputs",
               cl::desc("generate deterministic inputs from SEED, uniform in "
                        "[-1, 1) (default: off)"),
               cl::init(-1));
static cl::opt<std::string>
    outputDir(cl::cat(kilnRunOptions), "output-dir",
              cl::desc("write DIR/out0.npy, ... (default: not written)"),
              cl::init(""));
static cl::opt<bool> printOutputs(cl::cat(kilnRunOptions), "print",
                                  cl::desc("print the results (default: off)"));
static cl::opt<int> repeat(cl::cat(kilnRunOptions), "repeat",
                           cl::desc("run N times (median time) (default: 1)"),
                           cl::init(1));
static cl::opt<bool>
    report(cl::cat(kilnRunOptions), "report",
           cl::desc("print one JSON line with timings (default: off)"));
static cl::opt<bool> profileCalls(
    cl::cat(kilnRunOptions), "profile",
    cl::desc("CPU: print each kernel's and runtime call's time per run, "
             "slowest first, to stderr (default: off)"));
static cl::opt<bool> donate(
    cl::cat(kilnRunOptions), "donate",
    cl::desc("CPU: each result takes over an input of its type that the "
             "compiled program may overwrite (a copy of it, made before the "
             "run is timed), as a caller that drops its inputs would run "
             "it (default: off)"));
static cl::opt<bool> checkReference(
    cl::cat(kilnRunOptions), "check-reference",
    cl::desc("compare the results with the reference interpreter "
             "(default: off)"));
static cl::opt<bool> autodiffPrune(
    cl::cat(kilnRunOptions), "autodiff-prune",
    cl::desc("dead-edge elimination in -kiln-autodiff (=false: the naive "
             "derivation, for measuring) (default: true)"),
    cl::init(true));
static cl::opt<std::string> remat(
    cl::cat(kilnRunOptions), "remat",
    cl::desc("auto: recompute cheap elementwise values in the backward when "
             "that keeps fewer bytes (-kiln-autodiff remat=auto); none: "
             "keep them (default: KILN_REMAT, else auto on the CPU and "
             "none on CUDA)"),
    cl::init(""));
static cl::opt<int64_t> rematMinBytes(
    cl::cat(kilnRunOptions), "remat-min-bytes",
    cl::desc("with --remat auto: the smallest value recomputed (default "
             "65536; 0: every value the rule allows)"),
    cl::init(-1));
static cl::opt<bool> kernelDedup(
    cl::cat(kilnRunOptions), "kernel-dedup",
    cl::desc("compile equal kernels once (=false: one per launch, for "
             "measuring) (default: true)"),
    cl::init(true));
static cl::opt<bool> foldContractionLayouts(
    cl::cat(kilnRunOptions), "fold-contraction-layouts",
    cl::desc("CPU: transposes and batch reshapes around BLAS calls become "
             "strides (=false: copies, for measuring) (default: true)"),
    cl::init(true));
static cl::opt<bool> fuseAttention(
    cl::cat(kilnRunOptions), "fuse-attention",
    cl::desc("CPU: attention runs on the runtime's blockwise kernels, its "
             "scores never stored (=false: matmuls and a softmax, for "
             "measuring) (default: true)"),
    cl::init(true));
static cl::opt<std::string> cacheDir(
    cl::cat(kilnRunOptions), "cache-dir",
    cl::desc("the compile cache's directory (default: $KILN_CACHE_DIR, "
             "else $XDG_CACHE_HOME/kiln or ~/.cache/kiln)"),
    cl::value_desc("DIR"), cl::init(""));
static cl::opt<bool> noCache(
    cl::cat(kilnRunOptions), "no-cache",
    cl::desc("neither read nor write the compile cache (as KILN_CACHE=0) "
             "(default: off)"),
    cl::init(false));
static cl::opt<bool> cacheStats(
    cl::cat(kilnRunOptions), "cache-stats",
    cl::desc("print the compile cache's hits, misses, bytes and evictions "
             "as one JSON line to stderr (default: off)"),
    cl::init(false));
static cl::opt<bool> verifyEach(
    cl::cat(kilnRunOptions), "verify-each",
    cl::desc("verify the IR after every pass (by default, after each "
             "pipeline stage) (default: off)"),
    cl::init(false));
static cl::opt<bool> compileHost(
    cl::cat(kilnRunOptions), "compile-host",
    cl::desc("compile the host code to machine code even when the entry "
             "can run as a host program (static shapes) (default: off)"),
    cl::init(false));
static cl::opt<std::string> dumpObject(
    cl::cat(kilnRunOptions), "dump-object",
    cl::desc(
        "write the machine code to PATH.kernels.o (and PATH.host.o when the "
        "host code is compiled) (default: not written)"),
    cl::value_desc("PATH"), cl::init(""));
static cl::opt<bool> emulateGpu(
    cl::cat(kilnRunOptions), "emulate-gpu",
    cl::desc("map the kernels to the GPU as --backend cuda does, then run "
             "those GPU kernels on the CPU, one thread after another: checks "
             "the thread mapping without a GPU (matmuls are kernels too) "
             "(default: off)"),
    cl::init(false));
static cl::opt<std::string>
    chip(cl::cat(kilnRunOptions), "chip",
         cl::desc("with --backend cuda: the GPU to compile for, e.g. sm_90 "
                  "(default: the device's own)"),
         cl::init(""));
static cl::opt<std::string> libdevicePath(
    cl::cat(kilnRunOptions), "libdevice",
    cl::desc("with --backend cuda: libdevice.10.bc to link, for f64 "
             "transcendentals (default: $KILN_LIBDEVICE; without either, "
             "programs that need it are refused)"),
    cl::value_desc("PATH"), cl::init(""));
static cl::opt<std::string>
    dumpPtx(cl::cat(kilnRunOptions), "dump-ptx",
            cl::desc("with --backend cuda: write the kernels' PTX to PATH "
                     "(default: not written)"),
            cl::value_desc("PATH"), cl::init(""));
static cl::opt<std::string>
    blasMode(cl::cat(kilnRunOptions), "blas",
             cl::desc("matmuls through a BLAS: auto, on or off (default: "
                      "auto: when one was found)"),
             cl::init("auto"));
static cl::opt<std::string> matmulPrecision(
    cl::cat(kilnRunOptions), "matmul-precision",
    cl::desc("what f32 matmuls may compute in, as "
             "torch.set_float32_matmul_precision: highest (f32, the "
             "default), high (TF32) or medium (bf16) on the cuda backend; "
             "the CPU computes them in f32. --check-reference allows for it"),
    cl::init("highest"));
static cl::opt<std::string> autocastType(
    cl::cat(kilnRunOptions), "autocast",
    cl::desc("run f32 matmuls in bf16 or f16, as torch.autocast "
             "(-kiln-autocast; default: in f32). --check-reference allows "
             "for it"),
    cl::init(""));
static cl::opt<double>
    relTolerance(cl::cat(kilnRunOptions), "rtol",
                 cl::desc("relative tolerance of --check-reference (default: "
                          "1e-4 for f32, 1e-9 for f64, 2e-2 for f16/bf16)"),
                 cl::init(-1));
static cl::opt<double>
    absTolerance(cl::cat(kilnRunOptions), "atol",
                 cl::desc("absolute tolerance of --check-reference (default: "
                          "1e-5 for f32, 1e-12 for f64, 1e-2 for f16/bf16)"),
                 cl::init(-1));

static cl::list<int64_t> dimSizes(
    cl::cat(kilnRunOptions), "dim-sizes", cl::CommaSeparated,
    cl::desc("with --random-inputs: run once per size N, every dynamic dim of "
             "the inputs N (default: inputs with dynamic dims need --input "
             "files)"),
    cl::value_desc("N,..."));
static cl::opt<bool> generalizeBatch(
    cl::cat(kilnRunOptions), "generalize-batch",
    cl::desc("first make the entry's batch dim (dim 0 of its first argument "
             "of rank >= 1) dynamic, with every dim that follows it "
             "(-kiln-generalize-batch); with --dim-sizes, runs the program at "
             "other batch sizes (default: off)"),
    cl::init(false));

[[noreturn]] static void fail(const Twine &message) {
  errs() << "kiln-run: error: " << message << "\n";
  errs().flush();
  std::exit(1);
}

/// Argument `index`'s random values (Support/RandomInputs.h).
static HostTensor randomTensor(const kiln::TensorSignature &sig, uint64_t seed,
                               size_t index) {
  Expected<HostTensor> made =
      kiln::tools::makeRandomInput(sig.dtype, sig.shape, seed, index);
  if (!made)
    fail("argument " + Twine(index) + ": " + toString(made.takeError()));
  return std::move(*made);
}

/// --profile: each callee's time per run, slowest first (ties in call
/// order), and its share of the median run time.
static void printCallProfile(const kiln::RunProfile &profile, int runs,
                             double runMs) {
  std::vector<kiln::RunProfile::Call> calls = profile.calls;
  std::stable_sort(calls.begin(), calls.end(),
                   [](const auto &a, const auto &b) { return a.ns > b.ns; });
  double totalMs = 0;
  errs() << format("%10s %7s %6s  %s\n", "ms/run", "calls", "share", "callee");
  for (const kiln::RunProfile::Call &call : calls) {
    double ms = call.ns / 1e6 / runs;
    totalMs += ms;
    errs() << format("%10.4f %7lld %5.1f%%  ", ms,
                     static_cast<long long>(call.calls / runs),
                     runMs > 0 ? 100 * ms / runMs : 0.0)
           << call.name << "\n";
  }
  errs() << format("%10.4f %7s %5.1f%%  ", totalMs, "",
                   runMs > 0 ? 100 * totalMs / runMs : 0.0)
         << "in calls, of " << format("%.4f", runMs) << " ms per run\n";
}

static void printValue(raw_ostream &os, const HostTensor &t, int64_t index) {
  double v = t.getAsDouble(index);
  if (t.getDType() == kiln::DType::I1) {
    os << (v != 0 ? "true" : "false");
    return;
  }
  if (kiln::isIntegerDType(t.getDType())) {
    os << t.getAsInt64(index);
    return;
  }
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer),
                t.getDType() == kiln::DType::F64 ? "%.12g" : "%.6g", v);
  os << buffer;
}

/// Nested brackets in row-major order, one innermost row per line.
static void printTensor(raw_ostream &os, const HostTensor &t, size_t dim,
                        int64_t &index) {
  if (dim == t.getShape().size()) {
    printValue(os, t, index++);
    return;
  }
  os << "[";
  for (int64_t i = 0; i < t.getShape()[dim]; ++i) {
    if (i > 0) {
      os << ",";
      if (dim + 1 < t.getShape().size())
        os << "\n" << std::string(dim + 1, ' ');
      else
        os << " ";
    }
    printTensor(os, t, dim + 1, index);
  }
  os << "]";
}

static double defaultTolerance(kiln::DType dtype, bool relative) {
  switch (dtype) {
  case kiln::DType::F64:
    return relative ? 1e-9 : 1e-12;
  case kiln::DType::F16:
  case kiln::DType::BF16:
    return relative ? 2e-2 : 1e-2;
  default:
    return relative ? 1e-4 : 1e-5;
  }
}

/// How deeply kiln.vjp ops nest under `func` (through calls and callees):
/// 0 without any, 1 for gradients, 2 for gradients of gradients.
static int getVjpDepth(mlir::func::FuncOp func, mlir::ModuleOp module,
                       int limit = 8) {
  int depth = 0;
  if (limit == 0)
    return depth;
  func.walk([&](mlir::Operation *op) {
    auto callee = [&](StringRef name) {
      return module.lookupSymbol<mlir::func::FuncOp>(name);
    };
    if (auto vjp = dyn_cast<kiln::VjpOp>(op)) {
      if (auto f = callee(vjp.getCallee()))
        depth = std::max(depth, 1 + getVjpDepth(f, module, limit - 1));
    } else if (auto call = dyn_cast<mlir::func::CallOp>(op)) {
      if (auto f = callee(call.getCallee()))
        depth = std::max(depth, getVjpDepth(f, module, limit - 1));
    }
  });
  return depth;
}

/// The reference's own error, relative to an output's largest magnitude:
/// its kiln.vjp is a Richardson-extrapolated central difference, good to
/// about 1e-13 of the scale for a gradient, and (the inner difference's
/// rounding noise divided by the outer step) a few 1e-9 for a gradient of a
/// gradient (Interpreter.cpp). The allowance is 30-100x that.
static double referenceError(int vjpDepth) {
  return vjpDepth == 0 ? 0 : vjpDepth == 1 ? 1e-11 : 1e-7;
}

/// The unit roundoff of the operands of f32 products on this run's device:
/// 0 where they compute in f32, else that of the type they are rounded to:
/// bf16 (2^-8) or f16 (2^-11) under --autocast, and on the cuda backend
/// TF32 (2^-11) or bf16 under --matmul-precision.
static double getProductRoundoff() {
  if (autocastType == "bf16")
    return std::ldexp(1.0, -8);
  double u = autocastType == "f16" ? std::ldexp(1.0, -11) : 0;
  if (backend != "cuda")
    return u;
  if (matmulPrecision == "high")
    return std::max(u, std::ldexp(1.0, -11));
  if (matmulPrecision == "medium")
    return std::ldexp(1.0, -8);
  return u;
}

/// Compares `got` with `want` elementwise; NaN matches NaN, inf matches the
/// same inf. Returns the largest absolute error; a failure adds lines to
/// `failures`, one each (at most 5 per output), with every digit and the
/// tolerance used.
static double compareWithReference(size_t index, const HostTensor &got,
                                   const HostTensor &want, int vjpDepth,
                                   std::string &failures) {
  if (got.getShape() != want.getShape() || got.getDType() != want.getDType()) {
    failures +=
        ("output " + Twine(index) + " is " + got.getTypeString() +
         " but the reference interpreter gives " + want.getTypeString() + "\n")
            .str();
    return 0;
  }
  double r =
      relTolerance >= 0 ? relTolerance : defaultTolerance(got.getDType(), true);
  double a = absTolerance >= 0 ? absTolerance
                               : defaultTolerance(got.getDType(), false);
  double scale = 0;
  for (int64_t i = 0; i < want.getNumElements(); ++i)
    if (std::isfinite(want.getAsDouble(i)))
      scale = std::max(scale, std::fabs(want.getAsDouble(i)));
  double reference = referenceError(vjpDepth) * scale;
  // f32 products whose operands were rounded: each product's relative
  // error is about 2u, and errors of one sign add up along K; 8u of the
  // output's scale (which grows with K too) allows for both.
  if (double u = got.getDType() == kiln::DType::F32 ? getProductRoundoff() : 0;
      u > 0 && relTolerance < 0 && absTolerance < 0) {
    r = std::max(r, 8 * u);
    reference += 8 * u * scale;
  }
  double maxError = 0;
  int64_t failed = 0;
  for (int64_t i = 0; i < got.getNumElements(); ++i) {
    double x = got.getAsDouble(i), y = want.getAsDouble(i);
    if (std::isnan(x) && std::isnan(y))
      continue;
    if (std::isinf(y) && x == y)
      continue;
    double error = std::fabs(x - y);
    double allowed = a + r * std::fabs(y) + reference;
    if (!(error <= allowed) && failed++ < 5)
      failures += formatv("output {0} ({1}) differs from the reference at "
                          "element {2}: got {3:e16}, expected {4:e16}, "
                          "difference {5:e3} > tolerance {6:e3} (atol {7:e3} "
                          "+ rtol {8:e3} * |expected| + the reference's own "
                          "error {9:e3})\n",
                          index, got.getTypeString(), i, x, y, error, allowed,
                          a, r, reference)
                      .str();
    if (std::isfinite(error))
      maxError = std::max(maxError, error);
  }
  if (failed > 5)
    failures +=
        formatv("output {0}: {1} elements differ in all\n", index, failed)
            .str();
  return maxError;
}

int main(int argc, char **argv) {
  InitLLVM initLLVM(argc, argv);
  // LLVM's own options stay usable, and --help-hidden lists them (unlike
  // cl::HideUnrelatedOptions, which hides them from every listing).
  for (auto &[name, option] : cl::getRegisteredOptions()) {
    bool shown = llvm::any_of(option->Categories, [](cl::OptionCategory *c) {
      return c == &kilnRunOptions || c->getName() == "Generic Options";
    });
    if (!shown && option->getOptionHiddenFlag() == cl::NotHidden)
      option->setHiddenFlag(cl::Hidden);
  }
  cl::ParseCommandLineOptions(argc, argv,
                              "kiln-run: compile and run a kiln function\n");

  // --dump-ptx without a device: compile, write the PTX, do not run.
  bool compileOnly = false;
  Expected<kiln::Device> device = kiln::parseDevice(backend);
  if (!device || *device == kiln::Device::Auto) {
    if (!device)
      consumeError(device.takeError());
    fail("unknown backend '" + backend + "' (expected cpu or cuda)");
  }
  if (*device == kiln::Device::Cuda && emulateGpu)
    fail("--emulate-gpu runs GPU kernels on the CPU: it needs --backend cpu");
  if (*device == kiln::Device::Cpu) {
    for (auto [name, given] :
         {std::pair<StringRef, bool>{"--chip", !chip.empty()},
          {"--libdevice", !libdevicePath.empty()},
          {"--dump-ptx", !dumpPtx.empty()}})
      if (given)
        fail(name + " needs --backend cuda");
  } else {
    for (auto [name, given] :
         {std::pair<StringRef, bool>{"--compile-host", compileHost},
          {"--dump-object", !dumpObject.empty()}})
      if (given)
        fail(name + " needs --backend cpu");
    // Without a driver or a GPU, say so before anything compiles, unless
    // only the PTX is asked for: compiling needs no device (--chip names
    // the target; sm_80 by default), running does.
    if (Expected<kiln::Device> usable = kiln::resolveDevice(*device); !usable) {
      bool runAsked = printOutputs || report || checkReference ||
                      !outputDir.empty() || repeat != 1;
      if (dumpPtx.empty() || runAsked)
        fail(toString(usable.takeError()) +
             (dumpPtx.empty() ? ""
                              : " (--dump-ptx alone needs no device; "
                                "--print, --report, --check-reference, "
                                "--output-dir and --repeat run the program)"));
      consumeError(usable.takeError());
      compileOnly = true;
    }
  }
  if (repeat < 1)
    fail("--repeat must be at least 1");
  if (!inputs.empty() && randomSeed >= 0)
    fail("--input and --random-inputs cannot be combined");
  if (!dimSizes.empty() && randomSeed < 0)
    fail("--dim-sizes needs --random-inputs");
  if (dimSizes.size() > 1 && !outputDir.empty())
    fail("--output-dir takes the results of one size: give one --dim-sizes");
  for (int64_t size : dimSizes)
    if (size < 0)
      fail("--dim-sizes must not be negative, got " + Twine(size));

  auto file = MemoryBuffer::getFileOrSTDIN(inputFile);
  if (!file)
    fail("cannot read '" + inputFile + "': " + file.getError().message());
  // A module (kiln-compile) runs through the runtime alone: nothing to
  // parse or compile.
  bool isModule = kiln::tools::isAotModule((*file)->getBuffer());

  mlir::DialectRegistry registry;
  kiln::registerAllKilnDialects(registry);
  kiln::registerKilnTranslations(registry);
  mlir::MLIRContext context(registry);
  context.disableMultithreading();
  kiln::FirstErrorCollector errors(&context);
  mlir::OwningOpRef<mlir::ModuleOp> module;
  // The reference runs on an untouched copy: compilation lowers in place.
  mlir::OwningOpRef<mlir::ModuleOp> referenceModule;
  std::unique_ptr<kiln::Executable> exe;
  Expected<std::string> entry = std::string();
  // The inputs' types, checked before anything compiles.
  std::vector<kiln::TensorSignature> inputTypes;
  mlir::FunctionType type;
  if (isModule) {
    for (auto [name, given] :
         {std::pair<StringRef, bool>{"--check-reference", checkReference},
          {"--emulate-gpu", emulateGpu},
          {"--compile-host", compileHost},
          {"--dump-object", !dumpObject.empty()},
          {"--chip", !chip.empty()},
          {"--libdevice", !libdevicePath.empty()},
          {"--blas", blasMode != "auto"},
          {"--matmul-precision", matmulPrecision != "highest"},
          {"--autocast", !autocastType.empty()}})
      if (given)
        fail(name + " does not apply to a compiled module ('" + inputFile +
             "')");
    Expected<std::unique_ptr<kiln::Executable>> loaded =
        kiln::tools::loadAotModule(inputFile);
    if (!loaded)
      fail(toString(loaded.takeError()));
    exe = std::move(*loaded);
    if (!entryName.empty() && entryName != exe->getEntryName())
      fail("'" + inputFile + "' holds @" + exe->getEntryName() + ", not @" +
           entryName);
    if (exe->getDevice() != *device)
      fail("'" + inputFile + "' was compiled for --backend " +
           (exe->getDevice() == kiln::Device::Cuda ? "cuda" : "cpu"));
    *entry = exe->getEntryName();
    inputTypes = exe->getInputs();
  } else {
    SourceMgr sourceMgr;
    sourceMgr.AddNewSourceBuffer(std::move(*file), SMLoc());
    module = mlir::parseSourceFile<mlir::ModuleOp>(sourceMgr, &context);
    if (!module)
      fail(errors.getFirstErrorOr("cannot parse '" + inputFile + "'"));
    entry = kiln::findEntry(*module, entryName);
    if (!entry)
      fail(toString(entry.takeError()));
    if (generalizeBatch) {
      mlir::PassManager pm(&context);
      kiln::KilnGeneralizeBatchOptions options;
      options.entry = *entry;
      pm.addPass(kiln::createKilnGeneralizeBatch(options));
      if (failed(pm.run(*module)))
        fail(errors.getFirstErrorOr("cannot generalize the batch of @" +
                                    *entry));
    }
    auto func = module->lookupSymbol<mlir::func::FuncOp>(*entry);
    type = func.getFunctionType();
  }
  size_t numInputs = isModule ? inputTypes.size() : type.getNumInputs();

  // Inputs are checked against the signature before anything compiles.
  // They live in a static, which exit() destroys: an error after this
  // point (fail() exits) frees them too.
  static std::vector<HostTensor> args;
  // --random-inputs: every dynamic dim `dynamicSize` (--dim-sizes).
  auto makeRandomArgs = [&](int64_t dynamicSize) {
    args.clear();
    for (size_t i = 0; i < numInputs; ++i) {
      kiln::TensorSignature sig;
      if (isModule) {
        sig = inputTypes[i];
      } else {
        auto tensorType = dyn_cast<mlir::RankedTensorType>(type.getInput(i));
        if (!tensorType)
          fail("argument " + Twine(i) + " is not a ranked tensor");
        Expected<kiln::DType> dtype =
            kiln::getDType(tensorType.getElementType());
        if (!dtype)
          fail("argument " + Twine(i) + ": " + toString(dtype.takeError()));
        sig = {*dtype, tensorType.getShape().vec(), ""};
      }
      for (int64_t &d : sig.shape) {
        if (d >= 0)
          continue;
        if (dynamicSize < 0)
          fail("argument " + Twine(i) +
               " has a dynamic shape: give --input files instead of "
               "--random-inputs (or --dim-sizes N,...)");
        d = dynamicSize;
      }
      args.push_back(randomTensor(sig, randomSeed, i));
    }
  };
  if (randomSeed >= 0) {
    makeRandomArgs(dimSizes.empty() ? -1 : dimSizes.front());
  } else if (!(compileOnly && inputs.empty())) {
    // (Compiling alone needs no inputs.)
    if (inputs.size() != numInputs)
      fail("@" + *entry + " takes " + Twine(numInputs) + " inputs, got " +
           Twine(inputs.size()) + " --input files");
    for (auto [i, path] : llvm::enumerate(inputs)) {
      Expected<HostTensor> tensor = kiln::readNpy(path);
      if (!tensor)
        fail(toString(tensor.takeError()));
      std::string what = "input " + std::to_string(i) + " ('" + path + "')";
      if (isModule) {
        const kiln::TensorSignature &sig = inputTypes[i];
        bool fits = tensor->getDType() == sig.dtype &&
                    tensor->getShape().size() == sig.shape.size();
        for (size_t d = 0; fits && d < sig.shape.size(); ++d)
          fits = sig.shape[d] < 0 || sig.shape[d] == tensor->getShape()[d];
        if (!fits)
          fail(what + " is " + tensor->getTypeString() + " but " +
               sig.typeString + " is expected");
      } else if (Error e =
                     kiln::checkMatchesType(*tensor, type.getInput(i), what)) {
        fail(toString(std::move(e)));
      }
      args.push_back(std::move(*tensor));
    }
  }

  if (!isModule) {
    if (checkReference)
      referenceModule = module->clone();
    kiln::CompileOptions compileOptions;
    compileOptions.device = *device;
    compileOptions.autodiffPrune = autodiffPrune;
    if (remat == "auto" || remat == "none")
      compileOptions.autoRemat = remat == "auto";
    else if (!remat.empty())
      fail("--remat must be auto or none, not '" + remat + "'");
    if (rematMinBytes.getNumOccurrences()) {
      if (rematMinBytes < 0)
        fail("--remat-min-bytes must be at least 0");
      compileOptions.rematMinBytes = rematMinBytes;
    }
    compileOptions.kernelDedup = kernelDedup;
    compileOptions.foldContractionLayouts = foldContractionLayouts;
    compileOptions.fuseAttention = fuseAttention;
    compileOptions.noCache = noCache;
    compileOptions.cacheDirectory = cacheDir;
    compileOptions.verifyEachPass = verifyEach;
    compileOptions.compileHostCode = compileHost;
    compileOptions.objectDumpPath = dumpObject;
    compileOptions.emulateGpuKernels = emulateGpu;
    compileOptions.chip = chip;
    compileOptions.libdevice = libdevicePath;
    if (blasMode == "on")
      compileOptions.blas = true;
    else if (blasMode == "off")
      compileOptions.blas = false;
    else if (blasMode != "auto")
      fail("--blas must be auto, on or off");
    Expected<kiln::Float32MatmulPrecision> precision =
        kiln::parseFloat32MatmulPrecision(matmulPrecision);
    if (!precision)
      fail("--matmul-precision: " + toString(precision.takeError()));
    compileOptions.matmulPrecision = *precision;
    if (autocastType == "bf16")
      compileOptions.autocast = kiln::DType::BF16;
    else if (autocastType == "f16")
      compileOptions.autocast = kiln::DType::F16;
    else if (!autocastType.empty())
      fail("--autocast must be bf16 or f16, not '" + autocastType + "'");
    Expected<std::unique_ptr<kiln::Executable>> compiled =
        kiln::Executable::compile(*module, *entry, compileOptions);
    if (!compiled)
      fail(toString(compiled.takeError()));
    exe = std::move(*compiled);
  }
  const kiln::CompileStats &stats = exe->getStats();
  if (!dumpPtx.empty()) {
    std::error_code ec;
    raw_fd_ostream os(dumpPtx, ec);
    if (ec)
      fail("cannot write '" + dumpPtx + "': " + ec.message());
    os << exe->getPtx();
  }
  if (compileOnly) {
    errs() << "kiln-run: no cuda device: wrote the PTX for "
           << (chip.empty() ? std::string("sm_80") : std::string(chip))
           << " to '" << dumpPtx << "' without running it\n";
    return 0;
  }

  // The CPU's run time is wall time; the GPU's is the device time of the
  // steps, from CUDA events (the copies of inputs and results excluded).
  std::vector<double> times;
  std::vector<HostTensor> results;
  double medianMs = 0;
  // On the GPU: the host's time per run (queueing it, with no wait) and
  // the graph launches per run, over runs of their own.
  double hostUs = -1, graphLaunchesPerRun = 0;
  // The most bytes the runtime's allocator held over the timed runs (the
  // device's on the GPU), inputs and results included.
  uint64_t runPeakBytes = 0;
  kiln::RunProfile callProfile;
  callProfile.perCall = true;
  // --donate: the results written into a donated input, per run.
  size_t donatedResults = 0;
  if (donate && exe->getDevice() == kiln::Device::Cuda)
    fail("--donate runs on the cpu backend only");
  // One round per --dim-sizes size (the program compiled once).
  for (size_t round = 0; round < std::max<size_t>(1, dimSizes.size());
       ++round) {
    times.clear();
    if (round > 0)
      makeRandomArgs(dimSizes[round]);
    std::vector<const HostTensor *> argPointers;
    for (const HostTensor &arg : args)
      argPointers.push_back(&arg);
    // On the GPU (a compiled .mlir), the inputs go to the device once and
    // every repeat runs there; the results come back once.
    bool resident = exe->getDevice() == kiln::Device::Cuda && !isModule;
    std::vector<std::shared_ptr<const kiln::DeviceValue>> deviceArgs;
    std::vector<const kiln::DeviceValue *> devicePointers;
    if (resident)
      for (const HostTensor &arg : args) {
        auto uploaded = kiln::tools::uploadToDevice(arg);
        if (!uploaded)
          fail(toString(uploaded.takeError()));
        devicePointers.push_back(uploaded->get());
        deviceArgs.push_back(std::move(*uploaded));
      }
    std::vector<std::shared_ptr<const kiln::DeviceValue>> deviceResults;
    // The runs' peak: from what is live now (the inputs), over the runs.
    kiln_rt_host_reset_peak();
    kiln_rt_cuda_reset_peak_memory();
    for (int i = 0; i < repeat; ++i) {
      std::unique_ptr<kiln::tools::DonatedRun> donated =
          donate ? kiln::tools::prepareDonatedRun(*exe, args) : nullptr;
      auto start = std::chrono::steady_clock::now();
      kiln::RunProfile profile;
      bool cuda = exe->getDevice() == kiln::Device::Cuda;
      if (donated) {
        Expected<std::vector<HostTensor>> out = donated->run(*exe);
        if (!out)
          fail(toString(out.takeError()));
        results = std::move(*out);
        donatedResults = donated->donated;
      } else if (resident) {
        auto out = exe->runOnDevice(devicePointers, &profile);
        if (!out)
          fail(toString(out.takeError()));
        deviceResults = std::move(*out);
      } else {
        Expected<std::vector<HostTensor>> out =
            exe->run(argPointers, cuda ? &profile : nullptr);
        if (!out)
          fail(toString(out.takeError()));
        results = std::move(*out);
      }
      auto end = std::chrono::steady_clock::now();
      times.push_back(
          cuda
              ? profile.kernelNs / 1e6
              : std::chrono::duration<double, std::milli>(end - start).count());
    }
    if (exe->getDevice() == kiln::Device::Cuda) {
      kiln_rt_cuda_memory_stats memory;
      kiln_rt_cuda_get_memory_stats(&memory);
      runPeakBytes = memory.peak_bytes;
    } else {
      kiln_rt_host_stats memory;
      kiln_rt_host_get_stats(&memory);
      runPeakBytes = memory.peak_bytes;
    }
    if (resident) {
      results.clear();
      for (const auto &result : deviceResults) {
        Expected<HostTensor> host = result->download();
        if (!host)
          fail(toString(host.takeError()));
        results.push_back(std::move(*host));
      }
    }
    // The per-call timing: runs of its own after the timed ones (its clock
    // reads do not count in their times, and the first, cold run is not
    // among them).
    if (profileCalls && exe->getDevice() != kiln::Device::Cuda)
      for (int i = 0; i < repeat; ++i) {
        std::unique_ptr<kiln::tools::DonatedRun> donated =
            donate ? kiln::tools::prepareDonatedRun(*exe, args) : nullptr;
        Expected<std::vector<HostTensor>> timed =
            donated ? donated->run(*exe, &callProfile)
                    : exe->run(argPointers, &callProfile);
        if (!timed)
          fail(toString(timed.takeError()));
      }
    if (resident && report) {
      std::vector<double> hostTimes;
      kiln_rt_cuda_graph_stats before, after;
      kiln_rt_cuda_get_graph_stats(&before);
      for (int i = 0; i < repeat; ++i) {
        auto start = std::chrono::steady_clock::now();
        auto out = exe->runOnDevice(devicePointers);
        auto end = std::chrono::steady_clock::now();
        if (!out)
          fail(toString(out.takeError()));
        hostTimes.push_back(
            std::chrono::duration<double, std::micro>(end - start).count());
      }
      if (Error e = kiln::tools::waitForDevice())
        fail(toString(std::move(e)));
      kiln_rt_cuda_get_graph_stats(&after);
      std::sort(hostTimes.begin(), hostTimes.end());
      hostUs = hostTimes[hostTimes.size() / 2];
      graphLaunchesPerRun =
          static_cast<double>(after.launches - before.launches) / repeat;
    }
    std::sort(times.begin(), times.end());
    medianMs =
        times.size() % 2
            ? times[times.size() / 2]
            : 0.5 * (times[times.size() / 2 - 1] + times[times.size() / 2]);

    if (!outputDir.empty()) {
      if (std::error_code ec = sys::fs::create_directories(outputDir))
        fail("cannot create '" + outputDir + "': " + ec.message());
      for (auto [i, result] : llvm::enumerate(results)) {
        SmallString<128> path(outputDir);
        sys::path::append(path, "out" + std::to_string(i) + ".npy");
        if (Error e = kiln::writeNpy(path, result))
          fail(toString(std::move(e)));
      }
    }

    if (printOutputs) {
      for (auto [i, result] : llvm::enumerate(results)) {
        outs() << "out" << i << ": " << result.getTypeString() << "\n";
        int64_t index = 0;
        printTensor(outs(), result, 0, index);
        outs() << "\n";
      }
    }

    if (checkReference) {
      auto refFunc = referenceModule->lookupSymbol<mlir::func::FuncOp>(*entry);
      Expected<std::vector<HostTensor>> expected =
          kiln::tools::evaluateReference(refFunc, args);
      if (!expected)
        fail("reference interpreter: " + toString(expected.takeError()));
      if (expected->size() != results.size())
        fail("the reference interpreter gives " + Twine(expected->size()) +
             " outputs, the compiled code " + Twine(results.size()));
      std::string failures;
      for (auto [i, got, want] : llvm::enumerate(results, *expected)) {
        size_t before = failures.size();
        double maxError = compareWithReference(
            i, got, want, getVjpDepth(refFunc, *referenceModule), failures);
        if (failures.size() == before)
          outs() << "reference: out" << i << " " << got.getTypeString()
                 << " matches, max abs error " << format("%.3g", maxError)
                 << "\n";
      }
      if (!failures.empty()) {
        outs().flush();
        fail(StringRef(failures).rtrim("\n"));
      }
    }
  }
  if (profileCalls)
    printCallProfile(callProfile, repeat, medianMs);

  if (cacheStats) {
    kiln::tools::writeDiskCacheStats(errs());
    errs() << "\n";
  }
  if (report) {
    // The planned peak: the inputs and results, and the arena of the
    // buffers between.
    int64_t argumentBytes = 0;
    for (const HostTensor &tensor : args)
      argumentBytes += tensor.getByteSize();
    for (const HostTensor &tensor : results)
      argumentBytes += tensor.getByteSize();
    kiln_rt_cuda_transfer_stats transfers;
    kiln_rt_cuda_get_transfer_stats(&transfers);
    outs() << "{\"entry\": \"" << *entry << "\", \"backend\": \"" << backend
           << "\", \"compile_ms\": " << format("%.3f", stats.compileMs)
           << ", \"compile_breakdown_ms\": {\"tensor_passes\": "
           << format("%.1f", stats.tensorPassesMs)
           << ", \"codegen_passes\": " << format("%.1f", stats.codegenPassesMs)
           << ", \"llvm_opt\": " << format("%.1f", stats.llvmOptMs)
           << ", \"machine_code\": " << format("%.1f", stats.machineCodeMs)
           << "}";
    // The GPU's: bytes copied to the device and back (every copy).
    if (exe->getDevice() == kiln::Device::Cuda)
      outs() << ", \"h2d_bytes\": " << transfers.host_to_device_bytes
             << ", \"d2h_bytes\": " << transfers.device_to_host_bytes;
    outs() << ", \"run_ms\": " << format("%.4f", medianMs);
    // Kept on the device (a compiled .mlir): the host's share of a run.
    if (hostUs >= 0)
      outs() << ", \"host_us\": " << format("%.2f", hostUs)
             << ", \"graph_launches_per_run\": "
             << format("%.2f", graphLaunchesPerRun);
    outs() << ", \"repeat\": " << repeat
           << ", \"fusion_groups\": " << stats.fusionGroups
           << ", \"unique_kernels\": " << stats.uniqueKernels
           << ", \"kernel_launches\": " << stats.kernelLaunches
           << ", \"host_steps\": " << stats.hostSteps

           << ", \"cache\": \"" << stats.cache << "\", \"blas\": \""
           << (stats.blas.empty() ? "none" : stats.blas) << "\""
           << ", \"outputs\": " << results.size();
    if (donate)
      outs() << ", \"donated\": " << donatedResults;
    outs() << ", \"memory\": {\"planned_peak_bytes\": "
           << argumentBytes + stats.arenaBytes
           << ", \"arena_bytes\": " << stats.arenaBytes
           << ", \"live_peak_bytes\": " << stats.livePeakBytes
           << ", \"unshared_bytes\": " << stats.bufferBytes
           << ", \"planned_buffers\": " << stats.plannedBuffers
           << ", \"unplanned_buffers\": " << stats.unplannedBuffers
           << ", \"peak_bytes\": " << runPeakBytes << "}"
           << "}\n";
  }
  outs().flush();
  return 0;
}
