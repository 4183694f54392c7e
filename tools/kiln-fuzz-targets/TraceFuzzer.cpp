//===- TraceFuzzer.cpp - random traces through the importer ---------------===//
//
// libFuzzer target: the input is a program of calls to the trace's public
// makers (the lazy API's only way to record), decoded byte by byte: which
// maker, which earlier nodes as operands, and attributes that are usually
// small and valid but may be anything (negative, huge, out of range). A
// maker may refuse with a message; what it accepts is extracted as a
// program, imported into the kiln dialect and must verify (a maker that
// accepts what the dialect rejects is a bug: abort), then goes through
// -kiln-autodiff, -kiln-fuse and the -kiln-cpu-pipeline, whose failures
// must come with an error diagnostic.
//
//===----------------------------------------------------------------------===//

#include "kiln/Pipelines/Pipelines.h"
#include "kiln/Tools/ToolSupport.h"
#include "kiln/Trace/Trace.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <limits>
#include <vector>

using namespace kiln;

namespace {
/// The input, read a byte at a time; zeros once it runs out.
class Bytes {
public:
  Bytes(const uint8_t *data, size_t size) : data(data), size(size) {}
  bool empty() const { return position >= size; }
  uint8_t next() { return position < size ? data[position++] : 0; }
  /// Mostly 0..limit-1; one byte in 16 picks an adversarial value.
  int64_t attr(int64_t limit) {
    uint8_t b = next();
    if ((b & 0xF0) != 0xF0)
      return limit > 0 ? b % limit : 0;
    static const int64_t odd[] = {-1,
                                  -2,
                                  limit,
                                  limit + 1,
                                  std::numeric_limits<int64_t>::max(),
                                  std::numeric_limits<int64_t>::min(),
                                  1LL << 32,
                                  1LL << 62};
    return odd[b % 8];
  }
  const NodeRef &pick(const std::vector<NodeRef> &nodes) {
    return nodes[next() % nodes.size()];
  }

private:
  const uint8_t *data;
  size_t size;
  size_t position = 0;
};

struct Setup {
  mlir::DialectRegistry registry;
  std::vector<TraceOp> elementwise;
  Setup() {
    registerAllKilnPasses();
    registerAllKilnDialects(registry);
    for (TraceOp op : getAllTraceOps())
      if (getTraceOpInfo(op).isFloatElementwise)
        elementwise.push_back(op);
  }
};
} // namespace

static DType pickDType(Bytes &in) {
  static const DType dtypes[] = {DType::F32, DType::F64, DType::F16,
                                 DType::BF16, DType::I1};
  uint8_t b = in.next();
  return b < 160 ? DType::F32 : dtypes[b % 5];
}

static std::vector<int64_t> pickShape(Bytes &in, int64_t rank) {
  std::vector<int64_t> shape;
  for (int64_t i = 0; i < rank; ++i)
    shape.push_back(in.next() % 5);
  return shape;
}

static std::vector<int64_t> pickList(Bytes &in, int64_t limit) {
  std::vector<int64_t> list;
  int64_t count = in.next() % 4;
  for (int64_t i = 0; i < count; ++i)
    list.push_back(in.attr(limit));
  return list;
}

