#!/usr/bin/env python3
"""Writes one pre-LayerNorm GPT block as a kiln program (generic form).

    h  = LayerNorm1(x)
    q, k, v = split(h @ Wqkv + bqkv), each [B*H, T, D]
    p  = softmax(q k^T / sqrt(D) + mask)        (mask: [T, T], additive)
    x1 = x + (p v, heads joined) @ Wo + bo
    out = x1 + gelu_tanh(LayerNorm2(x1) @ W1 + b1) @ W2 + b2

x is [B*T, C]. Entries: @gpt_block(x, mask, params...) -> out, and with
--backward also @gpt_block_bwd(x, mask, params..., dout) -> (dx, dparams...)
through kiln.vjp. Usage:

    gpt_block.py B T C HEADS [--backward] [--gelu tanh|erf|written]
    gpt_block.py B T C HEADS --only-matmuls   (@gpt_matmuls: the forward's
                                              GEMMs alone, same shapes)
"""

import argparse
import math
import sys

PARAMS = [  # name, shape in terms of C
    ("ln1_g", lambda c: [c]),
    ("ln1_b", lambda c: [c]),
    ("w_qkv", lambda c: [c, 3 * c]),
    ("b_qkv", lambda c: [3 * c]),
    ("w_o", lambda c: [c, c]),
    ("b_o", lambda c: [c]),
    ("ln2_g", lambda c: [c]),
    ("ln2_b", lambda c: [c]),
    ("w_1", lambda c: [c, 4 * c]),
    ("b_1", lambda c: [4 * c]),
    ("w_2", lambda c: [4 * c, c]),
    ("b_2", lambda c: [c]),
]


def ttype(shape):
    return "tensor<" + "x".join(str(d) for d in shape) + "xf32>"


class Emitter:
    def __init__(self):
        self.lines = []
        self.count = 0

    def op(self, name, operands, result_shape, attrs=""):
        self.count += 1
        result = f"%v{self.count}"
        in_types = ", ".join(ttype(s) for _, s in operands)
        names = ", ".join(v for v, _ in operands)
        attr_text = f" <{{{attrs}}}>" if attrs else ""
        self.lines.append(
            f'  {result} = "kiln.{name}"({names}){attr_text} : '
            f"({in_types}) -> {ttype(result_shape)}"
        )
        return (result, result_shape)

    def const(self, value, shape):
        self.count += 1
        result = f"%v{self.count}"
        self.lines.append(
            f'  {result} = "kiln.constant"() <{{value = dense<{value:.9e}> : '
            f'{ttype(shape)}}}> : () -> {ttype(shape)}'
        )
        return (result, shape)

    def unary(self, name, a, attrs=""):
        return self.op(name, [a], a[1], attrs)

    def binary(self, name, a, b):
        assert a[1] == b[1], (name, a, b)
        return self.op(name, [a, b], a[1])

    def bcast(self, a, dims, shape):
        return self.op(
            "broadcast_in_dim", [a], shape,
            "dims = array<i64: " + ", ".join(map(str, dims)) + ">")

    def reduce(self, name, a, dims):
        shape = [d for i, d in enumerate(a[1]) if i not in dims]
        return self.op(name, [a], shape,
                       "dims = array<i64: " + ", ".join(map(str, dims)) + ">")

    def reshape(self, a, shape):
        return self.op("reshape", [a], shape)

    def transpose(self, a, perm):
        return self.op("transpose", [a], [a[1][p] for p in perm],
                       "perm = array<i64: " + ", ".join(map(str, perm)) + ">")

    def slice(self, a, offsets, sizes):
        return self.op(
            "slice", [a], sizes,
            "offsets = array<i64: " + ", ".join(map(str, offsets)) +
            ">, sizes = array<i64: " + ", ".join(map(str, sizes)) + ">")

    def matmul(self, a, b, transpose_b=False):
        if len(a[1]) == 2:
            m, k = a[1]
            n = b[1][0] if transpose_b else b[1][1]
            shape = [m, n]
        else:
            bt, m, k = a[1]
            n = b[1][1] if transpose_b else b[1][2]
            shape = [bt, m, n]
        attrs = "transpose_b = true" if transpose_b else ""
        return self.op("matmul", [a, b], shape, attrs)

    def layernorm(self, x, g, b):
        rows, c = x[1]
        mean = self.binary("mul", self.reduce("reduce_sum", x, [1]),
                           self.const(1.0 / c, [rows]))
        xc = self.binary("sub", x, self.bcast(mean, [0], x[1]))
        var = self.binary("mul",
                          self.reduce("reduce_sum",
                                      self.binary("mul", xc, xc), [1]),
                          self.const(1.0 / c, [rows]))
        rstd = self.unary("rsqrt",
                          self.binary("add", var, self.const(1e-5, [rows])))
        xhat = self.binary("mul", xc, self.bcast(rstd, [0], x[1]))
        return self.binary("add",
                           self.binary("mul", xhat, self.bcast(g, [1], x[1])),
                           self.bcast(b, [1], x[1]))

    def linear(self, x, w, b):
        y = self.matmul(x, w)
        return self.binary("add", y, self.bcast(b, [1], y[1]))

    def gelu(self, x, form):
        if form == "tanh":
            return self.unary("gelu", x, "approximate = true")
        if form == "erf":
            return self.unary("gelu", x)
        # The tanh form written out, as a frontend without kiln.gelu would.
        s = x[1]
        cube = self.binary("mul", self.binary("mul", x, x), x)
        inner = self.binary(
            "add", x, self.binary("mul", cube, self.const(0.044715, s)))
        t = self.unary("tanh", self.binary(
            "mul", inner, self.const(math.sqrt(2.0 / math.pi), s)))
        half_x = self.binary("mul", x, self.const(0.5, s))
        return self.binary("mul", half_x,
                           self.binary("add", t, self.const(1.0, s)))

    def softmax(self, a):
        last = len(a[1]) - 1
        keep = list(range(last))
        m = self.bcast(self.reduce("reduce_max", a, [last]), keep, a[1])
        e = self.unary("exp", self.binary("sub", a, m))
        s = self.bcast(self.reduce("reduce_sum", e, [last]), keep, a[1])
        return self.binary("div", e, s)


