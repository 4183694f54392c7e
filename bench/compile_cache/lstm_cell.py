#!/usr/bin/env python3
"""Writes the LSTM cell (PyTorch word_language_model) as a kiln program,
forward (@lstm_cell) and forward + backward (@lstm_cell_grad: the new
states, and the gradients of every input through kiln.vjp), with a static
batch or, with --dynamic, a dynamic one (tensor<?x...>: one program for
every batch size; the bias broadcast takes the batch from tensor.dim).

    gates = x wx^T + h wh^T + b;  i, f, g, o = chunk(gates, 4, dim 1)
    c' = sigmoid(f) c + sigmoid(i) tanh(g);  h' = sigmoid(o) tanh(c')

Usage: lstm_cell.py BATCH INPUT HIDDEN [--dynamic] [--dtype f32|f64]
"""
import argparse


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("batch", type=int)
    ap.add_argument("input", type=int)
    ap.add_argument("hidden", type=int)
    ap.add_argument("--dynamic", action="store_true")
    ap.add_argument("--dtype", default="f32")
    a = ap.parse_args()
    t, n, i, h = a.dtype, "?" if a.dynamic else str(a.batch), a.input, a.hidden
    g = 4 * h
    x, hs, gates = f"tensor<{n}x{i}x{t}>", f"tensor<{n}x{h}x{t}>", \
        f"tensor<{n}x{g}x{t}>"
    wx, wh, b = f"tensor<{g}x{i}x{t}>", f"tensor<{g}x{h}x{t}>", \
        f"tensor<{g}x{t}>"
    whole = -1 if a.dynamic else a.batch
    lines = [f"func.func @lstm_cell(%x: {x}, %h: {hs}, %c: {hs}, "
             f"%wx: {wx}, %wh: {wh}, %b: {b}) -> ({hs}, {hs}) {{"]
    sizes = ""
    if a.dynamic:
        lines += ["  %c0 = arith.constant 0 : index",
                  f"  %n = tensor.dim %x, %c0 : {x}"]
        sizes = " sizes(%n)"
    lines += [
        f"  %xw = kiln.matmul %x, %wx {{transpose_b = true}} : {x}, {wx} -> "
        f"{gates}",
        f"  %hw = kiln.matmul %h, %wh {{transpose_b = true}} : {hs}, {wh} -> "
        f"{gates}",
        f"  %s = kiln.add %xw, %hw : {gates}",
        f"  %bb = kiln.broadcast_in_dim %b{sizes}, dims = [1] : {b} -> "
        f"{gates}",
        f"  %gates = kiln.add %s, %bb : {gates}"]
    for k, name in enumerate("ifgo"):
        lines.append(f"  %{name}0 = kiln.slice %gates, offsets = [0, {k * h}]"
                     f", sizes = [{whole}, {h}] : {gates} -> {hs}")
    lines += [
        f"  %i = kiln.sigmoid %i0 : {hs}",
        f"  %f = kiln.sigmoid %f0 : {hs}",
        f"  %g = kiln.tanh %g0 : {hs}",
        f"  %o = kiln.sigmoid %o0 : {hs}",
        f"  %fc = kiln.mul %f, %c : {hs}",
        f"  %ig = kiln.mul %i, %g : {hs}",
        f"  %c2 = kiln.add %fc, %ig : {hs}",
        f"  %tc = kiln.tanh %c2 : {hs}",
        f"  %h2 = kiln.mul %o, %tc : {hs}",
        f"  return %h2, %c2 : {hs}, {hs}",
        "}",
        f"func.func @lstm_cell_grad(%x: {x}, %h: {hs}, %c: {hs}, %wx: {wx}, "
        f"%wh: {wh}, %b: {b}, %ct_h: {hs}, %ct_c: {hs})",
        f"    -> ({hs}, {hs}, {x}, {hs}, {hs}, {wx}, {wh}, {b}) {{",
        f"  %y:2 = func.call @lstm_cell(%x, %h, %c, %wx, %wh, %b) : ({x}, "
        f"{hs}, {hs}, {wx}, {wh}, {b}) -> ({hs}, {hs})",
        f"  %d:6 = kiln.vjp @lstm_cell(%x, %h, %c, %wx, %wh, %b, %ct_h, %ct_c)"
        f" wrt [0, 1, 2, 3, 4, 5] : ({x}, {hs}, {hs}, {wx}, {wh}, {b}, {hs}, "
        f"{hs}) -> ({x}, {hs}, {hs}, {wx}, {wh}, {b})",
        f"  return %y#0, %y#1, %d#0, %d#1, %d#2, %d#3, %d#4, %d#5 : {hs}, "
        f"{hs}, {x}, {hs}, {hs}, {wx}, {wh}, {b}",
        "}"]
    print("\n".join(lines))


if __name__ == "__main__":
    main()
