//===- kiln-fuzz-diff.cpp - differential testing of whole programs --------===//
//
//   kiln-fuzz-diff --programs N --seed S [--max-ops K]
//                  [--backends cpu,emulate-gpu,lazy,lazy-batches,cuda]
//                  [--out DIR]
//
// Generates N random well-typed kiln programs (Generator.cpp), runs each on
// every backend (the CPU pipeline, the GPU pipeline emulated on the CPU,
// the lazy C++ API, Lazy.cpp, and that API at several batch sizes in one
// process, which its automatic dynamic dims run on one shape-generic
// program) and compares every output with the reference
// interpreter (lib/Reference), which computes each op in double and rounds
// once.
//
// Tolerance: per output, 4x a bound on how far any correct implementation
// may be from the exact result (Program::computeBounds): u = the unit
// roundoff of the dtype; each rounded op adds u times its magnitude bound,
// a transcendental 4u, a sum of n terms (n - 1) u sum|x| (any order), a
// matmul over k the same with the operands' errors carried through; an
// operand's error passes through with the op's slope. The factor 4 covers
// the reference's own rounding beside the compiled code's.
//
// A failing program is shrunk (Shrink.cpp) and written to DIR/repro-N.mlir,
// and the command that reproduces it with kiln-run is printed. Exits 1 on
// any mismatch, compile error or crash; the last line on stdout is one JSON
// object: programs, mismatches, crashes, compile_errors, ops_covered,
// seconds (and per-backend runs).
//
//===----------------------------------------------------------------------===//

#include "Check.h"
#include "Program.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <functional>
#include <set>

using namespace llvm;
using namespace kiln::fuzz;

static cl::OptionCategory fuzzOptions("kiln-fuzz-diff options");
static cl::opt<int> numPrograms(cl::cat(fuzzOptions), "programs",
                                cl::desc("random programs to try"),
                                cl::init(100));
static cl::opt<uint64_t> seed(cl::cat(fuzzOptions), "seed",
                              cl::desc("the first program's seed"),
                              cl::init(1));
static cl::opt<int> maxOps(cl::cat(fuzzOptions), "max-ops",
                           cl::desc("ops per program, at most"), cl::init(12));
static cl::opt<std::string> backendList(
    cl::cat(fuzzOptions), "backends",
    cl::desc("comma-separated: cpu (remat=none), cpu-donate (results "
             "written into the inputs they may overwrite), cpu-remat "
             "(derivatives recompute cheap values, remat=auto), emulate-gpu, "
             "lazy (KILN_REMAT decides), lazy-batches, "
             "cuda (default: cpu,cpu-donate,cpu-remat,emulate-gpu,lazy; cuda "
             "needs a GPU)"),
    cl::init("cpu,cpu-donate,cpu-remat,emulate-gpu,lazy"));
static cl::opt<std::string>
    outDir(cl::cat(fuzzOptions), "out",
           cl::desc("where reproducers go (default: kiln-fuzz-out)"),
           cl::init("kiln-fuzz-out"));
static cl::opt<unsigned> timeout(cl::cat(fuzzOptions), "timeout",
                                 cl::desc("seconds per program and backend"),
                                 cl::init(120));
static cl::opt<bool> injectError(
    cl::cat(fuzzOptions), "inject-error",
    cl::desc("corrupt one compiled result element per program, to show that "
             "the comparison catches it (every program must then mismatch)"),
    cl::init(false));
static cl::opt<bool> shrinkInjected(
    cl::cat(fuzzOptions), "shrink-injected",
    cl::desc("with --inject-error: shrink and write every program as if it "
             "had failed (the shrinker's test)"),
    cl::init(false));
static cl::opt<bool> verbose(cl::cat(fuzzOptions), "verbose",
                             cl::desc("print every program"), cl::init(false));

[[noreturn]] static void fail(const Twine &message) {
  errs() << "kiln-fuzz-diff: error: " << message << "\n";
  std::exit(2);
}

static const char *kindName(Outcome::Kind kind) {
  switch (kind) {
  case Outcome::Ok:
    return "ok";
  case Outcome::Mismatch:
    return "mismatch";
  case Outcome::CompileError:
    return "compile error";
  case Outcome::Crash:
    return "crash";
  }
  return "?";
}

