#!/usr/bin/env python3
"""How long -kiln-autodiff takes on a deep network: a vjp of a vjp (the
second derivative w.r.t. the input) of a DEPTH-layer tanh MLP.

Measures, in one run:
  autodiff_ms         -kiln-autodiff alone (kiln-opt's -mlir-timing)
  clean_ms            -canonicalize -cse -symbol-dce after it
  opt_total_ms        the whole kiln-opt process (parse, passes, print)
  compile_ms          kiln-run's compile_ms: autodiff, the full CPU
                      pipeline and LLVM's JIT code generation
The goal (issue 3): expand, canonicalize and compile in well under a
second at DEPTH=50. There is no peer for this figure; for scale, JAX's
jit of the same grad-of-grad is measured when the peers' python has JAX.

Usage: bench/autodiff_compile/run.py [DEPTH] [WIDTH] [BATCH] [--build DIR]
Prints one JSON line.
"""
import argparse
import json
import os
import re
import subprocess
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))


def source(depth, width, batch):
    t = lambda *s: "tensor<" + "x".join(map(str, s)) + "xf32>"
    ws = [f"%w{i}: {t(width, width)}" for i in range(depth)]
    wn = ", ".join(f"%w{i}" for i in range(depth))
    wt = ", ".join(t(width, width) for _ in range(depth))
    lines = [f"func.func private @mlp(%x: {t(batch, width)}, {', '.join(ws)}) -> {t(batch, width)} {{"]
    h = "%x"
    for i in range(depth):
        lines.append(f"  %z{i} = kiln.matmul {h}, %w{i} {{transpose_b = true}} : {t(batch, width)}, {t(width, width)} -> {t(batch, width)}")
        lines.append(f"  %h{i} = kiln.tanh %z{i} : {t(batch, width)}")
        h = f"%h{i}"
    lines += [f"  return {h} : {t(batch, width)}", "}"]
    lines.append(f"func.func private @grad(%x: {t(batch, width)}, {', '.join(ws)}, %ct: {t(batch, width)}) -> {t(batch, width)} {{")
    lines.append(f"  %g = kiln.vjp @mlp(%x, {wn}, %ct) wrt [0] : ({t(batch, width)}, {wt}, {t(batch, width)}) -> {t(batch, width)}")
    lines += [f"  return %g : {t(batch, width)}", "}"]
    lines.append(f"func.func @main(%x: {t(batch, width)}, {', '.join(ws)}, %ct: {t(batch, width)}, %v: {t(batch, width)}) -> {t(batch, width)} {{")
    lines.append(f"  %g = kiln.vjp @grad(%x, {wn}, %ct, %v) wrt [0] : ({t(batch, width)}, {wt}, {t(batch, width)}, {t(batch, width)}) -> {t(batch, width)}")
    lines += [f"  return %g : {t(batch, width)}", "}"]
    return "\n".join(lines) + "\n"


def timing_ms(report, name):
    # -mlir-timing lines: "   0.0123 (  1.2%)  Name" (wall column first).
    for line in report.splitlines():
        if line.strip().endswith(name):
            return float(line.split()[0]) * 1e3
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("depth", nargs="?", type=int, default=50)
    ap.add_argument("width", nargs="?", type=int, default=64)
    ap.add_argument("batch", nargs="?", type=int, default=32)
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    args = ap.parse_args()
    opt = os.path.join(args.build, "bin", "kiln-opt")
    run = os.path.join(args.build, "bin", "kiln-run")
    out = {"bench": "autodiff_compile", "depth": args.depth,
           "width": args.width, "batch": args.batch}
    with tempfile.TemporaryDirectory(prefix="kiln-adc-") as tmp:
        path = os.path.join(tmp, "mlp.mlir")
        with open(path, "w") as f:
            f.write(source(args.depth, args.width, args.batch))
        start = time.perf_counter()
        proc = subprocess.run([opt, path, "-kiln-autodiff", "-canonicalize",
                               "-cse", "-symbol-dce", "-mlir-timing",
                               "-o", os.path.join(tmp, "out.mlir")],
                              capture_output=True, text=True, check=True)
        out["opt_total_ms"] = (time.perf_counter() - start) * 1e3
        out["autodiff_ms"] = timing_ms(proc.stderr, "KilnAutodiff")
        out["clean_ms"] = sum(filter(None, (timing_ms(proc.stderr, n) for n in
                                             ("Canonicalizer", "CSE", "SymbolDCE"))))
        with open(os.path.join(tmp, "out.mlir")) as f:
            text = f.read()
        out["ops_after"] = len(re.findall(r"= kiln\.", text))
        out["matmuls_after"] = len(re.findall(r"kiln\.matmul", text))
        report = subprocess.run([run, path, "--random-inputs", "1", "--report", "--no-cache"],
                                capture_output=True, text=True, check=True)
        out["compile_ms"] = json.loads(report.stdout.strip().splitlines()[-1])["compile_ms"]
    print(json.dumps(out))


if __name__ == "__main__":
    main()
