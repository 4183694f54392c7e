//===- VjpRules.cpp - the VJP rule of every kiln op -----------------------===//
//
// Given the adjoints of an op's results, each rule adds the contributions of
// the operands that need one (AdjointBuilder::needsAdjoint). Rules reuse the
// forward values (y = the op's result) where that is cheaper than the
// textbook form, and express matmul adjoints with transpose flags, never
// with transpose ops.
//
// Tie rules (documented in the op descriptions too):
// - relu: the derivative at 0 is 0 (as PyTorch's threshold_backward).
// - abs: the derivative at 0 is 0 (sign(0) = 0).
// - max / min: where x == y the cotangent is split evenly, half to each side
//   (as JAX); NaN operands get none.
// - reduce_max: the cotangent is split evenly among all elements equal to
//   the maximum (as PyTorch's amax and JAX).
// - pow: as PyTorch's: d/dx of x^y is 0 where y == 0; d/dy is 0 where
//   x == 0 and y >= 0, and NaN where x < 0 (log x).
// - take -> scatter_add of ct into zeros; scatter_add -> ct for the operand
//   and, for the updates, take of ct, 0 where an update was dropped (its
//   index out of range). Integer operands (indices) carry no gradient.
// - all_reduce max: every rank whose x equals the maximum gets the whole
//   summed cotangent (no split among tied ranks: counting them would take
//   a second collective).
//
// Collectives (n ranks; the objective differentiated is every rank's,
// summed):
// - all_reduce sum -> all_reduce sum of ct; mean -> all_reduce mean of ct;
//   max -> all_reduce sum of ct, kept where x == y, else 0;
// - all_gather -> reduce_scatter sum of ct along the same dim;
// - reduce_scatter sum -> all_gather of ct; mean -> all_gather of ct / n;
//   max has none (a named error).
//
//===----------------------------------------------------------------------===//

#include "AutodiffInternals.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cmath>

using namespace mlir;
using namespace kiln;

namespace {

/// Small builder helpers for one rule application.
class RuleBuilder {
public:
  RuleBuilder(Operation *op, AdjointBuilder &adjoints)
      : op(op), adjoints(adjoints), b(adjoints.getBuilder()),
        loc(op->getLoc()) {}

  /// Adds `build()` to operand `index`'s adjoint when it needs one.
  void contribute(unsigned index, function_ref<Value()> build) {
    if (adjoints.needsAdjoint(op, index))
      adjoints.add(op->getOperand(index), build());
  }

  Value add(Value x, Value y) { return AddOp::create(b, loc, x, y); }
  Value sub(Value x, Value y) { return SubOp::create(b, loc, x, y); }
  Value mul(Value x, Value y) { return MulOp::create(b, loc, x, y); }
  Value div(Value x, Value y) { return DivOp::create(b, loc, x, y); }
  Value neg(Value x) { return NegOp::create(b, loc, x); }

  /// A constant shaped like `like` (whose dynamic dims it takes).
  Value constant(Value like, double value) {
    return adjoints.splat(loc, cast<RankedTensorType>(like.getType()), value,
                          like);
  }

  Value compare(CmpPredicate predicate, Value x, Value y) {
    return CmpOp::create(b, loc, predicate, x, y);
  }

  /// 1.0 where `mask`, else 0.0, in `like`'s type.
  Value indicator(Value mask, Value like) {
    return ConvertOp::create(b, loc, like.getType(), mask);
  }

  /// `ct` where `mask`, else 0.
  Value keepWhere(Value mask, Value ct) {
    return SelectOp::create(b, loc, mask, ct, constant(ct, 0.0));
  }

  /// `x` broadcast to the type of `like`, whose dynamic dims it takes.
  Value broadcast(Value x, Value like, ArrayRef<int64_t> dims) {
    auto type = cast<RankedTensorType>(like.getType());
    SmallVector<Value> sizes;
    for (int64_t d = 0; d < type.getRank(); ++d)
      if (type.isDynamicDim(d))
        sizes.push_back(tensor::DimOp::create(b, loc, like, d));
    return BroadcastInDimOp::create(b, loc, type, x, sizes,
                                    b.getDenseI64ArrayAttr(dims));
  }

