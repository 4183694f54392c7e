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
        want_w, want_b, want_loss, want_y = numpy_step(
            x.astype(np.float64), want_w, want_b, 0.05)
        np.testing.assert_allclose(loss.numpy(), want_loss, rtol=1e-4)
        np.testing.assert_allclose(y.numpy(), want_y, rtol=1e-4, atol=1e-5)
        np.testing.assert_allclose(w.numpy(), want_w, rtol=1e-4, atol=1e-5)
        np.testing.assert_allclose(b.numpy(), want_b, rtol=1e-4, atol=1e-5)
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
