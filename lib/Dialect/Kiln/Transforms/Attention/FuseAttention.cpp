//===- FuseAttention.cpp - the -kiln-fuse-attention pass ------------------===//
//
// Finds softmax(f(q kᵀ)) v by its dataflow, from the second product back:
//
//   pv = matmul(reshape?(p), v)         p read by nothing else
//   p  = div(e, rows(reduce_sum(e)))    along the last dim
//   e  = exp(sub(s', rows(r)))          r: any row vector (the softmax's
//                                       stopped max, or a derivative's
//                                       copy of it), or exp(s') unshifted
//   s' = steps(s)                       mul, div, add, sub, neg and select
//                                       against values that do not read s
//   s  = reshape?(matmul(q, k))         k transposed by the flag, or not
//
// Every value on the way is read only by the next, except s', which the
// softmax's own reduce_max may read too. That max is left as it is: a
// derivative receives it as an argument and ignores it (softmax does not
// depend on its shift), and it dies once the derivative is built, taking
// the scores with it.
//
// Under autocast the products are bf16 (or f16) and the softmax f32: the
// converts between them are looked through. The attention then computes in
// f32 from q, k and v rounded to the products' type, as a tensor core
// does (narrow operands, an f32 accumulator), and its result is rounded to
// the product's type; the scores skip their intermediate roundings.
//
//===----------------------------------------------------------------------===//

#include "kiln/Dialect/Kiln/Transforms/Passes.h"

#include "mlir/IR/Matchers.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/TypeSwitch.h"

namespace kiln {
#define GEN_PASS_DEF_KILNFUSEATTENTION
#include "kiln/Dialect/Kiln/Transforms/Passes.h.inc"
} // namespace kiln

using namespace mlir;
using namespace kiln;

