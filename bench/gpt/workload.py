"""The GPT training step that bench/gpt/run.py times: the model of
examples/python/train_gpt.py at n_layer=4, n_head=4, n_embd=128,
block_size=64, batch 16, dropout 0.1, AdamW (betas 0.9, 0.99; decay 0.1 on
matrices), gradient clipping at 1.0 and a cosine learning rate, on
characters of /usr/share/common-licenses/GPL-3."""

import time

import numpy as np

TEXT = "/usr/share/common-licenses/GPL-3"
CONFIG = dict(n_layer=4, n_head=4, n_embd=128, block_size=64)
BATCH, DROPOUT, LR, MIN_LR, CLIP = 16, 0.1, 3e-3, 3e-4, 1.0


def load_data():
    with open(TEXT, encoding="utf-8") as f:
        text = f.read()
    chars = sorted(set(text))
    return np.array([chars.index(c) for c in text], np.int64), len(chars)


def batches(data, count, seed=0, batch=BATCH, block=CONFIG["block_size"]):
    rng = np.random.default_rng(seed)
    t = block
    out = []
    for _ in range(count):
        ix = rng.integers(0, len(data) - t - 1, batch)
        out.append((np.stack([data[i:i + t] for i in ix]),
                    np.stack([data[i + 1:i + 1 + t] for i in ix])))
    return out


def time_steps(step, data, warmup, steps):
    """Median and mean milliseconds per step after `warmup` steps; each
    step reads its loss (the sync point)."""
    losses = []
    for i in range(warmup):
        losses.append(step(*data[i % len(data)]))
    times = []
    for i in range(steps):
        begin = time.perf_counter()
        losses.append(step(*data[(warmup + i) % len(data)]))
        times.append(time.perf_counter() - begin)
    return {"median_ms": round(1e3 * float(np.median(times)), 2),
            "mean_ms": round(1e3 * float(np.mean(times)), 2),
            "first_loss": losses[0], "last_loss": losses[-1]}
