#!/usr/bin/env python3
"""The GPT block of gpt_block.py in PyTorch eager and jax.jit (the peers of
bench/transformer/run.py). Run with the python ../shared/peers/setup.sh
prints. Prints one JSON line of median times in seconds.

Usage: peers.py B T C HEADS [--repeat N]
"""
import argparse
import json
import math
import time


def median_time(fn, repeat):
    for _ in range(3):
        fn()
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    times.sort()
    return times[len(times) // 2]


def torch_block(out, b, t, c, heads, repeat):
    import torch
    torch.manual_seed(0)
    d = c // heads
    shapes = [[c], [c], [c, 3 * c], [3 * c], [c, c], [c], [c], [c],
              [c, 4 * c], [4 * c], [4 * c, c], [c]]
    params = [torch.randn(*s) * 0.1 for s in shapes]
    x = torch.randn(b * t, c)
    mask = torch.triu(torch.full((t, t), -1e9), diagonal=1)

    def block(x, ln1_g, ln1_b, w_qkv, b_qkv, w_o, b_o, ln2_g, ln2_b, w_1,
              b_1, w_2, b_2):
        h = torch.nn.functional.layer_norm(x, (c,), ln1_g, ln1_b)
        qkv = torch.addmm(b_qkv, h, w_qkv)
        q, k, v = (part.reshape(b, t, heads, d).transpose(1, 2)
                   for part in qkv.split(c, dim=1))
        scores = q @ k.transpose(-1, -2) * (1.0 / math.sqrt(d)) + mask
        att = torch.softmax(scores, dim=-1) @ v
        att = att.transpose(1, 2).reshape(b * t, c)
        x1 = x + torch.addmm(b_o, att, w_o)
        h2 = torch.nn.functional.layer_norm(x1, (c,), ln2_g, ln2_b)
        m = torch.nn.functional.gelu(torch.addmm(b_1, h2, w_1),
                                     approximate="tanh")
        return x1 + torch.addmm(b_2, m, w_2)

    with torch.no_grad():
        out["torch_eager_fwd_s"] = median_time(lambda: block(x, *params),
                                               repeat)
    leaves = [x.clone().requires_grad_()] + [
        p.clone().requires_grad_() for p in params]
    dout = torch.randn(b * t, c)

    def fwd_bwd():
        y = block(*leaves)
        return torch.autograd.grad(y, leaves, dout)

    out["torch_eager_fwd_bwd_s"] = median_time(fwd_bwd, repeat)
    rows = torch.randn(b * heads * t, t)
    out["torch_softmax_rows_s"] = median_time(
        lambda: torch.softmax(rows, dim=-1), repeat)
    out["torch_layernorm_rows_s"] = median_time(
        lambda: torch.nn.functional.layer_norm(x, (c,), params[0], params[1]),
        repeat)


def jax_block(out, b, t, c, heads, repeat):
    import jax
    import jax.numpy as jnp
    import numpy as np
    d = c // heads
    rng = np.random.default_rng(0)
    shapes = [[c], [c], [c, 3 * c], [3 * c], [c, c], [c], [c], [c],
              [c, 4 * c], [4 * c], [4 * c, c], [c]]
    params = [jnp.asarray(rng.standard_normal(s, dtype=np.float32) * 0.1)
              for s in shapes]
    x = jnp.asarray(rng.standard_normal((b * t, c), dtype=np.float32))
    causal = jnp.tril(jnp.ones((t, t), dtype=bool))

    def layer_norm(v, g, beta):
        mean = v.mean(-1, keepdims=True)
        var = ((v - mean) ** 2).mean(-1, keepdims=True)
        return (v - mean) * jax.lax.rsqrt(var + 1e-5) * g + beta

    def block(x, ln1_g, ln1_b, w_qkv, b_qkv, w_o, b_o, ln2_g, ln2_b, w_1,
              b_1, w_2, b_2):
        h = layer_norm(x, ln1_g, ln1_b)
        qkv = h @ w_qkv + b_qkv
        q, k, v = (part.reshape(b, t, heads, d).transpose(0, 2, 1, 3)
                   for part in jnp.split(qkv, 3, axis=1))
        scores = q @ k.transpose(0, 1, 3, 2) / math.sqrt(d)
        scores = jnp.where(causal, scores, -1e9)
        att = jax.nn.softmax(scores, axis=-1) @ v
        att = att.transpose(0, 2, 1, 3).reshape(b * t, c)
        x1 = x + att @ w_o + b_o
        m = jax.nn.gelu(layer_norm(x1, ln2_g, ln2_b) @ w_1 + b_1,
                        approximate=True)
        return x1 + m @ w_2 + b_2

    fwd = jax.jit(block)
    out["jax_jit_fwd_s"] = median_time(
        lambda: fwd(x, *params).block_until_ready(), repeat)

    # The forward's six GEMMs alone (gpt_block.py --only-matmuls' shapes),
    # for JAX's GEMM share next to kiln's.
    @jax.jit
    def matmuls(x, w_qkv, w_o, w_1, w_2, q, k, p, v):
        return (x @ w_qkv, q @ k.transpose(0, 2, 1), p @ v, x @ w_o,
                x @ w_1, (x @ w_1) @ w_2)

    heads_rows = lambda *s: jnp.asarray(
        rng.standard_normal((b * heads,) + s, dtype=np.float32))
    gemm_args = (x, params[2], params[4], params[8], params[10],
                 heads_rows(t, d), heads_rows(t, d), heads_rows(t, t),
                 heads_rows(t, d))
    out["jax_jit_fwd_gemm_s"] = median_time(
        lambda: jax.block_until_ready(matmuls(*gemm_args)), repeat)
    dout = jnp.asarray(rng.standard_normal((b * t, c), dtype=np.float32))

    @jax.jit
    def fwd_bwd(x, params, dout):
        y, pullback = jax.vjp(lambda x, p: block(x, *p), x, params)
        return y, pullback(dout)

    out["jax_jit_fwd_bwd_s"] = median_time(
        lambda: jax.block_until_ready(fwd_bwd(x, params, dout)), repeat)


def main():
    ap = argparse.ArgumentParser()
    for name in ("b", "t", "c", "heads"):
        ap.add_argument(name, type=int)
    ap.add_argument("--repeat", type=int, default=20)
    ap.add_argument("--only", choices=("torch", "jax"), default=None,
                    help="one peer (run.py runs each in a process of its "
                         "own: torch's OpenMP workers, spinning after its "
                         "last parallel region, took the cores from JAX's "
                         "threads and slowed jax.jit down up to 2x)")
    a = ap.parse_args()
    out = {}
    for name, run in (("torch", torch_block), ("jax", jax_block)):
        if a.only and name != a.only:
            continue
        try:
            run(out, a.b, a.t, a.c, a.heads, a.repeat)
        except Exception as e:  # noqa: BLE001
            out[name + "_error"] = repr(e)[:300]
    print(json.dumps(out))


if __name__ == "__main__":
    main()
