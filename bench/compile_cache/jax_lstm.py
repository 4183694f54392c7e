#!/usr/bin/env python3
"""kiln-lstm-train's model and SGD step in JAX (the peer of
bench/compile_cache/run.py): token embeddings, an 8-step LSTM, a softmax
cross-entropy over the next token, the gradient of every weight and the
update, as one jax.jit program. Prints one JSON line: the first step's time
(compile included) and the mean of the next steps.

Usage: jax_lstm.py CACHE_DIR|none [STEPS]
With a directory, JAX's persistent compilation cache is on there (every
compile cached, whatever it took)."""
import json
import sys
import time

import jax
import jax.numpy as jnp
import numpy as np

VOCAB, BATCH, SEQ, EMBED, HIDDEN = 16, 32, 8, 16, 64


def main():
    cache = sys.argv[1]
    steps = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    if cache != "none":
        jax.config.update("jax_compilation_cache_dir", cache)
        jax.config.update("jax_persistent_cache_min_compile_time_secs", 0)
        jax.config.update("jax_persistent_cache_min_entry_size_bytes", 0)
    rng = np.random.default_rng(7)
    u = lambda shape, s: jnp.asarray(
        rng.uniform(-s, s, shape).astype(np.float32))
    params = [u((VOCAB, EMBED), 0.5), u((4 * HIDDEN, EMBED), 0.2),
              u((4 * HIDDEN, HIDDEN), 0.2), u((4 * HIDDEN,), 0.1),
              u((HIDDEN, VOCAB), 0.2), u((VOCAB,), 0.1)]

    def loss(params, tokens):
        embed, wx, wh, bias, wout, bout = params
        h = jnp.zeros((BATCH, HIDDEN), jnp.float32)
        c = jnp.zeros((BATCH, HIDDEN), jnp.float32)
        total = 0.0
        for t in range(SEQ):
            x = tokens[t] @ embed
            gates = x @ wx.T + h @ wh.T + bias
            i, f, g, o = jnp.split(gates, 4, axis=1)
            c = jax.nn.sigmoid(f) * c + jax.nn.sigmoid(i) * jnp.tanh(g)
            h = jax.nn.sigmoid(o) * jnp.tanh(c)
            logits = h @ wout + bout
            shifted = logits - logits.max(axis=1, keepdims=True)
            lse = jnp.log(jnp.exp(shifted).sum(axis=1))
            total = total + (lse - (shifted * tokens[t + 1]).sum(axis=1)).sum()
        return total / (BATCH * SEQ)

    @jax.jit
    def step(params, tokens):
        value, grads = jax.value_and_grad(loss)(params, tokens)
        return [p - 1.0 * g for p, g in zip(params, grads)], value

    def batch():
        out = np.zeros((SEQ + 1, BATCH, VOCAB), np.float32)
        for b in range(BATCH):
            start, stride = rng.integers(0, VOCAB), rng.integers(1, 4)
            for t in range(SEQ + 1):
                v = start if t == 0 else stride if t == 1 else \
                    (start + (t - 1) * stride) % VOCAB
                out[t, b, v] = 1.0
        return jnp.asarray(out)

    start = time.perf_counter()
    params, value = step(params, batch())
    value.block_until_ready()
    first = time.perf_counter() - start
    times = []
    for _ in range(steps - 1):
        tokens = batch()
        t0 = time.perf_counter()
        params, value = step(params, tokens)
        value.block_until_ready()
        times.append(time.perf_counter() - t0)
    print(json.dumps({"first_step_ms": first * 1e3,
                      "step_ms": 1e3 * sum(times) / max(len(times), 1),
                      "loss": float(value), "jax_version": jax.__version__}))


if __name__ == "__main__":
    main()
