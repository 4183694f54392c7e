//===- AttentionKernels.cpp - the -kiln-attention-to-gpu pass -------------===//
//
// kiln_gpu_attention_f32 / kiln_gpu_attention_grad_f32 calls (made by
// -kiln-lower-to-linalg with gpu-attention) -> gpu.funcs built for their
// shapes and score steps, and their launches. See Passes.td.
//
// Each kernel gives a thread one row (a query's, or for dk and dv a key's)
// and keeps that row's accumulator in registers; the other side's rows
// come through shared memory a tile of T at a time. A thread's own rows in
// shared memory are padded by one element, so that the block's threads,
// reading the same column of their rows, hit distinct banks.
//
//===----------------------------------------------------------------------===//

#include "kiln/Codegen/GPU/Passes.h"
#include "kiln/Dialect/Kiln/IR/KilnDialect.h"
#include "kiln/Dialect/Kiln/IR/KilnOps.h"

#include "mlir/IR/SymbolTable.h"

#include <cmath>
#include <functional>
#include <limits>

namespace kiln {
#define GEN_PASS_DEF_KILNATTENTIONTOGPU
#include "kiln/Codegen/GPU/Passes.h.inc"
} // namespace kiln

using namespace mlir;
using namespace kiln;

namespace {

constexpr StringLiteral kGpuModuleName = "kiln_gpu";
constexpr StringLiteral kForwardName = "kiln_gpu_attention_f32";
constexpr StringLiteral kGradName = "kiln_gpu_attention_grad_f32";
/// Shared memory per block, in floats (40 KiB: under the 48 KiB that a
/// kernel may declare statically).
constexpr int64_t kSharedFloats = 40 * 1024 / 4;

/// The sizes of one attention: q [n, tq, d], k [n, tk, d], v [n, tk, dv].
struct Sizes {
  int64_t n, tq, tk, d, dv;
};

/// The largest tile (rows per block) whose shared buffers, `floatsPerRow`
/// floats per row of the tile, fit; 0 where none does.
int64_t chooseTile(int64_t floatsPerRow) {
  for (int64_t tile : {64, 32, 16, 8})
    if (tile * floatsPerRow <= kSharedFloats)
      return tile;
  return 0;
}

/// The body of one attention kernel.
class Emitter {
public:
  Emitter(OpBuilder &b, gpu::GPUFuncOp func, ArrayRef<int64_t> steps,
          ValueRange scoreOperands)
      : b(b), func(func), loc(func.getLoc()),
        rewrites(*decodeAttentionScoreSteps(steps, scoreOperands.size())),
        scoreOperands(scoreOperands.begin(), scoreOperands.end()) {
    thread = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
    blockDim = gpu::BlockDimOp::create(b, loc, gpu::Dimension::x);
    block = gpu::BlockIdOp::create(b, loc, gpu::Dimension::x);
    grid = gpu::GridDimOp::create(b, loc, gpu::Dimension::x);
  }

  Value index(int64_t value) {
    return arith::ConstantIndexOp::create(b, loc, value);
  }
  Value constant(double value) {
    return arith::ConstantOp::create(
        b, loc, b.getF32FloatAttr(static_cast<float>(value)));
  }
  Value add(Value x, Value y) { return arith::AddIOp::create(b, loc, x, y); }
  Value mul(Value x, Value y) { return arith::MulIOp::create(b, loc, x, y); }
  Value div(Value x, Value y) { return arith::DivUIOp::create(b, loc, x, y); }
  Value rem(Value x, Value y) { return arith::RemUIOp::create(b, loc, x, y); }
  Value min(Value x, Value y) { return arith::MinUIOp::create(b, loc, x, y); }
  Value less(Value x, Value y) {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, x, y);
  }
  Value fadd(Value x, Value y) { return arith::AddFOp::create(b, loc, x, y); }
  Value fsub(Value x, Value y) { return arith::SubFOp::create(b, loc, x, y); }
  Value fmul(Value x, Value y) { return arith::MulFOp::create(b, loc, x, y); }
  Value fdiv(Value x, Value y) { return arith::DivFOp::create(b, loc, x, y); }
  Value exp(Value x) { return math::ExpOp::create(b, loc, x); }
  Value fcmp(arith::CmpFPredicate predicate, Value x, Value y) {
    return arith::CmpFOp::create(b, loc, predicate, x, y);
  }
  Value select(Value c, Value x, Value y) {
    return arith::SelectOp::create(b, loc, c, x, y);
  }
  Value load(Value memref, ValueRange indices) {
    return memref::LoadOp::create(b, loc, memref, indices);
  }
  void store(Value value, Value memref, ValueRange indices) {
    memref::StoreOp::create(b, loc, value, memref, indices);
  }
  void barrier() { gpu::BarrierOp::create(b, loc); }

