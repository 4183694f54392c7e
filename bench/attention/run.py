#!/usr/bin/env python3
"""Causal attention on the CPU, forward and forward + backward: kiln's
blockwise kernels (-kiln-fuse-attention, the default) against kiln with the
scores stored (--fuse-attention=false: two products and a softmax row
kernel, as before) and PyTorch eager (the same program, float32, autograd).

The program is a GPT block's attention: q, k, v [B, h, T, d] through
reshapes to [B*h, T, d], scores scaled by 1/sqrt(d), an additive causal
mask [T, T] given as an input, softmax, the product with v. Each figure is
the median over --repeat runs of one process; peak_rss_mb is that process's
peak resident memory (kiln-run, or the PyTorch script, under
/usr/bin/time), which the [B*h, T, T] scores (stored forward and again for
the backward) dominate at long T.

Usage: bench/attention/run.py [B H T D] [--build DIR] [--repeat N]
       [--peers-python PY]
Prints one JSON line.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
from common import PEERS, ROOT  # noqa: E402


def program(b, h, t, d):
    n = b * h
    q4 = f"tensor<{b}x{h}x{t}x{d}xf32>"
    q3 = f"tensor<{n}x{t}x{d}xf32>"
    s4 = f"tensor<{b}x{h}x{t}x{t}xf32>"
    s3 = f"tensor<{n}x{t}x{t}xf32>"
    r4 = f"tensor<{b}x{h}x{t}xf32>"
    mask = f"tensor<{t}x{t}xf32>"
    scale = 1.0 / d ** 0.5
    return f"""
func.func @attention(%q: {q4}, %k: {q4}, %v: {q4}, %mask: {mask}) -> {q4} {{
  %q3 = kiln.reshape %q : {q4} -> {q3}
  %k3 = kiln.reshape %k : {q4} -> {q3}
  %v3 = kiln.reshape %v : {q4} -> {q3}
  %s3 = kiln.matmul %q3, %k3 {{transpose_b = true}} : {q3}, {q3} -> {s3}
  %s = kiln.reshape %s3 : {s3} -> {s4}
  %c = kiln.constant dense<{scale:.9e}> : {s4}
  %scaled = kiln.mul %s, %c : {s4}
  %mb = kiln.broadcast_in_dim %mask, dims = [2, 3] : {mask} -> {s4}
  %x = kiln.add %scaled, %mb : {s4}
  %m = kiln.reduce_max %x, dims = [3] : {s4} -> {r4}
  %mx = kiln.broadcast_in_dim %m, dims = [0, 1, 2] : {r4} -> {s4}
  %e = kiln.exp %{"d"} : {s4}
  %z = kiln.reduce_sum %e, dims = [3] : {s4} -> {r4}
  %zb = kiln.broadcast_in_dim %z, dims = [0, 1, 2] : {r4} -> {s4}
  %p = kiln.div %e, %zb : {s4}
  %p3 = kiln.reshape %p : {s4} -> {s3}
  %o3 = kiln.matmul %p3, %v3 : {s3}, {q3} -> {q3}
  %o = kiln.reshape %o3 : {q3} -> {q4}
  return %o : {q4}
}}
func.func @attention_grad(%q: {q4}, %k: {q4}, %v: {q4}, %mask: {mask}, %ct: {q4}) -> ({q4}, {q4}, {q4}) {{
  %g:3 = kiln.vjp @attention(%q, %k, %v, %mask, %ct) wrt [0, 1, 2] : ({q4}, {q4}, {q4}, {mask}, {q4}) -> ({q4}, {q4}, {q4})
  return %g#0, %g#1, %g#2 : {q4}, {q4}, {q4}
}}
""".replace("%e = kiln.exp %d", "%d = kiln.sub %x, %mx : " + s4 +
            "\n  %e = kiln.exp %d")


TORCH = r"""
import json, math, sys, time
import numpy as np
import torch
torch.set_num_threads(int(sys.argv[6]))
b, h, t, d, repeat = map(int, sys.argv[1:6])
g = torch.Generator().manual_seed(0)
q, k, v = (torch.randn(b, h, t, d, generator=g, requires_grad=True)
           for _ in range(3))
