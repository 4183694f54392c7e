"""The training step bench/memory/run.py measures: the GPT of
examples/python/train_gpt.py at n_layer=4, n_head=4, n_embd=256,
block_size=128, batch 32 (no dropout), AdamW and gradient clipping, on
characters of /usr/share/common-licenses/GPL-3; and how a process's memory
is read (the same way for kiln and its peers)."""

import importlib.util
import os

# The character data of bench/gpt (its workload module, by path: both are
# named workload).
_spec = importlib.util.spec_from_file_location(
    "gpt_workload", os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                 "..", "gpt", "workload.py"))
_gpt = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_gpt)

CONFIG = dict(n_layer=4, n_head=4, n_embd=256, block_size=128)
BATCH, LR, CLIP, WARMUP, STEPS = 32, 1e-3, 1.0, 3, 4
load_data = _gpt.load_data


def batches(data, count, seed=0):
    return _gpt.batches(data, count, seed, batch=BATCH,
                        block=CONFIG["block_size"])


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
