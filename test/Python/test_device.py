"""Lazy tensors on the cuda device, on the stand-in driver of the build
tree (unittests/Runtime: device memory is host memory, kernels do not run,
its cuBLAS computes). Each test runs a subprocess: the runtime picks its
driver when it starts."""

import json
import os
import pathlib
import subprocess
import sys

import numpy as np
import pytest

import kiln

BUILD = pathlib.Path(kiln.__file__).resolve().parents[2]
DRIVER = BUILD / "unittests" / "Runtime" / "libkiln_fake_cuda_driver.so"
CUBLAS = BUILD / "unittests" / "Runtime" / "libkiln_fake_cublas.so"

# w <- p w for 20 host batches p (row shifts): matmuls only.
PROGRAM = r"""
import json, numpy as np, kiln
kiln.set_device("cuda")
w = kiln.tensor(np.arange(16, dtype=np.float32).reshape(4, 4) - 5.5)
steps = []
for step in range(20):
    p = kiln.tensor(np.roll(np.eye(4, dtype=np.float32), step % 3 + 1, axis=0))
    before = kiln.metrics()
    w = kiln.matmul(p, w)
    kiln.sync(w)
    after = kiln.metrics()
    steps.append([after["h2d_bytes"] - before["h2d_bytes"],
                  after["d2h_bytes"] - before["d2h_bytes"]])
kiln.synchronize()
before = kiln.metrics()
value = w.numpy()
again = w.numpy()
read = kiln.metrics()["d2h_bytes"] - before["d2h_bytes"]
print(json.dumps({"steps": steps, "read": read, "value": value.tolist(),
                  "again": again.tolist()}))
"""


def run_on_stand_in(program):
    if not DRIVER.exists() or not CUBLAS.exists():
        pytest.skip("the stand-in cuda driver is not built here")
    env = dict(os.environ, KILN_RT_LIBCUDA=str(DRIVER),
               KILN_RT_LIBCUBLAS=str(CUBLAS), KILN_CACHE="0")
    done = subprocess.run([sys.executable, "-c", program], env=env,
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_tensors_stay_on_the_device():
    result = run_on_stand_in(PROGRAM)
    # Step 0 uploads w and the batch (64 bytes each); later steps only the
    # batch; nothing comes back until w is read, once.
    assert result["steps"][0] == [128, 0]
    assert all(step == [64, 0] for step in result["steps"][1:])
    assert result["read"] == 64
    w = np.arange(16, dtype=np.float32).reshape(4, 4) - 5.5
    for step in range(20):
        w = np.roll(np.eye(4, dtype=np.float32), step % 3 + 1, axis=0) @ w
    np.testing.assert_array_equal(np.array(result["value"]), w)
    assert result["again"] == result["value"]


# A kiln.jit step of two products (w <- p w q), replayed on the cuda device:
# each replay is one CUDA graph launch, uploads only its batch, and
# computes what numpy computes (the stand-in cuBLAS computes products).
JIT_PROGRAM = r"""
import json, numpy as np, kiln
kiln.set_device("cuda")
q = kiln.tensor(np.roll(np.eye(4, dtype=np.float32), 1, axis=1))
w = kiln.tensor(np.arange(16, dtype=np.float32).reshape(4, 4) - 5.5)

@kiln.jit
def step(w, p):
    return kiln.matmul(kiln.matmul(p, w), q)

steps = []
for s in range(24):
    p = kiln.tensor(np.roll(np.eye(4, dtype=np.float32), s % 3 + 1, axis=0))
    before = kiln.metrics()
    w = step(w, p)
    after = kiln.metrics()
    steps.append([after["graph_launches"] - before["graph_launches"],
                  after["h2d_bytes"] - before["h2d_bytes"],
                  after["traced_ops"] - before["traced_ops"]])
print(json.dumps({"steps": steps, "value": w.numpy().tolist()}))
"""


def test_a_jit_replay_is_one_graph_launch():
    result = run_on_stand_in(JIT_PROGRAM)
    # From the 10th call on: replayed (nothing recorded), one graph launch,
    # the 64-byte batch uploaded.
    assert all(step == [1, 64, 0] for step in result["steps"][10:]), \
        result["steps"]
    w = np.arange(16, dtype=np.float32).reshape(4, 4) - 5.5
    q = np.roll(np.eye(4, dtype=np.float32), 1, axis=1)
    for s in range(24):
        w = np.roll(np.eye(4, dtype=np.float32), s % 3 + 1, axis=0) @ w @ q
    np.testing.assert_array_equal(np.array(result["value"]), w)
