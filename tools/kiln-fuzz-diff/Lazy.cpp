//===- Lazy.cpp - a fuzz program built through the lazy C++ API -----------===//
//
// The same program recorded op by op with kiln::Tensor, materialized with
// kiln::sync: the trace importer's path to the compiler, rather than the
// parser's.
//
//===----------------------------------------------------------------------===//

#include "Lazy.h"

#include "kiln/Lazy/Tensor.h"

#include "llvm/ADT/STLExtras.h"

#include <map>

using namespace kiln;
using namespace kiln::fuzz;

static llvm::Error failure(const std::string &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

/// `op` recorded on `operands`.
static Tensor record(const Op &op, llvm::ArrayRef<Tensor> operands) {
  const std::string &name = op.name;
  switch (op.kind) {
  case OpKind::Unary:
  case OpKind::Binary:
    // The elementwise ops of TraceOps.def, by their lazy functions.
#define KILN_TRACE_UNARY(Name, OpName, Function)                               \
  if (name == OpName)                                                          \
    return kiln::Function(operands[0]);
#define KILN_TRACE_UNARY_FLAG(Name, OpName, Function, Flag)                    \
  if (name == OpName)                                                          \
    return kiln::Function(operands[0]);
#define KILN_TRACE_BINARY(Name, OpName, Function)                              \
  if (name == OpName)                                                          \
    return kiln::Function(operands[0], operands[1]);
#include "kiln/Trace/TraceOps.def"
    break;
  case OpKind::Cmp: {
    using Fn = Tensor (*)(const Tensor &, const Tensor &);
    static const Fn predicates[] = {kiln::eq, kiln::ne, kiln::lt,
                                    kiln::le, kiln::gt, kiln::ge};
    return predicates[op.ints[0]](operands[0], operands[1]);
  }
  case OpKind::Select:
    return where(operands[0], operands[1], operands[2]);
  case OpKind::Convert:
    return convert(operands[0], op.type.dtype);
  case OpKind::BroadcastInDim: {
    // The operand's dims at `dims`, size-1 dims elsewhere, then broadcast.
    std::vector<int64_t> placed(op.type.shape.size(), 1);
    for (auto [i, d] : llvm::enumerate(op.ints))
      placed[d] = operands[0].getShape()[i];
    return broadcastTo(reshape(operands[0], placed), op.type.shape);
  }
  case OpKind::Reshape:
    return reshape(operands[0], op.type.shape);
  case OpKind::Transpose:
    return transpose(operands[0], op.ints);
  case OpKind::Slice:
    // -1 (a dim taken whole) resolved: the result's size there.
    return slice(operands[0], op.ints, op.type.shape);
  case OpKind::Concat:
    return cat(operands, op.ints[0]);
  case OpKind::Reduce:
    return name == "kiln.reduce_sum" ? sum(operands[0], op.ints)
                                     : amax(operands[0], op.ints);
  case OpKind::MatMul:
    return matmul(operands[0], operands[1], op.ints[0] != 0, op.ints[1] != 0);
  case OpKind::Constant:
    return Tensor::full(op.type.shape, op.scalar, op.type.dtype);
  case OpKind::Iota:
    return iota(op.type.shape, op.ints[0], op.type.dtype);
  case OpKind::Take:
    return take(operands[0], operands[1], op.ints[0]);
  case OpKind::ScatterAdd:
    return scatterAdd(operands[0], operands[1], operands[2], op.ints[0]);
  case OpKind::Argmax:
    return argmax(operands[0], op.ints[0], op.type.dtype);
  case OpKind::RngUniform:
    return rngUniform(operands[0], op.type.shape);
  case OpKind::Vjp:
  case OpKind::VjpResult:
    break; // recorded by recordProgram
  }
  return Tensor(); // not reached: every kind is recorded above
}

/// `program`'s results, recorded on `values` (its arguments); `isMain`:
/// nothing differentiates `program` itself.
static llvm::Expected<std::vector<Tensor>>
recordProgram(const Program &program, std::vector<Tensor> values, bool isMain) {
  std::map<int, std::vector<Tensor>> gradients; // of each Vjp's value
  for (const Op &op : program.ops) {
    int v = static_cast<int>(values.size());
    std::vector<Tensor> operands;
    for (int operand : op.operands)
      operands.push_back(values[operand]);
    if (op.kind == OpKind::VjpResult) {
      values.push_back(gradients.at(op.operands[0])[op.ints[0]]);
      continue;
    }
    if (op.kind == OpKind::Vjp) {
      // The callee recorded on the arguments, then kiln::grad of its
      // results with respect to those at `wrt` (the generator keeps the
      // arguments independent of each other, where the two agree).
      const Program &callee = program.functions[op.callee];
      size_t numArgs = callee.arguments.size();
      std::vector<Tensor> args(operands.begin(), operands.begin() + numArgs);
      std::vector<Tensor> cotangents(operands.begin() + numArgs,
                                     operands.end());
      // The lazy API takes a gradient of a gradient with respect to
      // leaves only (a clear error otherwise, tested in the lazy tests):
      // where nothing differentiates through them, computed arguments
      // are made data first, as a user would.
      if (isMain && callee.hasVjp())
        if (llvm::Error e = sync(args))
          return std::move(e);
      llvm::Expected<std::vector<Tensor>> outputs =
          recordProgram(callee, args, /*isMain=*/false);
      if (!outputs)
        return outputs.takeError();
      std::vector<Tensor> inputs;
      for (int64_t index : op.ints)
        inputs.push_back(args[index]);
      std::vector<Tensor> grads = grad(*outputs, inputs, cotangents);
      for (const Tensor &g : grads)
        if (!g.ok())
          return failure("kiln::grad through the lazy API: " + g.getError());
      gradients[v] = std::move(grads);
      values.push_back(Tensor()); // the tuple: never an operand
      continue;
    }
    Tensor t = record(op, operands);
    if (!t.ok())
      return failure(op.name + " through the lazy API: " + t.getError());
    values.push_back(std::move(t));
  }
  std::vector<Tensor> outputs;
  for (int r : program.results)
    outputs.push_back(values[r]);
  return outputs;
}

llvm::Expected<std::vector<HostTensor>>
kiln::fuzz::runLazy(const Program &program, llvm::ArrayRef<HostTensor> inputs) {
  std::vector<Tensor> args;
  for (const HostTensor &input : inputs)
    args.push_back(Tensor::fromHost(input));
  llvm::Expected<std::vector<Tensor>> outputs =
      recordProgram(program, std::move(args), /*isMain=*/true);
  if (!outputs)
    return outputs.takeError();
  if (llvm::Error e = sync(*outputs))
    return std::move(e);
  std::vector<HostTensor> results;
  for (const Tensor &t : *outputs) {
    llvm::Expected<HostTensor> value = t.toHost();
    if (!value)
      return value.takeError();
    results.push_back(std::move(*value));
  }
  return results;
}
