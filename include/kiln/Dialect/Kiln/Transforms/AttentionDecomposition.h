//===- AttentionDecomposition.h - attention as primitive ops ----*- C++ -*-===//
//
// kiln.attention and kiln.attention_grad written out as the kiln ops that
// compute them (-kiln-decompose-attention; -kiln-autodiff differentiates
// this form where the ops' own rule does not reach).
//
//===----------------------------------------------------------------------===//

#ifndef KILN_DIALECT_KILN_TRANSFORMS_ATTENTIONDECOMPOSITION_H
#define KILN_DIALECT_KILN_TRANSFORMS_ATTENTIONDECOMPOSITION_H

#include "kiln/Dialect/Kiln/IR/KilnOps.h"

#include "mlir/IR/PatternMatch.h"

namespace kiln {

/// Replaces `op` with matmuls, its score rewrites and a softmax.
void decomposeAttention(mlir::RewriterBase &rewriter, AttentionOp op);

/// Replaces `op` with the scores recomputed, the softmax's backward and the
/// products of the three gradients.
void decomposeAttentionGrad(mlir::RewriterBase &rewriter, AttentionGradOp op);

} // namespace kiln

#endif // KILN_DIALECT_KILN_TRANSFORMS_ATTENTIONDECOMPOSITION_H
