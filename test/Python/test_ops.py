"""Every function and operator against numpy."""

import math

import numpy as np
import pytest

import kiln
from conftest import assert_close


def t(a):
    return kiln.tensor(a)


@pytest.fixture
def a(rng):
    return rng.standard_normal((3, 4)).astype(np.float32)


@pytest.fixture
def b(rng):
    return rng.standard_normal((3, 4)).astype(np.float32)


def test_attributes(a):
    x = t(a)
    assert x.shape == (3, 4)
    assert x.dtype == np.float32 and x.dtype == kiln.float32
    assert x.ndim == 2
    assert len(x) == 3
    assert isinstance(x, kiln.Tensor)
    with pytest.raises(TypeError):
        len(t(np.float32(1.0)))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_dtypes_kept(dtype):
    x = kiln.tensor(np.ones((2, 2), dtype))
    assert x.dtype == dtype
    assert (x * 2).numpy().dtype == dtype
    assert kiln.tensor([1.0, 2.0]).dtype == np.float32  # PyTorch's default


def test_arithmetic_operators(a, b):
    x, y = t(a), t(b)
    assert_close(x + y, a + b)
    assert_close(x - y, a - b)
    assert_close(x * y, a * b)
    assert_close(x / (y * y + 1), a / (b * b + 1))
    assert_close(-x, -a)
    assert_close(+x, a)
    assert_close(abs(x), np.abs(a))
    assert_close(abs(x) ** y, np.abs(a) ** b, rtol=1e-4)


def test_python_scalars_on_either_side(a):
    x = t(a)
    assert_close(1 - x, 1 - a)
    assert_close(x - 1, a - 1)
    assert_close(2 * x, 2 * a)
    assert_close(x * 2.5, a * 2.5)
    assert_close(1 / (x * x + 1), 1 / (a * a + 1))
    assert_close((x * x + 1) / 2, (a * a + 1) / 2)
    assert_close(3 + x, 3 + a)
    assert_close(x ** 2, a ** 2)
    assert_close(2 ** x, 2 ** a, rtol=1e-5)
    # A scalar takes the tensor's dtype.
    assert (t(a.astype(np.float64)) * 2).dtype == np.float64


def test_broadcasting(rng):
    a = rng.standard_normal((4, 1, 3)).astype(np.float32)
    b = rng.standard_normal((5, 1)).astype(np.float32)
    c = rng.standard_normal((3,)).astype(np.float32)
    assert_close(t(a) + t(b), a + b)
    assert_close(t(a) * t(c), a * c)
    assert_close(kiln.maximum(t(b), t(c)), np.maximum(b, c))
    assert (t(a) + t(b)).shape == (4, 5, 3)


def test_comparisons_and_where(a, b):
    x, y = t(a), t(b)
    for got, want in [(x < y, a < b), (x <= y, a <= b), (x > y, a > b),
                      (x >= y, a >= b), (x == x, a == a), (x != y, a != b),
                      (x > 0, a > 0)]:
        assert got.dtype == np.bool_
        np.testing.assert_array_equal(got.numpy(), want)
    assert_close(kiln.where(x > y, x, y), np.where(a > b, a, b))
    assert_close(kiln.where(x > 0, x, 0.0), np.where(a > 0, a, 0))
    assert_close(kiln.where(x > 0, 1.0, x), np.where(a > 0, 1, a))


@pytest.mark.parametrize("name", ["exp", "tanh", "sigmoid", "relu", "abs",
                                  "sin", "cos"])
def test_unary_functions(a, name):
    reference = {
        "sigmoid": lambda v: 1 / (1 + np.exp(-v)),
        "relu": lambda v: np.maximum(v, 0),
    }.get(name) or getattr(np, name)
    assert_close(getattr(kiln, name)(t(a)), reference(a), rtol=1e-5)
    if name in ("exp", "tanh", "sigmoid", "relu", "abs"):
        assert_close(getattr(t(a), name)(), reference(a), rtol=1e-5)