int main(int argc, char **argv) {
  InitLLVM initLLVM(argc, argv);
  cl::HideUnrelatedOptions(fuzzOptions);
  cl::ParseCommandLineOptions(argc, argv,
                              "kiln-fuzz-diff: random kiln programs, compiled "
                              "and checked against the reference "
                              "interpreter\n");
  if (numPrograms < 0)
    fail("--programs must be at least 0");
  if (maxOps < 1)
    fail("--max-ops must be at least 1");
  if (shrinkInjected && !injectError)
    fail("--shrink-injected needs --inject-error");
  std::vector<std::pair<Backend, std::string>> backends;
  SmallVector<StringRef> names;
  StringRef(backendList).split(names, ',', -1, false);
  for (StringRef name : names) {
    name = name.trim();
    if (name == "cpu")
      backends.push_back({Backend::Cpu, "cpu"});
    else if (name == "cpu-donate")
      backends.push_back({Backend::CpuDonate, "cpu-donate"});
    else if (name == "cpu-remat")
      backends.push_back({Backend::CpuRemat, "cpu-remat"});
    else if (name == "emulate-gpu")
      backends.push_back({Backend::EmulateGpu, "emulate-gpu"});
    else if (name == "lazy")
      backends.push_back({Backend::Lazy, "lazy"});
    else if (name == "lazy-batches")
      backends.push_back({Backend::LazyBatches, "lazy-batches"});
    else if (name == "cuda")
      backends.push_back({Backend::Cuda, "cuda"});
    else
      fail("unknown backend '" + name +
           "' (cpu, cpu-donate, cpu-remat, emulate-gpu, lazy, lazy-batches, "
           "cuda)");
  }
  if (backends.empty())
    fail("--backends names no backend");
  for (const auto &[backend, backendName] : backends)
    if (backend == Backend::Cuda)
      if (Error error = checkCudaDevice(timeout))
        fail(toString(std::move(error)));

  auto start = std::chrono::steady_clock::now();
  int mismatches = 0, crashes = 0, compileErrors = 0, repros = 0;
  // Gradient programs (with a kiln.vjp; second order: a vjp in a callee),
  // and outputs compared / not comparable, over every backend's checks.
  int gradientPrograms = 0, secondOrderPrograms = 0, bf16Programs = 0,
      f16Programs = 0;
  int64_t compared = 0, gradientsCompared = 0, uncompared = 0;
  int64_t batchesRun = 0, genericHits = 0, donated = 0;
  double worstRatio = 0;
  std::set<std::string> covered;
  for (int p = 0; p < numPrograms; ++p) {
    uint64_t programSeed = seed + p;
    std::mt19937_64 rng(programSeed);
    Program program = generateProgram(rng, maxOps);
    std::function<void(const Program &)> cover = [&](const Program &p) {
      for (const Op &op : p.ops)
        covered.insert(op.name);
      for (const Program &callee : p.functions)
        cover(callee);
    };
    cover(program);
    std::function<bool(const Program &, kiln::DType)> uses =
        [&](const Program &p, kiln::DType dtype) {
          auto ofType = [&](const ValueType &t) { return t.dtype == dtype; };
          return llvm::any_of(p.arguments, ofType) ||
                 llvm::any_of(p.ops,
                              [&](const Op &op) { return ofType(op.type); }) ||
                 llvm::any_of(p.functions, [&](const Program &callee) {
                   return uses(callee, dtype);
                 });
        };
    bf16Programs += uses(program, kiln::DType::BF16);
    f16Programs += uses(program, kiln::DType::F16);
    gradientPrograms += !program.functions.empty();
    secondOrderPrograms += llvm::any_of(
        program.functions, [](const Program &f) { return f.hasVjp(); });
    if (verbose)
      outs() << "// program " << programSeed << "\n" << program.print();
    for (const auto &[backend, backendName] : backends) {
      outs().flush();
      Outcome outcome =
          checkProgram(program, backend, programSeed, timeout, injectError);
      compared += outcome.compared;
      gradientsCompared += outcome.gradientsCompared;
      uncompared += outcome.uncompared;
      batchesRun += outcome.batchesRun;
      genericHits += outcome.genericHits;
      donated += outcome.donated;
      if (outcome.kind == Outcome::Ok) {
        worstRatio = std::max(worstRatio, outcome.worstRatio);
        continue;
      }
      if (injectError && !shrinkInjected) {
        // The oracle's test: count, and do not shrink or write anything.
        (outcome.kind == Outcome::Mismatch ? mismatches : crashes)++;
        continue;
      }
      (outcome.kind == Outcome::Mismatch       ? mismatches
       : outcome.kind == Outcome::CompileError ? compileErrors
                                               : crashes)++;
      Program small = shrinkProgram(program, backend, programSeed, outcome.kind,
                                    timeout, injectError);
      Outcome smallOutcome =
          checkProgram(small, backend, programSeed, timeout, injectError);
      if (smallOutcome.kind != outcome.kind) {
        small = program;
        smallOutcome = outcome;
      }
      if (std::error_code ec = sys::fs::create_directories(outDir))
        fail("cannot create '" + outDir + "': " + ec.message());
      SmallString<128> path(outDir);
      sys::path::append(path, "repro-" + std::to_string(repros++) + ".mlir");
      std::string command =
          formatv(
              "kiln-run {0} --random-inputs {1} --check-reference{2}{3}", path,
              programSeed,
              backend == Backend::EmulateGpu  ? " --emulate-gpu --remat none"
              : backend == Backend::Cuda      ? " --backend cuda --remat none"
              : backend == Backend::CpuDonate ? " --donate --remat none"
              : backend == Backend::CpuRemat
                  ? " --remat auto --remat-min-bytes 0"
                  : " --remat none",
              smallOutcome.kind == Outcome::Mismatch
                  ? formatv(" --rtol 0 --atol {0:e3}", smallOutcome.allowance)
                        .str()
                  : "")
              .str();
      std::error_code ec;
      raw_fd_ostream file(path, ec);
      if (ec)
        fail("cannot write '" + path + "': " + ec.message());
      file << "// kiln-fuzz-diff: program " << programSeed << " on "
           << backendName << ": " << kindName(smallOutcome.kind) << "\n";
      for (StringRef line : split(smallOutcome.message, '\n'))
        if (!line.empty())
          file << "// " << line << "\n";
      file << "// reproduce: " << command << "\n" << small.print();
      outs() << "program " << programSeed << " on " << backendName << ": "
             << kindName(outcome.kind) << ": " << smallOutcome.message
             << "\n  shrunk from " << program.ops.size() << " to "
             << small.ops.size() << " ops: " << path
             << "\n  reproduce: " << command
             << (backend == Backend::Lazy || backend == Backend::LazyBatches
                     ? " (the same program compiled from its MLIR; the "
                       "failure was through the lazy API: kiln-fuzz-diff "
                       "--backends " +
                           backendName + " --programs 1 --seed " +
                           std::to_string(programSeed) + ")"
                     : "")
             << "\n";
    }
  }
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  outs() << formatv("{{\"programs\": {0}, \"backends\": \"{1}\", "
                    "\"mismatches\": {2}, \"crashes\": {3}, "
                    "\"compile_errors\": {4}, \"ops_covered\": {5}, "
                    "\"ops_generated\": {6}, \"worst_error_ratio\": {7:f3}, "
                    "\"gradient_programs\": {8}, "
                    "\"second_order_programs\": {9}, "
                    "\"bf16_programs\": {16}, \"f16_programs\": {17}, "
                    "\"outputs_compared\": {10}, "
                    "\"gradients_compared\": {11}, "
                    "\"outputs_not_comparable\": {12}, \"batches_run\": "
                    "{13}, \"generic_hits\": {14}, "
                    "\"donated_results\": {18}, \"seconds\": {15:f1}}\n",
                    numPrograms, backendList, mismatches, crashes,
                    compileErrors, covered.size(), getGeneratedOpNames().size(),
                    worstRatio, gradientPrograms, secondOrderPrograms, compared,
                    gradientsCompared, uncompared, batchesRun, genericHits,
                    seconds, bf16Programs, f16Programs, donated);
  outs().flush();
  return mismatches + crashes + compileErrors ? 1 : 0;
}
