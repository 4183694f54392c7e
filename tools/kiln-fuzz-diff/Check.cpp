//===- Check.cpp - one fuzz program against the reference -----------------===//

#include "Check.h"
#include "Lazy.h"

#include "kiln/Compiler/Executable.h"
#include "kiln/Pipelines/Pipelines.h"
#include "kiln/Tools/ToolSupport.h"
#include "kiln_rt/kiln_rt_cuda.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>
#include <csignal>
#include <cstring>
#include <sstream>
#include <sys/wait.h>
#include <unistd.h>

using namespace kiln;
using namespace kiln::fuzz;

/// Whether `got` is within `allowance` of `want` (NaN matches NaN, an
/// infinity itself).
static bool within(double got, double want, double allowance) {
  if (std::isnan(got) || std::isnan(want))
    return std::isnan(got) && std::isnan(want);
  if (std::isinf(want) || std::isinf(got))
    return got == want;
  return std::fabs(got - want) <= allowance;
}

/// Whether every correct implementation decides the kink cmp at `opIndex`
/// of `expanded` (operands within `errorA` and `errorB` of exact, valued
/// `a` and `b` by the reference) as the reference does: each element's
/// operands are apart by more than both sides' errors could move them, or
/// equal because they are the same value (the same operand, or an element
/// against the maximum that reduce_max selected from it).
static bool isKinkDecided(const Program &expanded, int opIndex, double errorA,
                          double errorB, const HostTensor &a,
                          const HostTensor &b) {
  const Op &op = expanded.ops[opIndex];
  int numArgs = static_cast<int>(expanded.arguments.size());
  auto definingOp = [&](int v) -> const Op * {
    return v >= numArgs ? &expanded.ops[v - numArgs] : nullptr;
  };
  bool sameValue = op.operands[0] == op.operands[1];
  if (const Op *broadcast = definingOp(op.operands[1]);
      broadcast && broadcast->kind == OpKind::BroadcastInDim)
    if (const Op *max = definingOp(broadcast->operands[0]);
        max && max->name == "kiln.reduce_max" &&
        max->operands[0] == op.operands[0])
      sameValue = true;
  // Both sides' errors (4x, as the outputs' allowance).
  double margin = 4 * (errorA + errorB);
  for (int64_t e = 0; e < a.getNumElements(); ++e) {
    double difference = std::fabs(a.getAsDouble(e) - b.getAsDouble(e));
    if (std::isnan(difference))
      return false;
    if (difference == 0 ? !(sameValue || margin == 0) : difference <= margin)
      return false;
  }
  return true;
}

