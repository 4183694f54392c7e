//===- TraceImporter.cpp - a trace program as a kiln function -------------===//

#include "Compiler/Frontend/TraceImporter.h"
#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "kiln/Support/ElementTypes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace kiln;

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
  if (element.isInteger(1))
    return DenseElementsAttr::get(type, node.getScalar() != 0);
  // i32/i64: the scalar is an integer (roundToDType made it one).
  return DenseElementsAttr::get(
      type, IntegerAttr::get(element, static_cast<int64_t>(node.getScalar())));
}

namespace {
/// Imports programs into one module: the entry, then each callee once.
class TraceImporter {
public:
  TraceImporter(MLIRContext &context, ModuleOp module,
                const DynamicDims *dynamic)
      : context(context), module(module), loc(UnknownLoc::get(&context)),
        dynamic(dynamic) {}

  /// `program` as the function `name`.
  func::FuncOp importProgram(const TraceProgram &program, StringRef name);

private:
  /// The private function of `callee`, imported on first use; empty when
  /// it cannot be imported.
  StringRef getCalleeName(const TraceProgram &callee);
  /// The kiln op `node` records, on `operands`; null, with an error
  /// emitted, for an op it cannot import.
  Value importNode(OpBuilder &b, const TraceNode &node, ValueRange operands);
  /// Lazy gradient entry `index` of `program` (TraceNode::isLazyVjp), its
  /// program's values so far in `values`: its kiln.vjp's first result, or
  /// null with an error emitted.
  Value importLazyVjp(OpBuilder &b, const TraceProgram &program, int32_t index,
                      ArrayRef<Value> values);
  /// A float elementwise op of the table (TraceOps.def).
  Value importElementwise(OpBuilder &b, const TraceNode &node,
                          RankedTensorType type, ValueRange operands);

  /// The trace's checkpoint segments, numbered from 1 in import order.
  llvm::DenseMap<uint64_t, int64_t> checkpointSegments;

  /// `node`'s type: its shape, with its dynamic dims (if any) as `?`.
  RankedTensorType getNodeType(const TraceNode &node) const;
  /// The sizes of `node`'s dynamic dims, from this function's parameters;
  /// fails (emitting an error) when a size has no parameter dim to read.
  FailureOr<SmallVector<Value>> getDynamicSizes(const TraceNode &node);

  MLIRContext &context;
  ModuleOp module;
  Location loc;
  llvm::DenseMap<uint64_t, std::string> calleeNames;
  /// For shape-generic programs: which dims are dynamic, and, in the
  /// function being imported, each symbol's size (a tensor.dim of a
  /// parameter).
  const DynamicDims *dynamic;
  llvm::DenseMap<int32_t, Value> symbolSizes;
};
} // namespace

RankedTensorType TraceImporter::getNodeType(const TraceNode &node) const {
  SmallVector<int64_t> shape(node.getShape());
  if (dynamic)
    if (auto it = dynamic->find(&node); it != dynamic->end())
      for (auto [d, symbol] : llvm::enumerate(it->second))
        if (symbol >= 0)
          shape[d] = ShapedType::kDynamic;
  return RankedTensorType::get(shape, getElementType(context, node.getDType()));
}

