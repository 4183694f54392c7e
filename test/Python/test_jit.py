"""kiln.jit: steps recorded until captured, then replayed without recording."""

import warnings
import weakref

import numpy as np
import pytest

import kiln


def mlp(rng, sizes=(8, 16, 4)):
    params = []
    for n_in, n_out in zip(sizes[:-1], sizes[1:]):
        w = rng.standard_normal((n_in, n_out)).astype(np.float32)
        params.append(kiln.tensor(w / np.sqrt(n_in), requires_grad=True))
        params.append(kiln.zeros((n_out,), requires_grad=True))
    return params


def forward(params, x):
    h = x
    for i in range(0, len(params), 2):
        h = h @ params[i] + params[i + 1]
        if i + 2 < len(params):
            h = h.tanh()
    return h


def cross_entropy(logits, labels_onehot):
    return -(kiln.log_softmax(logits, axis=1) * labels_onehot).sum() / \
        logits.shape[0]


def batches(rng, count, batch=16, n_in=8, classes=4):
    out = []
    for _ in range(count):
        x = rng.standard_normal((batch, n_in)).astype(np.float32)
        y = np.eye(classes, dtype=np.float32)[rng.integers(0, classes, batch)]
        out.append((x, y))
    return out


def training_step(params, opt):
    """The torch habit: zero_grad, backward, step; returns the loss."""

    def step(x, y):
        opt.zero_grad()
        loss = cross_entropy(forward(params, x), y)
        loss.backward()
        opt.step()
        return loss

    return step


def train(make_opt, data, use_jit, seed=1):
    params = mlp(np.random.default_rng(seed))
    step = training_step(params, make_opt(params))
    fn = kiln.jit(step) if use_jit else step
    losses = [fn(kiln.tensor(x), kiln.tensor(y)) for x, y in data]
    return [l.item() for l in losses], [p.numpy() for p in params], fn


@pytest.mark.parametrize("make_opt", [
    lambda p: kiln.optim.SGD(p, lr=0.1, momentum=0.9),
    lambda p: kiln.optim.Adam(p, lr=0.01),
    lambda p: kiln.optim.SGD(p, lr=0.05, weight_decay=1e-3, momentum=0.5,
                             nesterov=True),
], ids=["sgd-momentum", "adam", "sgd-nesterov"])
def test_replayed_steps_equal_recorded_steps(make_opt):
    data = batches(np.random.default_rng(3), 100)
    before = kiln.metrics()
    recorded_losses, recorded_params, _ = train(make_opt, data, False)
    # Without kiln.jit each loss is computed with its step's update, in one
    # program per step (the read rule: the loss shares the step's forward),
    # not by a forward of its own after the update, whose kernels and BLAS
    # calls could round differently on another CPU.
    assert kiln.metrics()["runs"] - before["runs"] == len(data)
    losses, params, fn = train(make_opt, data, True)
    # So both paths compute every loss and parameter by the same operations,
    # and the bits agree on every CPU and BLAS (KILN_CPU, OPENBLAS_CORETYPE).
    assert losses == recorded_losses
    for a, b in zip(params, recorded_params):
        np.testing.assert_array_equal(a, b)
    assert fn.recorded_calls == 3 and fn.replays == 97
    assert losses[-1] < losses[0]


def test_a_replay_records_nothing_and_compiles_nothing():
    rng = np.random.default_rng(4)
    params = mlp(rng)
    step = kiln.jit(training_step(params, kiln.optim.Adam(params, lr=0.01)))

    data = batches(rng, 20)
    for x, y in data[:3]:
        step(x, y)
    x_tensors = [(kiln.tensor(x), kiln.tensor(y)) for x, y in data[3:]]
    before = kiln.metrics()
    for x, y in x_tensors:
        step(x, y)
    after = kiln.metrics()
    assert after["traced_ops"] == before["traced_ops"]
    assert after["compiles"] == before["compiles"]
    assert after["cache_hits"] + after["cache_misses"] == \
        before["cache_hits"] + before["cache_misses"]
    assert after["replays"] - before["replays"] == len(x_tensors)
    assert after["runs"] - before["runs"] == len(x_tensors)
    # The state a replay rebinds is what the optimizer holds.
    assert all(p.grad is not None and p.grad.shape == p.shape
               for p in params)