static Outcome checkHere(const Program &program, Backend backend, uint64_t seed,
                         bool injectError) {
  mlir::DialectRegistry registry;
  registerAllKilnDialects(registry);
  mlir::MLIRContext context(registry, mlir::MLIRContext::Threading::DISABLED);
  std::string diagnostics;
  mlir::ScopedDiagnosticHandler handler(&context, [&](mlir::Diagnostic &d) {
    diagnostics += d.str() + "\n";
    return mlir::success();
  });
  std::string text = program.print();
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceString<mlir::ModuleOp>(text, &context);
  if (!module)
    return {Outcome::CompileError,
            "the generated program does not parse: " + diagnostics};

  // The inputs `kiln-run --random-inputs SEED` gives, so that the
  // reproducer's command runs on the same values.
  std::vector<HostTensor> inputs;
  for (auto [i, type] : llvm::enumerate(program.arguments)) {
    llvm::Expected<HostTensor> input =
        tools::makeRandomInput(type.dtype, type.shape, seed, i);
    if (!input)
      return {Outcome::CompileError, llvm::toString(input.takeError())};
    inputs.push_back(std::move(*input));
  }
  // The reference evaluates the program with every kiln.vjp expanded by
  // the fuzzer's own reverse mode (exact, where finite differences are
  // not), and also returns the operands of every comparison that
  // differentiation made, to decide which of them a correct
  // implementation may decide otherwise.
  std::vector<int> valueMap;
  Program expanded = expandVjps(program, &valueMap);
  Program probe = expanded;
  std::vector<int> kinkProbes; // per expanded op: first probe result or -1
  for (const Op &op : expanded.ops) {
    kinkProbes.push_back(-1);
    if (!op.isKink)
      continue;
    kinkProbes.back() = static_cast<int>(probe.results.size());
    probe.results.push_back(op.operands[0]);
    probe.results.push_back(op.operands[1]);
  }
  llvm::Expected<std::vector<HostTensor>> probed = [&] {
    mlir::OwningOpRef<mlir::ModuleOp> referenceModule =
        mlir::parseSourceString<mlir::ModuleOp>(probe.print(), &context);
    if (!referenceModule)
      return llvm::Expected<std::vector<HostTensor>>(llvm::createStringError(
          "the expanded program does not parse: " + diagnostics));
    auto referenceFunc =
        referenceModule->lookupSymbol<mlir::func::FuncOp>("main");
    return tools::evaluateReference(referenceFunc, inputs);
  }();
  if (!probed)
    return {Outcome::CompileError,
            "reference interpreter: " + llvm::toString(probed.takeError())};
  std::vector<HostTensor> expected(probed->begin(),
                                   probed->begin() + program.results.size());

  int donated = 0;
  llvm::Expected<std::vector<HostTensor>> got = [&] {
    if (backend == Backend::Lazy)
      return runLazy(program, inputs);
    CompileOptions options;
    options.emulateGpuKernels = backend == Backend::EmulateGpu;
    // cpu-remat: the derivatives recompute what -kiln-autodiff remat=auto
    // chooses, at any size (the programs' values are small).
    options.autoRemat = backend == Backend::CpuRemat;
    if (backend == Backend::CpuRemat)
      options.rematMinBytes = 0;
    if (backend == Backend::Cuda)
      options.device = Device::Cuda;
    llvm::Expected<std::unique_ptr<Executable>> exe =
        Executable::compile(*module, "main", options);
    if (!exe)
      return llvm::Expected<std::vector<HostTensor>>(exe.takeError());
    // cpu-donate: the results take over the inputs they may overwrite.
    if (backend == Backend::CpuDonate) {
      std::unique_ptr<tools::DonatedRun> run =
          tools::prepareDonatedRun(**exe, inputs);
      donated = static_cast<int>(run->donated);
      return run->run(**exe);
    }
    std::vector<const HostTensor *> args;
    for (const HostTensor &input : inputs)
      args.push_back(&input);
    return (*exe)->run(args);
  }();
  if (!got)
    return {Outcome::CompileError,
            llvm::toString(got.takeError()) + "\n" + diagnostics};
  if (got->size() != expected.size())
    return {Outcome::Mismatch,
            llvm::formatv("{0} outputs, the reference gives {1}", got->size(),
                          expected.size())};

  auto isExact = [&](int opIndex, double errorA, double errorB) {
    return isKinkDecided(expanded, opIndex, errorA, errorB,
                         (*probed)[kinkProbes[opIndex]],
                         (*probed)[kinkProbes[opIndex] + 1]);
  };
  std::vector<double> expandedError = expanded.computeBounds(isExact).error;
  double worstRatio = 0;
  Outcome counts;
  for (auto [i, g, w] : llvm::enumerate(*got, expected)) {
    if (g.getDType() != w.getDType() || g.getShape() != w.getShape())
      return {Outcome::Mismatch,
              llvm::formatv("output {0} is {1}, the reference's {2}", i,
                            g.getTypeString(), w.getTypeString())};
    int result = program.results[i];
    double bound = expandedError[valueMap[result]];
    if (!std::isfinite(bound)) {
      ++counts.uncompared;
      continue; // not comparable (a comparison of inexact values)
    }
    ++counts.compared;
    if (result >= static_cast<int>(program.arguments.size()) &&
        program.ops[result - program.arguments.size()].kind ==
            OpKind::VjpResult)
      ++counts.gradientsCompared;
    double allowance = 4 * bound + 1e-300;
    for (int64_t e = 0; e < g.getNumElements(); ++e) {
      double x = g.getAsDouble(e), y = w.getAsDouble(e);
      if (injectError && e == 0 && std::isfinite(y)) {
        x = y + 8 * allowance + std::fabs(y) * 1e-3 + 1e-3;
        injectError = false;
      }
      if (std::isfinite(x) && std::isfinite(y))
        worstRatio = std::max(worstRatio, std::fabs(x - y) / allowance);
      if (!within(x, y, allowance))
        return {Outcome::Mismatch,
                llvm::formatv("output {0} ({1}) differs at element {2}: got "
                              "{3:e17}, reference {4:e17}, difference "
                              "{5:e3}, allowed {6:e3}",
                              i, g.getTypeString(), e, x, y, std::fabs(x - y),
                              allowance),
                allowance, worstRatio};
    }
  }
  counts.worstRatio = worstRatio;
  counts.donated = donated;
  return counts;
}

/// `program` at several batch sizes, through the lazy API, in this one
/// process: each size's outputs against the reference's at that size.
static Outcome checkBatches(const Program &program, uint64_t seed,
                            bool injectError) {
  Outcome total;
  // No batch dim: one run, as the lazy backend's.
  if (program.arguments.empty() || program.arguments[0].shape.empty()) {
    Outcome outcome = checkHere(program, Backend::Lazy, seed, injectError);
    outcome.batchesRun = outcome.kind == Outcome::Ok ? 1 : 0;
    return outcome;
  }
  int64_t batch = program.arguments[0].shape[0];
  std::vector<int64_t> sizes = {batch, batch + 3, 1, 2 * batch + 5, 2};
  llvm::SmallDenseSet<int64_t, 8> seen;
  int64_t genericHitsBefore = tools::getGenericTraceHits();
  for (int64_t size : sizes) {
    if (!seen.insert(size).second)
      continue;
    Program variant = program;
    if (size != batch) {
      variant.substituteSize(batch, size);
      if (!variant.retype())
        continue; // this size does not type (a reshape, a slice)
    }
    Outcome outcome = checkHere(variant, Backend::Lazy, seed, injectError);
    injectError = false;
    if (outcome.kind != Outcome::Ok) {
      outcome.message =
          llvm::formatv("at batch {0} (dims of size {1} made {0}): {2}", size,
                        batch, outcome.message)
              .str();
      return outcome;
    }
    ++total.batchesRun;
    total.compared += outcome.compared;
    total.gradientsCompared += outcome.gradientsCompared;
    total.uncompared += outcome.uncompared;
    total.worstRatio = std::max(total.worstRatio, outcome.worstRatio);
  }
  total.genericHits =
      static_cast<int>(tools::getGenericTraceHits() - genericHitsBefore);
  return total;
}