FailureOr<SmallVector<Value>>
TraceImporter::getDynamicSizes(const TraceNode &node) {
  SmallVector<Value> sizes;
  if (!dynamic)
    return sizes;
  auto it = dynamic->find(&node);
  if (it == dynamic->end())
    return sizes;
  for (int32_t symbol : it->second) {
    if (symbol < 0)
      continue;
    Value size = symbolSizes.lookup(symbol);
    if (!size) {
      emitError(loc) << "a dynamic size has no parameter dim to read it from";
      return failure();
    }
    sizes.push_back(size);
  }
  return sizes;
}

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
  RankedTensorType type = getNodeType(node);
  llvm::ArrayRef<int64_t> attrs = node.getAttrs();
  switch (node.getOp()) {
  case TraceOp::Parameter:
    return nullptr; // block arguments
  case TraceOp::Constant: {
    if (type.hasStaticShape())
      return ConstantOp::create(b, loc, type, getSplat(type, node));
    // Constants are static: a scalar, broadcast to the dynamic shape.
    FailureOr<SmallVector<Value>> sizes = getDynamicSizes(node);
    if (failed(sizes))
      return nullptr;
    auto scalarType = RankedTensorType::get({}, type.getElementType());
    Value scalar =
        ConstantOp::create(b, loc, scalarType, getSplat(scalarType, node));
    return BroadcastInDimOp::create(b, loc, type, scalar, *sizes,
                                    b.getDenseI64ArrayAttr({}));
  }
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
  case TraceOp::StopGradient:
    return operands[0];
  case TraceOp::Cmp:
    return CmpOp::create(b, loc, type, getPredicate(attrs[0]), operands[0],
                         operands[1]);
  case TraceOp::Select:
    return SelectOp::create(b, loc, type, operands[0], operands[1],
                            operands[2]);
  case TraceOp::BroadcastInDim: {
    FailureOr<SmallVector<Value>> sizes = getDynamicSizes(node);
    if (failed(sizes))
      return nullptr;
    return BroadcastInDimOp::create(b, loc, type, operands[0], *sizes,
                                    b.getDenseI64ArrayAttr(attrs));
  }
  case TraceOp::Transpose:
    return TransposeOp::create(b, loc, type, operands[0], attrs);
  case TraceOp::Slice: {
    size_t rank = attrs.size() / 2;
    // A dynamic dim is taken whole (GenericShapes.cpp allows no other).
    SmallVector<int64_t> sizes(attrs.drop_front(rank));
    for (size_t d = 0; d < rank; ++d)
      if (type.isDynamicDim(d))
        sizes[d] = -1;
    return SliceOp::create(b, loc, type, operands[0], attrs.take_front(rank),
                           sizes);
  }
  case TraceOp::Concat:
    return ConcatOp::create(b, loc, type, operands,
                            static_cast<uint64_t>(attrs[0]));
  case TraceOp::ReduceSum:
    return ReduceSumOp::create(b, loc, type, operands[0], attrs);
  case TraceOp::ReduceMax:
    return ReduceMaxOp::create(b, loc, type, operands[0], attrs);
  case TraceOp::Iota:
    return IotaOp::create(b, loc, type, ValueRange{}, attrs[0]);
  case TraceOp::Take:
    return TakeOp::create(b, loc, type, operands[0], operands[1], attrs[0]);
  case TraceOp::ScatterAdd:
    return ScatterAddOp::create(b, loc, type, operands[0], operands[1],
                                operands[2], attrs[0]);
  case TraceOp::Argmax:
    return ArgmaxOp::create(b, loc, type, operands[0], attrs[0]);
  case TraceOp::RngUniform:
    return RngUniformOp::create(b, loc, type, operands[0]);
  case TraceOp::MatMul:
    return MatmulOp::create(b, loc, type, operands[0], operands[1],
                            attrs[0] != 0, attrs[1] != 0,
                            /*precision=*/MatmulPrecisionAttr());
  case TraceOp::AllReduce:
    return AllReduceOp::create(b, loc,
                               static_cast<CollectiveReduction>(attrs[0]),
                               operands[0], attrs[1]);
  case TraceOp::AllGather:
    return AllGatherOp::create(b, loc, type, operands[0], attrs[0], attrs[1]);
  case TraceOp::ReduceScatter:
    return ReduceScatterOp::create(b, loc, type,
                                   static_cast<CollectiveReduction>(attrs[0]),
                                   operands[0], attrs[1], attrs[2]);
  case TraceOp::Vjp: {
    // Stands for its first result; VjpResult picks the others.
    const TraceProgram &callee = *node.getCallee();
    StringRef name = getCalleeName(callee);
    if (name.empty())
      return nullptr;
    SmallVector<Type> grads;
    for (int64_t argument : attrs)
      grads.push_back(
          getNodeType(*callee.entries[callee.parameters[argument]].node));
    return VjpOp::create(b, loc, grads, name, attrs, operands)->getResult(0);
  }
  case TraceOp::VjpResult:
    return operands[0].getDefiningOp()->getResult(attrs[0]);
  }
  emitError(loc) << "trace op " << static_cast<int>(node.getOp())
                 << " has no import";
  return nullptr;
}

