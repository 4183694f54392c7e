"""KILN_REMAT=auto (the CPU's default): the backward recomputes cheap elementwise values (a
GELU's output, a LayerNorm's, a dropout mask) from what it keeps anyway
instead of keeping them: the same values and gradients, and a lower peak.
Each setting runs in a process of its own (read when a program compiles)."""

import json
import os
import subprocess
import sys

import pytest

PROGRAM = r"""
import json
import numpy as np
import kiln
from kiln import nn

kiln.manual_seed(5)
rng = np.random.default_rng(5)
# Wide enough for the default's sizes (values from 64 KiB, and 1 MiB saved
# for a recomputation only a product reads): the LayerNorms' outputs are
# 1 MiB, the GELUs' 4 MiB.
width = 256
blocks = [nn.ModuleDict({"norm": nn.LayerNorm(width),
                         "up": nn.Linear(width, 4 * width),
                         "drop": nn.Dropout(0.25),
                         "down": nn.Linear(4 * width, width)})
          for _ in range(3)]
params = [p for b in blocks for p in b.parameters()]
opt = kiln.optim.SGD(params, lr=0.05, momentum=0.9)
x = kiln.tensor(rng.standard_normal((64, 16, width)).astype(np.float32))


def step():
    h = x
    for b in blocks:
        h = h + b["down"](b["drop"](nn.functional.gelu(b["up"](b["norm"](h)))))
    loss = (h * h).mean()
    opt.zero_grad()
    loss.backward()
    grads = [p.grad.numpy().tolist() for p in params[:4]]
    opt.step()
    return float(loss), grads


step()  # compiles
kiln.reset_peak_memory_stats()
live = kiln.metrics()["live_bytes"]
losses, grads = [], None
for _ in range(3):
    loss, grads = step()
    losses.append(loss)
print(json.dumps({"losses": losses, "grads": grads,
                  "peak": kiln.metrics()["peak_bytes"] - live}))
"""


def run(tmp_path, remat):
    env = dict(os.environ, KILN_CACHE_DIR=str(tmp_path / "cache"),
               KILN_REMAT=remat)
    out = subprocess.run([sys.executable, "-c", PROGRAM], env=env,
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_same_training_and_a_lower_peak(tmp_path):
    import numpy as np
    kept = run(tmp_path, "none")
    recomputed = run(tmp_path, "auto")
    np.testing.assert_allclose(recomputed["losses"], kept["losses"],
                               rtol=1e-5)
    for got, want in zip(recomputed["grads"], kept["grads"]):
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-6)
    # The GELU outputs (the widest values kept), the LayerNorms' and the
    # dropout masks are recomputed: at least a fifth less.
    assert recomputed["peak"] <= 0.8 * kept["peak"], (recomputed, kept)


def test_on_by_default_on_the_cpu(tmp_path):
    default = run(tmp_path, "")
    recomputed = run(tmp_path, "auto")
    assert default == recomputed


def test_a_bad_setting_is_refused(tmp_path):
    env = dict(os.environ, KILN_CACHE_DIR=str(tmp_path), KILN_REMAT="always")
    out = subprocess.run(
        [sys.executable, "-c",
         "import kiln\nprint((kiln.tensor([1.0, 2.0]) * 2).numpy())"],
        env=env, capture_output=True, text=True)
    assert out.returncode != 0
    assert "KILN_REMAT must be 'auto' or 'none', not 'always'" in out.stderr