  /// A shared f32 buffer of `size` elements.
  Value shared(int64_t size) {
    auto space = gpu::AddressSpaceAttr::get(b.getContext(),
                                            gpu::AddressSpace::Workgroup);
    return func.addWorkgroupAttribution(
        MemRefType::get({size}, b.getF32Type(), MemRefLayoutAttrInterface(),
                        space),
        loc);
  }

  /// for (iv = from; iv < to; iv += by) with loop-carried `inits`; `body`
  /// returns the next values. Returns the final ones.
  SmallVector<Value>
  loop(Value from, Value to, Value by, ValueRange inits,
       const std::function<SmallVector<Value>(Value, ValueRange)> &body) {
    auto op = scf::ForOp::create(b, loc, from, to, by, inits);
    OpBuilder::InsertionGuard guard(b);
    // A loop without results comes with its yield.
    Block *body0 = op.getBody();
    bool terminated =
        !body0->empty() && body0->back().hasTrait<OpTrait::IsTerminator>();
    if (terminated)
      b.setInsertionPoint(body0->getTerminator());
    else
      b.setInsertionPointToStart(body0);
    SmallVector<Value> next =
        body(op.getInductionVar(), op.getRegionIterArgs());
    if (!terminated)
      scf::YieldOp::create(b, loc, next);
    return SmallVector<Value>(op.getResults());
  }
  /// Each unit of work (a batch and tile) in turn, grid-striding.
  void forEachUnit(int64_t units, const std::function<void(Value)> &body) {
    loop(block, index(units), grid, {}, [&](Value unit, ValueRange) {
      body(unit);
      return SmallVector<Value>();
    });
  }
  /// This thread's rows of a tile of `tile` (one on the GPU, where a block
  /// has `tile` threads; all of them in the emulator's blocks of one).
  void forEachOwnRow(int64_t tile, const std::function<void(Value)> &body) {
    loop(thread, index(tile), blockDim, {}, [&](Value row, ValueRange) {
      body(row);
      return SmallVector<Value>();
    });
  }
  /// The block's threads share `count` items.
  void forEachShared(int64_t count, const std::function<void(Value)> &body) {
    loop(thread, index(count), blockDim, {}, [&](Value item, ValueRange) {
      body(item);
      return SmallVector<Value>();
    });
  }