def test_a_replay_writes_the_state_it_rebinds_in_place():
    # The parameters and momentum buffers a replay rebinds are held by
    # nothing else: each new value is computed in the old one's buffer.
    rng = np.random.default_rng(6)
    params = mlp(rng)
    opt = kiln.optim.SGD(params, lr=0.1, momentum=0.9)
    step = kiln.jit(training_step(params, opt))
    data = batches(rng, 8)
    for x, y in data[:4]:
        step(x, y)
    assert step.replays == 1
    before = kiln.metrics()
    for x, y in data[4:]:
        step(x, y)
    after = kiln.metrics()
    replays = len(data) - 4
    state_bytes = sum(4 * int(np.prod(p.shape)) for p in params)
    assert after["donated_buffers"] - before["donated_buffers"] == \
        2 * len(params) * replays
    assert after["donated_bytes"] - before["donated_bytes"] == \
        2 * state_bytes * replays


def test_state_held_elsewhere_is_not_overwritten():
    # A value that something else still holds (a detached tensor, a numpy
    # view) is not donated: it keeps the value it had.
    rng = np.random.default_rng(7)
    params = mlp(rng)
    step = kiln.jit(training_step(params, kiln.optim.Adam(params, lr=0.01)))
    data = batches(rng, 6)
    for x, y in data[:4]:
        step(x, y)
    held = params[0].detach()
    view = params[2].numpy()
    held_before = held.numpy().copy()
    view_before = view.copy()
    before = kiln.metrics()
    step(*data[4])
    donated = kiln.metrics()["donated_buffers"] - before["donated_buffers"]
    # 4 parameters, 8 moments and Adam's 4 step counters (updated in place
    # once the last update has read them), less the two held.
    assert donated == 4 * len(params) - 2
    np.testing.assert_array_equal(held.numpy(), held_before)
    np.testing.assert_array_equal(view, view_before)
    assert not np.array_equal(params[0].numpy(), held_before)
    assert not np.array_equal(params[2].numpy(), view_before)


def test_a_replay_recycles_gradients_nothing_else_holds():
    # A `.grad` that a replay replaces, held by nothing but its parameter,
    # takes the new gradient in its buffer and stays the same object; one
    # held elsewhere (a reference, a numpy view) keeps its value, and the
    # parameter gets a new tensor. The gradients are those of plain steps.
    rng = np.random.default_rng(8)
    data = batches(rng, 8)
    params = mlp(np.random.default_rng(1))
    plain = mlp(np.random.default_rng(1))
    step = kiln.jit(training_step(params, kiln.optim.Adam(params, lr=0.01)))
    plain_step = training_step(plain, kiln.optim.Adam(plain, lr=0.01))
    for x, y in data[:4]:
        step(kiln.tensor(x), kiln.tensor(y))
        plain_step(kiln.tensor(x), kiln.tensor(y))
    assert step.replays >= 1
    # Weak references: a new object could reuse a freed one's id.
    grads = [weakref.ref(p.grad) for p in params]
    x, y = data[4]
    step(kiln.tensor(x), kiln.tensor(y))
    plain_step(kiln.tensor(x), kiln.tensor(y))
    assert all(g() is p.grad for g, p in zip(grads, params))
    for p, q in zip(params, plain):
        np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(),
                                   rtol=1e-5, atol=1e-6)

    held = params[0].grad
    view = params[1].grad.numpy()
    held_before, view_before = held.numpy().copy(), view.copy()
    x, y = data[5]
    step(kiln.tensor(x), kiln.tensor(y))
    plain_step(kiln.tensor(x), kiln.tensor(y))
    np.testing.assert_array_equal(held.numpy(), held_before)
    np.testing.assert_array_equal(view, view_before)
    assert params[0].grad is not held
    assert grads[2]() is params[2].grad
    for p, q in zip(params, plain):
        np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(),
                                   rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(p.numpy(), q.numpy(), rtol=1e-5,
                                   atol=1e-6)