namespace {

/// A static f32 tensor of rank 3 or more (bf16 or f16: a softmax that
/// autocast left in the products' type, as on the CPU).
bool isScoreLike(Value v) {
  auto type = dyn_cast<RankedTensorType>(v.getType());
  Type element = type ? type.getElementType() : Type();
  return type && type.getRank() >= 3 && type.hasStaticShape() &&
         (element.isF32() || element.isBF16() || element.isF16());
}

/// For `b`, a row vector broadcast along the last dim of `shape` (through a
/// reshape that appends the unit dim), that row vector; else null.
Value getBroadcastRows(Value b, ArrayRef<int64_t> shape) {
  auto broadcast = b.getDefiningOp<BroadcastInDimOp>();
  if (!broadcast || !broadcast.getSizes().empty() ||
      broadcast.getType().getShape() != shape)
    return {};
  int64_t rank = shape.size();
  Value source = broadcast.getOperand();
  ArrayRef<int64_t> sourceShape =
      cast<RankedTensorType>(source.getType()).getShape();
  ArrayRef<int64_t> rowShape = shape.drop_back();
  ArrayRef<int64_t> dims = broadcast.getDims();
  auto identity = [](ArrayRef<int64_t> dims, int64_t n) {
    return static_cast<int64_t>(dims.size()) == n &&
           llvm::all_of(llvm::enumerate(dims), [](auto pair) {
             return static_cast<int64_t>(pair.index()) == pair.value();
           });
  };
  if (sourceShape == rowShape && identity(dims, rank - 1))
    return source;
  if (identity(dims, rank) && sourceShape.drop_back() == rowShape &&
      sourceShape.back() == 1) {
    if (auto reshape = source.getDefiningOp<ReshapeOp>())
      if (reshape.getOperand().getType().getShape() == rowShape)
        return reshape.getOperand();
    return source;
  }
  return {};
}

/// A float type of the products: f32, or bf16 and f16 under autocast.
bool isProductType(Type element) {
  return element.isF32() || element.isBF16() || element.isF16();
}

/// `v` without the float-to-float converts that define it, each of whose
/// sources the convert alone reads (as autocast writes them around its
/// products).
Value skipConverts(Value v) {
  while (auto convert = v.getDefiningOp<ConvertOp>()) {
    Value source = convert.getOperand();
    if (!source.hasOneUse() ||
        !isa<FloatType>(getElementTypeOrSelf(source.getType())) ||
        !isa<FloatType>(getElementTypeOrSelf(v.getType())))
      break;
    v = source;
  }
  return v;
}

/// Whether `v` can be the rewritten scores' side of a binary rewrite: read
/// once, and made by an op that is not a constant or a broadcast (which is
/// what a scale or a mask is).
bool isScoreSide(Value v) {
  Operation *op = v.getDefiningOp();
  return v.hasOneUse() && op && !isa<ConstantOp, BroadcastInDimOp>(op);
}

/// One recognized attention, before it is built.
struct Match {
  MatmulOp scores, product;
  SmallVector<std::pair<AttentionScoreStep, SmallVector<Value, 2>>> steps;
  SmallVector<int64_t> scoreShape; // as the program writes the scores
};

class Recognizer {
public:
  std::optional<Match> match(MatmulOp product);

private:
  bool matchSteps(Value sp, Match &m);
};

std::optional<Match> Recognizer::match(MatmulOp product) {
  if (product.getTransposeA() || product.getTransposeB() ||
      !isProductType(product.getType().getElementType()) ||
      !product.getType().hasStaticShape() || product.getType().getRank() != 3)
    return std::nullopt;
  Match m;
  m.product = product;
  Value p = product.getLhs();
  if (!p.hasOneUse())
    return std::nullopt;
  p = skipConverts(p);
  if (auto reshape = p.getDefiningOp<ReshapeOp>()) {
    p = reshape.getOperand();
    if (!p.hasOneUse())
      return std::nullopt;
    p = skipConverts(p);
  }
  if (!isScoreLike(p))
    return std::nullopt;
  ArrayRef<int64_t> shape = cast<RankedTensorType>(p.getType()).getShape();
  int64_t last = shape.size() - 1;
  // The flattened shape must be the product's lhs.
  ArrayRef<int64_t> lhs = product.getLhs().getType().getShape();
  if (lhs[1] != shape[last - 1] || lhs[2] != shape[last])
    return std::nullopt;

  // p = e / rows(sum(e)).
  auto div = p.getDefiningOp<DivOp>();
  if (!div)
    return std::nullopt;
  Value e = div.getLhs();
  Value sumRows = getBroadcastRows(div.getRhs(), shape);
  auto sum = sumRows ? sumRows.getDefiningOp<ReduceSumOp>() : ReduceSumOp();
  if (!sum || sum.getOperand() != e || sum.getDims() != ArrayRef<int64_t>{last})
    return std::nullopt;
  // e is read by the sum and the division only.
  for (Operation *user : e.getUsers())
    if (user != div && user != sum)
      return std::nullopt;
  auto exp = e.getDefiningOp<ExpOp>();
  if (!exp || !exp.getOperand().hasOneUse())
    return std::nullopt;
  Value sp = exp.getOperand();
  Operation *shiftUser = exp;
  // A shift by any row vector: the softmax does not depend on it.
  if (auto sub = sp.getDefiningOp<SubOp>();
      sub && getBroadcastRows(sub.getRhs(), shape)) {
    shiftUser = sub;
    sp = sub.getLhs();
  }
  // s' is read by the shift and, at most, its own row maximum.
  for (Operation *user : sp.getUsers()) {
    if (user == shiftUser)
      continue;
    auto max = dyn_cast<ReduceMaxOp>(user);
    if (!max || max.getDims() != ArrayRef<int64_t>{last})
      return std::nullopt;
  }
  m.scoreShape.assign(shape.begin(), shape.end());
  if (!matchSteps(sp, m))
    return std::nullopt;
  return m;
}

/// Walks the score rewrites back from `sp` to the first product; records
/// them in program order.
bool Recognizer::matchSteps(Value sp, Match &m) {
  Value current = sp;
  bool first = true;
  for (int depth = 0; depth < 64; ++depth) {
    // Every value before s' is read once: by the next rewrite.
    if (!first && !current.hasOneUse())
      return false;
    first = false;
    Operation *op = current.getDefiningOp();
    if (!op)
      return false;
    Value s = current;
    // Autocast's converts between the scores' steps: looked through.
    if (auto convert = dyn_cast<ConvertOp>(op)) {
      Value source = skipConverts(current);
      if (source != current) {
        current = source;
        continue;
      }
      return false;
    }
    if (auto reshape = dyn_cast<ReshapeOp>(op)) {
      s = reshape.getOperand();
      if (!s.hasOneUse())
        return false;
      op = s.getDefiningOp();
    }
    if (auto matmul = dyn_cast_or_null<MatmulOp>(op)) {
      auto type = matmul.getType();
      if (matmul.getTransposeA() || type.getRank() != 3 ||
          !type.hasStaticShape() || !isProductType(type.getElementType()) ||
          type.getShape() != m.product.getLhs().getType().getShape())
        return false;
      m.scores = matmul;
      std::reverse(m.steps.begin(), m.steps.end());
      return true;
    }
    if (s != current) // a reshape inside the rewrites
      return false;
    auto step = [&](AttentionScoreStep kind, Value next,
                    SmallVector<Value, 2> operands) {
      for (Value operand : operands)
        if (operand == next)
          return false;
      m.steps.push_back({kind, std::move(operands)});
      current = next;
      return true;
    };
    bool matched =
        TypeSwitch<Operation *, bool>(op)
            .Case([&](MulOp mul) {
              // The rewritten side is the one the chain goes on through:
              // the lhs if it can be, else the rhs.
              Value lhs = mul.getLhs(), rhs = mul.getRhs();
              return isScoreSide(lhs)
                         ? step(AttentionScoreStep::Mul, lhs, {rhs})
                         : step(AttentionScoreStep::Mul, rhs, {lhs});
            })
            .Case([&](AddOp add) {
              Value lhs = add.getLhs(), rhs = add.getRhs();
              return isScoreSide(lhs)
                         ? step(AttentionScoreStep::Add, lhs, {rhs})
                         : step(AttentionScoreStep::Add, rhs, {lhs});
            })
            .Case([&](DivOp div) {
              return step(AttentionScoreStep::Div, div.getLhs(),
                          {div.getRhs()});
            })
            .Case([&](SubOp sub) {
              Value lhs = sub.getLhs(), rhs = sub.getRhs();
              return isScoreSide(lhs)
                         ? step(AttentionScoreStep::Sub, lhs, {rhs})
                         : step(AttentionScoreStep::SubFrom, rhs, {lhs});
            })
            .Case([&](NegOp neg) {
              return step(AttentionScoreStep::Neg, neg.getOperand(), {});
            })
            .Case([&](SelectOp select) {
              Value onTrue = select.getOnTrue(), onFalse = select.getOnFalse();
              return isScoreSide(onTrue)
                         ? step(AttentionScoreStep::Keep, onTrue,
                                {select.getPred(), onFalse})
                         : step(AttentionScoreStep::Fill, onFalse,
                                {select.getPred(), onTrue});
            })
            .Default([](Operation *) { return false; });
    if (!matched)
      return false;
  }
  return false;
}

/// Builds the attention ops and their rank-3 operands.
class AttentionWriter {
public:
  AttentionWriter(OpBuilder &b, Match &m) : b(b), m(m) {
    auto lhs = m.product.getLhs().getType();
    flatShape.assign(lhs.getShape().begin(), lhs.getShape().end());
  }