def test_positive_domain_functions(a):
    p = np.abs(a) + 0.5
    assert_close(kiln.log(t(p)), np.log(p))
    assert_close(t(p).log(), np.log(p))
    assert_close(kiln.sqrt(t(p)), np.sqrt(p))
    assert_close(t(p).sqrt(), np.sqrt(p))
    assert_close(kiln.rsqrt(t(p)), 1 / np.sqrt(p), rtol=1e-5)


def test_erf_and_gelu(a):
    erf = np.vectorize(math.erf)
    assert_close(kiln.erf(t(a)), erf(a), rtol=1e-5)
    assert_close(kiln.gelu(t(a)), 0.5 * a * (1 + erf(a / math.sqrt(2))),
                 rtol=1e-5)
    tanh_form = 0.5 * a * (1 + np.tanh(math.sqrt(2 / math.pi) *
                                       (a + 0.044715 * a ** 3)))
    assert_close(kiln.gelu(t(a), approximate=True), tanh_form, rtol=1e-5)


def test_maximum_minimum_with_scalars(a):
    assert_close(kiln.maximum(t(a), 0.0), np.maximum(a, 0))
    assert_close(kiln.minimum(0.5, t(a)), np.minimum(0.5, a))


def test_reductions(rng):
    a = rng.standard_normal((2, 3, 4)).astype(np.float32)
    x = t(a)
    assert_close(x.sum(), a.sum(), rtol=1e-5)
    assert x.sum().shape == ()
    assert_close(x.sum(axis=1), a.sum(axis=1))
    assert_close(x.sum(axis=-1, keepdims=True), a.sum(axis=-1, keepdims=True))
    assert x.sum(axis=(0, 2), keepdims=True).shape == (1, 3, 1)
    assert_close(x.sum(axis=(2, 0)), a.sum(axis=(0, 2)))
    assert_close(x.mean(), a.mean(), rtol=1e-5)
    assert_close(x.mean(axis=0), a.mean(axis=0))
    assert_close(x.mean(axis=(1, 2), keepdims=True),
                 a.mean(axis=(1, 2), keepdims=True))
    assert_close(x.max(), a.max())
    # max with a dim gives (values, indices), as PyTorch's.
    assert_close(x.max(axis=2).values, a.max(axis=2))
    assert_close(x.max(axis=1, keepdims=True)[0], a.max(axis=1, keepdims=True))
    assert_close(x.amax(2), a.max(axis=2))
    with pytest.raises(IndexError):
        x.sum(axis=3)
    with pytest.raises(ValueError):
        x.sum(axis=(1, 1))


def test_shapes(rng):
    a = rng.standard_normal((2, 3, 4)).astype(np.float32)
    x = t(a)
    assert_close(x.reshape(6, 4), a.reshape(6, 4))
    assert_close(x.reshape((4, -1)), a.reshape((4, -1)))
    assert x.reshape(-1).shape == (24,)
    assert_close(x.transpose(), a.transpose())
    assert_close(x.transpose(2, 0, 1), a.transpose(2, 0, 1))
    assert_close(x.transpose((1, 0, 2)), a.transpose((1, 0, 2)))
    assert_close(x.T, a.T)
    with pytest.raises(ValueError):
        x.reshape(5, -1)
    with pytest.raises(ValueError):
        x.reshape(5, 5)


def test_astype(a):
    x = t(a)
    assert x.astype(np.float64).dtype == np.float64
    assert_close(x.astype(np.float64), a.astype(np.float64))
    assert_close(x.astype("float16"), a.astype(np.float16), rtol=1e-3,
                 atol=1e-3)
    assert (x > 0).astype(np.float32).dtype == np.float32
    assert_close((x > 0).astype(np.float32), (a > 0).astype(np.float32))
    assert_close(x.astype(np.int32), a.astype(np.int32))
    with pytest.raises(TypeError):
        x.astype(np.int8)