def test_new_shapes_record_again_and_both_are_kept():
    rng = np.random.default_rng(5)
    params = mlp(rng)
    step = kiln.jit(training_step(params, kiln.optim.SGD(params, lr=0.1)))

    big, small = batches(rng, 6, batch=16), batches(rng, 6, batch=5)
    for (x, y), (xs, ys) in zip(big, small):
        assert step(x, y).shape == ()
        assert step(xs, ys).shape == ()
    # The first two calls of each batch size record (SGD without momentum
    # creates no state); the rest replay.
    assert step.captures == 2
    assert step.recorded_calls == 4 and step.replays == 8


def test_returned_tensors_are_new_on_every_replay():
    w = kiln.tensor(np.ones(3, np.float32))

    @kiln.jit
    def f(x):
        return {"sum": (x * w).sum(), "pair": (x + 1, x * 2), "tag": "ok"}

    results = [f(kiln.tensor(np.full(3, i, np.float32))) for i in range(6)]
    assert f.replays == 4
    for i, r in enumerate(results):
        assert r["tag"] == "ok"
        assert r["sum"].item() == 3 * i
        np.testing.assert_array_equal(r["pair"][0].numpy(), np.full(3, i + 1))
        np.testing.assert_array_equal(r["pair"][1].numpy(), np.full(3, 2 * i))


def test_gradients_accumulate_across_replays_without_zero_grad():
    w = kiln.tensor(np.array([1.0, 2.0], np.float32), requires_grad=True)

    @kiln.jit
    def f(x):
        loss = (w * x).sum()
        loss.backward()
        return loss

    for i in range(1, 7):
        f(kiln.tensor(np.array([i, 10 * i], np.float32)))
    assert f.replays == 3
    # d/dw of sum(w * x) summed over the six calls.
    np.testing.assert_array_equal(w.grad.numpy(), [21, 210])


def test_state_carried_through_arguments():
    # An RNN's hidden state passed back in (as with jax.jit) replays.
    rng = np.random.default_rng(6)
    wh = kiln.tensor(rng.standard_normal((4, 4)).astype(np.float32) * 0.5)

    def cell(h, x):
        return (h @ wh + x).tanh()

    fn = kiln.jit(cell)
    h_plain = h_jit = kiln.tensor(np.zeros((2, 4), np.float32))
    for _ in range(8):
        x = kiln.tensor(rng.standard_normal((2, 4)).astype(np.float32))
        h_plain, h_jit = cell(h_plain, x), fn(h_jit, x)
        np.testing.assert_array_equal(h_jit.numpy(), h_plain.numpy())
    assert fn.replays == 6


def test_arguments_that_are_not_tensors_are_compared_by_value():
    @kiln.jit
    def f(x, scale, mode="sum"):
        y = x * scale
        return y.sum() if mode == "sum" else y.max()

    x = kiln.tensor(np.arange(4, dtype=np.float32))
    for scale, mode in [(2.0, "sum")] * 4 + [(3.0, "max")] * 3:
        expected = 6 * scale if mode == "sum" else 3 * scale
        assert f(x, scale, mode=mode).item() == expected
    assert f.replays == 2 + 1


def test_state_that_changes_between_calls_records_again():
    w = kiln.tensor(np.array([1.0, 2.0], np.float32), requires_grad=True)

    @kiln.jit
    def f(x):
        loss = (w * x).sum()
        loss.backward()  # accumulates into w.grad, which the step reads
        return loss

    x = kiln.tensor(np.array([1.0, 1.0], np.float32))
    for _ in range(4):
        f(x)
    assert f.replays == 1
    # The .grad the captured step reads is gone: the call records again
    # (a replay would read a gradient that no longer exists).
    w.grad = None
    f(x)
    np.testing.assert_array_equal(w.grad.numpy(), [1, 1])
    assert f.replays == 1
    with pytest.raises(ValueError, match="grad.*tensor<3xf32>.*tensor<2xf32>"):
        w.grad = kiln.tensor(np.ones(3, np.float32))


