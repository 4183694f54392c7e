#!/usr/bin/env python3
"""Writes a recurrent network unrolled over T steps as a kiln program.

    rnn.py CELL T [--no-bias] [--batch B] [--input I] [--hidden H]

CELL is lstm, gru or elman (PyTorch's equations; weights stacked per gate,
[I, G*H] and [H, G*H]). @forward(x, h0, [c0,] weights...) returns the last
hidden state; @backward(x, h0, [c0,] weights..., dh) returns the gradients
of every weight (kiln.vjp). x is [T*B, I], step t reading rows t*B.
"""
import argparse


def ttype(shape):
    return "tensor<" + "x".join(str(d) for d in shape) + "xf32>"


class Emitter:
    def __init__(self):
        self.lines, self.count = [], 0

    def op(self, name, operands, shape, attrs=""):
        self.count += 1
        result = f"%v{self.count}"
        attr_text = f" <{{{attrs}}}>" if attrs else ""
        self.lines.append(
            f'  {result} = "kiln.{name}"({", ".join(v for v, _ in operands)})'
            f'{attr_text} : ({", ".join(ttype(s) for _, s in operands)}) -> '
            f"{ttype(shape)}")
        return (result, shape)

    def binary(self, name, a, b):
        return self.op(name, [a, b], a[1])

    def unary(self, name, a):
        return self.op(name, [a], a[1])

    def slice(self, a, offsets, sizes):
        return self.op("slice", [a], sizes,
                       f"offsets = array<i64: {', '.join(map(str, offsets))}>, "
                       f"sizes = array<i64: {', '.join(map(str, sizes))}>")

    def matmul(self, a, b):
        return self.op("matmul", [a, b], [a[1][0], b[1][1]])

    def bias(self, v, b):
        return self.binary("add", v, self.op("broadcast_in_dim", [b], v[1],
                                             "dims = array<i64: 1>"))

    def one(self, shape):
        self.count += 1
        result = f"%v{self.count}"
        self.lines.append(
            f'  {result} = "kiln.constant"() <{{value = dense<1.0> : '
            f"{ttype(shape)}}}> : () -> {ttype(shape)}")
        return (result, shape)


GATES = {"lstm": 4, "gru": 3, "elman": 1}


def cell(em, kind, x, h, c, w, bias, hidden):
    batch = x[1][0]
    part = lambda v, k: em.slice(v, [0, k * hidden], [batch, hidden])
    if kind == "elman":
        pre = em.binary("add", em.matmul(x, w["wx"]), em.matmul(h, w["wh"]))
        if bias:
            pre = em.bias(pre, w["b"])
        return em.unary("tanh", pre), None
    if kind == "lstm":
        gates = em.binary("add", em.matmul(x, w["wx"]), em.matmul(h, w["wh"]))
        if bias:
            gates = em.bias(gates, w["b"])
        i, f, g, o = (part(gates, k) for k in range(4))
        c2 = em.binary("add",
                       em.binary("mul", em.unary("sigmoid", f), c),
                       em.binary("mul", em.unary("sigmoid", i),
                                 em.unary("tanh", g)))
        return em.binary("mul", em.unary("sigmoid", o),
                         em.unary("tanh", c2)), c2
    # GRU: r and z from the sum; n from x's part plus r times h's part.
    gx, gh = em.matmul(x, w["wx"]), em.matmul(h, w["wh"])
    if bias:
        gx, gh = em.bias(gx, w["bx"]), em.bias(gh, w["bh"])
    r = em.unary("sigmoid", em.binary("add", part(gx, 0), part(gh, 0)))
    z = em.unary("sigmoid", em.binary("add", part(gx, 1), part(gh, 1)))
    n = em.unary("tanh", em.binary("add", part(gx, 2),
                                   em.binary("mul", r, part(gh, 2))))
    one_minus_z = em.binary("sub", em.one(z[1]), z)
    return em.binary("add", em.binary("mul", one_minus_z, n),
                     em.binary("mul", z, h)), None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("kind", choices=sorted(GATES))
    ap.add_argument("steps", type=int)
    ap.add_argument("--no-bias", action="store_true")
    ap.add_argument("--batch", type=int, default=4)
    ap.add_argument("--input", type=int, default=6)
    ap.add_argument("--hidden", type=int, default=8)
    a = ap.parse_args()
    g, hid, bias = GATES[a.kind], a.hidden, not a.no_bias
    args = [("%x", [a.steps * a.batch, a.input]), ("%h0", [a.batch, hid])]
    if a.kind == "lstm":
        args.append(("%c0", [a.batch, hid]))
    weights = {"wx": [a.input, g * hid], "wh": [hid, g * hid]}
    if bias and a.kind == "gru":
        weights.update({"bx": [g * hid], "bh": [g * hid]})
    elif bias:
        weights["b"] = [g * hid]
    first_weight = len(args)
    args += [("%" + name, shape) for name, shape in weights.items()]
    w = {name: ("%" + name, shape) for name, shape in weights.items()}

    em = Emitter()
    h = args[1]
    c = args[2] if a.kind == "lstm" else None
    for t in range(a.steps):
        x = em.slice(args[0], [t * a.batch, 0], [a.batch, a.input])
        h, c = cell(em, a.kind, x, h, c, w, bias, hid)
    signature = ", ".join(f"{n}: {ttype(s)}" for n, s in args)
    print(f"// {a.kind}, {a.steps} steps, "
          f"{'with' if bias else 'without'} biases")
    print(f"func.func @forward({signature}) -> {ttype(h[1])} {{")
    print("\n".join(em.lines))
    print(f"  return {h[0]} : {ttype(h[1])}")
    print("}")
    wrt = list(range(first_weight, len(args)))
    grads = ", ".join(ttype(args[i][1]) for i in wrt)
    results = ", ".join(f"%g{i}" for i in wrt)
    print(f"func.func @backward({signature}, %dh: {ttype(h[1])}) -> "
          f"({grads}) {{")
    print(f'  {results} = "kiln.vjp"({", ".join(n for n, _ in args)}, %dh) '
          f"<{{callee = @forward, wrt = array<i64: "
          f"{', '.join(map(str, wrt))}>}}> : "
          f"({', '.join(ttype(s) for _, s in args)}, {ttype(h[1])}) -> "
          f"({grads})")
    print(f"  return {results} : {grads}")
    print("}")


if __name__ == "__main__":
    main()
