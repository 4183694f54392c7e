#!/usr/bin/env python3
"""Issue 40's kernel figures on a GPU: attention without its scores, and the
row kernels against the memory limit, kiln against PyTorch eager and
torch.compile in one run, on the same device and inputs (results compared).

Workloads (f32):
  attention        softmax(q kᵀ / sqrt(d) + causal mask) v at B=8, h=12,
                   T=1024, d=64 (GPT-2 small's), forward and forward +
                   backward (dq, dk, dv). kiln recognizes it
                   (-kiln-fuse-attention) and runs -kiln-attention-to-gpu's
                   kernels; PyTorch runs the same unfused math (eager,
                   torch.compile) and scaled_dot_product_attention.
                   TFLOP/s counts 4·B·h·T²·d for the forward (the mask's
                   upper half included: kiln computes it).
  softmax          rows [98304, 1024], forward and backward.
  layernorm_bwd    [8192, 768]: dx, dgamma, dbeta.
For each: kiln's device time (kiln-run --backend cuda: CUDA events over its
steps), the peers' (CUDA events), and for the row kernels the fraction of
the device's copy bandwidth (a 1 GiB clone, read + write) that the bytes
the work must move reach (softmax: x and y forward, y, dy and dx backward;
LayerNorm: x, dy and dx).

Usage (on the GPU machine, with the python that has torch 2.x):
  python3 bench/gpu/kernels.py [--kiln-run PATH] [--repeat N] [--out FILE]
  python3 bench/gpu/kernels.py --check-only   # no GPU: every program
      compiles to PTX, and the attention's to its blockwise kernels
Prints one JSON line and writes it to bench/results/gpu-kernels-<device>.json.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, HERE)
from run import cuda_time, default_kiln_run, load_bench  # noqa: E402

attention_program = load_bench("attention").program
B, H, T, D = 8, 12, 1024, 64
SOFTMAX = (98304, 1024)
NORM = (8192, 768)


def softmax_program(n, c):
    x, r = f"tensor<{n}x{c}xf32>", f"tensor<{n}xf32>"
    return f"""
func.func @softmax(%x: {x}) -> {x} {{
  %m = kiln.reduce_max %x, dims = [1] : {x} -> {r}
  %mb = kiln.broadcast_in_dim %m, dims = [0] : {r} -> {x}
  %d = kiln.sub %x, %mb : {x}
  %e = kiln.exp %d : {x}
  %s = kiln.reduce_sum %e, dims = [1] : {x} -> {r}
  %sb = kiln.broadcast_in_dim %s, dims = [0] : {r} -> {x}
  %y = kiln.div %e, %sb : {x}
  return %y : {x}
}}
func.func @softmax_bwd(%x: {x}, %dy: {x}) -> {x} {{
  %dx = kiln.vjp @softmax(%x, %dy) wrt [0] : ({x}, {x}) -> {x}
  return %dx : {x}
}}
"""


def layernorm_program(n, c):
    x, r, w = f"tensor<{n}x{c}xf32>", f"tensor<{n}xf32>", f"tensor<{c}xf32>"
    return f"""