  Value reduceSum(Value x, ArrayRef<int64_t> dims) {
    if (dims.empty())
      return x;
    return ReduceSumOp::create(b, loc, x, b.getDenseI64ArrayAttr(dims));
  }

  Value reshape(Value x, Type type) {
    if (x.getType() == type)
      return x;
    return ReshapeOp::create(b, loc, type, x);
  }

  /// A product of the derivative; a matmul's own precision carries over to
  /// the products of its gradient.
  Value matmul(Value x, Value y, bool transposeX, bool transposeY, Type type) {
    auto forward = dyn_cast<MatmulOp>(op);
    return MatmulOp::create(b, loc, type, x, y, b.getBoolAttr(transposeX),
                            b.getBoolAttr(transposeY),
                            forward ? forward.getPrecisionAttr()
                                    : MatmulPrecisionAttr());
  }

  Operation *op;
  AdjointBuilder &adjoints;
  OpBuilder &b;
  Location loc;
};

/// The dims of a rank-`rank` tensor not in `dims`.
SmallVector<int64_t> complementDims(int64_t rank, ArrayRef<int64_t> dims) {
  SmallVector<int64_t> kept;
  for (int64_t d = 0; d < rank; ++d)
    if (!llvm::is_contained(dims, d))
      kept.push_back(d);
  return kept;
}

/// d/dx gelu(x). The erf form x Phi(x) has Phi(x) + x phi(x); the tanh form
/// 0.5 x (1 + t), t = tanh(u), u = s (x + c x^3), has
/// 0.5 (1 + t) + 0.5 x (1 - t^2) s (1 + 3 c x^2).
Value geluDerivative(RuleBuilder &r, GeluOp gelu) {
  Value x = gelu.getOperand();
  auto half = [&] { return r.constant(x, 0.5); };
  Value x2 = r.mul(x, x);
  if (gelu.getApproximate()) {
    Value cubic = r.mul(r.constant(x, GeluOp::kCubicCoefficient), r.mul(x2, x));
    Value u = r.mul(r.constant(x, GeluOp::kTanhScale), r.add(x, cubic));
    Value t = TanhOp::create(r.b, r.loc, u);
    Value one = r.constant(x, 1.0);
    Value du = r.mul(
        r.constant(x, GeluOp::kTanhScale),
        r.add(one, r.mul(r.constant(x, 3 * GeluOp::kCubicCoefficient), x2)));
    Value outer = r.mul(half(), r.add(one, t));
    Value inner = r.mul(r.mul(half(), x), r.mul(r.sub(one, r.mul(t, t)), du));
    return r.add(outer, inner);
  }
  // Phi(x) = 0.5 (1 + erf(x / sqrt 2)); phi(x) = exp(-x^2 / 2) / sqrt(2 pi).
  Value erf = ErfOp::create(r.b, r.loc, r.mul(x, r.constant(x, M_SQRT1_2)));
  Value cdf = r.mul(half(), r.add(r.constant(x, 1.0), erf));
  Value pdf = r.mul(ExpOp::create(r.b, r.loc, r.mul(x2, r.constant(x, -0.5))),
                    r.constant(x, 0.5 * M_2_SQRTPI * M_SQRT1_2));
  return r.add(cdf, r.mul(x, pdf));
}

/// Elementwise T -> T ops: the adjoint of x from ct, x and y = op(x). None
/// when `r.op` is not one of them.
std::optional<LogicalResult> unaryRule(RuleBuilder &r, Value ct) {
  Operation *op = r.op;
  if (op->getNumOperands() != 1 || op->getNumResults() != 1)
    return std::nullopt;
  Value x = op->getOperand(0), y = op->getResult(0);
  auto rule = [&](function_ref<Value()> build) -> std::optional<LogicalResult> {
    r.contribute(0, build);
    return success();
  };
  return TypeSwitch<Operation *, std::optional<LogicalResult>>(op)
      .Case([&](NegOp) { return rule([&] { return r.neg(ct); }); })
      .Case([&](ExpOp) { return rule([&] { return r.mul(ct, y); }); })
      .Case([&](LogOp) { return rule([&] { return r.div(ct, x); }); })
      .Case([&](TanhOp) {
        // ct * (1 - y^2)
        return rule(
            [&] { return r.mul(ct, r.sub(r.constant(y, 1.0), r.mul(y, y))); });
      })
      .Case([&](SigmoidOp) {
        // ct * y * (1 - y)
        return rule(
            [&] { return r.mul(r.mul(ct, y), r.sub(r.constant(y, 1.0), y)); });
      })
      .Case([&](ReluOp) {
        return rule([&] {
          return r.keepWhere(r.compare(CmpPredicate::gt, x, r.constant(x, 0.0)),
                             ct);
        });
      })
      .Case([&](SqrtOp) {
        // ct / (2 sqrt(x))
        return rule([&] { return r.div(ct, r.add(y, y)); });
      })
      .Case([&](RsqrtOp) {
        // -ct / 2 * x^(-3/2) = -ct / 2 * y^3
        return rule([&] {
          Value y3 = r.mul(r.mul(y, y), y);
          return r.mul(r.mul(ct, y3), r.constant(y, -0.5));
        });
      })
      .Case([&](AbsOp) {
        // ct * sign(x), with sign(0) = 0.
        return rule([&] {
          Value zero = r.constant(x, 0.0);
          Value sign =
              r.sub(r.indicator(r.compare(CmpPredicate::gt, x, zero), x),
                    r.indicator(r.compare(CmpPredicate::lt, x, zero), x));
          return r.mul(ct, sign);
        });
      })
      .Case([&](SinOp) {
        return rule([&] {
          return r.mul(ct, CosOp::create(r.b, r.loc, x).getResult());
        });
      })
      .Case([&](CosOp) {
        return rule([&] {
          return r.neg(r.mul(ct, SinOp::create(r.b, r.loc, x).getResult()));
        });
      })
      .Case([&](ReciprocalOp) {
        // -ct / x^2 = -ct * y^2
        return rule([&] { return r.neg(r.mul(ct, r.mul(y, y))); });
      })
      .Case([&](ErfOp) {
        // ct * 2 / sqrt(pi) * exp(-x^2)
        return rule([&] {
          Value gauss = ExpOp::create(r.b, r.loc, r.neg(r.mul(x, x)));
          return r.mul(ct, r.mul(gauss, r.constant(x, M_2_SQRTPI)));
        });
      })
      .Case([&](GeluOp gelu) {
        return rule([&] { return r.mul(ct, geluDerivative(r, gelu)); });
      })
      .Default([](Operation *) { return std::nullopt; });
}

/// max / min: the winner takes ct, ties split it evenly.
void extremumRule(RuleBuilder &r, Value ct, CmpPredicate wins) {
  Value x = r.op->getOperand(0), y = r.op->getOperand(1);
  auto share = [&](Value self, Value other) {
    Value winner = r.indicator(r.compare(wins, self, other), self);
    Value tie = r.indicator(r.compare(CmpPredicate::eq, self, other), self);
    return r.mul(ct, r.add(winner, r.mul(tie, r.constant(self, 0.5))));
  };
  r.contribute(0, [&] { return share(x, y); });
  r.contribute(1, [&] { return share(y, x); });
}

/// Elementwise T, T -> T ops. None when `r.op` is not one of them.
std::optional<LogicalResult> binaryRule(RuleBuilder &r, Value ct) {
  Operation *op = r.op;
  if (op->getNumOperands() != 2 || op->getNumResults() != 1)
    return std::nullopt;
  Value x = op->getOperand(0), y = op->getOperand(1), z = op->getResult(0);
  return TypeSwitch<Operation *, std::optional<LogicalResult>>(op)
      .Case([&](AddOp) {
        r.contribute(0, [&] { return ct; });
        r.contribute(1, [&] { return ct; });
        return success();
      })
      .Case([&](SubOp) {
        r.contribute(0, [&] { return ct; });
        r.contribute(1, [&] { return r.neg(ct); });
        return success();
      })
      .Case([&](MulOp) {
        r.contribute(0, [&] { return r.mul(ct, y); });
        r.contribute(1, [&] { return r.mul(ct, x); });
        return success();
      })
      .Case([&](DivOp) {
        // d/dx = ct / y; d/dy = -ct * x / y^2 = -(ct / y) * z.
        Value ctOverY;
        auto getCtOverY = [&] {
          if (!ctOverY)
            ctOverY = r.div(ct, y);
          return ctOverY;
        };
        r.contribute(0, getCtOverY);
        r.contribute(1, [&] { return r.neg(r.mul(getCtOverY(), z)); });
        return success();
      })
      .Case([&](MaxOp) {
        extremumRule(r, ct, CmpPredicate::gt);
        return success();
      })
      .Case([&](MinOp) {
        extremumRule(r, ct, CmpPredicate::lt);
        return success();
      })
      .Case([&](PowOp) {
        // PyTorch's rules: d/dx = ct * y * x^(y-1), 0 where y == 0; d/dy =
        // ct * z * log(x), 0 where x == 0 and y >= 0 (NaN where x < 0).
        auto zeroWhere = [&](Value mask, Value value) {
          return SelectOp::create(r.b, r.loc, mask, r.constant(value, 0.0),
                                  value);
        };
        r.contribute(0, [&] {
          Value power =
              PowOp::create(r.b, r.loc, x, r.sub(y, r.constant(y, 1.0)));
          Value yIsZero = r.compare(CmpPredicate::eq, y, r.constant(y, 0.0));
          return zeroWhere(yIsZero, r.mul(ct, r.mul(y, power)));
        });
        r.contribute(1, [&] {
          Value value = r.mul(ct, r.mul(z, LogOp::create(r.b, r.loc, x)));
          Value xIsZero = r.compare(CmpPredicate::eq, x, r.constant(x, 0.0));
          Value yNonNegative =
              r.compare(CmpPredicate::ge, y, r.constant(y, 0.0));
          return SelectOp::create(r.b, r.loc, xIsZero,
                                  zeroWhere(yNonNegative, value), value);
        });
        return success();
      })
      .Default([](Operation *) { return std::nullopt; });
}

LogicalResult matmulRule(RuleBuilder &r, MatmulOp op, Value ct) {
  // C = op(A) op(B), op(M) = M^T when its flag is set.
  Value a = op.getLhs(), bMat = op.getRhs();
  bool ta = op.getTransposeA(), tb = op.getTransposeB();
  // dA: ta ? op(B) ct^T : ct op(B)^T.
  r.contribute(0, [&] {
    if (!ta)
      return r.matmul(ct, bMat, false, !tb, a.getType());
    return r.matmul(bMat, ct, tb, true, a.getType());
  });
  // dB: tb ? ct^T op(A) : op(A)^T ct.
  r.contribute(1, [&] {
    if (!tb)
      return r.matmul(a, ct, !ta, false, bMat.getType());
    return r.matmul(ct, a, true, ta, bMat.getType());
  });
  return success();
}

LogicalResult broadcastRule(RuleBuilder &r, BroadcastInDimOp op, Value ct) {
  // Sum over the new dims and over the size-1 dims that expanded, then put
  // the unit dims back with a reshape.
  RankedTensorType operandType = op.getOperand().getType();
  RankedTensorType resultType = op.getType();
  ArrayRef<int64_t> dims = op.getDims();
  SmallVector<int64_t> reduced;
  for (int64_t d = 0; d < resultType.getRank(); ++d) {
    const int64_t *it = llvm::find(dims, d);
    if (it == dims.end() || (operandType.getDimSize(it - dims.begin()) == 1 &&
                             resultType.getDimSize(d) != 1))
      reduced.push_back(d);
  }
  r.contribute(
      0, [&] { return r.reshape(r.reduceSum(ct, reduced), operandType); });
  return success();
}

LogicalResult reduceMaxRule(RuleBuilder &r, ReduceMaxOp op, Value ct) {
  // Every element equal to the maximum gets ct / (number of such elements).
  RankedTensorType type = op.getOperand().getType();
  SmallVector<int64_t> kept = complementDims(type.getRank(), op.getDims());
  r.contribute(0, [&] {
    Value x = op.getOperand();
    Value maximum = r.broadcast(op.getResult(), x, kept);
    Value hits = r.indicator(r.compare(CmpPredicate::eq, x, maximum), x);
    Value count = r.reduceSum(hits, op.getDims());
    return r.mul(hits, r.broadcast(r.div(ct, count), x, kept));
  });
  return success();
}

LogicalResult allReduceRule(RuleBuilder &r, AllReduceOp op, Value ct) {
  r.contribute(0, [&] {
    CollectiveReduction reduction = op.getReduction();
    Value summed = AllReduceOp::create(r.b, r.loc,
                                       reduction == CollectiveReduction::mean
                                           ? CollectiveReduction::mean
                                           : CollectiveReduction::sum,
                                       ct, op.getGroup())
                       .getResult();
    if (reduction != CollectiveReduction::max)
      return summed;
    // Every rank's cotangent flows to the ranks that hold the maximum.
    return r.keepWhere(
        r.compare(CmpPredicate::eq, op.getOperand(), op.getResult()), summed);
  });
  return success();
}

LogicalResult reduceScatterRule(RuleBuilder &r, ReduceScatterOp op, Value ct) {
  if (op.getReduction() == CollectiveReduction::max)
    return op.emitOpError("has no gradient: a max reduce_scatter is not "
                          "differentiable here (use sum or mean)");
  RankedTensorType whole = op.getOperand().getType();
  int64_t dim = op.getDim();
  int64_t ranks = 1;
  if (op.getReduction() == CollectiveReduction::mean) {
    if (whole.isDynamicDim(dim) || op.getType().isDynamicDim(dim) ||
        op.getType().getDimSize(dim) == 0)
      return op.emitOpError("has no gradient: a mean reduce_scatter along a "
                            "dynamic or empty dim (its rank count is unknown)");
    ranks = whole.getDimSize(dim) / op.getType().getDimSize(dim);
  }
  r.contribute(0, [&] {
    Value gathered =
        AllGatherOp::create(r.b, r.loc, whole, ct, dim, op.getGroup());
    if (ranks == 1)
      return gathered;
    return r.mul(gathered, r.constant(gathered, 1.0 / ranks));
  });
  return success();
}

} // namespace

