#!/usr/bin/env python3
"""One pre-LayerNorm GPT block on the CPU: kiln vs PyTorch eager and jax.jit.

The block is bench/transformer/gpt_block.py's (causal attention with an
additive [T, T] mask, 1/sqrt(d) scaling, output projection, residuals, a 4x
MLP with tanh-GELU), run forward, and forward plus the gradients for the
input and every weight (kiln.vjp). The peers (peers.py, with the python
../shared/peers/setup.sh prints) run the same block, JAX with the mask as
`jnp.where` on a boolean causal mask. softmax rows ([B*heads*T, T]) and
LayerNorm rows ([B*T, C]) alone are timed against the copy floor (bytes
read and written over stream.c's copy bandwidth).

kiln's figures are kiln-run's median run time (--repeat), on the peers'
data (block_inputs); gemm_share is the time of the forward's six GEMMs
alone (gpt_block.py --only-matmuls) over the forward's, for kiln and for
jax.jit (peers.py times the same six GEMMs).

The machine's speed drifts by up to 2x within a minute, so kiln and
jax.jit take turns (--rounds, default 5): speedup_*_vs_jax_jit is the
median of the rounds' ratios (all of them in *_rounds), the times the
medians over the rounds.

Usage: bench/transformer/run.py [B T C HEADS] [--build DIR] [--repeat N]
       [--peers-python PY] [--rounds N]
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
from common import PEERS, ROOT, stream_copy_gbs  # noqa: E402


def kiln_run(build, path, entry, repeat, inputs=None):
    """kiln-run's --report; `inputs`: .npy paths, else random inputs. No
    compile cache: compile_ms is a compile, not a load."""
    data = ["--random-inputs", "1"]
    if inputs:
        data = [flag for npy in inputs for flag in ("--input", npy)]
    out = subprocess.run(
        [os.path.join(build, "bin", "kiln-run"), path, "--entry", entry,
         *data, "--repeat", str(repeat), "--report",
         "--no-cache"],
        capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def block_inputs(args, tmp):
    """The peers' data (peers.py): x and dout N(0, 1), every parameter
    N(0, 1) * 0.1, the causal mask -1e9 above the diagonal. Uniform [-1, 1)
    weights would be unrealistic: the attention scores then spread over
    hundreds, softmax underflows to denormals and the GEMM that reads them
    slows down tenfold, which no trained model sees."""
    import numpy as np
    rng = np.random.default_rng(0)
    b, t, c = args.b, args.t, args.c
    normal = lambda *s, scale=1.0: (
        rng.standard_normal(s, dtype=np.float32) * np.float32(scale))
    params = [normal(*s, scale=0.1) for s in (
        [c], [c], [c, 3 * c], [3 * c], [c, c], [c], [c], [c], [c, 4 * c],
        [4 * c], [4 * c, c], [c])]
    mask = np.triu(np.full((t, t), -1e9, dtype=np.float32), k=1)
    arrays = [normal(b * t, c), mask, *params]
    paths = []
    for i, a in enumerate(arrays + [normal(b * t, c)]):
        paths.append(os.path.join(tmp, f"in{i}.npy"))
        np.save(paths[-1], a)
    # The forward takes all but dout.
    return paths[:-1], paths


def generate(args, path, *flags):
    text = subprocess.run(
        [sys.executable, os.path.join(HERE, "gpt_block.py"), str(args.b),
         str(args.t), str(args.c), str(args.heads), *flags],
        capture_output=True, text=True, check=True).stdout
    with open(path, "w") as f:
        f.write(text)


def rows_program(kind, rows, width):
    t = lambda *s: "tensor<" + "x".join(map(str, s)) + "xf32>"
    r, w = t(rows), t(rows, width)
    if kind == "softmax":
        body = [
            f'%m = "kiln.reduce_max"(%x) <{{dims = array<i64: 1>}}> : ({w}) -> {r}',
            f'%mb = "kiln.broadcast_in_dim"(%m) <{{dims = array<i64: 0>}}> : ({r}) -> {w}',
            f'%d = "kiln.sub"(%x, %mb) : ({w}, {w}) -> {w}',
            f'%e = "kiln.exp"(%d) : ({w}) -> {w}',
            f'%s = "kiln.reduce_sum"(%e) <{{dims = array<i64: 1>}}> : ({w}) -> {r}',
            f'%sb = "kiln.broadcast_in_dim"(%s) <{{dims = array<i64: 0>}}> : ({r}) -> {w}',
            f'%y = "kiln.div"(%e, %sb) : ({w}, {w}) -> {w}',
        ]
        args = f"%x: {w}"
    else:
        g = t(width)
        body = [
            f'%inv = "kiln.constant"() <{{value = dense<{1.0 / width:.9e}> : {r}}}> : () -> {r}',
            f'%eps = "kiln.constant"() <{{value = dense<1.0e-5> : {r}}}> : () -> {r}',
            f'%s = "kiln.reduce_sum"(%x) <{{dims = array<i64: 1>}}> : ({w}) -> {r}',
            f'%mean = "kiln.mul"(%s, %inv) : ({r}, {r}) -> {r}',
            f'%mb = "kiln.broadcast_in_dim"(%mean) <{{dims = array<i64: 0>}}> : ({r}) -> {w}',
            f'%xc = "kiln.sub"(%x, %mb) : ({w}, {w}) -> {w}',
            f'%sq = "kiln.mul"(%xc, %xc) : ({w}, {w}) -> {w}',
            f'%ss = "kiln.reduce_sum"(%sq) <{{dims = array<i64: 1>}}> : ({w}) -> {r}',
            f'%var = "kiln.mul"(%ss, %inv) : ({r}, {r}) -> {r}',
            f'%ve = "kiln.add"(%var, %eps) : ({r}, {r}) -> {r}',
            f'%rstd = "kiln.rsqrt"(%ve) : ({r}) -> {r}',
            f'%rb = "kiln.broadcast_in_dim"(%rstd) <{{dims = array<i64: 0>}}> : ({r}) -> {w}',
            f'%xh = "kiln.mul"(%xc, %rb) : ({w}, {w}) -> {w}',
            f'%gb = "kiln.broadcast_in_dim"(%g) <{{dims = array<i64: 1>}}> : ({g}) -> {w}',
            f'%bb = "kiln.broadcast_in_dim"(%b) <{{dims = array<i64: 1>}}> : ({g}) -> {w}',
            f'%y0 = "kiln.mul"(%xh, %gb) : ({w}, {w}) -> {w}',
            f'%y = "kiln.add"(%y0, %bb) : ({w}, {w}) -> {w}',
        ]
        args = f"%x: {w}, %g: {g}, %b: {g}"
    return (f"func.func @rows({args}) -> {w} {{\n  " + "\n  ".join(body) +
            f"\n  return %y : {w}\n}}\n")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("b", nargs="?", type=int, default=8)
    ap.add_argument("t", nargs="?", type=int, default=128)
    ap.add_argument("c", nargs="?", type=int, default=256)
    ap.add_argument("heads", nargs="?", type=int, default=4)
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--repeat", type=int, default=20)
    ap.add_argument("--peers-python", default=None)
    ap.add_argument("--rounds", type=int, default=5,
                    help="kiln and jax.jit take turns this many times")
    args = ap.parse_args()
    out = {"bench": "transformer", "B": args.b, "T": args.t, "C": args.c,
           "heads": args.heads, "rounds": args.rounds}
    py = args.peers_python
    if py is None:
        py = subprocess.run(["bash", os.path.join(PEERS, "setup.sh")],
                            capture_output=True,
                            text=True).stdout.strip().splitlines()[-1]

    def peer(only):
        """One peer's figures, in a process of its own (peers.py --only)."""
        r = subprocess.run(
            [py, os.path.join(HERE, "peers.py"), str(args.b), str(args.t),
             str(args.c), str(args.heads), "--repeat", str(args.repeat),
             "--only", only],
            capture_output=True, text=True)
        if r.returncode != 0:
            out[f"peers_{only}_error"] = r.stderr.strip()[-300:]
            return {}
        return {"peer_" + k: v for k, v in
                json.loads(r.stdout.strip().splitlines()[-1]).items()}

    # The machine's speed drifts within a minute: kiln and jax.jit take
    # turns, each round's ratio from the same minute, and the figures are
    # the medians over the rounds.
    rounds = []
    with tempfile.TemporaryDirectory(prefix="kiln-gpt-") as tmp:
        block = os.path.join(tmp, "block.mlir")
        generate(args, block, "--backward")
        matmuls = os.path.join(tmp, "matmuls.mlir")
        generate(args, matmuls, "--only-matmuls")
        fwd_inputs, fwd_bwd_inputs = block_inputs(args, tmp)
        for _ in range(args.rounds):
            figures = {}
            for name, entry, inputs in (
                    ("fwd", "gpt_block", fwd_inputs),
                    ("fwd_bwd", "gpt_block_bwd", fwd_bwd_inputs)):
                r = kiln_run(args.build, block, entry, args.repeat, inputs)
                figures[f"kiln_{name}_s"] = r["run_ms"] / 1e3
                figures[f"kiln_{name}_compile_s"] = r["compile_ms"] / 1e3
                out[f"kiln_{name}_launches"] = r["kernel_launches"]
                out[f"kiln_{name}_groups"] = r["fusion_groups"]
                out[f"kiln_{name}_unique_kernels"] = r["unique_kernels"]
            r = kiln_run(args.build, matmuls, "gpt_matmuls", args.repeat)
            figures["kiln_fwd_gemm_s"] = r["run_ms"] / 1e3
            figures.update(peer("jax"))
            rounds.append(figures)
        for key in rounds[0]:
            values = sorted(r[key] for r in rounds if key in r)
            out[key] = values[len(values) // 2]
        for name in ("fwd", "fwd_bwd"):
            ratios = sorted(r[f"peer_jax_jit_{name}_s"] / r[f"kiln_{name}_s"]
                            for r in rounds if f"peer_jax_jit_{name}_s" in r)
            if ratios:
                out[f"speedup_{name}_vs_jax_jit_rounds"] = ratios
        out["kiln_fwd_gemm_share"] = out["kiln_fwd_gemm_s"] / out["kiln_fwd_s"]
        copy_gbs = stream_copy_gbs(tmp)
        out["stream_copy_gbs"] = copy_gbs
        for kind, rows, width in (
                ("softmax", args.b * args.heads * args.t, args.t),
                ("layernorm", args.b * args.t, args.c)):
            path = os.path.join(tmp, kind + ".mlir")
            with open(path, "w") as f:
                f.write(rows_program(kind, rows, width))
            r = kiln_run(args.build, path, "rows", args.repeat * 5)
            out[f"kiln_{kind}_rows_s"] = r["run_ms"] / 1e3
            out[f"kiln_{kind}_rows_launches"] = r["kernel_launches"]
            if copy_gbs:
                floor = 2 * 4 * rows * width / (copy_gbs * 1e9)
                out[f"{kind}_rows_copy_floor_s"] = floor
                out[f"kiln_{kind}_rows_over_floor"] = (
                    out[f"kiln_{kind}_rows_s"] / floor)
    out.update(peer("torch"))
    for name in ("fwd", "fwd_bwd"):
        k = out[f"kiln_{name}_s"]
        t = out.get(f"peer_torch_eager_{name}_s")
        if t:
            out[f"speedup_{name}_vs_torch_eager"] = t / k
        ratios = out.get(f"speedup_{name}_vs_jax_jit_rounds")
        if ratios:
            out[f"speedup_{name}_vs_jax_jit"] = ratios[len(ratios) // 2]
    if out.get("peer_jax_jit_fwd_gemm_s") and out.get("peer_jax_jit_fwd_s"):
        out["peer_jax_jit_fwd_gemm_share"] = (
            out["peer_jax_jit_fwd_gemm_s"] / out["peer_jax_jit_fwd_s"])
    for kind in ("softmax", "layernorm"):
        t = out.get(f"peer_torch_{kind}_rows_s")
        if t:
            out[f"speedup_{kind}_rows_vs_torch"] = t / out[f"kiln_{kind}_rows_s"]
    print(json.dumps(out))


if __name__ == "__main__":
    main()
