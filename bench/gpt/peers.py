"""The peers' side of bench/gpt/run.py (the peers python of
../shared/peers/setup.sh): the same GPT step in PyTorch eager (torch.nn,
torch.optim.AdamW, clip_grad_norm_, CosineAnnealingLR) and as one jax.jit
call (the model, its gradient, clipping and AdamW written in jax.numpy; the
learning rate and the dropout key are arguments). A peer that is missing
gives an *_error field."""

import json
import math
import sys

import numpy as np

from torch_gpt import adamw, make_gpt, make_step
from workload import (BATCH, CLIP, CONFIG, DROPOUT, LR, MIN_LR, batches,
                    load_data, time_steps)


def torch_side(steps, warmup, threads):
    import torch
    torch.set_num_threads(threads)
    torch.manual_seed(0)
    data, vocab = load_data()
    model = make_gpt(torch, vocab, dropout=DROPOUT, **CONFIG)
    opt = adamw(torch, model, LR)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(
        opt, T_max=warmup + steps, eta_min=MIN_LR)

    step = make_step(torch, model, opt, CLIP, sched)

    out = time_steps(step, batches(data, 32), warmup, steps)
    out.update(version=torch.__version__, threads=torch.get_num_threads())
    return out


def jax_side(steps, warmup):
    import jax
    import jax.numpy as jnp
    C, H, T, L = (CONFIG["n_embd"], CONFIG["n_head"], CONFIG["block_size"],
                  CONFIG["n_layer"])
    data, vocab = load_data()
    rng = np.random.default_rng(0)

    def normal(*shape):
        return jnp.asarray(rng.normal(0, 0.02, shape).astype(np.float32))

    params = {"wte": normal(vocab, C), "wpe": normal(T, C),
              "ln_f": (jnp.ones(C), jnp.zeros(C)), "h": []}
    for _ in range(L):
        params["h"].append({
            "ln_1": (jnp.ones(C), jnp.zeros(C)),
            "ln_2": (jnp.ones(C), jnp.zeros(C)),
            "c_attn": (normal(3 * C, C), jnp.zeros(3 * C)),
            "c_proj": (normal(C, C), jnp.zeros(C)),
            "c_fc": (normal(4 * C, C), jnp.zeros(4 * C)),
            "mlp_proj": (normal(C, 4 * C), jnp.zeros(C))})
    mask = jnp.tril(jnp.ones((T, T), bool))

    def layer_norm(x, wb):
        mean = x.mean(-1, keepdims=True)
        var = ((x - mean) ** 2).mean(-1, keepdims=True)
        return (x - mean) * jax.lax.rsqrt(var + 1e-5) * wb[0] + wb[1]

    def linear(x, wb):
        return x @ wb[0].T + wb[1]

    def dropout(x, key):
        keep = jax.random.bernoulli(key, 1 - DROPOUT, x.shape)
        return jnp.where(keep, x / (1 - DROPOUT), 0)

    def loss_fn(p, x, y, key):
        keys = iter(jax.random.split(key, 1 + 3 * L))
        B = x.shape[0]
        h = dropout(p["wte"][x] + p["wpe"][:T], next(keys))
        for blk in p["h"]:
            q, k, v = jnp.split(linear(layer_norm(h, blk["ln_1"]),
                                       blk["c_attn"]), 3, axis=2)
            q, k, v = (t.reshape(B, T, H, C // H).transpose(0, 2, 1, 3)
                       for t in (q, k, v))
            att = (q @ k.transpose(0, 1, 3, 2)) / math.sqrt(C // H)
            att = jnp.where(mask, att, -jnp.inf)
            att = dropout(jax.nn.softmax(att, -1), next(keys))
            out = (att @ v).transpose(0, 2, 1, 3).reshape(B, T, C)
            h = h + dropout(linear(out, blk["c_proj"]), next(keys))
            m = jax.nn.gelu(linear(layer_norm(h, blk["ln_2"]), blk["c_fc"]),
                            approximate=False)
            h = h + dropout(linear(m, blk["mlp_proj"]), next(keys))
        logits = layer_norm(h, p["ln_f"]) @ p["wte"].T
        logp = jax.nn.log_softmax(logits, -1)
        return -jnp.take_along_axis(logp, y[..., None], -1).mean()

    def step_fn(p, m, v, t, lr, x, y, key):
        loss, g = jax.value_and_grad(loss_fn)(p, x, y, key)
        leaves = jax.tree_util.tree_leaves(g)
        norm = jnp.sqrt(sum((l * l).sum() for l in leaves))
        scale = jnp.minimum(CLIP / (norm + 1e-6), 1.0)
        g = jax.tree_util.tree_map(lambda a: a * scale, g)
        b1, b2 = 0.9, 0.99
        m = jax.tree_util.tree_map(lambda a, b: b1 * a + (1 - b1) * b, m, g)
        v = jax.tree_util.tree_map(lambda a, b: b2 * a + (1 - b2) * b * b,
                                   v, g)
        c1, c2 = 1 - b1 ** t, 1 - b2 ** t

        def update(w, mm, vv):
            decay = 0.1 if w.ndim >= 2 else 0.0
            w = w * (1 - lr * decay)
            return w - lr / c1 * mm / (jnp.sqrt(vv) / jnp.sqrt(c2) + 1e-8)
        p = jax.tree_util.tree_map(update, p, m, v)
        return p, m, v, loss

    jitted = jax.jit(step_fn, donate_argnums=(0, 1, 2))
    state = {"p": params,
             "m": jax.tree_util.tree_map(jnp.zeros_like, params),
             "v": jax.tree_util.tree_map(jnp.zeros_like, params), "t": 0}
    key = jax.random.PRNGKey(0)
    total = warmup + steps

    def step(x, y):
        state["t"] += 1
        t = state["t"]
        lr = MIN_LR + (LR - MIN_LR) * (1 + math.cos(math.pi * (t - 1) /
                                                    total)) / 2
        state["p"], state["m"], state["v"], loss = jitted(
            state["p"], state["m"], state["v"], jnp.float32(t),
            jnp.float32(lr), x, y, jax.random.fold_in(key, t))
        return float(loss)

    out = time_steps(step, batches(data, 32), warmup, steps)
    out.update(version=jax.__version__)
    return out


def main():
    steps = int(sys.argv[1]) if len(sys.argv) > 1 else 30
    import os
    out = {}
    # PyTorch with one thread and with every core: the faster is the peer
    # (Debian's PyTorch starts with one thread here, and two can be
    # slower on a machine whose two cores are hyperthreads).
    try:
        runs = {n: torch_side(steps, 5, n)
                for n in sorted({1, os.cpu_count() or 1})}
        out["torch_eager_by_threads"] = {str(n): r["median_ms"]
                                         for n, r in runs.items()}
        out["torch_eager"] = min(runs.values(),
                                 key=lambda r: r["median_ms"])
    except Exception as e:  # a missing peer is reported, not fatal
        out["torch_eager_error"] = f"{type(e).__name__}: {e}"
    try:
        out["jax_jit"] = jax_side(steps, 5)
    except Exception as e:
        out["jax_jit_error"] = f"{type(e).__name__}: {e}"
    print(json.dumps(out))


if __name__ == "__main__":
    main()