/// One maker call decoded from `in`: a node, or nothing (refused, with a
/// message that must not be empty).
static void record(Bytes &in, const Setup &setup, std::vector<NodeRef> &nodes) {
  auto keep = [&](llvm::Expected<NodeRef> node) {
    if (node) {
      nodes.push_back(std::move(*node));
      return;
    }
    if (llvm::toString(node.takeError()).empty()) {
      llvm::errs() << "a maker refused without a message\n";
      std::abort();
    }
  };
  uint8_t choice = in.next() % 14;
  if (nodes.empty() || choice == 0) {
    DType dtype = pickDType(in);
    nodes.push_back(TraceNode::parameter(dtype, pickShape(in, in.next() % 4)));
    return;
  }
  const NodeRef &a = in.pick(nodes);
  int64_t rank = static_cast<int64_t>(a->getShape().size());
  switch (choice) {
  case 1:
    return keep(TraceNode::constant(pickDType(in), pickShape(in, in.next() % 3),
                                    static_cast<int8_t>(in.next()) / 4.0));
  case 2: {
    TraceOp op = setup.elementwise[in.next() % setup.elementwise.size()];
    std::vector<NodeRef> operands = {a};
    if (getTraceOpInfo(op).arity == 2)
      operands.push_back(in.pick(nodes));
    std::vector<int64_t> attrs;
    if (!getTraceOpInfo(op).flag.empty())
      attrs.push_back(in.attr(2));
    return keep(TraceNode::elementwise(op, operands, attrs));
  }
  case 3:
    return keep(TraceNode::cmp(static_cast<TracePredicate>(in.attr(6)), a,
                               in.pick(nodes)));
  case 4: {
    const NodeRef &b = in.pick(nodes);
    return keep(TraceNode::select(a, b, in.pick(nodes)));
  }
  case 5:
    return keep(TraceNode::convert(a, pickDType(in)));
  case 6: {
    std::vector<int64_t> shape = pickShape(in, rank + in.next() % 3);
    std::vector<int64_t> dims;
    for (int64_t i = 0; i < rank; ++i)
      dims.push_back(in.attr(static_cast<int64_t>(shape.size())));
    return keep(TraceNode::broadcastInDim(a, shape, dims));
  }
  case 7: {
    std::vector<int64_t> shape = pickShape(in, in.next() % 4);
    if (in.next() % 2 == 0 && !shape.empty())
      shape[0] = -1; // one dim inferred
    return keep(TraceNode::reshape(a, shape));
  }
  case 8: {
    std::vector<int64_t> perm;
    for (int64_t i = 0; i < rank; ++i)
      perm.push_back(in.next() % 4 == 0 ? in.attr(rank) : rank - 1 - i);
    return keep(TraceNode::transpose(a, perm));
  }
  case 9: {
    std::vector<int64_t> offsets, sizes;
    for (int64_t dim : a->getShape()) {
      offsets.push_back(in.attr(dim + 1));
      sizes.push_back(in.next() % 8 == 0 ? -1 : in.attr(dim + 1));
    }
    return keep(TraceNode::slice(a, offsets, sizes));
  }
  case 10: {
    std::vector<NodeRef> parts = {a};
    int64_t more = in.next() % 3;
    for (int64_t i = 0; i < more; ++i)
      parts.push_back(in.pick(nodes));
    return keep(TraceNode::concat(parts, in.attr(rank)));
  }
  case 11:
    return keep(TraceNode::reduce(in.next() % 2 ? TraceOp::ReduceSum
                                                : TraceOp::ReduceMax,
                                  a, pickList(in, rank)));
  case 12:
    return keep(
        TraceNode::matmul(a, in.pick(nodes), in.next() % 2, in.next() % 2));
  default: {
    // The gradient of one node with respect to one or two others, with a
    // cotangent of its type (a fresh parameter, or any node).
    std::vector<NodeRef> inputs = {in.pick(nodes)};
    if (in.next() % 2)
      inputs.push_back(in.pick(nodes));
    NodeRef cotangent = in.next() % 2
                            ? TraceNode::parameter(a->getDType(), a->getShape())
                            : in.pick(nodes);
    llvm::Expected<std::vector<NodeRef>> grads =
        TraceNode::vjp({a}, inputs, {cotangent});
    if (!grads) {
      if (llvm::toString(grads.takeError()).empty()) {
        llvm::errs() << "vjp refused without a message\n";
        std::abort();
      }
      return;
    }
    for (NodeRef &grad : *grads)
      nodes.push_back(std::move(grad));
    return;
  }
  }
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static Setup setup;
  Bytes in(data, size);
  std::vector<NodeRef> nodes;
  for (int step = 0; step < 24 && !in.empty(); ++step)
    record(in, setup, nodes);
  if (nodes.empty())
    return 0;
  // The last one to three nodes are the outputs.
  size_t outputs = std::min<size_t>(nodes.size(), 1 + in.next() % 3);
  std::vector<NodeRef> results(nodes.end() - outputs, nodes.end());
  TraceProgram program = TraceProgram::extract(results);

  mlir::MLIRContext context(setup.registry,
                            mlir::MLIRContext::Threading::DISABLED);
  context.loadAllAvailableDialects();
  std::string diagnostics;
  bool sawError = false;
  mlir::ScopedDiagnosticHandler handler(&context, [&](mlir::Diagnostic &d) {
    sawError |= d.getSeverity() == mlir::DiagnosticSeverity::Error;
    diagnostics += d.str() + "\n";
    return mlir::success();
  });
  mlir::OwningOpRef<mlir::ModuleOp> module =
      tools::importTrace(context, program);
  if (!module || mlir::failed(mlir::verify(*module))) {
    llvm::errs() << "an imported trace does not verify:\n" << diagnostics;
    if (module)
      module->print(llvm::errs());
    std::abort();
  }
  mlir::PassManager pm(&context);
  pm.enableVerifier(true);
  if (mlir::failed(mlir::parsePassPipeline(
          "builtin.module(kiln-autodiff,kiln-fuse,kiln-cpu-pipeline)", pm)))
    std::abort();
  if (mlir::failed(pm.run(*module)) && !sawError) {
    llvm::errs() << "a pass failed without an error diagnostic\n";
    std::abort();
  }
  return 0;
}
