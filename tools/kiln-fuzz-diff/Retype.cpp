//===- Retype.cpp - fuzz programs re-typed after their shapes change ------===//
//
// The shrinker makes dims smaller: it rewrites the sizes that programs
// choose themselves (arguments, constants, the new dims of broadcasts,
// reshapes' results) and
// re-derives every other type here, adjusting the attributes that must
// follow (a slice keeps inside its operand). A program that no longer
// types (a reshape whose element count changed, a matmul whose inner dims
// now differ) is refused.
//
//===----------------------------------------------------------------------===//

#include "Program.h"

#include "llvm/ADT/STLExtras.h"

using namespace kiln;
using namespace kiln::fuzz;

/// `shape` with every `from` replaced by `to`.
static void substitute(std::vector<int64_t> &shape, int64_t from, int64_t to) {
  for (int64_t &size : shape)
    if (size == from)
      size = to;
}

void Program::substituteSize(int64_t from, int64_t to) {
  for (ValueType &type : arguments)
    substitute(type.shape, from, to);
  for (Op &op : ops) {
    if (op.kind == OpKind::Constant || op.kind == OpKind::Reshape ||
        op.kind == OpKind::Iota || op.kind == OpKind::RngUniform) {
      substitute(op.type.shape, from, to);
    } else if (op.kind == OpKind::BroadcastInDim) {
      // The new dims only: the others follow the operand.
      for (int64_t d = 0; d < static_cast<int64_t>(op.type.shape.size()); ++d)
        if (!llvm::is_contained(op.ints, d) && op.type.shape[d] == from)
          op.type.shape[d] = to;
    }
  }
  for (Program &callee : functions)
    callee.substituteSize(from, to);
}

bool Program::retype() {
  for (Program &callee : functions)
    if (!callee.retype())
      return false;
  for (Op &op : ops) {
    std::vector<ValueType> in;
    for (int operand : op.operands)
      in.push_back(isTuple(operand) ? ValueType{} : getType(operand));
    switch (op.kind) {
    case OpKind::Unary:
    case OpKind::Binary:
      if (op.kind == OpKind::Binary && !(in[0] == in[1]))
        return false;
      op.type = in[0];
      break;
    case OpKind::Cmp:
      if (!(in[0] == in[1]))
        return false;
      op.type = {DType::I1, in[0].shape};
      break;
    case OpKind::Select:
      if (in[0].shape != in[1].shape || !(in[1] == in[2]))
        return false;
      op.type = in[1];
      break;
    case OpKind::Convert:
      op.type.shape = in[0].shape;
      break;
    case OpKind::BroadcastInDim:
      // A mapped dim follows its operand's, unless that is 1 (it expands).
      for (auto [i, d] : llvm::enumerate(op.ints))
        if (in[0].shape[i] != 1)
          op.type.shape[d] = in[0].shape[i];
      break;
    case OpKind::Reshape:
      if (in[0].getNumElements() != op.type.getNumElements())
        return false;
      break;
    case OpKind::Transpose:
      for (auto [i, p] : llvm::enumerate(op.ints))
        op.type.shape[i] = in[0].shape[p];
      break;
    case OpKind::Slice:
      for (size_t d = 0; d < in[0].shape.size(); ++d) {
        int64_t size = in[0].shape[d];
        if (op.ints2[d] < 0) {
          op.type.shape[d] = size;
          continue;
        }
        op.ints[d] = std::min(op.ints[d], size - 1);
        op.ints2[d] = std::min(op.ints2[d], size - op.ints[d]);
        op.type.shape[d] = op.ints2[d];
      }
      break;
    case OpKind::Concat: {
      int64_t dim = op.ints[0], total = 0;
      for (const ValueType &part : in) {
        ValueType a = part, b = in[0];
        a.shape[dim] = b.shape[dim] = 0;
        if (!(a == b))
          return false;
        total += part.shape[dim];
      }
      op.type = in[0];
      op.type.shape[dim] = total;
      break;
    }
    case OpKind::Reduce:
      op.type.shape.clear();
      for (int64_t d = 0; d < static_cast<int64_t>(in[0].shape.size()); ++d)
        if (!llvm::is_contained(op.ints, d))
          op.type.shape.push_back(in[0].shape[d]);
      break;
    case OpKind::MatMul: {
      const std::vector<int64_t> &a = in[0].shape, &b = in[1].shape;
      size_t r = a.size();
      bool ta = op.ints[0] != 0, tb = op.ints[1] != 0;
      if (b.size() != r || (r == 3 && a[0] != b[0]) ||
          a[r - (ta ? 2 : 1)] != b[r - (tb ? 1 : 2)])
        return false;
      op.type.shape.assign(a.begin(), a.end() - 2);
      op.type.shape.push_back(a[r - (ta ? 1 : 2)]);
      op.type.shape.push_back(b[r - (tb ? 2 : 1)]);
      break;
    }
    case OpKind::Constant:
    case OpKind::Iota:
      break;
    case OpKind::RngUniform:
      if (in[0].shape != std::vector<int64_t>{2})
        return false;
      break;
    case OpKind::Take: {
      int64_t dim = op.ints[0];
      if (dim >= static_cast<int64_t>(in[0].shape.size()))
        return false;
      op.type.shape = getTakeShape(in[0].shape, in[1].shape, dim);
      op.type.dtype = in[0].dtype;
      break;
    }
    case OpKind::ScatterAdd: {
      int64_t dim = op.ints[0];
      if (dim >= static_cast<int64_t>(in[0].shape.size()))
        return false;
      if (in[2].shape != getTakeShape(in[0].shape, in[1].shape, dim) ||
          in[2].dtype != in[0].dtype)
        return false;
      op.type = in[0];
      break;
    }
    case OpKind::Argmax: {
      int64_t dim = op.ints[0];
      if (dim >= static_cast<int64_t>(in[0].shape.size()))
        return false;
      op.type.shape = in[0].shape;
      op.type.shape.erase(op.type.shape.begin() + dim);
      break;
    }
    case OpKind::Vjp: {
      const Program &callee = functions[op.callee];
      size_t numArgs = callee.arguments.size();
      for (size_t k = 0; k < in.size(); ++k)
        if (!(in[k] == (k < numArgs
                            ? callee.arguments[k]
                            : callee.getType(callee.results[k - numArgs]))))
          return false;
      for (auto [k, index] : llvm::enumerate(op.ints))
        op.resultTypes[k] = callee.arguments[index];
      break;
    }
    case OpKind::VjpResult:
      op.type = ops[op.operands[0] - arguments.size()].resultTypes[op.ints[0]];
      break;
    }
  }
  return true;
}
