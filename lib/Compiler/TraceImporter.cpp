//===- TraceImporter.cpp - a trace program as a kiln function -------------===//

#include "Compiler/TraceImporter.h"
#include "Support/ElementTypes.h"
#include "kiln/Dialect/Kiln/IR/KilnOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace kiln;

static RankedTensorType getType(MLIRContext &context, const TraceNode &node) {
  return RankedTensorType::get(node.getShape(),
                               getElementType(context, node.getDType()));
}

static CmpPredicate getPredicate(int64_t predicate) {
  switch (static_cast<TracePredicate>(predicate)) {
  case TracePredicate::EQ:
    return CmpPredicate::eq;
  case TracePredicate::NE:
    return CmpPredicate::ne;
  case TracePredicate::LT:
    return CmpPredicate::lt;
  case TracePredicate::LE:
    return CmpPredicate::le;
  case TracePredicate::GT:
    return CmpPredicate::gt;
  case TracePredicate::GE:
    return CmpPredicate::ge;
  }
  return CmpPredicate::eq;
}

/// The splat constant `node` holds.
static DenseElementsAttr getSplat(RankedTensorType type,
                                  const TraceNode &node) {
  Type element = type.getElementType();
  if (auto floatType = dyn_cast<FloatType>(element)) {
    APFloat value(node.getScalar());
    bool lostInfo;
    value.convert(floatType.getFloatSemantics(), APFloat::rmNearestTiesToEven,
                  &lostInfo);
    return DenseElementsAttr::get(type, value);
  }
  return DenseElementsAttr::get(type, node.getScalar() != 0);
}

namespace {
/// Imports programs into one module: the entry, then each callee once.
class TraceImporter {
public:
  TraceImporter(MLIRContext &context, ModuleOp module)
      : context(context), module(module), loc(UnknownLoc::get(&context)) {}

  /// `program` as the function `name`.
  func::FuncOp importProgram(const TraceProgram &program, StringRef name);

private:
  /// The private function of `callee`, imported on first use; empty when
  /// it cannot be imported.
  StringRef getCalleeName(const TraceProgram &callee);
  /// The kiln op `node` records, on `operands`; null, with an error
  /// emitted, for an op it cannot import.
  Value importNode(OpBuilder &b, const TraceNode &node, ValueRange operands);
  /// A float elementwise op of the table (TraceOps.def).
  Value importElementwise(OpBuilder &b, const TraceNode &node,
                          RankedTensorType type, ValueRange operands);

  MLIRContext &context;
  ModuleOp module;
  Location loc;
  llvm::DenseMap<uint64_t, std::string> calleeNames;
};
} // namespace

StringRef TraceImporter::getCalleeName(const TraceProgram &callee) {
  auto it = calleeNames.find(callee.hash);
  if (it != calleeNames.end())
    return it->second;
  std::string name;
  llvm::raw_string_ostream(name)
      << "vjp_callee_" << llvm::format_hex_no_prefix(callee.hash, 16);
  func::FuncOp func = importProgram(callee, name);
  if (!func)
    return {};
  func.setPrivate();
  return calleeNames[callee.hash] = name;
}