  /// The attention op, before `m.product`, with its score operands, and
  /// its result in the product's type.
  std::pair<AttentionOp, Value> write();

private:
  Value toOperand(Value x);
  /// Records `x` (once) as a score operand.
  void addScoreOperand(Value x);

  OpBuilder &b;
  Match &m;
  SmallVector<int64_t> flatShape; // [N, Tq, Tk]
  llvm::MapVector<Value, int64_t> operandIndex;
  SmallVector<Value> operands;
};

/// `x`, of the scores' shape, as a rank-3 operand of dims 1 or [N, Tq, Tk].
Value AttentionWriter::toOperand(Value x) {
  Location loc = x.getLoc();
  auto type = cast<RankedTensorType>(x.getType());
  Type element = type.getElementType();
  ArrayRef<int64_t> shape = m.scoreShape;
  int64_t rank = shape.size();
  // A splat constant: one element.
  DenseElementsAttr dense;
  if (matchPattern(x, m_Constant(&dense)) && dense.isSplat()) {
    auto scalar = RankedTensorType::get({1, 1, 1}, element);
    return ConstantOp::create(b, loc, scalar, dense.resizeSplat(scalar));
  }
  // A broadcast: its source, with unit dims where it broadcasts.
  if (auto broadcast = x.getDefiningOp<BroadcastInDimOp>();
      broadcast && broadcast.getSizes().empty()) {
    Value source = broadcast.getOperand();
    ArrayRef<int64_t> sourceShape =
        cast<RankedTensorType>(source.getType()).getShape();
    ArrayRef<int64_t> dims = broadcast.getDims();
    SmallVector<int64_t> spread(rank, 1);
    bool increasing = true;
    for (auto [i, d] : llvm::enumerate(dims)) {
      spread[d] = sourceShape[i];
      increasing &= i == 0 || dims[i - 1] < d;
    }
    // The batch dims flatten to N or to 1.
    bool allBatch = true, noBatch = true;
    for (int64_t d = 0; d < rank - 2; ++d) {
      allBatch &= spread[d] == shape[d];
      noBatch &= spread[d] == 1;
    }
    if (increasing && (allBatch || noBatch)) {
      SmallVector<int64_t> small = {noBatch ? 1 : flatShape[0],
                                    spread[rank - 2], spread[rank - 1]};
      auto smallType = RankedTensorType::get(small, element);
      if (source.getType() == smallType)
        return source;
      return ReshapeOp::create(b, loc, smallType, source);
    }
  }
  auto flatType = RankedTensorType::get(flatShape, element);
  if (type == flatType)
    return x;
  return ReshapeOp::create(b, loc, flatType, x);
}

/// `x` in f32 where it is a narrower float (a product's operand, or a
/// score operand, under autocast).
static Value toF32(OpBuilder &b, Value x) {
  auto type = cast<RankedTensorType>(x.getType());
  if (!type.getElementType().isBF16() && !type.getElementType().isF16())
    return x;
  return ConvertOp::create(
      b, x.getLoc(), RankedTensorType::get(type.getShape(), b.getF32Type()), x);
}

void AttentionWriter::addScoreOperand(Value x) {
  if (operandIndex.insert({x, operands.size()}).second)
    operands.push_back(toF32(b, toOperand(x)));
}

std::pair<AttentionOp, Value> AttentionWriter::write() {
  Location loc = m.product.getLoc();
  SmallVector<int64_t> steps;
  for (auto &[kind, values] : m.steps) {
    for (Value v : values)
      addScoreOperand(v);
    steps.push_back(static_cast<int64_t>(kind));
    steps.push_back(values.size() > 0 ? operandIndex.lookup(values[0]) : -1);
    steps.push_back(values.size() > 1 ? operandIndex.lookup(values[1]) : -1);
  }
  Value query = toF32(b, m.scores.getLhs()), key = toF32(b, m.scores.getRhs());
  if (!m.scores.getTransposeB())
    key = TransposeOp::create(b, loc, key, b.getDenseI64ArrayAttr({0, 2, 1}));
  Value value = toF32(b, m.product.getRhs());
  auto rowType =
      RankedTensorType::get({flatShape[0], flatShape[1]}, b.getF32Type());
  RankedTensorType resultType = m.product.getType();
  auto attention = AttentionOp::create(
      b, loc,
      TypeRange{RankedTensorType::get(resultType.getShape(), b.getF32Type()),
                rowType, rowType},
      query, key, value, operands, b.getDenseI64ArrayAttr(steps));
  Value result = attention.getResult();
  if (!resultType.getElementType().isF32())
    result = ConvertOp::create(b, loc, resultType, result);
  return {attention, result};
}

/// Erases the pure ops of `block` left unused, last first.
void eraseDeadOps(Block &block) {
  SmallVector<Operation *> ops;
  for (Operation &op : block.without_terminator())
    ops.push_back(&op);
  for (Operation *op : llvm::reverse(ops))
    if (op->use_empty() && isPure(op))
      op->erase();
}

struct KilnFuseAttentionPass
    : kiln::impl::KilnFuseAttentionBase<KilnFuseAttentionPass> {
  void runOnOperation() override {
    SmallVector<MatmulOp> products;
    getOperation().walk([&](MatmulOp op) { products.push_back(op); });
    Recognizer recognizer;
    SmallPtrSet<Block *, 4> changed;
    for (MatmulOp product : products) {
      std::optional<Match> m = recognizer.match(product);
      if (!m)
        continue;
      OpBuilder b(product);
      Operation *before = product->getPrevNode();
      AttentionWriter writer(b, *m);
      auto [attention, result] = writer.write();
      // The new ops belong to the product's checkpoint segment, if any:
      // -kiln-autodiff recomputes them with it rather than keeping them.
      if (Attribute segment = product->getAttr(kCheckpointAttrName))
        for (Operation *op = before ? before->getNextNode()
                                    : &product->getBlock()->front();
             op != product.getOperation(); op = op->getNextNode())
          op->setAttr(kCheckpointAttrName, segment);
      product.getResult().replaceAllUsesWith(result);
      product.erase();
      changed.insert(attention->getBlock());
      ++numFused;
    }
    for (Block *block : changed)
      eraseDeadOps(*block);
  }
};

} // namespace