namespace {
/// What a forked child wrote to its pipe, or why it gave nothing.
struct ChildResult {
  std::string reply;
  /// Empty when the child exited normally.
  std::string failure;
  bool crashed = false;
};
} // namespace

/// Runs `body` in a forked child, so that a crash, a hang or a CUDA context
/// is the child's alone, and returns what `body` returned.
static ChildResult runInChild(llvm::function_ref<std::string()> body,
                              unsigned timeoutSeconds) {
  int fds[2];
  if (pipe(fds) != 0)
    return {"", std::string("pipe: ") + std::strerror(errno), true};
  pid_t child = fork();
  if (child < 0) {
    close(fds[0]);
    close(fds[1]);
    return {"", std::string("fork: ") + std::strerror(errno), true};
  }
  if (child == 0) {
    close(fds[0]);
    alarm(timeoutSeconds);
    std::string message = body();
    size_t written = 0;
    while (written < message.size()) {
      ssize_t n =
          write(fds[1], message.data() + written, message.size() - written);
      if (n <= 0)
        break;
      written += n;
    }
    _exit(0);
  }
  close(fds[1]);
  ChildResult result;
  char buffer[4096];
  ssize_t n;
  while ((n = read(fds[0], buffer, sizeof(buffer))) > 0)
    result.reply.append(buffer, n);
  close(fds[0]);
  int status = 0;
  waitpid(child, &status, 0);
  if (WIFSIGNALED(status)) {
    result.crashed = true;
    result.failure =
        WTERMSIG(status) == SIGALRM
            ? llvm::formatv("timed out after {0} s", timeoutSeconds).str()
            : std::string("killed by signal ") + strsignal(WTERMSIG(status));
  } else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    result.crashed = true;
    result.failure = "the check exited with status " +
                     std::to_string(WEXITSTATUS(status)) + " and no result";
  }
  return result;
}

Outcome kiln::fuzz::checkProgram(const Program &program, Backend backend,
                                 uint64_t seed, unsigned timeoutSeconds,
                                 bool injectError) {
  ChildResult child = runInChild(
      [&] {
        Outcome outcome = backend == Backend::LazyBatches
                              ? checkBatches(program, seed, injectError)
                              : checkHere(program, backend, seed, injectError);
        return llvm::formatv("{0}\n{1:e17}\n{2:e17}\n{3} {4} {5} {6} {7} {8}\n",
                             static_cast<int>(outcome.kind), outcome.allowance,
                             outcome.worstRatio, outcome.compared,
                             outcome.gradientsCompared, outcome.uncompared,
                             outcome.batchesRun, outcome.genericHits,
                             outcome.donated)
                   .str() +
               outcome.message;
      },
      timeoutSeconds);
  if (child.crashed)
    return {Outcome::Crash, child.failure};
  const std::string &reply = child.reply;
  // Four lines (kind, allowance, worst ratio, counts), then the message.
  std::istringstream lines(reply);
  Outcome outcome;
  int kind = -1;
  lines >> kind >> outcome.allowance >> outcome.worstRatio >>
      outcome.compared >> outcome.gradientsCompared >> outcome.uncompared >>
      outcome.batchesRun >> outcome.genericHits >> outcome.donated;
  if (!lines || kind < Outcome::Ok || kind > Outcome::Crash)
    return {Outcome::Crash, "the check exited with no result"};
  outcome.kind = static_cast<Outcome::Kind>(kind);
  lines.ignore(1); // the counts' newline
  outcome.message.assign(std::istreambuf_iterator<char>(lines), {});
  return outcome;
}

llvm::Error kiln::fuzz::checkCudaDevice(unsigned timeoutSeconds) {
  // In a child: a process that has initialized CUDA cannot use it in the
  // children it forks later, and every check is such a child.
  ChildResult child = runInChild(
      [] {
        kiln_rt_status status = kiln_rt_cuda_init();
        std::string reply = status ? kiln_rt_status_message(status) : "ok";
        kiln_rt_status_free(status);
        return reply;
      },
      timeoutSeconds);
  if (child.crashed)
    return llvm::createStringError("initializing CUDA: " + child.failure);
  if (child.reply != "ok")
    return llvm::createStringError("the cuda backend needs a GPU: " +
                                   child.reply);
  return llvm::Error::success();
}