Value TraceImporter::importLazyVjp(OpBuilder &b, const TraceProgram &program,
                                   int32_t index, ArrayRef<Value> values) {
  llvm::Expected<const VjpCall *> found = program.getLazyVjpCall(index);
  if (!found) {
    emitError(loc) << llvm::toString(found.takeError());
    return nullptr;
  }
  const VjpCall &call = **found;
  const TraceProgram::Entry &entry = program.entries[index];
  StringRef name = getCalleeName(*call.callee);
  if (name.empty())
    return nullptr;
  SmallVector<Value> operands;
  if (program.getSettledCall(index)) {
    // Settled when extracted: its operands are the call's arguments, then
    // the output gradients.
    for (int32_t operand : entry.operands)
      operands.push_back(values[operand]);
  } else {
    // Its operands are the outputs, inputs and output gradients; the
    // arguments are entries of the program (leaves, stop-gradients and
    // inputs of its forward) or zero perturbations.
    llvm::DenseMap<const TraceNode *, int32_t> entryOf;
    for (auto [i, programEntry] : llvm::enumerate(program.entries))
      entryOf.try_emplace(programEntry.node.get(), static_cast<int32_t>(i));
    for (auto [node, into] : llvm::zip(program.folded, program.foldedInto))
      entryOf.try_emplace(node.get(), into);
    for (const NodeRef &argument : call.arguments) {
      auto it = entryOf.find(argument.get());
      if (it != entryOf.end()) {
        operands.push_back(values[it->second]);
        continue;
      }
      if (argument->getOp() != TraceOp::Constant) {
        emitError(loc) << "internal error: an argument of a lazy gradient "
                          "is not in its program";
        return nullptr;
      }
      operands.push_back(importNode(b, *argument, {}));
      if (!operands.back())
        return nullptr;
    }
    int64_t numOutputs = entry.node->getAttrs()[0];
    for (int32_t operand :
         ArrayRef<int32_t>(entry.operands).take_back(numOutputs))
      operands.push_back(values[operand]);
  }
  SmallVector<Type> grads;
  for (int64_t argument : call.wrt)
    grads.push_back(getNodeType(
        *call.callee->entries[call.callee->parameters[argument]].node));
  return VjpOp::create(b, loc, grads, name, call.wrt, operands)->getResult(0);
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
    inputs.push_back(getNodeType(*program.entries[p].node));
  for (int32_t o : program.outputs)
    results.push_back(getNodeType(*program.entries[o].node));
  // A callee is imported in the middle of its caller: each function reads
  // its sizes from its own parameters.
  llvm::DenseMap<int32_t, Value> callerSizes;
  std::swap(callerSizes, symbolSizes);
  llvm::scope_exit restore([&] { std::swap(callerSizes, symbolSizes); });
  OpBuilder b(&context);
  b.setInsertionPointToEnd(module.getBody());
  auto func =
      func::FuncOp::create(b, loc, name, b.getFunctionType(inputs, results));
  Block *body = func.addEntryBlock();
  b.setInsertionPointToEnd(body);

  SmallVector<Value> values(program.entries.size());
  for (auto [i, p] : llvm::enumerate(program.parameters)) {
    values[p] = body->getArgument(i);
    if (!dynamic)
      continue;
    auto it = dynamic->find(program.entries[p].node.get());
    if (it == dynamic->end())
      continue;
    for (auto [d, symbol] : llvm::enumerate(it->second))
      if (symbol >= 0 && !symbolSizes.count(symbol))
        symbolSizes[symbol] = tensor::DimOp::create(
            b, loc, body->getArgument(i), static_cast<int64_t>(d));
  }
  for (auto [i, entry] : llvm::enumerate(program.entries)) {
    if (entry.isParameter)
      continue;
    SmallVector<Value> operands;
    for (int32_t operand : entry.operands)
      operands.push_back(values[operand]);
    // A reshape to its operand's own shape is the operand: with dynamic
    // dims, they stay named, rather than left to a reshape to infer.
    // A stop_gradient is its operand too (it matters to gradients only).
    if (entry.node->getOp() == TraceOp::StopGradient ||
        (entry.node->getOp() == TraceOp::Reshape &&
         program.entries[entry.operands[0]].node->getShape() ==
             entry.node->getShape())) {
      values[i] = operands[0];
      continue;
    }
    // A lazy gradient, and its results: their index is their input's.
    if (entry.node->isLazyVjp()) {
      values[i] = importLazyVjp(b, program, static_cast<int32_t>(i), values);
      if (!values[i]) {
        func->erase();
        return nullptr;
      }
      continue;
    }
    if (entry.node->getOp() == TraceOp::VjpResult &&
        program.entries[entry.operands[0]].node->isLazyVjp()) {
      llvm::Expected<const VjpCall *> call =
          program.getLazyVjpCall(entry.operands[0]);
      if (!call) {
        llvm::consumeError(call.takeError()); // reported at the gradient
        func->erase();
        return nullptr;
      }
      values[i] = operands[0].getDefiningOp()->getResult(
          (*call)->resultOf[entry.node->getAttrs()[0]]);
      continue;
    }
    Operation *last = body->empty() ? nullptr : &body->back();
    values[i] = importNode(b, *entry.node, operands);
    if (!values[i]) {
      func->erase();
      return nullptr;
    }
    // The ops of a checkpointed node carry its segment, numbered in
    // program order: -kiln-autodiff recomputes them for the derivative.
    if (uint64_t segment = entry.node->getCheckpointSegment()) {
      auto [it, inserted] = checkpointSegments.try_emplace(
          segment, static_cast<int64_t>(checkpointSegments.size()) + 1);
      auto attr = b.getI64IntegerAttr(it->second);
      for (Operation *op = last ? last->getNextNode() : &body->front(); op;
           op = op->getNextNode())
        op->setAttr(kCheckpointAttrName, attr);
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
                                        llvm::StringRef name,
                                        const DynamicDims *dynamic) {
  OwningOpRef<ModuleOp> module = ModuleOp::create(UnknownLoc::get(&context));
  if (!TraceImporter(context, *module, dynamic).importProgram(program, name))
    return nullptr;
  return module;
}