Value TraceImporter::importNode(OpBuilder &b, const TraceNode &node,
                                ValueRange operands) {
  RankedTensorType type = getType(context, node);
  llvm::ArrayRef<int64_t> attrs = node.getAttrs();
  switch (node.getOp()) {
  case TraceOp::Parameter:
    return nullptr; // block arguments
  case TraceOp::Constant:
    return ConstantOp::create(b, loc, type, getSplat(type, node));
    // The float elementwise ops, generically from the table: the kiln op
    // it names, and its flag as a BoolAttr.
#define KILN_TRACE_UNARY(Name, OpName, Function) case TraceOp::Name:
#define KILN_TRACE_UNARY_FLAG(Name, OpName, Function, Flag) case TraceOp::Name:
#define KILN_TRACE_BINARY(Name, OpName, Function) case TraceOp::Name:
#include "kiln/Trace/TraceOps.def"
    return importElementwise(b, node, type, operands);
  case TraceOp::Convert:
    return ConvertOp::create(b, loc, type, operands[0]);
  case TraceOp::Reshape:
    return ReshapeOp::create(b, loc, type, operands[0]);
  case TraceOp::Cmp:
    return CmpOp::create(b, loc, type, getPredicate(attrs[0]), operands[0],
                         operands[1]);
  case TraceOp::Select:
    return SelectOp::create(b, loc, type, operands[0], operands[1],
                            operands[2]);
  case TraceOp::BroadcastInDim:
    return BroadcastInDimOp::create(b, loc, type, operands[0], attrs);
  case TraceOp::Transpose:
    return TransposeOp::create(b, loc, type, operands[0], attrs);
  case TraceOp::Slice: {
    size_t rank = attrs.size() / 2;
    return SliceOp::create(b, loc, type, operands[0], attrs.take_front(rank),
                           attrs.drop_front(rank));
  }
  case TraceOp::Concat:
    return ConcatOp::create(b, loc, type, operands,
                            static_cast<uint64_t>(attrs[0]));
  case TraceOp::ReduceSum:
    return ReduceSumOp::create(b, loc, type, operands[0], attrs);
  case TraceOp::ReduceMax:
    return ReduceMaxOp::create(b, loc, type, operands[0], attrs);
  case TraceOp::MatMul:
    return MatmulOp::create(b, loc, type, operands[0], operands[1],
                            attrs[0] != 0, attrs[1] != 0);
  case TraceOp::Vjp: {
    // Stands for its first result; VjpResult picks the others.
    const TraceProgram &callee = *node.getCallee();
    StringRef name = getCalleeName(callee);
    if (name.empty())
      return nullptr;
    SmallVector<Type> grads;
    for (int64_t argument : attrs)
      grads.push_back(
          getType(context, *callee.entries[callee.parameters[argument]].node));
    return VjpOp::create(b, loc, grads, name, attrs, operands)->getResult(0);
  }
  case TraceOp::VjpResult:
    return operands[0].getDefiningOp()->getResult(attrs[0]);
  }
  emitError(loc) << "trace op " << static_cast<int>(node.getOp())
                 << " has no import";
  return nullptr;
}

Value TraceImporter::importElementwise(OpBuilder &b, const TraceNode &node,
                                       RankedTensorType type,
                                       ValueRange operands) {
  const TraceOpInfo &info = getTraceOpInfo(node.getOp());
  OperationName name(info.name, &context);
  if (!name.isRegistered()) {
    emitError(loc) << "trace op '" << info.name << "' is not a registered op";
    return nullptr;
  }
  OperationState state(loc, name);
  state.addOperands(operands);
  state.addTypes(type);
  if (!info.flag.empty())
    state.addAttribute(info.flag, b.getBoolAttr(node.getAttrs()[0] != 0));
  return b.create(state)->getResult(0);
}

func::FuncOp TraceImporter::importProgram(const TraceProgram &program,
                                          StringRef name) {
  SmallVector<Type> inputs, results;
  for (int32_t p : program.parameters)
    inputs.push_back(getType(context, *program.entries[p].node));
  for (int32_t o : program.outputs)
    results.push_back(getType(context, *program.entries[o].node));
  OpBuilder b(&context);
  b.setInsertionPointToEnd(module.getBody());
  auto func =
      func::FuncOp::create(b, loc, name, b.getFunctionType(inputs, results));
  Block *body = func.addEntryBlock();
  b.setInsertionPointToEnd(body);

  SmallVector<Value> values(program.entries.size());
  for (auto [i, p] : llvm::enumerate(program.parameters))
    values[p] = body->getArgument(i);
  for (auto [i, entry] : llvm::enumerate(program.entries)) {
    if (entry.isParameter)
      continue;
    SmallVector<Value> operands;
    for (int32_t operand : entry.operands)
      operands.push_back(values[operand]);
    values[i] = importNode(b, *entry.node, operands);
    if (!values[i]) {
      func->erase();
      return nullptr;
    }
  }
  SmallVector<Value> outputs;
  for (int32_t o : program.outputs)
    outputs.push_back(values[o]);
  func::ReturnOp::create(b, loc, outputs);
  return func;
}

OwningOpRef<ModuleOp> kiln::importTrace(MLIRContext &context,
                                        const TraceProgram &program,
                                        llvm::StringRef name) {
  OwningOpRef<ModuleOp> module = ModuleOp::create(UnknownLoc::get(&context));
  if (!TraceImporter(context, *module).importProgram(program, name))
    return nullptr;
  return module;
}
