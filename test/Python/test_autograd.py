"""Gradients: kiln.grad and backward() against finite differences, the
reference interpreter and PyTorch; the optimizers against PyTorch's."""

import glob
import os
import subprocess
import sys

import numpy as np
import pytest

import kiln
from conftest import assert_close

try:
    import torch
except ImportError:  # the torch comparisons are skipped without it
    torch = None


def model(x, w, v):
    """Many ops in one function: matmul, broadcasting, reductions,
    slices, concat, softmax, elementwise math."""
    h = kiln.tanh(x @ w + 0.5) * kiln.sigmoid(x[:, :3] - 1.0)
    h = kiln.concatenate([h, kiln.gelu(h[:, 1:2]) * 2.0], axis=1)
    p = kiln.softmax(h @ v, axis=-1)
    return (p * p).sum() + kiln.maximum(h, 0.1).mean() + (x ** 2).sum() / 7


def numeric_grad(f, arrays, index, eps=1e-6):
    a = arrays[index]
    g = np.zeros_like(a)
    for i in np.ndindex(a.shape):
        plus = [x.copy() for x in arrays]
        minus = [x.copy() for x in arrays]
        plus[index][i] += eps
        minus[index][i] -= eps
        g[i] = (f(*plus) - f(*minus)) / (2 * eps)
    return g


@pytest.fixture
def data(rng):
    x = rng.standard_normal((4, 5))
    w = rng.standard_normal((5, 3)) * 0.5
    v = rng.standard_normal((4, 6)) * 0.5
    return x, w, v


def evaluate(x, w, v):
    return model(kiln.tensor(x), kiln.tensor(w), kiln.tensor(v)).item()


def test_grad_against_finite_differences(data):
    x, w, v = data
    tx, tw, tv = (kiln.tensor(a) for a in data)
    grads = kiln.grad(model(tx, tw, tv), [tx, tw, tv])
    assert [g.shape for g in grads] == [a.shape for a in data]
    for index, g in enumerate(grads):
        assert g.dtype == np.float64
        assert_close(g, numeric_grad(evaluate, list(data), index),
                     rtol=1e-6, atol=1e-8)


def test_gradients_of_gradients(rng):
    # d/dx sum(dL/dx * u) by kiln.grad twice, against finite differences
    # of the first gradient.
    x0 = rng.standard_normal((3, 4))
    u = rng.standard_normal((3, 4))

    def first(x):
        tx = kiln.tensor(x)
        y = (kiln.tanh(tx) * tx.exp()).sum() + (tx @ tx.T).sum()
        return kiln.grad(y, [tx])[0], tx

    def directional(x):
        g, _ = first(x)
        return (g * kiln.tensor(u)).sum().item()

    g, tx = first(x0)
    (h,) = kiln.grad((g * kiln.tensor(u)).sum(), [tx])
    assert_close(h, numeric_grad(directional, [x0], 0), rtol=1e-6,
                 atol=1e-7)
    # The same through backward(create_graph=True).
    tx = kiln.tensor(x0, requires_grad=True)
    y = (kiln.tanh(tx) * tx.exp()).sum() + (tx @ tx.T).sum()
    (g,) = kiln.grad(y, [tx], create_graph=True)
    assert g.requires_grad
    (g * kiln.tensor(u)).sum().backward()
    assert_close(tx.grad, h, rtol=1e-10, atol=1e-10)


def test_grad_outputs_and_several_outputs(rng):
    a = rng.standard_normal((3, 2))
    x = kiln.tensor(a)
    y1, y2 = x * x, x.exp()
    c1, c2 = rng.standard_normal((3, 2)), rng.standard_normal((3, 2))
    (g,) = kiln.grad([y1, y2], [x], [kiln.tensor(c1), kiln.tensor(c2)])
    assert_close(g, 2 * a * c1 + np.exp(a) * c2, rtol=1e-12)
    with pytest.raises(ValueError, match="one element"):
        kiln.grad(y1, [x])
    with pytest.raises(ValueError, match="grad_outputs"):
        kiln.grad([y1, y2], [x], [kiln.tensor(c1)])


