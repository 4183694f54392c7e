#!/usr/bin/env python3
"""Peers of kiln-bench-trace: the same training step (a two-step LSTM on
tiny tensors, squared-error loss, gradients of the three weights, SGD) in
PyTorch eager (autograd) and in JAX (jit of the whole step, so a step is
one cached-executable dispatch, as a kiln cache hit is).

Prints one JSON line: median microseconds per step, each measured over
STEPS steps after a warm-up; peers that are missing give *_error fields.
Usage: peers.py [STEPS]
"""
import json
import sys
import time

B, I, H, T, LR = 4, 8, 8, 2, 0.1


def median(values):
    values = sorted(values)
    return values[len(values) // 2]


def torch_eager(steps):
    import torch
    torch.set_num_threads(1)
    g = torch.Generator().manual_seed(2026)
    wx = (torch.rand(4 * H, I, generator=g) - 0.5) * 0.6
    wh = (torch.rand(4 * H, H, generator=g) - 0.5) * 0.6
    b = (torch.rand(4 * H, generator=g) - 0.5) * 0.2
    data = [(torch.rand(B, I, generator=g) * 2 - 1, torch.rand(B, H, generator=g) - 0.5)
            for _ in range(steps * T)]
    times = []
    for s in range(steps):
        t0 = time.perf_counter()
        params = [p.requires_grad_() for p in (wx, wh, b)]
        h = torch.zeros(B, H)
        c = torch.zeros(B, H)
        loss = None
        for t in range(T):
            x, target = data[s * T + t]
            gates = x @ params[0].t() + h @ params[1].t() + params[2]
            i, f, gg, o = gates.chunk(4, 1)
            c = torch.sigmoid(f) * c + torch.sigmoid(i) * torch.tanh(gg)
            h = torch.sigmoid(o) * torch.tanh(c)
            term = ((h - target) * (h - target)).sum()
            loss = term if loss is None else loss + term
        grads = torch.autograd.grad(loss, params)
        with torch.no_grad():
            wx, wh, b = (p - LR * gr for p, gr in zip(params, grads))
        loss.item()
        times.append((time.perf_counter() - t0) * 1e6)
    return median(times[1:])


def jax_jit(steps):
    import jax
    import jax.numpy as jnp
    import numpy as np

    def loss_fn(params, xs, targets):
        wx, wh, b = params
        h = jnp.zeros((B, H))
        c = jnp.zeros((B, H))
        loss = 0.0
        for t in range(T):
            gates = xs[t] @ wx.T + h @ wh.T + b
            i, f, gg, o = jnp.split(gates, 4, axis=1)
            c = jax.nn.sigmoid(f) * c + jax.nn.sigmoid(i) * jnp.tanh(gg)
            h = jax.nn.sigmoid(o) * jnp.tanh(c)
            loss = loss + jnp.sum((h - targets[t]) ** 2)
        return loss

    @jax.jit
    def step(params, xs, targets):
        loss, grads = jax.value_and_grad(loss_fn)(params, xs, targets)
        return tuple(p - LR * g for p, g in zip(params, grads)), loss

    rng = np.random.default_rng(2026)
    params = tuple(jnp.asarray(a, dtype=jnp.float32) for a in (
        (rng.random((4 * H, I)) - 0.5) * 0.6, (rng.random((4 * H, H)) - 0.5) * 0.6,
        (rng.random(4 * H) - 0.5) * 0.2))
    data = [(rng.random((T, B, I), dtype=np.float32) * 2 - 1,
             rng.random((T, B, H), dtype=np.float32) - 0.5) for _ in range(steps)]
    times = []
    for s in range(steps):
        t0 = time.perf_counter()
        params, loss = step(params, *data[s])
        float(loss)
        times.append((time.perf_counter() - t0) * 1e6)
    return median(times[1:])


def main():
    steps = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    out = {}
    for name, fn in (("torch_eager", torch_eager), ("jax_jit", jax_jit)):
        try:
            out[name + "_step_us"] = round(fn(steps), 2)
        except Exception as e:  # a missing peer is reported, not fatal
            out[name + "_error"] = f"{type(e).__name__}: {e}"
    print(json.dumps(out))


if __name__ == "__main__":
    main()