  /// Each row a thread owns: the unit loop over `n` batches of tiles of
  /// `tile` rows (of `rows`), then this thread's rows of the tile. `body`
  /// gets the batch, the tile's first row, the row within the tile, the
  /// row's index and that index clamped to the last row (safe to read).
  void forEachTileRow(
      int64_t n, int64_t tile, int64_t rows,
      const std::function<void(Value, Value, Value, Value, Value)> &body) {
    int64_t tiles = (rows + tile - 1) / tile;
    forEachUnit(n * tiles, [&](Value unit) {
      Value batch = div(unit, index(tiles));
      Value first = mul(rem(unit, index(tiles)), index(tile));
      forEachOwnRow(tile, [&](Value row) {
        Value at = add(first, row);
        body(batch, first, row, at, min(at, index(rows - 1)));
      });
    });
  }
  /// `buffer`[n, row, :] into shared `to` at `to[base + e]`, e < width.
  void copyRow(Value buffer, Value n, Value row, int64_t width, Value to,
               Value base) {
    loop(index(0), index(width), index(1), {}, [&](Value e, ValueRange) {
      store(load(buffer, {n, row, e}), to, {add(base, e)});
      return SmallVector<Value>();
    });
  }
  /// Rows [first, first + tile) of `buffer`[n] (clamped to `rows`) into
  /// shared `to`, unpadded, the block's threads sharing the elements.
  void copyTile(Value buffer, Value n, Value first, int64_t tile, int64_t rows,
                int64_t width, Value to) {
    forEachShared(tile * width, [&](Value item) {
      Value row = min(add(first, div(item, index(width))), index(rows - 1));
      store(load(buffer, {n, row, rem(item, index(width))}), to, {item});
    });
  }
  /// sum_e a[aBase + e] * b[bBase + e] over e < width.
  Value dot(Value a, Value aBase, Value b2, Value bBase, int64_t width) {
    return loop(index(0), index(width), index(1), {constant(0.0)},
                [&](Value e, ValueRange acc) {
                  Value x = load(a, {add(aBase, e)});
                  Value y = load(b2, {add(bBase, e)});
                  return SmallVector<Value>{fadd(acc[0], fmul(x, y))};
                })[0];
  }
  /// acc[c] + scale * buffer[base + c], for each c.
  SmallVector<Value> axpy(ValueRange acc, Value scale, Value buffer,
                          Value base) {
    SmallVector<Value> next;
    for (auto [c, x] : llvm::enumerate(acc))
      next.push_back(fadd(x, fmul(scale, load(buffer, {add(base, index(c))}))));
    return next;
  }
  /// Rows of the tile starting at tile * `tile` that exist (of `total`).
  Value tileRows(Value tileIndex, int64_t tile, int64_t total) {
    return min(index(tile), add(index(total), mul(tileIndex, index(-tile))));
  }
  /// `body` where `condition` holds (a row that exists).
  void when(Value condition, const std::function<void()> &body) {
    auto op = scf::IfOp::create(b, loc, condition, /*withElseRegion=*/false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(op.thenBlock());
    body();
  }
  /// The tile of keys and values from `firstKey` into shared `keys` and
  /// `values`, between barriers (the previous tile's readers done first).
  void loadKeyTile(Value k, Value v, Value n, Value firstKey, int64_t tile,
                   const Sizes &z, Value keys, Value values) {
    barrier();
    copyTile(k, n, firstKey, tile, z.tk, z.d, keys);
    copyTile(v, n, firstKey, tile, z.tk, z.dv, values);
    barrier();
  }
  /// sum_e x[n, row, e] * y[n, row, e] over e < width (rowsum(do * o)).
  Value rowDot(Value x, Value y, Value n, Value row, int64_t width) {
    return loop(
        index(0), index(width), index(1), {constant(0.0)},
        [&](Value e, ValueRange acc) {
          return SmallVector<Value>{
              fadd(acc[0], fmul(load(x, {n, row, e}), load(y, {n, row, e})))};
        })[0];
  }

  /// The score `s` of query `i` and key `j` of batch `n` rewritten by the
  /// steps, and its derivative factor (docs/Dialect.md's kiln.attention).
  std::pair<Value, Value> rewrite(Value s, Value n, Value i, Value j) {
    Value t = constant(1.0), zero = constant(0.0);
    auto operand = [&](int64_t index) -> Value {
      if (index < 0)
        return zero;
      Value x = scoreOperands[index];
      ArrayRef<int64_t> shape = cast<MemRefType>(x.getType()).getShape();
      Value at0 = this->index(0);
      return load(x, {shape[0] == 1 ? at0 : n, shape[1] == 1 ? at0 : i,
                      shape[2] == 1 ? at0 : j});
    };
    for (const AttentionScoreRewrite &step : rewrites) {
      Value x = operand(step.a);
      switch (step.kind) {
      case AttentionScoreStep::Mul:
        s = fmul(s, x);
        t = fmul(t, x);
        break;
      case AttentionScoreStep::Div:
        s = fdiv(s, x);
        t = fdiv(t, x);
        break;
      case AttentionScoreStep::Add:
        s = fadd(s, x);
        break;
      case AttentionScoreStep::Sub:
        s = fsub(s, x);
        break;
      case AttentionScoreStep::SubFrom:
        s = fsub(x, s);
        t = fsub(zero, t);
        break;
      case AttentionScoreStep::Neg:
        s = fsub(zero, s);
        t = fsub(zero, t);
        break;
      case AttentionScoreStep::Keep:
      case AttentionScoreStep::Fill: {
        // Keep: the score where x != 0, else y; Fill: y where x != 0 (NaN
        // counts as nonzero, as in C).
        Value replace = step.kind == AttentionScoreStep::Keep
                            ? fcmp(arith::CmpFPredicate::OEQ, x, zero)
                            : fcmp(arith::CmpFPredicate::UNE, x, zero);
        s = select(replace, operand(step.b), s);
        t = select(replace, zero, t);
        break;
      }
      }
    }
    return {s, t};
  }

  OpBuilder &b;
  gpu::GPUFuncOp func;
  Location loc;
  SmallVector<AttentionScoreRewrite> rewrites;
  /// Copied: shared buffers (workgroup attributions) are block arguments
  /// too, and adding them may move the entry block's argument list.
  SmallVector<Value> scoreOperands;
  Value thread, blockDim, block, grid;
};

/// The forward: o, m, l from q, k, v (arguments 0-2), the score operands,
/// and the outputs (the last three arguments).
void emitForward(Emitter &e, const Sizes &z, int64_t tile, ValueRange args) {
  Value q = args[0], k = args[1], v = args[2];
  Value o = args[args.size() - 3], mOut = args[args.size() - 2],
        lOut = args.back();
  int64_t qStride = z.d + 1, keyTiles = (z.tk + tile - 1) / tile;
  Value ownQ = e.shared(tile * qStride);
  Value keys = e.shared(tile * z.d), values = e.shared(tile * z.dv);
  double inf = std::numeric_limits<double>::infinity();
  e.forEachTileRow(
      z.n, tile, z.tq, [&](Value n, Value, Value row, Value i, Value iv) {
        Value rowBase = e.mul(row, e.index(qStride));
        e.copyRow(q, n, iv, z.d, ownQ, rowBase);
        SmallVector<Value> inits{e.constant(-inf), e.constant(0.0)};
        inits.append(z.dv, e.constant(0.0));
        SmallVector<Value> state = e.loop(
            e.index(0), e.index(keyTiles), e.index(1), inits,
            [&](Value keyTile, ValueRange carried) {
              Value firstKey = e.mul(keyTile, e.index(tile));
              e.loadKeyTile(k, v, n, firstKey, tile, z, keys, values);
              Value count = e.tileRows(keyTile, tile, z.tk);
              return e.loop(
                  e.index(0), count, e.index(1), carried,
                  [&](Value jj, ValueRange st) {
                    Value j = e.add(firstKey, jj);
                    Value s = e.dot(ownQ, rowBase, keys,
                                    e.mul(jj, e.index(z.d)), z.d);
                    s = e.rewrite(s, n, iv, j).first;
                    Value m = st[0];
                    Value mNew = arith::MaximumFOp::create(e.b, e.loc, m, s);
                    // Rescale only when the maximum moved (NaN included).
                    Value grew = e.fcmp(arith::CmpFPredicate::UNE, mNew, m);
                    SmallVector<Type> types(st.size() - 1, e.b.getF32Type());
                    auto rescale = scf::IfOp::create(e.b, e.loc, types, grew,
                                                     /*withElseRegion=*/true);
                    {
                      OpBuilder::InsertionGuard guard(e.b);
                      e.b.setInsertionPointToStart(rescale.thenBlock());
                      Value scale = e.exp(e.fsub(m, mNew));
                      SmallVector<Value> scaled;
                      for (Value x : st.drop_front())
                        scaled.push_back(e.fmul(x, scale));
                      scf::YieldOp::create(e.b, e.loc, scaled);
                      e.b.setInsertionPointToStart(rescale.elseBlock());
                      scf::YieldOp::create(e.b, e.loc, st.drop_front());
                    }
                    // Every score so far -inf: no weight yet.
                    Value p = e.select(e.fcmp(arith::CmpFPredicate::OEQ, mNew,
                                              e.constant(-inf)),
                                       e.constant(0.0), e.exp(e.fsub(s, mNew)));
                    SmallVector<Value> next{mNew,
                                            e.fadd(rescale.getResult(0), p)};
                    next.append(e.axpy(rescale.getResults().drop_front(), p,
                                       values, e.mul(jj, e.index(z.dv))));
                    return next;
                  });
            });
        e.when(e.less(i, e.index(z.tq)), [&] {
          Value m = state[0], l = state[1];
          for (int64_t c = 0; c < z.dv; ++c)
            e.store(e.fdiv(state[2 + c], l), o, {n, i, e.index(c)});
          e.store(m, mOut, {n, i});
          // As the definition: every score -inf sums exp(-inf - -inf) = NaN.
          Value none = e.fcmp(arith::CmpFPredicate::OEQ, m, e.constant(-inf));
          e.store(e.select(none, e.constant(std::nan("")), l), lOut, {n, i});
        });
      });
}

/// The arguments of the gradient's kernels: q, k, v, o, m, l, do, the
/// score operands, dq, dk, dv.
struct GradArgs {
  Value q, k, v, o, m, l, dout, dq, dk, dv;
  explicit GradArgs(ValueRange args)
      : q(args[0]), k(args[1]), v(args[2]), o(args[3]), m(args[4]), l(args[5]),
        dout(args[6]), dq(args[args.size() - 3]), dk(args[args.size() - 2]),
        dv(args.back()) {}
};

/// dq: a thread per query row over the key tiles.
void emitQueryGrad(Emitter &e, const Sizes &z, int64_t tile, ValueRange args) {
  GradArgs a(args);
  int64_t qStride = z.d + 1, doStride = z.dv + 1,
          keyTiles = (z.tk + tile - 1) / tile;
  Value ownQ = e.shared(tile * qStride), ownDo = e.shared(tile * doStride);
  Value keys = e.shared(tile * z.d), values = e.shared(tile * z.dv);
  e.forEachTileRow(
      z.n, tile, z.tq, [&](Value n, Value, Value row, Value i, Value iv) {
        Value qBase = e.mul(row, e.index(qStride));
        Value doBase = e.mul(row, e.index(doStride));
        e.copyRow(a.q, n, iv, z.d, ownQ, qBase);
        e.copyRow(a.dout, n, iv, z.dv, ownDo, doBase);
        Value rowDot = e.rowDot(a.dout, a.o, n, iv, z.dv);
        Value m = e.load(a.m, {n, iv}), l = e.load(a.l, {n, iv});
        SmallVector<Value> inits(z.d, e.constant(0.0));
        SmallVector<Value> dq = e.loop(
            e.index(0), e.index(keyTiles), e.index(1), inits,
            [&](Value keyTile, ValueRange carried) {
              Value firstKey = e.mul(keyTile, e.index(tile));
              e.loadKeyTile(a.k, a.v, n, firstKey, tile, z, keys, values);
              Value count = e.tileRows(keyTile, tile, z.tk);
              return e.loop(
                  e.index(0), count, e.index(1), carried,
                  [&](Value jj, ValueRange acc) {
                    Value j = e.add(firstKey, jj);
                    Value keyBase = e.mul(jj, e.index(z.d));
                    // dp first: the key's elements that the score loads
                    // are read again by the update right after, not
                    // held across another dot product.
                    Value dp = e.dot(ownDo, doBase, values,
                                     e.mul(jj, e.index(z.dv)), z.dv);
                    auto [s, t] = e.rewrite(
                        e.dot(ownQ, qBase, keys, keyBase, z.d), n, iv, j);
                    Value p = e.fdiv(e.exp(e.fsub(s, m)), l);
                    Value ds = e.fmul(e.fmul(p, e.fsub(dp, rowDot)), t);
                    return e.axpy(acc, ds, keys, keyBase);
                  });
            });
        e.when(e.less(i, e.index(z.tq)), [&] {
          for (int64_t c = 0; c < z.d; ++c)
            e.store(dq[c], a.dq, {n, i, e.index(c)});
        });
      });
}

/// dk (`values` false: dv) : a thread per key row over the query tiles.
void emitKeyGrad(Emitter &e, const Sizes &z, int64_t tile, ValueRange args,
                 bool keyGrad) {
  GradArgs a(args);
  int64_t kStride = z.d + 1, vStride = z.dv + 1,
          queryTiles = (z.tq + tile - 1) / tile;
  Value ownK = e.shared(tile * kStride);
  Value ownV = keyGrad ? e.shared(tile * vStride) : Value();
  Value queries = e.shared(tile * z.d), grads = e.shared(tile * z.dv);
  Value maxima = e.shared(tile), sums = e.shared(tile);
  Value dots = keyGrad ? e.shared(tile) : Value();
  int64_t width = keyGrad ? z.d : z.dv;
  e.forEachTileRow(
      z.n, tile, z.tk, [&](Value n, Value, Value row, Value j, Value jv) {
        Value kBase = e.mul(row, e.index(kStride));
        Value vBase = e.mul(row, e.index(vStride));
        e.copyRow(a.k, n, jv, z.d, ownK, kBase);
        if (keyGrad)
          e.copyRow(a.v, n, jv, z.dv, ownV, vBase);
        SmallVector<Value> inits(width, e.constant(0.0));
        SmallVector<Value> grad = e.loop(
            e.index(0), e.index(queryTiles), e.index(1), inits,
            [&](Value queryTile, ValueRange carried) {
              Value firstQuery = e.mul(queryTile, e.index(tile));
              e.barrier();
              e.copyTile(a.q, n, firstQuery, tile, z.tq, z.d, queries);
              e.copyTile(a.dout, n, firstQuery, tile, z.tq, z.dv, grads);
              e.forEachShared(tile, [&](Value ii) {
                Value qi = e.min(e.add(firstQuery, ii), e.index(z.tq - 1));
                e.store(e.load(a.m, {n, qi}), maxima, {ii});
                e.store(e.load(a.l, {n, qi}), sums, {ii});
                if (keyGrad)
                  e.store(e.rowDot(a.dout, a.o, n, qi, z.dv), dots, {ii});
              });
              e.barrier();
              Value count = e.tileRows(queryTile, tile, z.tq);
              return e.loop(
                  e.index(0), count, e.index(1), carried,
                  [&](Value ii, ValueRange acc) {
                    Value qi = e.add(firstQuery, ii);
                    Value queryBase = e.mul(ii, e.index(z.d));
                    Value gradBase = e.mul(ii, e.index(z.dv));
                    // dp first, as in dq.
                    Value dp = keyGrad
                                   ? e.dot(grads, gradBase, ownV, vBase, z.dv)
                                   : Value();
                    auto [s, t] = e.rewrite(
                        e.dot(queries, queryBase, ownK, kBase, z.d), n, qi, jv);
                    Value p = e.fdiv(e.exp(e.fsub(s, e.load(maxima, {ii}))),
                                     e.load(sums, {ii}));
                    if (!keyGrad)
                      return e.axpy(acc, p, grads, gradBase);
                    Value ds =
                        e.fmul(e.fmul(p, e.fsub(dp, e.load(dots, {ii}))), t);
                    return e.axpy(acc, ds, queries, queryBase);
                  });
            });
        e.when(e.less(j, e.index(z.tk)), [&] {
          for (int64_t c = 0; c < width; ++c)
            e.store(grad[c], keyGrad ? a.dk : a.dv, {n, j, e.index(c)});
        });
      });
}

struct KilnAttentionToGpuPass
    : kiln::impl::KilnAttentionToGpuBase<KilnAttentionToGpuPass> {
  void runOnOperation() override;

private:
  /// A kernel named `name` taking `call`'s operands, built by `body`
  /// (given the emitter and the kernel's arguments), launched at `call`
  /// with `units` blocks of `tile` threads.
  void launch(func::CallOp call, gpu::GPUModuleOp gpuModule, StringRef name,
              int64_t units, int64_t tile, ArrayRef<int64_t> steps,
              unsigned firstScore, unsigned numScores,
              const std::function<void(Emitter &, ValueRange)> &body);
};

} // namespace