def block(batch, seq, channels, heads, gelu_form):
    if channels % heads:
        sys.exit("gpt_block.py: C must be a multiple of HEADS")
    em = Emitter()
    bt, c, d = batch * seq, channels, channels // heads
    x = ("%x", [bt, c])
    mask = ("%mask", [seq, seq])
    p = {name: ("%" + name, shape(c)) for name, shape in PARAMS}

    h = em.layernorm(x, p["ln1_g"], p["ln1_b"])
    qkv = em.linear(h, p["w_qkv"], p["b_qkv"])

    def heads_of(part):
        t = em.slice(qkv, [0, part * c], [bt, c])
        t = em.reshape(t, [batch, seq, heads, d])
        t = em.transpose(t, [0, 2, 1, 3])
        return em.reshape(t, [batch * heads, seq, d])

    q, k, v = heads_of(0), heads_of(1), heads_of(2)
    scores = em.matmul(q, k, transpose_b=True)
    scores = em.binary("mul", scores,
                       em.const(1.0 / math.sqrt(d), scores[1]))
    scores = em.binary("add", scores, em.bcast(mask, [1, 2], scores[1]))
    att = em.matmul(em.softmax(scores), v)
    att = em.reshape(att, [batch, heads, seq, d])
    att = em.transpose(att, [0, 2, 1, 3])
    att = em.reshape(att, [bt, c])
    x1 = em.binary("add", x, em.linear(att, p["w_o"], p["b_o"]))

    h2 = em.layernorm(x1, p["ln2_g"], p["ln2_b"])
    m = em.gelu(em.linear(h2, p["w_1"], p["b_1"]), gelu_form)
    out = em.binary("add", x1, em.linear(m, p["w_2"], p["b_2"]))
    args = [x, mask] + [p[name] for name, _ in PARAMS]
    return em.lines, args, out


def matmuls_only(batch, seq, channels, heads):
    """The forward's six GEMMs on arguments of their operands' shapes."""
    em = Emitter()
    bt, c, d = batch * seq, channels, channels // heads
    bh = batch * heads
    pairs = [([bt, c], [c, 3 * c], False), ([bh, seq, d], [bh, seq, d], True),
             ([bh, seq, seq], [bh, seq, d], False), ([bt, c], [c, c], False),
             ([bt, c], [c, 4 * c], False), ([bt, 4 * c], [4 * c, c], False)]
    args, results = [], []
    for i, (a, b, transpose_b) in enumerate(pairs):
        args += [(f"%a{i}", a), (f"%b{i}", b)]
        results.append(em.matmul(args[-2], args[-1], transpose_b))
    return em.lines, args, results


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("batch", type=int)
    parser.add_argument("seq", type=int)
    parser.add_argument("channels", type=int)
    parser.add_argument("heads", type=int)
    parser.add_argument("--backward", action="store_true")
    parser.add_argument("--gelu", choices=["tanh", "erf", "written"],
                        default="tanh")
    parser.add_argument("--only-matmuls", action="store_true")
    a = parser.parse_args()
    if a.only_matmuls:
        lines, args, results = matmuls_only(a.batch, a.seq, a.channels,
                                            a.heads)
        signature = ", ".join(f"{n}: {ttype(s)}" for n, s in args)
        types = ", ".join(ttype(s) for _, s in results)
        print(f"func.func @gpt_matmuls({signature}) -> ({types}) {{")
        print("\n".join(lines))
        print(f"  return {', '.join(n for n, _ in results)} : {types}")
        print("}")
        return
    lines, args, out = block(a.batch, a.seq, a.channels, a.heads, a.gelu)
    signature = ", ".join(f"{n}: {ttype(s)}" for n, s in args)
    print(f"// GPT block: B={a.batch} T={a.seq} C={a.channels} "
          f"heads={a.heads} gelu={a.gelu}")
    print(f"func.func @gpt_block({signature}) -> {ttype(out[1])} {{")
    print("\n".join(lines))
    print(f"  return {out[0]} : {ttype(out[1])}")
    print("}")
    if a.backward:
        types = [s for _, s in args]
        wrt = [0] + list(range(2, len(args)))  # x and every weight
        operands = ", ".join(n for n, _ in args) + ", %dout"
        in_types = ", ".join(ttype(s) for s in types + [out[1]])
        out_types = ", ".join(ttype(types[i]) for i in wrt)
        results = ", ".join(f"%g{i}" for i in wrt)
        print(f"func.func @gpt_block_bwd({signature}, %dout: "
              f"{ttype(out[1])}) -> ({out_types}) {{")
        print(f'  {results} = "kiln.vjp"({operands}) <{{callee = @gpt_block, '
              f'wrt = array<i64: {", ".join(map(str, wrt))}>}}> : '
              f"({in_types}) -> ({out_types})")
        print(f"  return {results} : {out_types}")
        print("}")


if __name__ == "__main__":
    main()
