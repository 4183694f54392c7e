#!/usr/bin/env python3
"""The autograd-trimming seed's Hessian benchmark on the CPU, kiln vs peers.

Workload: 6 hidden Linear+ACT layers (input 16, width W), batch N, a Linear
to one output; the second derivative of sum(y) w.r.t. x as a vjp of a vjp
with all-ones cotangents. kiln runs it four ways in the same run:
  kiln_pruned_s      -kiln-autodiff with dead-edge elimination (default)
  kiln_unpruned_s    prune=false, the naive derivation (the canonicalizer's
                     dead-code elimination then removes the unused edges)
  kiln_untrimmed_s   gradients w.r.t. x AND every weight at both orders,
                     all returned: the work of an engine that cannot drop
                     unneeded edges (the peer's own 'untrimmed' definition)
  kiln_no_blas_s     pruned, with generated matmul loops instead of a BLAS
and the peers (../shared/peers/hessian_peers.py: PyTorch eager autograd,
trimmed and untrimmed, and JAX/XLA jit grad-of-grad) with the python that
../shared/peers/setup.sh prints. Matmul counts: kiln's after
-kiln-autodiff -canonicalize -cse, PyTorch's through a dispatch mode.

Usage: bench/hessian/run.py [N] [W] [tanh|relu] [--build DIR] [--peers-python PY]
Prints one JSON line.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
PEERS = os.path.normpath(os.path.join(ROOT, "..", "shared", "peers"))
D, DEPTH = 16, 6


def mlp_source(n, w, act, untrimmed):
    """kiln MLIR: @mlp, @grad (first derivative), @main (second)."""
    shapes = [(w, D)] + [(w, w)] * (DEPTH - 1) + [(1, w)]
    params, types = [], []
    for i, (o, k) in enumerate(shapes):
        params += [f"%w{i}", f"%b{i}"]
        types += [f"tensor<{o}x{k}xf32>", f"tensor<{o}xf32>"]
    sig = ", ".join(f"{p}: {t}" for p, t in zip(params, types))
    ptypes = ", ".join(types)
    pnames = ", ".join(params)
    lines = [f"func.func private @mlp(%x: tensor<{n}x{D}xf32>, {sig}) -> tensor<{n}x1xf32> {{"]
    h, width = "%x", D
    for i, (o, k) in enumerate(shapes):
        lines.append(f"  %z{i} = kiln.matmul {h}, %w{i} {{transpose_b = true}} : tensor<{n}x{width}xf32>, tensor<{o}x{k}xf32> -> tensor<{n}x{o}xf32>")
        lines.append(f"  %bb{i} = kiln.broadcast_in_dim %b{i}, dims = [1] : tensor<{o}xf32> -> tensor<{n}x{o}xf32>")
        lines.append(f"  %a{i} = kiln.add %z{i}, %bb{i} : tensor<{n}x{o}xf32>")
        if i < DEPTH:
            lines.append(f"  %h{i} = kiln.{act} %a{i} : tensor<{n}x{o}xf32>")
            h = f"%h{i}"
        width = o
    lines.append(f"  return %a{DEPTH} : tensor<{n}x1xf32>")
    lines.append("}")
    nparams = len(params)
    if untrimmed:
        wrt = ", ".join(str(i) for i in range(nparams + 1))
        gtypes = [f"tensor<{n}x{D}xf32>"] + types
    else:
        wrt, gtypes = "0", [f"tensor<{n}x{D}xf32>"]
    gtype = ", ".join(gtypes)
    results = ", ".join(f"%g#{i}" for i in range(len(gtypes))) if len(gtypes) > 1 else "%g"
    gdecl = f"%g:{len(gtypes)}" if len(gtypes) > 1 else "%g"
    lines.append(f"func.func private @grad(%x: tensor<{n}x{D}xf32>, {sig}) -> ({gtype}) {{")
    lines.append(f"  %ones = kiln.constant dense<1.0> : tensor<{n}x1xf32>")
    lines.append(f"  {gdecl} = kiln.vjp @mlp(%x, {pnames}, %ones) wrt [{wrt}] : (tensor<{n}x{D}xf32>, {ptypes}, tensor<{n}x1xf32>) -> ({gtype})")
    lines.append(f"  return {results} : {gtype}")
    lines.append("}")
    lines.append(f"func.func @main(%x: tensor<{n}x{D}xf32>, {sig}) -> ({gtype}) {{")
    cts = []
    for i, t in enumerate(gtypes):
        # The second order differentiates sum(dy/dx) only; weight gradients
        # of the first order get zero cotangents, as in the peer.
        value = "1.0" if i == 0 else "0.0"
        lines.append(f"  %ct{i} = kiln.constant dense<{value}> : {t}")
        cts.append(f"%ct{i}")
    lines.append(f"  {gdecl} = kiln.vjp @grad(%x, {pnames}, {', '.join(cts)}) wrt [{wrt}] : (tensor<{n}x{D}xf32>, {ptypes}, {gtype}) -> ({gtype})")
    lines.append(f"  return {results} : {gtype}")
    lines.append("}")
    return "\n".join(lines) + "\n"


def write_inputs(tmp, n, w):
    rng = np.random.default_rng(0)
    shapes = [(w, D)] + [(w, w)] * (DEPTH - 1) + [(1, w)]
    paths = []
    x = rng.standard_normal((n, D), dtype=np.float32)
    arrays = [x]
    for o, k in shapes:
        bound = 1 / np.sqrt(k)  # PyTorch's Linear initialisation
        arrays.append(rng.uniform(-bound, bound, (o, k)).astype(np.float32))
        arrays.append(rng.uniform(-bound, bound, (o,)).astype(np.float32))
    for i, a in enumerate(arrays):
        p = os.path.join(tmp, f"in{i}.npy")
        np.save(p, a)
        paths.append(p)
    return paths


def run_kiln(build, source_path, inputs, repeat, *flags):
    cmd = [os.path.join(build, "bin", "kiln-run"), source_path, "--repeat",
           str(repeat), "--report", "--no-cache", *flags]
    for p in inputs:
        cmd += ["--input", p]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def count_matmuls(build, source_path, prune):
    cmd = [os.path.join(build, "bin", "kiln-opt"), source_path,
           f"-kiln-autodiff=prune={'true' if prune else 'false'}",
           "-canonicalize", "-cse", "-symbol-dce"]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True)
    return len(re.findall(r"kiln\.matmul", out.stdout))


TORCH_COUNT = r"""
import sys, torch
from torch.utils._python_dispatch import TorchDispatchMode
N, W, ACT = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
torch.manual_seed(0)
layers = [torch.nn.Linear(16, W)] + [torch.nn.Linear(W, W) for _ in range(5)] + [torch.nn.Linear(W, 1)]
def mlp(x):
    for l in layers[:-1]:
        x = torch.relu(l(x)) if ACT == "relu" else torch.tanh(l(x))
    return layers[-1](x)
