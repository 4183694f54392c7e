#!/usr/bin/env python3
"""Compile time of an unrolled LSTM, forward and backward (the fuser seed's
2018 kernel cache discussion: PyTorch needed 2.3 s and 7 kernels).

The program: T steps of gates = x_t Wx^T + h Wh^T + b; the LSTM cell;
loss = sum(h_T); gradients of the loss w.r.t. every input and weight by one
kiln.vjp. Reports kiln-run's compile time, fusion groups (instances),
unique kernels (compiled), launches, the run time, and how often each
kernel is launched (kernels_by_launches: the per-step forward and backward
cell kernels first).

Usage: bench/compile_lstm/run.py [T] [B] [I] [H] [--build DIR]
Prints one JSON line.
"""
import argparse
import json
import re
import os
import subprocess
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))


def source(steps, b, i, h):
    t = lambda *s: "tensor<" + "x".join(map(str, s)) + "xf32>"
    xs = ", ".join(f"%x{k}: {t(b, i)}" for k in range(steps))
    xn = ", ".join(f"%x{k}" for k in range(steps))
    xt = ", ".join(t(b, i) for _ in range(steps))
    params = f"%wx: {t(4 * h, i)}, %wh: {t(4 * h, h)}, %bias: {t(4 * h)}, %h0: {t(b, h)}, %c0: {t(b, h)}"
    pnames = "%wx, %wh, %bias, %h0, %c0"
    ptypes = f"{t(4 * h, i)}, {t(4 * h, h)}, {t(4 * h)}, {t(b, h)}, {t(b, h)}"
    lines = [f"func.func private @net({xs}, {params}) -> {t(b)} {{"]
    lines.append(f"  %bb = kiln.broadcast_in_dim %bias, dims = [1] : {t(4 * h)} -> {t(b, 4 * h)}")
    hprev, cprev = "%h0", "%c0"
    for k in range(steps):
        p = f"s{k}_"
        lines += [
            f"  %{p}xw = kiln.matmul %x{k}, %wx {{transpose_b = true}} : {t(b, i)}, {t(4 * h, i)} -> {t(b, 4 * h)}",
            f"  %{p}hw = kiln.matmul {hprev}, %wh {{transpose_b = true}} : {t(b, h)}, {t(4 * h, h)} -> {t(b, 4 * h)}",
            f"  %{p}s = kiln.add %{p}xw, %{p}hw : {t(b, 4 * h)}",
            f"  %{p}g = kiln.add %{p}s, %bb : {t(b, 4 * h)}",
        ]
        for j, name in enumerate("ifgo"):
            lines.append(f"  %{p}{name}0 = kiln.slice %{p}g, offsets = [0, {j * h}], sizes = [{b}, {h}] : {t(b, 4 * h)} -> {t(b, h)}")
        lines += [
            f"  %{p}i = kiln.sigmoid %{p}i0 : {t(b, h)}",
            f"  %{p}f = kiln.sigmoid %{p}f0 : {t(b, h)}",
            f"  %{p}gg = kiln.tanh %{p}g0 : {t(b, h)}",
            f"  %{p}o = kiln.sigmoid %{p}o0 : {t(b, h)}",
            f"  %{p}fc = kiln.mul %{p}f, {cprev} : {t(b, h)}",
            f"  %{p}ig = kiln.mul %{p}i, %{p}gg : {t(b, h)}",
            f"  %{p}c = kiln.add %{p}fc, %{p}ig : {t(b, h)}",
            f"  %{p}tc = kiln.tanh %{p}c : {t(b, h)}",
            f"  %{p}h = kiln.mul %{p}o, %{p}tc : {t(b, h)}",
        ]
        hprev, cprev = f"%{p}h", f"%{p}c"
    lines += [f"  %loss = kiln.reduce_sum {hprev}, dims = [1] : {t(b, h)} -> {t(b)}",
              f"  return %loss : {t(b)}", "}"]
    nargs = steps + 5
    wrt = ", ".join(str(k) for k in range(nargs))
    gtypes = f"{xt}, {ptypes}"
    lines.append(f"func.func @main({xs}, {params}) -> ({gtypes}) {{")
    lines.append(f"  %ones = kiln.constant dense<1.0> : {t(b)}")
    lines.append(f"  %g:{nargs} = kiln.vjp @net({xn}, {pnames}, %ones) wrt [{wrt}] : ({xt}, {ptypes}, {t(b)}) -> ({gtypes})")
    res = ", ".join(f"%g#{k}" for k in range(nargs))
    lines += [f"  return {res} : {gtypes}", "}"]
    return "\n".join(lines) + "\n"


def kernel_launch_counts(build, path):
    """How often each compiled kernel is launched, most launched first: the
    per-step cell kernels are launched about once per step, the kernels at
    the ends of the sequence and the weight-gradient sums once."""
    r = subprocess.run([os.path.join(build, "bin", "kiln-opt"), path,
                        "-kiln-cpu-pipeline=blas=true",
                        "-mlir-print-ir-after=kiln-outline-kernels",
                        "-o", os.devnull],
                       capture_output=True, text=True, check=True)
    ir = r.stderr.split("kiln-outline-kernels", 1)[-1]
    counts = {}
    for callee in re.findall(r"call @(kiln_kernel_\d+)\(", ir):
        counts[callee] = counts.get(callee, 0) + 1
    return sorted(counts.values(), reverse=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("steps", nargs="?", type=int, default=100)
    ap.add_argument("b", nargs="?", type=int, default=16)
    ap.add_argument("i", nargs="?", type=int, default=32)
    ap.add_argument("h", nargs="?", type=int, default=64)
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    args = ap.parse_args()
    out = {"bench": "compile_lstm", "steps": args.steps, "B": args.b,
           "I": args.i, "H": args.h}
    with tempfile.TemporaryDirectory(prefix="kiln-clstm-") as tmp:
        path = os.path.join(tmp, "lstm.mlir")
        with open(path, "w") as f:
            f.write(source(args.steps, args.b, args.i, args.h))
        # --no-cache: compile_ms is a compile, not a compile-cache load.
        def run(*flags):
            r = subprocess.run([os.path.join(args.build, "bin", "kiln-run"),
                                path, "--random-inputs", "1", "--repeat", "5",
                                "--report", "--no-cache", *flags],
                               capture_output=True, text=True, check=True)
            return json.loads(r.stdout.strip().splitlines()[-1])
        rep = run()
        for k in ("compile_ms", "compile_breakdown_ms", "run_ms", "fusion_groups",
                  "unique_kernels", "kernel_launches"):
            out[k] = rep[k]
        out["kernels_by_launches"] = kernel_launch_counts(args.build, path)
        nodedup = run("--kernel-dedup=false")
        out["no_dedup_compile_ms"] = nodedup["compile_ms"]
        out["no_dedup_unique_kernels"] = nodedup["unique_kernels"]
    out["pytorch_2018_compile_s"] = 2.3
    out["pytorch_2018_kernels"] = 7
    print(json.dumps(out))


if __name__ == "__main__":
    main()
