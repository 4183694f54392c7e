//===- AttentionReference.h - kiln.attention in the interpreter -*- C++ -*-===//
//
// The reference semantics of kiln.attention and kiln.attention_grad, in
// double, element by element from their definitions (no blocks, no online
// softmax): what the runtime's blockwise kernels are checked against.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_LIB_REFERENCE_ATTENTIONREFERENCE_H
#define KILN_LIB_REFERENCE_ATTENTIONREFERENCE_H

#include "Reference/RankGroup.h"
#include "kiln/Dialect/Kiln/IR/KilnOps.h"

namespace kiln::reference {

/// result, row_max, row_sum; `in` holds the op's operands.
llvm::Expected<std::vector<Buffer>>
evaluateAttention(AttentionOp op, llvm::ArrayRef<const Buffer *> in);

/// query_grad, key_grad, value_grad.
llvm::Expected<std::vector<Buffer>>
evaluateAttentionGrad(AttentionGradOp op, llvm::ArrayRef<const Buffer *> in);

} // namespace kiln::reference

#endif // KILN_LIB_REFERENCE_ATTENTIONREFERENCE_H