mask = torch.full((t, t), -1e9).triu(1)
ct = torch.randn(b, h, t, d, generator=g)
def forward():
    s = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(d)) + mask
    return torch.softmax(s, -1) @ v
def step(backward):
    start = time.perf_counter()
    if backward:
        q.grad = k.grad = v.grad = None
        forward().backward(ct)
    else:
        with torch.no_grad():
            forward()
    return time.perf_counter() - start
out = {}
for name, backward in (("forward", False), ("forward_backward", True)):
    step(backward)
    times = sorted(step(backward) for _ in range(repeat))
    out[name + "_ms"] = 1e3 * times[len(times) // 2]
print(json.dumps(out))
"""


def peak_rss_mb(argv, env=None):
    """Runs argv under /usr/bin/time; (stdout, peak RSS in MB)."""
    out = subprocess.run(["/usr/bin/time", "-f", "%M", *argv],
                         capture_output=True, text=True, env=env, check=True)
    return out.stdout, int(out.stderr.strip().splitlines()[-1]) / 1024.0


def kiln_run(build, path, entry, repeat, fuse):
    stdout, rss = peak_rss_mb(
        [os.path.join(build, "bin", "kiln-run"), path, "--entry", entry,
         "--random-inputs", "1", "--repeat", str(repeat), "--report",
         "--no-cache", f"--fuse-attention={'true' if fuse else 'false'}"])
    report = json.loads(stdout.strip().splitlines()[-1])
    return {"run_ms": report["run_ms"], "peak_rss_mb": round(rss, 1),
            "kernel_launches": report["kernel_launches"]}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("shape", nargs="*", type=int, default=[4, 8, 512, 64])
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--peers-python")
    args = parser.parse_args()
    b, h, t, d = args.shape
    row = {"bench": "attention", "B": b, "H": h, "T": t, "D": d,
           "threads": os.cpu_count()}
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "attention.mlir")
        with open(path, "w") as f:
            f.write(program(b, h, t, d))
        for entry, name in (("attention", "forward"),
                            ("attention_grad", "forward_backward")):
            for fuse, label in ((True, "kiln"), (False, "kiln_scores_stored")):
                result = kiln_run(args.build, path, entry, args.repeat, fuse)
                for key, value in result.items():
                    row[f"{label}_{name}_{key}"] = value
        python = args.peers_python
        if not python:
            python = subprocess.run(
                ["bash", os.path.join(PEERS, "setup.sh")], capture_output=True,
                text=True).stdout.strip().splitlines()[-1:] or ["python3"]
            python = python[0] if os.path.exists(python[0]) else "/usr/bin/python3"
        script = os.path.join(tmp, "torch_attention.py")
        with open(script, "w") as f:
            f.write(TORCH)
        try:
            stdout, rss = peak_rss_mb(
                [python, script, str(b), str(h), str(t), str(d),
                 str(args.repeat), str(os.cpu_count())])
            peer = json.loads(stdout.strip().splitlines()[-1])
            row["torch_forward_ms"] = round(peer["forward_ms"], 3)
            row["torch_forward_backward_ms"] = round(
                peer["forward_backward_ms"], 3)
            row["torch_peak_rss_mb"] = round(rss, 1)
        except (subprocess.CalledProcessError, ValueError) as e:
            row["torch_error"] = str(e)[-200:]
    for name in ("forward", "forward_backward"):
        if f"torch_{name}_ms" in row:
            row[f"speedup_{name}_vs_torch"] = round(
                row[f"torch_{name}_ms"] / row[f"kiln_{name}_run_ms"], 2)
        row[f"speedup_{name}_vs_scores_stored"] = round(
            row[f"kiln_scores_stored_{name}_run_ms"] /
            row[f"kiln_{name}_run_ms"], 2)
    print(json.dumps(row))


if __name__ == "__main__":
    main()