def test_indexing(rng):
    a = rng.standard_normal((4, 5, 6)).astype(np.float32)
    x = t(a)
    for index in [1, -1, (1, 2), (slice(1, 3),), (slice(None), slice(2, 4)),
                  (Ellipsis, 0), (None, 1), (Ellipsis, None),
                  (1, Ellipsis, slice(0, 3)), (slice(-3, None), None, 2),
                  (slice(None), slice(10, 20))]:
        assert_close(x[index], a[index])
        assert x[index].shape == a[index].shape
    with pytest.raises(IndexError):
        x[4]
    with pytest.raises(IndexError):
        x[0, 0, 0, 0]
    assert_close(x[::2], a[::2])
    assert_close(x[[0, 1]], a[[0, 1]])
    with pytest.raises(ValueError, match="step"):
        x[::-1]
    with pytest.raises(TypeError):
        x[0] = 1.0


def test_matmul(rng):
    def check(sa, sb):
        a = rng.standard_normal(sa).astype(np.float32)
        b = rng.standard_normal(sb).astype(np.float32)
        assert_close(t(a) @ t(b), a @ b, rtol=1e-4, atol=1e-5)
        assert_close(kiln.matmul(t(a), t(b)), np.matmul(a, b), rtol=1e-4,
                     atol=1e-5)
    check((3, 4), (4, 5))
    check((2, 3, 4), (2, 4, 5))
    check((2, 3, 4), (4, 5))
    check((4,), (4, 5))
    check((3, 4), (4,))
    check((4,), (4,))
    check((2, 1, 3, 4), (5, 4, 2))
    check((3, 4), (2, 4, 5))
    with pytest.raises(ValueError):
        t(np.ones((3, 4), np.float32)) @ t(np.ones((5, 6), np.float32))


def test_concatenate_stack_split(rng):
    a = rng.standard_normal((2, 3)).astype(np.float32)
    b = rng.standard_normal((2, 5)).astype(np.float32)
    assert_close(kiln.concatenate([t(a), t(b)], axis=1),
                 np.concatenate([a, b], axis=1))
    assert_close(kiln.concatenate([t(a), t(a)]), np.concatenate([a, a]))
    assert_close(kiln.stack([t(a), t(a) * 2]), np.stack([a, a * 2]))
    assert_close(kiln.stack([t(a), t(a)], axis=-1), np.stack([a, a], axis=-1))
    c = rng.standard_normal((6, 4)).astype(np.float32)
    # PyTorch's split: pieces of a size (the last smaller), or given sizes.
    for size, cuts in [(3, [3]), (4, [4]), ([1, 5], [1]), ([2, 0, 4], [2, 2])]:
        got = kiln.split(t(c), size)
        want = np.split(c, cuts)
        assert len(got) == len(want)
        for g, w in zip(got, want):
            assert_close(g, w)
    got = kiln.split(t(c), 2, dim=1)
    for g, w in zip(got, np.split(c, 2, axis=1)):
        assert_close(g, w)
    with pytest.raises(RuntimeError):
        kiln.split(t(c), [2, 3])
    with pytest.raises(ValueError):
        kiln.stack([t(a), t(b)])


def test_softmax(rng):
    a = rng.standard_normal((3, 7)).astype(np.float32) * 10

    def softmax(v, axis):
        e = np.exp(v - v.max(axis=axis, keepdims=True))
        return e / e.sum(axis=axis, keepdims=True)

    assert_close(kiln.softmax(t(a)), softmax(a, -1), rtol=1e-5)
    assert_close(kiln.softmax(t(a), axis=0), softmax(a, 0), rtol=1e-5)
    assert_close(kiln.log_softmax(t(a)), np.log(softmax(a, -1)), rtol=1e-4,
                 atol=1e-5)


