"""The compile cache across processes, from Python: a second process loads
the program the first compiled, with no MLIR context, and computes alike."""

import json
import os
import subprocess
import sys

PROGRAM = r"""
import json
import numpy as np
import kiln
x = kiln.tensor(np.linspace(-2, 2, 24, dtype=np.float32).reshape(4, 6))
w = kiln.tensor(np.full((6, 3), 0.25, np.float32))
y = (kiln.tanh(x @ w) * 3.0 + 1.0).sum(axis=1)
values = y.numpy().tolist()
m = kiln.metrics()
print(json.dumps({"values": values, **{k: m[k] for k in (
    "disk_hits", "disk_misses", "disk_writes", "mlir_contexts",
    "disk_bytes_read", "disk_bytes_written", "disk_corrupt",
    "disk_evictions")}}))
"""


def run(cache_dir, **env):
    environment = dict(os.environ, KILN_CACHE_DIR=str(cache_dir), **env)
    out = subprocess.run([sys.executable, "-c", PROGRAM], env=environment,
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_a_second_process_loads_without_mlir(tmp_path):
    cold = run(tmp_path)
    assert cold["disk_misses"] >= 1 and cold["disk_hits"] == 0
    assert cold["disk_writes"] >= 1 and cold["disk_bytes_written"] > 0
    assert cold["mlir_contexts"] == 1
    warm = run(tmp_path)
    assert warm["disk_hits"] >= 1 and warm["disk_misses"] == 0
    assert warm["disk_bytes_read"] > 0 and warm["disk_writes"] == 0
    assert warm["mlir_contexts"] == 0
    assert warm["values"] == cold["values"]


def test_disabled_and_corrupt(tmp_path):
    off = run(tmp_path, KILN_CACHE="0")
    assert off["disk_hits"] == off["disk_misses"] == off["disk_writes"] == 0
    run(tmp_path)
    for entry in tmp_path.glob("*.kiln"):
        data = bytearray(entry.read_bytes())
        data[-1] ^= 0xFF
        entry.write_bytes(bytes(data))
    again = run(tmp_path)
    assert again["disk_corrupt"] >= 1 and again["disk_hits"] == 0
    assert again["mlir_contexts"] == 1
    assert again["values"] == off["values"]
    assert run(tmp_path)["disk_hits"] >= 1