func.func @layernorm(%x: {x}, %g: {w}, %b: {w}) -> {x} {{
  %inv_n = kiln.constant dense<{1.0 / c:.9e}> : {r}
  %eps = kiln.constant dense<1.0e-5> : {r}
  %s = kiln.reduce_sum %x, dims = [1] : {x} -> {r}
  %mean = kiln.mul %s, %inv_n : {r}
  %mb = kiln.broadcast_in_dim %mean, dims = [0] : {r} -> {x}
  %xc = kiln.sub %x, %mb : {x}
  %sq = kiln.mul %xc, %xc : {x}
  %ss = kiln.reduce_sum %sq, dims = [1] : {x} -> {r}
  %var = kiln.mul %ss, %inv_n : {r}
  %ve = kiln.add %var, %eps : {r}
  %rstd = kiln.rsqrt %ve : {r}
  %rb = kiln.broadcast_in_dim %rstd, dims = [0] : {r} -> {x}
  %xh = kiln.mul %xc, %rb : {x}
  %gb = kiln.broadcast_in_dim %g, dims = [1] : {w} -> {x}
  %bb = kiln.broadcast_in_dim %b, dims = [1] : {w} -> {x}
  %y0 = kiln.mul %xh, %gb : {x}
  %y = kiln.add %y0, %bb : {x}
  return %y : {x}
}}
func.func @layernorm_bwd(%x: {x}, %g: {w}, %b: {w}, %dy: {x}) -> ({x}, {w}, {w}) {{
  %dx, %dg, %db = kiln.vjp @layernorm(%x, %g, %b, %dy) wrt [0, 1, 2] : ({x}, {w}, {w}, {x}) -> ({x}, {w}, {w})
  return %dx, %dg, %db : {x}, {w}, {w}
}}
"""


def programs():
    """(name, source, entry) of every kiln program measured."""
    attention = attention_program(B, H, T, D)
    softmax = softmax_program(*SOFTMAX)
    norm = layernorm_program(*NORM)
    return [("attention_fwd", attention, "attention"),
            ("attention_fwd_bwd", attention, "attention_grad"),
            ("softmax_fwd", softmax, "softmax"),
            ("softmax_bwd", softmax, "softmax_bwd"),
            ("layernorm_bwd", norm, "layernorm_bwd")]


def check_only(kiln_opt):
    ok = True
    with tempfile.TemporaryDirectory() as tmp:
        for name, text, entry in programs():
            path = os.path.join(tmp, name + ".mlir")
            open(path, "w").write(text)
            out = subprocess.run([kiln_opt, path, "-kiln-gpu-pipeline"],
                                 capture_output=True, text=True)
            entries = len(re.findall(r"\.entry ", out.stdout))
            row = {"program": name, "ok": out.returncode == 0,
                   "ptx_entries": entries,
                   "error": out.stderr.strip()[-300:]}
            if name.startswith("attention"):
                # Blockwise: its kernels, and no [B·h, T, T] buffer.
                row["attention_kernels"] = len(
                    re.findall(r"gpu.launch_func\s+@kiln_gpu::@kiln_attention",
                               out.stdout))
                row["scores_stored"] = f"memref<{B * H}x{T}x{T}xf32>" in \
                    out.stdout
                ok &= row["attention_kernels"] > 0 and not row["scores_stored"]
            print(json.dumps(row))
            ok &= out.returncode == 0 and entries > 0
    sys.exit(0 if ok else 1)


def kiln(kiln_run, source, entry, inputs, outdir, repeat):
    cmd = [kiln_run, source, "--entry", entry, "--backend", "cuda",
           "--repeat", str(repeat), "--report", "--output-dir", outdir]
    for path in inputs:
        cmd += ["--input", path]
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError(out.stderr.strip()[-500:])
    return json.loads(out.stdout.strip().splitlines()[-1])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kiln-run", default=default_kiln_run())
    ap.add_argument("--repeat", type=int, default=20)
    ap.add_argument("--out", default=None)
    ap.add_argument("--check-only", action="store_true")
    args = ap.parse_args()
    if args.check_only:
        return check_only(os.path.join(os.path.dirname(args.kiln_run),
                                       "kiln-opt"))

    import math
    import numpy as np
    import torch
    dev = torch.device("cuda")
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    name = torch.cuda.get_device_name()
    result = {"bench": "gpu-kernels", "device": name,
              "torch": torch.__version__}
    big = torch.empty(1 << 28, dtype=torch.float32, device=dev)
    copy_gbs = 2 * big.numel() * 4 / (
        cuda_time(torch, lambda: big.clone(), 20) * 1e-3) / 1e9
    result["copy_gbs"] = round(copy_gbs, 1)
    del big
    rng = np.random.default_rng(0)
    scale = 1.0 / math.sqrt(D)

    def attention(q, k, v, mask):
        s = (q @ k.transpose(-2, -1)) * scale + mask
        return torch.softmax(s, -1) @ v

    def softmax_bwd(x, dy):
        x = x.detach().requires_grad_(True)
        y = torch.softmax(x, -1)
        return torch.autograd.grad(y, x, dy)[0]

    def layernorm_bwd(x, g, b, dy):
        x, g, b = (t.detach().requires_grad_(True) for t in (x, g, b))
        y = torch.nn.functional.layer_norm(x, (x.shape[-1],), g, b)
        return torch.autograd.grad(y, (x, g, b), dy)

    def attention_bwd(q, k, v, mask, ct):
        q, k, v = (t.detach().requires_grad_(True) for t in (q, k, v))
        return torch.autograd.grad(attention(q, k, v, mask), (q, k, v), ct)

    def sdpa_bwd(q, k, v, mask, ct):
        q, k, v = (t.detach().requires_grad_(True) for t in (q, k, v))
        o = torch.nn.functional.scaled_dot_product_attention(
            q, k, v, attn_mask=mask)
        return torch.autograd.grad(o, (q, k, v), ct)

    causal = np.triu(np.full((T, T), -1e9, np.float32), 1)
    qkv = [rng.standard_normal((B, H, T, D)).astype(np.float32)
           for _ in range(4)]
    x_soft = rng.standard_normal(SOFTMAX).astype(np.float32)
    dy_soft = rng.standard_normal(SOFTMAX).astype(np.float32)
    x_norm = rng.standard_normal(NORM).astype(np.float32)
    g_norm = rng.standard_normal(NORM[1]).astype(np.float32)
    b_norm = rng.standard_normal(NORM[1]).astype(np.float32)
    dy_norm = rng.standard_normal(NORM).astype(np.float32)
    sdpa = lambda q, k, v, m: torch.nn.functional.scaled_dot_product_attention(  # noqa: E731
        q, k, v, attn_mask=m)
    work = {
        "attention_fwd": ([*qkv[:3], causal], attention, sdpa, None),
        "attention_fwd_bwd": ([*qkv[:3], causal, qkv[3]], attention_bwd,
                              sdpa_bwd, None),
        "softmax_fwd": ([x_soft], lambda x: torch.softmax(x, -1), None,
                        2 * x_soft.nbytes),
        "softmax_bwd": ([x_soft, dy_soft], softmax_bwd, None,
                        3 * x_soft.nbytes),
        "layernorm_bwd": ([x_norm, g_norm, b_norm, dy_norm], layernorm_bwd,
                          None, 3 * x_norm.nbytes),
    }
    with tempfile.TemporaryDirectory() as tmp:
        for key, text, entry in programs():
            arrays, fn, library, bytes_moved = work[key]
            path = os.path.join(tmp, key + ".mlir")
            open(path, "w").write(text)
            paths = []
            for i, a in enumerate(arrays):
                paths.append(os.path.join(tmp, f"{key}-in{i}.npy"))
                np.save(paths[-1], a)
            outdir = os.path.join(tmp, key)
            row = {}
            try:
                rep = kiln(args.kiln_run, path, entry, paths, outdir,
                           args.repeat)
                row.update(kiln_ms=rep["run_ms"],
                           kiln_compile_ms=rep["compile_ms"],
                           kiln_launches=rep["kernel_launches"])
            except RuntimeError as error:
                row["kiln_error"] = str(error)
            inputs = [torch.tensor(a, device=dev) for a in arrays]
            want = fn(*inputs)
            want = want if isinstance(want, (tuple, list)) else [want]
            if "kiln_ms" in row:
                got = [np.load(os.path.join(outdir, f"out{i}.npy"))
                       for i in range(len(want))]
                row["max_abs_diff_vs_torch"] = max(
                    float(np.abs(g - w.detach().cpu().numpy()).max())
                    for g, w in zip(got, want))
            row["torch_eager_ms"] = round(
                cuda_time(torch, lambda: fn(*inputs), args.repeat), 4)
            compiled = torch.compile(fn)
            row["torch_compile_ms"] = round(
                cuda_time(torch, lambda: compiled(*inputs), args.repeat), 4)
            if library is not None:
                row["torch_sdpa_ms"] = round(
                    cuda_time(torch, lambda: library(*inputs), args.repeat), 4)
            if "kiln_ms" in row:
                row["kiln_vs_torch_compile"] = round(
                    row["torch_compile_ms"] / row["kiln_ms"], 2)
                if bytes_moved:
                    row["kiln_fraction_of_copy_bandwidth"] = round(
                        bytes_moved / (row["kiln_ms"] * 1e-3) / 1e9 /
                        copy_gbs, 3)
                if key == "attention_fwd":
                    row["kiln_tflops"] = round(
                        4 * B * H * T * T * D / (row["kiln_ms"] * 1e-3) /
                        1e12, 1)
            result[key] = row
            torch.cuda.empty_cache()
    line = json.dumps(result)
    print(line)
    slug = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")
    out = args.out or os.path.join(ROOT, "bench", "results",
                                   f"gpu-kernels-{slug}.json")
    os.makedirs(os.path.dirname(out), exist_ok=True)
    open(out, "w").write(line + "\n")


if __name__ == "__main__":
    main()
