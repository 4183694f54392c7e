"""Automatic dynamic dims from Python: a training loop whose batch size
changes every step compiles 2 programs (one for the first size, one
shape-generic program for every later size), and its weights equal a numpy
model of the same steps."""

import numpy as np

import kiln

BATCHES = [8, 16, 5, 1, 32, 3, 12, 7, 2, 9, 24, 4, 6, 10, 11, 13, 64, 15,
           17, 20]


def numpy_step(x, w, b, lr):
    """loss = sum(tanh(x w + b)^2), one SGD step, in float64."""
    y = np.tanh(x @ w + b)
    dz = 2 * y * (1 - y * y)
    return w - lr * x.T @ dz, b - lr * dz.sum(axis=0), (y * y).sum(), y


def check_step(x, want_w, want_b, loss, y, w, b):
    """Checks one step's loss, rows and weights against numpy_step's;
    returns the weights numpy_step updated."""
    want_w, want_b, want_loss, want_y = numpy_step(
        x.astype(np.float64), want_w, want_b, 0.05)
    np.testing.assert_allclose(loss.numpy(), want_loss, rtol=1e-4)
    np.testing.assert_allclose(y.numpy(), want_y, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(w.numpy(), want_w, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(b.numpy(), want_b, rtol=1e-4, atol=1e-5)
    return want_w, want_b


def test_twenty_batch_sizes_compile_two_programs(rng):
    w0 = rng.uniform(-0.5, 0.5, (6, 4)).astype(np.float32)
    b0 = rng.uniform(-0.5, 0.5, (4,)).astype(np.float32)
    batches = [rng.uniform(-1, 1, (n, 6)).astype(np.float32) for n in BATCHES]
    w = kiln.tensor(w0, requires_grad=True)
    b = kiln.tensor(b0, requires_grad=True)
    opt = kiln.optim.SGD([w, b], lr=0.05)
    want_w, want_b = w0.astype(np.float64), b0.astype(np.float64)
    before = kiln.metrics()
    for step, x in enumerate(batches):
        if step == 3:
            fourth = kiln.metrics()
        y = kiln.tanh(kiln.tensor(x) @ w + b)
        loss = (y * y).sum()
        opt.zero_grad()
        loss.backward()
        opt.step()
        want_w, want_b = check_step(x, want_w, want_b, loss, y, w, b)
    after = kiln.metrics()
    # Each program of the step compiles for its first size and once more,
    # shape-generic, at its second. (The first step's backward is a program
    # of its own: its gradients start from nothing.) From the fourth size
    # on, nothing compiles.
    assert after["generic_compiles"] - before["generic_compiles"] >= 1
    assert after["compiles"] == fourth["compiles"]
    assert after["generic_hits"] - fourth["generic_hits"] >= len(BATCHES) - 4


def test_one_program_per_step_compiles_twice(rng):
    """A step that is one program (the loss, its gradient and the update,
    materialized together): 20 batch sizes, 2 compiles."""
    w = kiln.tensor(rng.uniform(-0.5, 0.5, (6, 4)).astype(np.float32))
    before = kiln.metrics()
    for n in BATCHES:
        x = kiln.tensor(rng.uniform(-1, 1, (n, 6)).astype(np.float32))
        loss = (kiln.tanh(x @ w) ** 2).sum()
        (g,) = kiln.grad(loss, [w])
        w = w - 0.05 * g
        kiln.sync(w, loss)
        w = kiln.tensor(w.numpy())
    after = kiln.metrics()
    assert after["compiles"] - before["compiles"] == 2
    assert after["generic_compiles"] - before["generic_compiles"] == 1


def test_mark_dynamic_compiles_generic_from_the_first_size(rng):
    """kiln.mark_dynamic(x, 0): the first batch size already compiles the
    shape-generic program; the next sizes compile nothing."""
    w = rng.uniform(-1, 1, (5, 3)).astype(np.float32)
    before = kiln.metrics()
    for n in (6, 2, 11):
        x = rng.uniform(-1, 1, (n, 5)).astype(np.float32)
        tx = kiln.tensor(x)
        kiln.mark_dynamic(tx, 0)
        got = kiln.relu(tx @ kiln.tensor(w) - 0.25).sum(axis=1).numpy()
        np.testing.assert_allclose(
            got, np.maximum(x @ w - 0.25, 0).sum(axis=1), rtol=1e-5,
            atol=1e-6)
    after = kiln.metrics()
    assert after["compiles"] - before["compiles"] == 1
    assert after["generic_compiles"] - before["generic_compiles"] == 1


def test_mark_dynamic_checks_the_dim():
    x = kiln.tensor(np.zeros((2, 3), np.float32))
    kiln.mark_dynamic(x, -1)  # the last dim
    try:
        kiln.mark_dynamic(x, 2)
    except IndexError as e:
        assert "dim 2 is out of range for a tensor of rank 2" in str(e)
    else:
        raise AssertionError("mark_dynamic accepted dim 2 of a rank-2 tensor")


GENERIC_PROGRAM = r"""
import json, sys
import numpy as np
import kiln
w = kiln.tensor(np.linspace(-1, 1, 24, dtype=np.float32).reshape(6, 4))
values = {}
for n in [int(s) for s in sys.argv[1:]]:
    x = kiln.tensor(np.linspace(-2, 2, 6 * n, dtype=np.float32).reshape(n, 6))
    values[n] = kiln.tanh(x @ w).sum(axis=1).numpy().tolist()
m = kiln.metrics()
print(json.dumps({"values": values, **{k: m[k] for k in (
    "compiles", "generic_compiles", "generic_hits", "disk_hits",
    "mlir_contexts")}}))
"""


def run_sizes(cache_dir, sizes):
    import json
    import os
    import subprocess
    import sys
    environment = dict(os.environ, KILN_CACHE_DIR=str(cache_dir))
    out = subprocess.run(
        [sys.executable, "-c", GENERIC_PROGRAM, *map(str, sizes)],
        env=environment, capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_a_second_process_loads_the_generic_program(tmp_path):
    """The shape-generic program goes to the compile cache with its
    pattern: a new process runs sizes it has never seen with no MLIR
    context, and computes what a process that compiled them computes."""
    cold = run_sizes(tmp_path, [3, 5, 8])
    assert cold["generic_compiles"] == 1 and cold["mlir_contexts"] == 1
    warm = run_sizes(tmp_path, [11, 2, 40])
    assert warm["mlir_contexts"] == 0
    assert warm["generic_compiles"] == 1 and warm["generic_hits"] == 2
    assert warm["disk_hits"] == 1
    fresh = run_sizes(tmp_path / "other", [11, 2, 40])
    assert fresh["mlir_contexts"] == 1
    for n in ("11", "2", "40"):
        np.testing.assert_allclose(warm["values"][n], fresh["values"][n],
                                   rtol=1e-6, atol=1e-6)


def test_jit_replays_new_batch_sizes_without_recording(rng):
    """Under kiln.jit, once two recorded calls of different batch sizes
    captured the same step (its programs shape-generic), every new batch
    size replays it: no op recorded, nothing compiled, the numpy model's
    results."""
    w0 = rng.uniform(-0.5, 0.5, (6, 4)).astype(np.float32)
    b0 = rng.uniform(-0.5, 0.5, (4,)).astype(np.float32)
    w = kiln.tensor(w0, requires_grad=True)
    b = kiln.tensor(b0, requires_grad=True)
    opt = kiln.optim.SGD([w, b], lr=0.05)

    @kiln.jit
    def step(x):
        y = kiln.tanh(x @ w + b)
        loss = (y * y).sum()
        opt.zero_grad()
        loss.backward()
        opt.step()
        return loss, y

    want_w, want_b = w0.astype(np.float64), b0.astype(np.float64)
    replayed = 0
    for n in BATCHES:
        x = rng.uniform(-1, 1, (n, 6)).astype(np.float32)
        tx = kiln.tensor(x)
        before = kiln.metrics()
        loss, y = step(tx)
        after = kiln.metrics()
        if step.generic_replays > replayed:
            replayed = step.generic_replays
            assert after["traced_ops"] == before["traced_ops"]
            assert after["compiles"] == before["compiles"]
        want_w, want_b = check_step(x, want_w, want_b, loss, y, w, b)
    # The first call creates the gradients; two more of different sizes
    # capture the same step; every later size replays it.
    assert step.recorded_calls <= 4
    assert step.generic_replays == len(BATCHES) - step.recorded_calls


def test_jit_records_every_size_when_the_step_depends_on_it(rng):
    """A Python number made from the batch size (a mean's 1 / n) differs
    between sizes: no step is trusted across sizes, and every result is
    right."""
    @kiln.jit
    def mean_square(x):
        return (x * x).sum(axis=0) / x.shape[0]

    for n in (3, 5, 7, 9, 11):
        x = rng.uniform(-1, 1, (n, 2)).astype(np.float32)
        np.testing.assert_allclose(mean_square(kiln.tensor(x)).numpy(),
                                   (x * x).mean(axis=0), rtol=1e-5)
    assert mean_square.generic_replays == 0
    assert mean_square.recorded_calls == 5