def test_backward_accumulates_into_leaves(rng):
    a = rng.standard_normal((4, 3)).astype(np.float32)
    w = kiln.tensor(a, requires_grad=True)
    b = kiln.zeros((3,), requires_grad=True)
    c = kiln.tensor(a)  # no grad wanted
    assert w.is_leaf and w.requires_grad and not c.requires_grad
    loss = ((w * c + b) ** 2).sum()
    assert loss.requires_grad and not loss.is_leaf
    loss.backward()
    assert_close(w.grad, 2 * a * a * a, rtol=1e-5)
    assert_close(b.grad, (2 * a * a).sum(axis=0), rtol=1e-5)
    assert c.grad is None
    assert not w.grad.requires_grad
    loss.backward()  # accumulates, as torch does
    assert_close(w.grad, 4 * a * a * a, rtol=1e-5)
    w.grad = None
    (w.sum() * 3).backward()
    assert_close(w.grad, np.full(a.shape, 3.0), rtol=1e-6)


def test_reading_the_loss_before_backward(rng):
    a = rng.standard_normal((4, 3)).astype(np.float32)
    w = kiln.tensor(a, requires_grad=True)
    loss = (w * w).sum()
    assert abs(loss.item() - (a * a).sum()) < 1e-4
    loss.backward()
    assert_close(w.grad, 2 * a, rtol=1e-6)


def test_backward_errors(rng):
    x = kiln.tensor(rng.standard_normal((3,)).astype(np.float32))
    with pytest.raises(ValueError, match="does not require grad"):
        (x * 2).sum().backward()
    w = kiln.ones((3,), requires_grad=True)
    with pytest.raises(ValueError, match="gradient"):
        (w * 2).backward()
    (w * 2).backward(kiln.ones((3,)))
    assert_close(w.grad, np.full(3, 2.0))
    with pytest.raises(RuntimeError, match="floating point"):  # PyTorch's
        (x > 0).requires_grad = True
    with pytest.raises(ValueError, match="leaf"):
        (w * 2).requires_grad = False
    assert not (w * 2).detach().requires_grad


def test_gradient_programs_match_the_reference_interpreter(tmp_path):
    # The programs kiln compiles for a forward + gradient (dumped with
    # KILN_DUMP_TRACES) give the reference interpreter's results.
    script = (
        "import numpy as np, kiln\n"
        "rng = np.random.default_rng(1)\n"
        "x = kiln.tensor(rng.standard_normal((4, 5)).astype(np.float32))\n"
        "w = kiln.tensor(rng.standard_normal((5, 3)).astype(np.float32))\n"
        "y = (kiln.tanh(x @ w) * kiln.sigmoid(x[:, :3])).sum()\n"
        "y = y + kiln.log_softmax(x, axis=0).mean()\n"
        "g = kiln.grad(y, [x, w])\n"
        "kiln.sync(y, *g)\n")
    env = dict(os.environ, KILN_DUMP_TRACES=str(tmp_path))
    subprocess.run([sys.executable, "-c", script], env=env, check=True)
    dumped = glob.glob(str(tmp_path / "trace-*.mlir"))
    assert dumped
    tool = kiln.find_tool("kiln-run")
    for path in dumped:
        result = subprocess.run(
            [tool, path, "--random-inputs=3", "--check-reference"],
            capture_output=True, text=True)
        assert result.returncode == 0, result.stdout + result.stderr


def linear_model_steps(make_opt, steps, backend, batch=16):
    """A two-layer model trained `steps` steps; returns losses and
    weights. `backend` is kiln or torch."""
    rng = np.random.default_rng(7)
    x = rng.standard_normal((batch, 6)).astype(np.float32)
    y = rng.standard_normal((batch, 2)).astype(np.float32)
    w1 = rng.standard_normal((6, 8)).astype(np.float32) * 0.3
    w2 = rng.standard_normal((8, 2)).astype(np.float32) * 0.3
    if backend == "torch":
        params = [torch.tensor(w1, requires_grad=True),
                  torch.tensor(w2, requires_grad=True)]
        tx, ty = torch.tensor(x), torch.tensor(y)
        act = torch.tanh
    else:
        params = [kiln.tensor(w1, requires_grad=True),
                  kiln.tensor(w2, requires_grad=True)]
        tx, ty = kiln.tensor(x), kiln.tensor(y)
        act = kiln.tanh
    opt = make_opt(params)
    losses = []
    for _ in range(steps):
        opt.zero_grad()
        loss = ((act(tx @ params[0]) @ params[1] - ty) ** 2).mean()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return losses, [p.detach().numpy() for p in params]