def test_creation():
    z = kiln.zeros((2, 3))
    assert z.shape == (2, 3) and z.dtype == np.float32
    assert_close(z, np.zeros((2, 3)))
    assert_close(kiln.ones(4, dtype=np.float64), np.ones(4))
    assert kiln.ones(4, dtype=np.float64).dtype == np.float64
    assert_close(kiln.full((2, 2), 3.5), np.full((2, 2), 3.5))
    with pytest.raises(ValueError):
        kiln.zeros((2, -1))
    assert kiln.tensor(np.arange(3)).dtype == kiln.int64
    with pytest.raises(TypeError):
        kiln.tensor(np.arange(3, dtype=np.uint8))  # kiln has no uint8


def test_values():
    x = kiln.tensor(np.array([[1.5]], np.float32))
    assert x.item() == 1.5
    assert float(x) == 1.5
    assert int(x * 2) == 3
    assert bool(x > 1)
    assert (x > 1).item() is True
    with pytest.raises(ValueError):
        kiln.ones((2,)).item()
    assert "tensor(" in repr(x) and "1.5" in repr(x)


def test_sync_computes_several_in_one_program(rng):
    a = rng.standard_normal((8, 8)).astype(np.float32)
    x = t(a)
    y, z = x.exp(), (x * 3).tanh()
    runs = kiln.metrics()["runs"]
    kiln.sync(y, z)
    assert kiln.metrics()["runs"] == runs + 1
    assert_close(y, np.exp(a), rtol=1e-5)
    assert_close(z, np.tanh(a * 3), rtol=1e-5)
    assert kiln.metrics()["runs"] == runs + 1  # already known


def test_metrics_keys():
    m = kiln.metrics()
    for key in ["traced_ops", "compiles", "cache_hits", "cache_misses",
                "compile_ms", "run_ms", "live_bytes", "h2d_bytes",
                "d2h_bytes", "device_live_bytes", "graph_launches",
                "graph_captures", "graph_node_updates", "peak_bytes",
                "device_peak_bytes"]:
        assert key in m


def test_peak_bytes_holds_a_runs_temporaries(rng):
    a = rng.standard_normal((256, 256)).astype(np.float32)
    x = t(a)
    kiln.reset_peak_memory_stats()
    before = kiln.metrics()
    assert before["peak_bytes"] == before["live_bytes"]
    # The tanh feeds a product: a [256, 256] temporary in the run's arena.
    y = kiln.matmul((x * 2).tanh(), x).tanh().sum()
    assert_close(y, np.tanh(np.tanh(a * 2) @ a).sum(), rtol=1e-3, atol=1e-2)
    after = kiln.metrics()
    assert after["peak_bytes"] >= before["live_bytes"] + a.nbytes
    assert after["live_bytes"] < after["peak_bytes"]
    kiln.reset_peak_memory_stats()
    m = kiln.metrics()
    assert m["peak_bytes"] == m["live_bytes"]


def test_a_new_scalar_does_not_recompile(rng):
    a = rng.standard_normal((5,)).astype(np.float32)
    (t(a) * 2.0 + 1.0).numpy()
    compiles = kiln.metrics()["compiles"]
    assert_close(t(a) * 3.0 + 7.0, a * 3 + 7)
    assert kiln.metrics()["compiles"] == compiles


def test_explain_misses_says_why(capfd):
    x = kiln.tensor(np.ones((3, 7), np.float32))
    kiln.tanh(x).numpy()
    kiln.explain_misses(True)
    try:
        kiln.sigmoid(x).numpy()  # same shape, another op: a miss
    finally:
        kiln.explain_misses(False)
    err = capfd.readouterr().err
    assert "trace cache miss" in err and "kiln.sigmoid" in err
    kiln.exp(x).numpy()
    assert "trace cache miss" not in capfd.readouterr().err


def test_devices():
    assert kiln.get_device() == "cpu"
    kiln.set_device("cpu")
    with pytest.raises(ValueError):
        kiln.set_device("tpu")
