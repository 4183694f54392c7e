"""The read rule: reading one pending tensor also computes, in the same
program, every live tensor that shares its pending work, unless that tensor
reads one of the program's results (docs: Python guide, "When tensors are
computed")."""

import numpy as np

import kiln


def block(rng, width=8, layers=6):
    """13 parameters: six (weight, bias) pairs and a gain."""
    params = []
    for _ in range(layers):
        w = rng.standard_normal((width, width)).astype(np.float32) * 0.3
        params.append(kiln.tensor(w, requires_grad=True))
        params.append(kiln.zeros((width,), requires_grad=True))
    params.append(kiln.ones((width,), requires_grad=True))
    return params


def forward(params, x):
    h = x
    for i in range(0, len(params) - 1, 2):
        h = kiln.tanh(h @ params[i] + params[i + 1]) + h
    return ((h * params[-1]) ** 2).mean()


def counts(before):
    after = kiln.metrics()
    return after["compiles"] - before["compiles"], after["runs"] - before["runs"]


def test_reading_gradients_one_after_another_runs_one_program():
    rng = np.random.default_rng(0)
    params = block(rng)
    assert len(params) == 13
    x = kiln.tensor(rng.standard_normal((4, 8)).astype(np.float32))
    loss = forward(params, x)
    loss.backward()
    before = kiln.metrics()
    grads = [p.grad.numpy() for p in params]
    assert counts(before) == (1, 1)
    # The loss shared that work: it was computed too, and backward() still
    # has its recipe.
    before = kiln.metrics()
    value = loss.item()
    assert counts(before) == (0, 0)
    assert np.isfinite(value)
    assert all(g.shape == tuple(p.shape) for g, p in zip(grads, params))


def test_shared_reads_give_the_values_of_separate_reads():
    rng = np.random.default_rng(1)
    arrays = [rng.standard_normal((5, 5)).astype(np.float32) for _ in range(2)]

    def run(together):
        a, b = (kiln.tensor(v) for v in arrays)
        h = kiln.tanh(a @ b)
        u, v = (h * 2).sum(), (h - 1).exp().mean()
        if together:
            return u.item(), v.item()
        u_value = u.item()
        del u
        return u_value, v.item()

    assert run(True) == run(False)


def test_a_tensor_that_reads_a_result_is_left_for_later():
    rng = np.random.default_rng(2)
    params = block(rng, layers=1)
    x = kiln.tensor(rng.standard_normal((4, 8)).astype(np.float32))
    opt = kiln.optim.SGD(params, lr=0.1)
    forward(params, x).backward()
    opt.step()
    # The next step's loss reads the updated parameters: it is not computed
    # with the update (that would run the next forward twice).
    next_loss = forward(params, x)
    before = kiln.metrics()
    params[0].numpy()
    compiles, runs = counts(before)
    assert runs == 1
    before = kiln.metrics()
    next_loss.item()
    assert counts(before)[1] == 1


def test_unrelated_live_tensors_are_not_computed():
    rng = np.random.default_rng(3)
    a = kiln.tensor(rng.standard_normal((3, 3)).astype(np.float32))
    b = kiln.tensor(rng.standard_normal((3, 3)).astype(np.float32))
    unrelated = (b * 3).exp()
    wanted = (a + 1).sum()
    before = kiln.metrics()
    wanted.item()
    assert counts(before)[1] == 1
    before = kiln.metrics()
    unrelated.numpy()
    assert counts(before)[1] == 1