namespace {
/// kiln.attention's q, k and v get kiln.attention_grad's. Adjoints of the
/// row statistics or the score operands take the decomposed form instead
/// (Autodiff.cpp decomposes such an attention before the sweep).
LogicalResult attentionRule(RuleBuilder &r, AttentionOp op,
                            ArrayRef<Value> resultAdjoints) {
  if (resultAdjoints[1] || resultAdjoints[2] || !resultAdjoints[0])
    return failure();
  for (unsigned i = 3; i < op->getNumOperands(); ++i)
    if (r.adjoints.needsAdjoint(op, i))
      return failure();
  AttentionGradOp grad;
  auto gradient = [&](unsigned index) {
    if (!grad)
      grad = AttentionGradOp::create(
          r.b, r.loc,
          TypeRange{op.getQuery().getType(), op.getKey().getType(),
                    op.getValue().getType()},
          op.getQuery(), op.getKey(), op.getValue(), op.getResult(),
          op.getRowMax(), op.getRowSum(), resultAdjoints[0],
          op.getScoreOperands(), op.getScoreStepsAttr());
    return grad->getResult(index);
  };
  for (unsigned index = 0; index < 3; ++index)
    r.contribute(index, [&] { return gradient(index); });
  return success();
}
} // namespace

LogicalResult kiln::applyVjpRule(Operation *op, ArrayRef<Value> resultAdjoints,
                                 AdjointBuilder &adjoints) {
  RuleBuilder r(op, adjoints);
  Value ct = resultAdjoints.empty() ? Value() : resultAdjoints.front();
  if (std::optional<LogicalResult> result = unaryRule(r, ct))
    return *result;
  if (std::optional<LogicalResult> result = binaryRule(r, ct))
    return *result;
  return TypeSwitch<Operation *, LogicalResult>(op)
      .Case<ConstantOp, CmpOp, IotaOp, ArgmaxOp, RngUniformOp>(
          [](Operation *) { return success(); })
      .Case([&](TakeOp take) {
        // The transpose of a gather: the cotangent added at the indices.
        r.contribute(0, [&] {
          Value zeros = r.constant(take.getOperand(), 0.0);
          return ScatterAddOp::create(r.b, r.loc, take.getOperand().getType(),
                                      zeros, take.getIndices(), ct,
                                      take.getDim())
              .getResult();
        });
        return success();
      })
      .Case([&](ScatterAddOp scatter) {
        r.contribute(0, [&] { return ct; });
        r.contribute(2, [&] {
          // Dropped updates (indices out of range) get 0, not take's NaN:
          // in range is where a gather of ones gives 1.
          Type type = scatter.getUpdates().getType();
          Value gathered = TakeOp::create(
              r.b, r.loc, type, ct, scatter.getIndices(), scatter.getDim());
          Value ones = TakeOp::create(r.b, r.loc, type,
                                      r.constant(scatter.getOperand(), 1.0),
                                      scatter.getIndices(), scatter.getDim());
          Value inRange =
              r.compare(CmpPredicate::eq, ones, r.constant(ones, 1.0));
          return r.keepWhere(inRange, gathered);
        });
        return success();
      })
      .Case([&](SelectOp select) {
        r.contribute(1, [&] { return r.keepWhere(select.getPred(), ct); });
        r.contribute(2, [&] {
          return SelectOp::create(r.b, r.loc, select.getPred(),
                                  r.constant(ct, 0.0), ct)
              .getResult();
        });
        return success();
      })
      .Case([&](ConvertOp convert) {
        r.contribute(0, [&] {
          return ConvertOp::create(r.b, r.loc, convert.getOperand().getType(),
                                   ct)
              .getResult();
        });
        return success();
      })
      .Case([&](BroadcastInDimOp broadcast) {
        return broadcastRule(r, broadcast, ct);
      })
      .Case([&](ReduceSumOp reduce) {
        RankedTensorType type = reduce.getOperand().getType();
        r.contribute(0, [&] {
          return r.broadcast(ct, reduce.getOperand(),
                             complementDims(type.getRank(), reduce.getDims()));
        });
        return success();
      })
      .Case([&](ReduceMaxOp reduce) { return reduceMaxRule(r, reduce, ct); })
      .Case([&](ReshapeOp reshape) {
        r.contribute(
            0, [&] { return r.reshape(ct, reshape.getOperand().getType()); });
        return success();
      })
      .Case([&](TransposeOp transpose) {
        ArrayRef<int64_t> perm = transpose.getPerm();
        SmallVector<int64_t> inverse(perm.size());
        for (auto [i, p] : llvm::enumerate(perm))
          inverse[p] = i;
        r.contribute(0, [&] {
          return TransposeOp::create(r.b, r.loc, ct,
                                     r.b.getDenseI64ArrayAttr(inverse))
              .getResult();
        });
        return success();
      })
      .Case([&](SliceOp slice) {
        if (adjoints.needsAdjoint(op, 0))
          adjoints.addSlice(slice.getOperand(), slice, ct);
        return success();
      })
      .Case([&](ConcatOp concat) -> LogicalResult {
        int64_t dim = concat.getDim();
        int64_t offset = 0;
        RankedTensorType ctType = cast<RankedTensorType>(ct.getType());
        // Each part is a slice of the cotangent at a static offset.
        for (Value input : concat.getInputs())
          if (cast<RankedTensorType>(input.getType()).isDynamicDim(dim))
            return failure();
        for (auto [i, input] : llvm::enumerate(concat.getInputs())) {
          auto type = cast<RankedTensorType>(input.getType());
          r.contribute(i, [&] {
            SmallVector<int64_t> offsets(ctType.getRank(), 0);
            offsets[dim] = offset;
            // A dynamic dim is taken whole (size -1).
            SmallVector<int64_t> sizes;
            for (int64_t size : type.getShape())
              sizes.push_back(ShapedType::isDynamic(size) ? -1 : size);
            return SliceOp::create(r.b, r.loc, ct,
                                   r.b.getDenseI64ArrayAttr(offsets),
                                   r.b.getDenseI64ArrayAttr(sizes))
                .getResult();
          });
          offset += type.getDimSize(dim);
        }
        return success();
      })
      .Case([&](MatmulOp matmul) { return matmulRule(r, matmul, ct); })
      .Case([&](AttentionOp attention) {
        return attentionRule(r, attention, resultAdjoints);
      })
      .Case([&](AllReduceOp allReduce) {
        return allReduceRule(r, allReduce, ct);
      })
      .Case([&](AllGatherOp gather) {
        r.contribute(0, [&] {
          return ReduceScatterOp::create(r.b, r.loc,
                                         gather.getOperand().getType(),
                                         CollectiveReduction::sum, ct,
                                         gather.getDim(), gather.getGroup())
              .getResult();
        });
        return success();
      })
      .Case([&](ReduceScatterOp scatter) {
        return reduceScatterRule(r, scatter, ct);
      })
      .Default([](Operation *) { return failure(); });
}