void KilnAttentionToGpuPass::launch(
    func::CallOp call, gpu::GPUModuleOp gpuModule, StringRef name,
    int64_t units, int64_t tile, ArrayRef<int64_t> steps, unsigned firstScore,
    unsigned numScores,
    const std::function<void(Emitter &, ValueRange)> &body) {
  OpBuilder b(gpuModule.getBodyRegion());
  b.setInsertionPointToEnd(gpuModule.getBody());
  Location loc = call.getLoc();
  auto func = gpu::GPUFuncOp::create(
      b, loc, name, b.getFunctionType(call.getOperandTypes(), TypeRange()));
  func->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), b.getUnitAttr());
  func.setKnownBlockSizeAttr(
      b.getDenseI32ArrayAttr({static_cast<int32_t>(tile), 1, 1}));
  b.setInsertionPointToEnd(&func.getBody().front());
  // A copy: the shared buffers the body adds are arguments of the block.
  SmallVector<Value> args(func.getArguments());
  Emitter emitter(b, func, steps,
                  ArrayRef<Value>(args).slice(firstScore, numScores));
  body(emitter, args);
  gpu::ReturnOp::create(b, loc);

  OpBuilder at(call);
  Value blocks = arith::ConstantIndexOp::create(at, loc, units);
  Value threads = arith::ConstantIndexOp::create(at, loc, tile);
  Value one = arith::ConstantIndexOp::create(at, loc, 1);
  gpu::LaunchFuncOp::create(at, loc, func, gpu::KernelDim3{blocks, one, one},
                            gpu::KernelDim3{threads, one, one},
                            /*dynamicSharedMemorySize=*/Value(),
                            call.getArgOperands());
}

