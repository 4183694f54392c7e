//===- ExportFusionGraph.cpp - -kiln-export-fusion-graph=FILE -------------===//
//
// Writes the fusion graph as JSON for python/kiln/tools/fusion_viz.py: one
// node per op (ops inside a fusion group carry the group's id), one edge per
// SSA use between nodes (a use of a group result comes from the op inside
// the group that produced it), and one entry per group. The dumper lives in
// core, the viewer outside it, as the fuser seed's review asked.
//
//   {"functions": [{"name": "f",
//     "nodes": [{"id": 0, "op": "kiln.tanh", "type": "tensor<4x8xf32>",
//                "group": 0}, ...],
//     "edges": [{"from": 0, "to": 1}, ...],
//     "groups": [{"id": 0, "nodes": [0, 1], "inputs": 2, "outputs": 1}]}]}
//
//===----------------------------------------------------------------------===//

#include "kiln/Dialect/Kiln/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace kiln;

namespace {

std::string typeString(Operation *op) {
  if (op->getNumResults() == 0)
    return "";
  std::string s;
  llvm::raw_string_ostream os(s);
  op->getResult(0).getType().print(os);
  return s;
}

llvm::json::Object exportFunction(func::FuncOp func) {
  llvm::DenseMap<Operation *, int64_t> nodeOf;
  llvm::json::Array nodes, edges, groups;
  // A value -> the node that produced it (inside groups: the inner op).
  llvm::DenseMap<Value, int64_t> producer;
  int64_t groupCount = 0;
  auto addNode = [&](Operation *op, std::optional<int64_t> group) {
    int64_t id = nodes.size();
    llvm::json::Object node{{"id", id},
                            {"op", op->getName().getStringRef()},
                            {"type", typeString(op)}};
    if (group)
      node["group"] = *group;
    nodes.push_back(std::move(node));
    for (Value result : op->getResults())
      producer[result] = id;
    return id;
  };
  // Edges from the producers of `op`'s operands; `inputs` maps group block
  // arguments to the values outside.
  auto addEdges = [&](Operation *op, int64_t to,
                      llvm::DenseMap<Value, Value> *inputs) {
    for (Value operand : op->getOperands()) {
      if (inputs && inputs->count(operand))
        operand = (*inputs)[operand];
      auto it = producer.find(operand);
      if (it != producer.end())
        edges.push_back(llvm::json::Object{{"from", it->second}, {"to", to}});
    }
  };
  for (Operation &op : func.getBody().front()) {
    if (isa<func::ReturnOp>(op))
      continue;
    auto group = dyn_cast<FusionGroupOp>(op);
    if (!group) {
      addEdges(&op, addNode(&op, std::nullopt), nullptr);
      continue;
    }
    int64_t id = groupCount++;
    llvm::DenseMap<Value, Value> inputs;
    for (auto [arg, input] :
         llvm::zip(group.getBody().getArguments(), group.getInputs()))
      inputs[arg] = input;
    llvm::json::Array members;
    for (Operation &inner : group.getBody().front().without_terminator()) {
      int64_t node = addNode(&inner, id);
      members.push_back(node);
      addEdges(&inner, node, &inputs);
    }
    // Group results come from the inner ops that were yielded.
    Operation *yield = group.getBody().front().getTerminator();
    for (auto [result, yielded] :
         llvm::zip(group.getResults(), yield->getOperands()))
      if (producer.count(yielded))
        producer[result] = producer[yielded];
    groups.push_back(llvm::json::Object{
        {"id", id},
        {"nodes", std::move(members)},
        {"inputs", static_cast<int64_t>(group.getInputs().size())},
        {"outputs", static_cast<int64_t>(group.getNumResults())}});
  }
  return llvm::json::Object{{"name", func.getSymName()},
                            {"nodes", std::move(nodes)},
                            {"edges", std::move(edges)},
                            {"groups", std::move(groups)}};
}

/// A pass that is given its file as the whole option string, so that it is
/// written `-kiln-export-fusion-graph=FILE`.
struct ExportFusionGraphPass
    : PassWrapper<ExportFusionGraphPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(ExportFusionGraphPass)

  explicit ExportFusionGraphPass(std::string path) : path(std::move(path)) {}
  StringRef getArgument() const final { return "kiln-export-fusion-graph"; }
  StringRef getDescription() const final {
    return "Write the fusion graph (nodes, edges, groups) as JSON to FILE";
  }

  void runOnOperation() override {
    llvm::json::Array functions;
    for (auto func : getOperation().getOps<func::FuncOp>())
      if (!func.isExternal() && func.getBody().hasOneBlock())
        functions.push_back(exportFunction(func));
    std::error_code ec;
    llvm::raw_fd_ostream os(path, ec, llvm::sys::fs::OF_Text);
    if (ec) {
      getOperation().emitError("cannot write the fusion graph to '")
          << path << "': " << ec.message();
      return signalPassFailure();
    }
    os << llvm::formatv("{0:2}", llvm::json::Value(llvm::json::Object{
                                     {"functions", std::move(functions)}}))
       << "\n";
    markAllAnalysesPreserved();
  }

  std::string path;
};

} // namespace

void kiln::registerExportFusionGraphPass() {
  registerPassPipeline(
      "kiln-export-fusion-graph",
      "Write the fusion graph as JSON: -kiln-export-fusion-graph=FILE",
      [](OpPassManager &pm, StringRef options,
         function_ref<LogicalResult(const Twine &)> errorHandler) {
        StringRef path = options.trim();
        if (path.empty())
          return errorHandler("-kiln-export-fusion-graph needs a file: "
                              "-kiln-export-fusion-graph=FILE");
        pm.addPass(std::make_unique<ExportFusionGraphPass>(path.str()));
        return success();
      },
      [](function_ref<void(const mlir::detail::PassOptions &)>) {});
}
