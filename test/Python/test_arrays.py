"""Data in and out: numpy and DLPack, zero-copy where it can be, borrowed
arrays kept alive; errors at the op; threads; memory over many steps."""

import gc
import threading

import numpy as np
import pytest

import kiln
from conftest import assert_close

try:
    import torch
except ImportError:
    torch = None


def address(array):
    return array.__array_interface__["data"][0]


def test_numpy_shares_the_result_buffer(rng):
    x = kiln.tensor(rng.standard_normal((4, 4)).astype(np.float32))
    y = x * 2
    a, b = y.numpy(), y.numpy()
    assert address(a) == address(b)  # one buffer, no copy per call
    assert address(np.asarray(y)) == address(a)
    assert a.flags.writeable  # as torch's .numpy()


def test_tensor_copies_and_from_numpy_borrows(rng):
    a = rng.standard_normal((3, 5)).astype(np.float32)
    copied, borrowed = kiln.tensor(a), kiln.from_numpy(a)
    assert address(copied.numpy()) != address(a)
    assert address(borrowed.numpy()) == address(a)
    with pytest.raises(ValueError, match="C-contiguous"):
        kiln.from_numpy(a.T)
    with pytest.raises(TypeError):
        kiln.from_numpy([1.0, 2.0])
    assert_close(kiln.tensor(a.T), a.T)  # a copy may be of any layout


def test_a_borrowed_array_is_kept_alive():
    a = np.arange(1 << 16, dtype=np.float64)
    t = kiln.from_numpy(a)
    y = t * 2  # recorded, not computed
    del a, t
    gc.collect()
    np.testing.assert_array_equal(y.numpy(), np.arange(1 << 16) * 2.0)


def test_dlpack_with_numpy(rng):
    a = rng.standard_normal((2, 3)).astype(np.float32)
    t = kiln.from_dlpack(a)
    assert address(t.numpy()) == address(a)
    y = t + 1
    assert y.__dlpack_device__() == (1, 0)
    b = np.from_dlpack(y)
    assert address(b) == address(y.numpy())
    assert_close(b, a + 1)
    ids = kiln.from_dlpack(np.arange(4))  # integers travel too
    assert ids.dtype == kiln.int64
    assert_close(np.from_dlpack(ids * 2), np.arange(4) * 2)
    with pytest.raises(TypeError, match="int8"):
        kiln.from_dlpack(np.arange(4, dtype=np.int8))


@pytest.mark.skipif(torch is None, reason="PyTorch is not installed")
def test_dlpack_with_torch(rng):
    a = torch.tensor(rng.standard_normal((3, 4)), dtype=torch.float32)
    t = kiln.from_dlpack(a)
    assert address(t.numpy()) == a.data_ptr()
    y = kiln.tanh(t)
    back = torch.from_dlpack(y)
    assert back.data_ptr() == address(y.numpy())
    assert torch.allclose(back, torch.tanh(a), atol=1e-6)
    # A torch tensor kept alive by kiln after torch lets go of it.
    z = kiln.from_dlpack(torch.ones(5, dtype=torch.float64)) * 3
    gc.collect()
    np.testing.assert_array_equal(z.numpy(), np.full(5, 3.0))


def test_errors_are_raised_at_the_op(rng):
    x = kiln.tensor(rng.standard_normal((3, 4)).astype(np.float32))
    y = kiln.tensor(rng.standard_normal((5,)).astype(np.float32))
    with pytest.raises(ValueError, match=r"kiln.add.*\[3, 4\].*\[5\]"):
        x + y
    with pytest.raises(ValueError, match="matmul"):
        x @ x
    with pytest.raises(ValueError, match="reshape"):
        kiln.tensor(np.ones(6, np.float32)).reshape(4, 2)
    # f32 + f64 promotes, as PyTorch's operators do.
    assert (x + kiln.tensor(np.ones((3, 4), np.float64))).dtype == kiln.float64
    with pytest.raises(ValueError):
        kiln.concatenate([x, y])
    with pytest.raises(IndexError):
        kiln.softmax(x, axis=2)
    with pytest.raises(TypeError):
        kiln.exp(np.ones(3))
    with pytest.raises(ValueError):
        kiln.set_device("tpu")


def test_threads_record_at_once():
    results, errors = {}, []

    def work(seed):
        try:
            rng = np.random.default_rng(seed)
            a = rng.standard_normal((16, 8)).astype(np.float32)
            w = rng.standard_normal((8, 4)).astype(np.float32)
            for _ in range(20):
                y = kiln.tanh(kiln.tensor(a) @ kiln.tensor(w)).sum(axis=0)
                got = y.numpy()
            results[seed] = (got, np.tanh(a @ w).sum(axis=0))
        except Exception as e:  # reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(s,)) for s in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert len(results) == 4
    for got, want in results.values():
        assert_close(got, want, rtol=1e-4, atol=1e-5)


def rss_bytes():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4096


def test_memory_stays_flat_over_10000_steps():
    rng = np.random.default_rng(3)
    x = kiln.tensor(rng.standard_normal((32, 16)).astype(np.float32))
    y = kiln.tensor(rng.standard_normal((32, 1)).astype(np.float32))
    w = kiln.tensor(np.zeros((16, 1), np.float32), requires_grad=True)
    opt = kiln.optim.SGD([w], lr=0.01, momentum=0.9)

    def step():
        opt.zero_grad()
        loss = ((kiln.tanh(x @ w) - y) ** 2).mean()
        loss.backward()
        opt.step()
        return loss

    # Both kinds of step compile here: one that reads the loss (the loss,
    # the update and what the step left pending, in one program) and one
    # that reads nothing (the next backward computes what it left).
    for i in range(200):
        loss = step()
        if i % 2:
            loss.item()
    live, rss = kiln.metrics()["live_bytes"], rss_bytes()
    compiles = kiln.metrics()["compiles"]
    for i in range(10000):
        loss = step()
        if i % 100 == 0:
            loss.item()  # and every other step reads nothing
    kiln.sync()
    assert kiln.metrics()["compiles"] == compiles
    assert kiln.metrics()["live_bytes"] <= live + 4096
    assert rss_bytes() < rss + 32 * 2**20
