#!/usr/bin/env python3
"""A training loop whose batch size changes every step (20 sizes), in kiln
(automatic dynamic dims: the step compiles for the first size and once
shape-generic) or in jax.jit (which compiles each new shape): a two-layer
MLP, loss = mean over features of the squared error summed over the batch,
one SGD step per batch. Prints one JSON line: the loop's total time, its
compiles and the time of the last 10 steps (all shapes seen before in
neither: each is new).

Usage: batches.py kiln|jax   (kiln: the build's python package on
PYTHONPATH; jax: the peers' python)"""
import json
import sys
import time

import numpy as np

BATCHES = [8, 16, 5, 1, 32, 3, 12, 7, 2, 9, 24, 4, 6, 10, 11, 13, 64, 15,
           17, 20]
IN, HIDDEN, OUT, LR = 64, 256, 16, 0.01


def data():
    rng = np.random.default_rng(11)
    w1 = rng.uniform(-0.1, 0.1, (IN, HIDDEN)).astype(np.float32)
    w2 = rng.uniform(-0.1, 0.1, (HIDDEN, OUT)).astype(np.float32)
    batches = [(rng.uniform(-1, 1, (n, IN)).astype(np.float32),
                rng.uniform(-1, 1, (n, OUT)).astype(np.float32))
               for n in BATCHES]
    return w1, w2, batches


def run_kiln():
    import kiln
    w1, w2, batches = data()
    w1, w2 = kiln.tensor(w1), kiln.tensor(w2)
    before = kiln.metrics()
    start = time.perf_counter()
    times = []
    for x, y in batches:
        t0 = time.perf_counter()
        x, y = kiln.tensor(x), kiln.tensor(y)
        err = kiln.tanh(x @ w1) @ w2 - y
        loss = (err * err).sum() / OUT
        g1, g2 = kiln.grad(loss, [w1, w2])
        w1, w2 = w1 - LR * g1, w2 - LR * g2
        kiln.sync(w1, w2, loss)
        w1, w2 = kiln.tensor(w1.numpy()), kiln.tensor(w2.numpy())
        times.append(time.perf_counter() - t0)
    total = time.perf_counter() - start
    after = kiln.metrics()
    return {"framework": "kiln", "total_ms": total * 1e3,
            "compiles": after["compiles"] - before["compiles"],
            "generic_compiles":
                after["generic_compiles"] - before["generic_compiles"],
            "last10_ms": sum(times[-10:]) * 1e3,
            "final_loss": float(loss.numpy())}


def run_jax():
    import jax
    import jax.numpy as jnp
    w1, w2, batches = data()
    w1, w2 = jnp.asarray(w1), jnp.asarray(w2)
    compiles = [0]

    def loss_fn(w1, w2, x, y):
        err = jnp.tanh(x @ w1) @ w2 - y
        return (err * err).sum() / OUT

    def step(w1, w2, x, y):
        compiles[0] += 1  # runs once per trace, i.e. per compile
        loss, (g1, g2) = jax.value_and_grad(loss_fn, argnums=(0, 1))(
            w1, w2, x, y)
        return w1 - LR * g1, w2 - LR * g2, loss

    step = jax.jit(step)
    start = time.perf_counter()
    times = []
    for x, y in batches:
        t0 = time.perf_counter()
        w1, w2, loss = step(w1, w2, jnp.asarray(x), jnp.asarray(y))
        jax.block_until_ready((w1, w2, loss))
        times.append(time.perf_counter() - t0)
    total = time.perf_counter() - start
    return {"framework": "jax.jit", "total_ms": total * 1e3,
            "compiles": compiles[0], "last10_ms": sum(times[-10:]) * 1e3,
            "final_loss": float(loss)}


if __name__ == "__main__":
    print(json.dumps(run_kiln() if sys.argv[1] == "kiln" else run_jax()))
