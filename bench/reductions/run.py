#!/usr/bin/env python3
"""Reductions of elementwise expressions on the CPU (a loss, a norm, row
and column sums): kiln vs PyTorch eager and jax.jit, and optionally
against another kiln build (--baseline-build, e.g. one before a fusion
change), all in one run.

Programs (x, y: [rows, cols] f32, N(0, 1)):
  sq_error   sum((x - y)^2) over every element      (a loss)
  sum_exp    sum(exp(x)) over each row              ([rows])
  norm       sum(x * x) over every element          (a global norm)
  col_prod   sum(x * y) over the rows               ([cols]: a bias grad)

kiln's figure is kiln-run's median run time (--repeat, no compile cache),
with its kernel launches per run; the peers' the median of --repeat calls
after a warm-up (jax.jit compiled first, each result blocked on). floor_ms is the bytes read (the inputs
once) over stream.c's copy bandwidth. The machine's speed drifts, so the
tools take turns over --rounds rounds; each figure is the median over the
rounds.

Usage: bench/reductions/run.py [--rows 4096] [--cols 1024] [--build DIR]
           [--baseline-build DIR] [--repeat 20] [--rounds 3]
           [--peers-python PY] [--out FILE]
Prints one JSON line per program.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
from common import PEERS, ROOT, stream_copy_gbs, write_jsonl  # noqa: E402

PROGRAMS = ["sq_error", "sum_exp", "norm", "col_prod"]


def program(name, rows, cols):
    w = f"tensor<{rows}x{cols}xf32>"
    if name == "sq_error":
        return (f"func.func @main(%x: {w}, %y: {w}) -> tensor<f32> {{\n"
                f"  %d = kiln.sub %x, %y : {w}\n"
                f"  %s = kiln.mul %d, %d : {w}\n"
                f"  %r = kiln.reduce_sum %s, dims = [0, 1] : {w} -> tensor<f32>\n"
                f"  return %r : tensor<f32>\n}}\n")
    if name == "sum_exp":
        r = f"tensor<{rows}xf32>"
        return (f"func.func @main(%x: {w}) -> {r} {{\n"
                f"  %e = kiln.exp %x : {w}\n"
                f"  %r = kiln.reduce_sum %e, dims = [1] : {w} -> {r}\n"
                f"  return %r : {r}\n}}\n")
    if name == "norm":
        return (f"func.func @main(%x: {w}) -> tensor<f32> {{\n"
                f"  %s = kiln.mul %x, %x : {w}\n"
                f"  %r = kiln.reduce_sum %s, dims = [0, 1] : {w} -> tensor<f32>\n"
                f"  return %r : tensor<f32>\n}}\n")
    c = f"tensor<{cols}xf32>"
    return (f"func.func @main(%x: {w}, %y: {w}) -> {c} {{\n"
            f"  %p = kiln.mul %x, %y : {w}\n"
            f"  %r = kiln.reduce_sum %p, dims = [0] : {w} -> {c}\n"
            f"  return %r : {c}\n}}\n")


def inputs(name):
    return 1 if name in ("sum_exp", "norm") else 2


PEER_SCRIPT = r'''
import json, sys, time
import numpy as np
name, rows, cols, repeat, which = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
rng = np.random.default_rng(0)
x = rng.standard_normal((rows, cols), dtype=np.float32)
y = rng.standard_normal((rows, cols), dtype=np.float32)
if which == "torch":
    import torch
    torch.set_num_threads(torch.get_num_threads())
    tx, ty = torch.from_numpy(x), torch.from_numpy(y)
    fns = {"sq_error": lambda: ((tx - ty) ** 2).sum(),
           "sum_exp": lambda: torch.exp(tx).sum(dim=1),
           "norm": lambda: (tx * tx).sum(),
           "col_prod": lambda: (tx * ty).sum(dim=0)}
    f = fns[name]
    run = lambda: f()
else:
    import jax, jax.numpy as jnp
    jx, jy = jnp.asarray(x), jnp.asarray(y)
    fns = {"sq_error": lambda a, b: jnp.sum((a - b) ** 2),
           "sum_exp": lambda a, b: jnp.sum(jnp.exp(a), axis=1),
           "norm": lambda a, b: jnp.sum(a * a),
           "col_prod": lambda a, b: jnp.sum(a * b, axis=0)}
    f = jax.jit(fns[name])
    run = lambda: f(jx, jy).block_until_ready()
run()
times = []
for _ in range(repeat):
    t = time.perf_counter(); run(); times.append(time.perf_counter() - t)
times.sort()
print(json.dumps({"ms": 1e3 * times[len(times) // 2]}))
'''


def kiln_ms(build, path, n, repeat):
    out = subprocess.run(
        [os.path.join(build, "bin", "kiln-run"), path, "--entry", "main",
         "--random-inputs", "1", "--repeat", str(repeat), "--report",
         "--no-cache"], capture_output=True, text=True, check=True)
    report = json.loads(out.stdout.strip().splitlines()[-1])
    return report["run_ms"], report.get("kernel_launches")


def peer_ms(py, which, name, rows, cols, repeat):
    r = subprocess.run([py, "-c", PEER_SCRIPT, name, str(rows), str(cols),
                        str(repeat), which], capture_output=True, text=True)
    if r.returncode != 0:
        return None
    return json.loads(r.stdout.strip().splitlines()[-1])["ms"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rows", type=int, default=4096)
    ap.add_argument("--cols", type=int, default=1024)
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--baseline-build", default=None)
    ap.add_argument("--repeat", type=int, default=20)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--peers-python", default=None)
    ap.add_argument("--programs", default=",".join(PROGRAMS))
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    py = args.peers_python
    if py is None:
        py = subprocess.run(["bash", os.path.join(PEERS, "setup.sh")],
                            capture_output=True, text=True,
                            check=True).stdout.strip().splitlines()[-1]
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        gbs = stream_copy_gbs(tmp)
        for name in args.programs.split(","):
            path = os.path.join(tmp, name + ".mlir")
            with open(path, "w") as f:
                f.write(program(name, args.rows, args.cols))
            figures = {"kiln": [], "baseline": [], "torch": [], "jax": []}
            launches = {}
            for _ in range(args.rounds):
                ms, launches["kiln"] = kiln_ms(args.build, path, inputs(name),
                                               args.repeat)
                figures["kiln"].append(ms)
                if args.baseline_build:
                    ms, launches["baseline"] = kiln_ms(
                        args.baseline_build, path, inputs(name), args.repeat)
                    figures["baseline"].append(ms)
                for which in ("torch", "jax"):
                    ms = peer_ms(py, which, name, args.rows, args.cols,
                                 args.repeat)
                    if ms is not None:
                        figures[which].append(ms)
            row = {"bench": "reductions", "program": name,
                   "shape": [args.rows, args.cols]}
            for key, values in figures.items():
                if values:
                    row[f"{key}_ms"] = statistics.median(values)
            for key, count in launches.items():
                row[f"{key}_kernel_launches"] = count
            read = 4 * args.rows * args.cols * inputs(name)
            if gbs:
                row["floor_ms"] = read / (gbs * 1e9) * 1e3
            for peer in ("torch", "jax", "baseline"):
                if f"{peer}_ms" in row:
                    row[f"speedup_vs_{peer}"] = row[f"{peer}_ms"] / row["kiln_ms"]
            rows.append(row)
            print(json.dumps(row), flush=True)
    if args.out:
        write_jsonl(args.out, rows)


if __name__ == "__main__":
    main()
