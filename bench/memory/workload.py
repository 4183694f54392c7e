"""The training step bench/memory/run.py measures: the GPT of
examples/python/train_gpt.py at n_layer=4, n_head=4, n_embd=256,
block_size=128, batch 32 (no dropout), AdamW and gradient clipping, on
characters of /usr/share/common-licenses/GPL-3; and how a process's memory
is read (the same way for kiln and its peers)."""

import numpy as np

TEXT = "/usr/share/common-licenses/GPL-3"
CONFIG = dict(n_layer=4, n_head=4, n_embd=256, block_size=128)
BATCH, LR, CLIP, WARMUP, STEPS = 32, 1e-3, 1.0, 3, 4


def load_data():
    with open(TEXT, encoding="utf-8") as f:
        text = f.read()
    chars = sorted(set(text))
    return np.array([chars.index(c) for c in text], np.int64), len(chars)


def batches(data, count, seed=0):
    rng = np.random.default_rng(seed)
    t = CONFIG["block_size"]
    out = []
    for _ in range(count):
        ix = rng.integers(0, len(data) - t - 1, BATCH)
        out.append((np.stack([data[i:i + t] for i in ix]),
                    np.stack([data[i + 1:i + 1 + t] for i in ix])))
    return out


def _status(field):
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1]) * 1024
    raise RuntimeError(f"no {field} in /proc/self/status")


def reset_peak_rss():
    """Starts the process's peak RSS (VmHWM) again from its RSS (Linux's
    /proc/self/clear_refs, 5); returns the RSS."""
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")
    return _status("VmRSS")


def peak_rss():
    return _status("VmHWM")


def measure(step, data, before_steps=None):
    """Runs WARMUP steps (compiles, optimizer state), then STEPS steps with
    the peak RSS reset: the RSS the steps added at most, and the losses."""
    losses = [step(*data[i]) for i in range(WARMUP)]
    if before_steps:
        before_steps()
    rss = reset_peak_rss()
    losses += [step(*data[WARMUP + i]) for i in range(STEPS)]
    return {"rss_step_peak_bytes": peak_rss() - rss,
            "first_loss": losses[0], "last_loss": losses[-1]}