@pytest.mark.skipif(torch is None, reason="PyTorch is not installed")
@pytest.mark.parametrize("name,kiln_opt,torch_opt", [
    ("sgd", lambda p: kiln.optim.SGD(p, lr=0.1),
     lambda p: torch.optim.SGD(p, lr=0.1)),
    ("momentum", lambda p: kiln.optim.SGD(p, lr=0.05, momentum=0.9,
                                          weight_decay=0.01),
     lambda p: torch.optim.SGD(p, lr=0.05, momentum=0.9, weight_decay=0.01)),
    ("nesterov", lambda p: kiln.optim.SGD(p, lr=0.05, momentum=0.9,
                                          nesterov=True),
     lambda p: torch.optim.SGD(p, lr=0.05, momentum=0.9, nesterov=True)),
    ("dampening", lambda p: kiln.optim.SGD(p, lr=0.05, momentum=0.5,
                                           dampening=0.3),
     lambda p: torch.optim.SGD(p, lr=0.05, momentum=0.5, dampening=0.3)),
    ("adam", lambda p: kiln.optim.Adam(p, lr=0.01),
     lambda p: torch.optim.Adam(p, lr=0.01)),
    ("adam-decay", lambda p: kiln.optim.Adam(p, lr=0.02, betas=(0.8, 0.99),
                                             weight_decay=0.1),
     lambda p: torch.optim.Adam(p, lr=0.02, betas=(0.8, 0.99),
                                weight_decay=0.1)),
])
def test_optimizers_match_torch(name, kiln_opt, torch_opt):
    kiln_losses, kiln_weights = linear_model_steps(kiln_opt, 30, "kiln")
    torch_losses, torch_weights = linear_model_steps(torch_opt, 30, "torch")
    np.testing.assert_allclose(kiln_losses, torch_losses, rtol=2e-4,
                               atol=1e-6)
    for k, t in zip(kiln_weights, torch_weights):
        np.testing.assert_allclose(k, t, rtol=2e-4, atol=2e-5)
    assert kiln_losses[-1] < kiln_losses[0]


def test_a_training_step_compiles_once():
    before = kiln.metrics()
    # A batch size no other test uses: a program not compiled yet.
    losses, _ = linear_model_steps(lambda p: kiln.optim.Adam(p, lr=0.01), 20,
                                   "kiln", batch=13)
    after = kiln.metrics()
    assert after["compiles"] - before["compiles"] == 1
    assert after["runs"] - before["runs"] == 20
    assert losses[-1] < losses[0]


def test_optimizer_errors():
    with pytest.raises(ValueError):
        kiln.optim.SGD([], lr=0.1)
    with pytest.raises(ValueError):
        kiln.optim.SGD([kiln.ones((2,))], lr=0.1)  # no requires_grad
    with pytest.raises(TypeError):
        kiln.optim.Adam([np.ones(2)])
    with pytest.raises(ValueError):
        kiln.optim.Adam([kiln.ones((2,), requires_grad=True)], betas=(1, 0.9))


def test_rebind_keeps_flags_and_checks_the_type():
    p = kiln.ones((2, 3), requires_grad=True)
    p._rebind(p * 2)
    assert p.requires_grad and p.is_leaf
    assert_close(p, np.full((2, 3), 2.0))
    with pytest.raises(ValueError):
        p._rebind(kiln.ones((3, 2)))
    with pytest.raises(ValueError):
        p._rebind(kiln.ones((2, 3), dtype=np.float64))