def test_replaced_state_records_again():
    state = {"w": kiln.tensor(np.ones((3, 2), np.float32))}

    @kiln.jit
    def f(x):
        return (x @ state["w"]).sum()

    x = kiln.tensor(np.ones((4, 3), np.float32))
    for _ in range(3):
        assert f(x).item() == 24
    assert f.replays == 1
    # A tensor replaced in a dict (or an attribute) is new state: the call
    # records again, and the next is captured anew.
    state["w"] = kiln.tensor(np.ones((3, 2), np.float32) * 2)
    assert [f(x).item() for _ in range(3)] == [48, 48, 48]
    assert f.replays == 2


def test_a_number_that_changes_every_call_is_never_replayed():
    x = kiln.tensor(np.ones(2, np.float32))
    count = [0]

    def f(x):
        count[0] += 1
        return (x * count[0]).sum()

    fn = kiln.jit(f)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        values = [fn(x).item() for _ in range(6)]
    assert values == [2, 4, 6, 8, 10, 12]
    assert fn.replays == 0
    assert any("recorded on every call" in str(w.message) for w in caught)


def test_reading_a_value_while_captured_warns():
    @kiln.jit
    def f(x):
        y = x * 2
        y.item()
        return y + 1

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for i in range(4):
            assert f(kiln.tensor(np.float32(i))).item() == 2 * i + 1
    assert f.replays == 2
    assert any(".item()" in str(w.message) for w in caught)


def test_checking_known_labels_is_not_a_read():
    """cross_entropy and indexing check the values of labels known when
    recorded (PyTorch's IndexError); that check is no read of a value that
    a replay would skip, so a training step warns of nothing."""
    kiln.manual_seed(0)
    model = kiln.nn.Linear(4, 3)
    opt = kiln.optim.SGD(model.parameters(), lr=0.1)

    @kiln.jit
    def step(x, y):
        opt.zero_grad()
        loss = kiln.nn.functional.cross_entropy(model(x), y)
        loss = loss + model.weight[y].sum() * 0
        loss.backward()
        opt.step()
        return loss

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for i in range(4):
            step(np.full((2, 4), i, np.float32), np.array([0, 2]))
        for i in range(4):
            step(kiln.randn(2, 4), kiln.randint(0, 3, (2,)))
    assert step.replays > 0
    assert not [w for w in caught if "kiln.jit" in str(w.message)]
    with pytest.raises(IndexError):
        kiln.nn.functional.cross_entropy(kiln.randn(2, 3), np.array([0, 3]))


def test_numpy_arguments_and_errors_inside_the_function():
    w = kiln.tensor(np.ones((3,), np.float32))

    @kiln.jit
    def f(x):
        if x.shape[0] == 5:
            raise RuntimeError("boom")
        return (x * w).sum()

    for i in range(4):
        assert f(np.full(3, i, np.float32)).item() == 3 * i
    with pytest.raises(RuntimeError, match="boom"):
        f(np.ones(5, np.float32))
    # Nothing stays captured after the error: plain ops and kiln.jit work.
    assert (w * 2).sum().item() == 6
    assert f(np.full(3, 7, np.float32)).item() == 21
    with pytest.raises(TypeError):
        kiln.jit(3)


def test_nested_jit_functions():
    w = kiln.tensor(np.full(2, 3, np.float32))
    inner = kiln.jit(lambda x: x * w)
    outer = kiln.jit(lambda x: inner(x) + 1)
    for i in range(5):
        np.testing.assert_array_equal(
            outer(kiln.tensor(np.full(2, i, np.float32))).numpy(),
            np.full(2, 3 * i + 1))
    assert outer.replays == 3


def test_threads_each_with_a_jitted_step():
    # Each thread's capture sees its own changes only: another thread's
    # optimizer step in the meantime is not part of it.
    import threading
    data = batches(np.random.default_rng(9), 40)
    make_opt = lambda p: kiln.optim.SGD(p, lr=0.1, momentum=0.9)  # noqa
    expected = train(make_opt, data, False)[1]
    results = {}

    def work(i):
        results[i] = train(make_opt, data, True)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for i in range(3):
        for a, b in zip(results[i][1], expected):
            np.testing.assert_array_equal(a, b)
    # (A thread whose call comes while another captures records it plainly.)
    assert sum(results[i][2].replays for i in range(3)) > 0