x = torch.randn(N, 16, requires_grad=True)
class Count(TorchDispatchMode):
    n = 0
    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        if func.__name__.split(".")[0] in ("mm", "addmm", "bmm", "matmul"):
            Count.n += 1
        return func(*args, **(kwargs or {}))
with Count():
    y = mlp(x)
    g, = torch.autograd.grad(y.sum(), x, create_graph=True)
    g2, = torch.autograd.grad(g.sum(), x)
print(Count.n)
"""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("n", nargs="?", type=int, default=2000)
    ap.add_argument("w", nargs="?", type=int, default=256)
    ap.add_argument("act", nargs="?", default="tanh", choices=["tanh", "relu"])
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--repeat", type=int, default=10)
    ap.add_argument("--peers-python", default=None)
    args = ap.parse_args()

    out = {"bench": "hessian", "N": args.n, "W": args.w, "act": args.act}
    with tempfile.TemporaryDirectory(prefix="kiln-hessian-") as tmp:
        inputs = write_inputs(tmp, args.n, args.w)
        paths = {}
        for name, untrimmed in (("trimmed", False), ("untrimmed", True)):
            paths[name] = os.path.join(tmp, f"{name}.mlir")
            with open(paths[name], "w") as f:
                f.write(mlp_source(args.n, args.w, args.act, untrimmed))
        runs = {
            "kiln_pruned": (paths["trimmed"], ()),
            "kiln_unpruned": (paths["trimmed"], ("--autodiff-prune=false",)),
            "kiln_untrimmed": (paths["untrimmed"], ()),
            "kiln_no_blas": (paths["trimmed"], ("--blas", "off")),
        }
        for key, (path, flags) in runs.items():
            report = run_kiln(args.build, path, inputs, args.repeat, *flags)
            out[key + "_s"] = report["run_ms"] / 1e3
            out[key + "_compile_s"] = report["compile_ms"] / 1e3
        out["kiln_matmuls_pruned"] = count_matmuls(args.build, paths["trimmed"], True)
        out["kiln_matmuls_unpruned_before_dce"] = None
        naive = subprocess.run(
            [os.path.join(args.build, "bin", "kiln-opt"), paths["trimmed"],
             "-kiln-autodiff=prune=false"], capture_output=True, text=True,
            check=True).stdout
        out["kiln_matmuls_unpruned_before_dce"] = len(re.findall(r"kiln\.matmul", naive))
        pruned_raw = subprocess.run(
            [os.path.join(args.build, "bin", "kiln-opt"), paths["trimmed"],
             "-kiln-autodiff"], capture_output=True, text=True, check=True).stdout
        out["kiln_matmuls_pruned_before_dce"] = len(re.findall(r"kiln\.matmul", pruned_raw))
        out["kiln_matmuls_untrimmed"] = count_matmuls(args.build, paths["untrimmed"], True)

    py = args.peers_python
    if py is None:
        try:
            py = subprocess.run(["bash", os.path.join(PEERS, "setup.sh")],
                                capture_output=True, text=True,
                                check=True).stdout.strip().splitlines()[-1]
        except Exception as e:  # noqa: BLE001
            out["peers_error"] = repr(e)[:200]
    if py:
        peer = subprocess.run([py, os.path.join(PEERS, "hessian_peers.py"),
                               str(args.n), str(args.w), args.act],
                              capture_output=True, text=True)
        if peer.returncode == 0:
            for k, v in json.loads(peer.stdout.strip().splitlines()[-1]).items():
                out["peer_" + k] = v
        else:
            out["peers_error"] = peer.stderr.strip()[-300:]
        count = subprocess.run([py, "-c", TORCH_COUNT, str(args.n), str(args.w),
                                args.act], capture_output=True, text=True)
        if count.returncode == 0:
            out["torch_matmuls_trimmed"] = int(count.stdout.strip())
        else:
            out["torch_count_error"] = count.stderr.strip()[-300:]

    p = out["kiln_pruned_s"]
    out["ratio_unpruned_over_pruned"] = out["kiln_unpruned_s"] / p
    out["ratio_untrimmed_over_pruned"] = out["kiln_untrimmed_s"] / p
    if "peer_trimmed_s" in out:
        out["speedup_vs_torch_trimmed"] = out["peer_trimmed_s"] / p
    if "peer_jax_xla_s" in out:
        out["speedup_vs_jax_xla"] = out["peer_jax_xla_s"] / p
    print(json.dumps(out))


if __name__ == "__main__":
    main()