void KilnAttentionToGpuPass::runOnOperation() {
  ModuleOp module = getOperation();
  SmallVector<func::CallOp> calls;
  // kiln_gpu_attention_f32, kiln_gpu_attention_f32_0, ...: one per call.
  auto kindOf = [](StringRef callee) -> std::optional<bool> {
    for (auto [name, forward] :
         {std::pair(kForwardName, true), std::pair(kGradName, false)})
      if (callee == name ||
          (callee.consume_front(name) && callee.consume_front("_") &&
           !callee.empty() && llvm::all_of(callee, llvm::isDigit)))
        return forward;
    return std::nullopt;
  };
  SmallVector<func::FuncOp> callees;
  for (auto callee : module.getOps<func::FuncOp>())
    if (callee.isDeclaration() && kindOf(callee.getSymName()))
      callees.push_back(callee);
  module.walk([&](func::CallOp call) {
    if (kindOf(call.getCallee()))
      calls.push_back(call);
  });
  if (calls.empty())
    return;
  OpBuilder b(module.getBodyRegion());
  auto gpuModule = module.lookupSymbol<gpu::GPUModuleOp>(kGpuModuleName);
  if (!gpuModule) {
    b.setInsertionPointToEnd(module.getBody());
    gpuModule = gpu::GPUModuleOp::create(b, module.getLoc(), kGpuModuleName);
    module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                    b.getUnitAttr());
  }
  int64_t launches = 0;
  for (size_t index = 0; index < calls.size(); ++index) {
    func::CallOp call = calls[index];
    bool forward = *kindOf(call.getCallee());
    auto steps = call->getAttrOfType<DenseI64ArrayAttr>("kiln.score_steps");
    unsigned fixed = forward ? 3 + 3 : 7 + 3;
    if (!steps || call.getNumOperands() < fixed) {
      call.emitError("an attention call needs its operands and "
                     "kiln.score_steps");
      return signalPassFailure();
    }
    unsigned firstScore = forward ? 3 : 7;
    unsigned numScores = call.getNumOperands() - fixed;
    auto shapeOf = [&](unsigned operand) {
      return cast<MemRefType>(call.getOperand(operand).getType()).getShape();
    };
    Sizes z{shapeOf(0)[0], shapeOf(0)[1], shapeOf(1)[1], shapeOf(0)[2],
            shapeOf(2)[2]};
    if (!decodeAttentionScoreSteps(steps.asArrayRef(), numScores) || z.n <= 0 ||
        z.tq <= 0 || z.tk <= 0 || z.d <= 0 || z.dv <= 0) {
      call.emitError("malformed attention call");
      return signalPassFailure();
    }
    std::string prefix = "kiln_attention_" + std::to_string(index);
    if (forward) {
      int64_t tile = chooseTile(2 * z.d + 1 + z.dv);
      if (!tile) {
        call.emitError("attention head dims too large for the GPU kernels");
        return signalPassFailure();
      }
      launch(
          call, gpuModule, prefix + "_fwd", z.n * ((z.tq + tile - 1) / tile),
          tile, steps.asArrayRef(), firstScore, numScores,
          [&](Emitter &e, ValueRange args) { emitForward(e, z, tile, args); });
      launches += 1;
    } else {
      // dq's tiles have at most 16 rows: at 32, sm_80's register
      // allocation spills at head dim 64 (ptxas.test checks every kernel).
      int64_t queryTile =
          std::min<int64_t>(16, chooseTile(2 * z.d + 2 * z.dv + 2));
      int64_t keyTile = chooseTile(2 * z.d + 2 * z.dv + 5);
      int64_t valueTile = chooseTile(2 * z.d + 1 + z.dv + 2);
      if (!queryTile || !keyTile || !valueTile) {
        call.emitError("attention head dims too large for the GPU kernels");
        return signalPassFailure();
      }
      launch(call, gpuModule, prefix + "_dq",
             z.n * ((z.tq + queryTile - 1) / queryTile), queryTile,
             steps.asArrayRef(), firstScore, numScores,
             [&](Emitter &e, ValueRange args) {
               emitQueryGrad(e, z, queryTile, args);
             });
      launch(call, gpuModule, prefix + "_dk",
             z.n * ((z.tk + keyTile - 1) / keyTile), keyTile,
             steps.asArrayRef(), firstScore, numScores,
             [&](Emitter &e, ValueRange args) {
               emitKeyGrad(e, z, keyTile, args, /*keyGrad=*/true);
             });
      launch(call, gpuModule, prefix + "_dv",
             z.n * ((z.tk + valueTile - 1) / valueTile), valueTile,
             steps.asArrayRef(), firstScore, numScores,
             [&](Emitter &e, ValueRange args) {
               emitKeyGrad(e, z, valueTile, args, /*keyGrad=*/false);
             });
      launches += 3;
    }
    call.erase();
  }
  for (func::FuncOp callee : callees)
    if (SymbolTable::symbolKnownUseEmpty(callee, module))
      callee.erase();
  auto launchesName = KilnDialect::KernelLaunchesAttrHelper::getNameStr();
  if (auto counted = module->getAttrOfType<IntegerAttr>(launchesName))
    module->setAttr(launchesName,
                    b.getI64IntegerAttr(counted.getInt() + launches));
}
