"""The benchmark's workloads, as data and sizes both sides share: an LSTM
language model step (as kiln-lstm-train: vocab 16, batch 32, 8 positions,
embedding 16, hidden 64, SGD at lr 1) and the digits MLP step (64 -> 128 ->
10 at batch 64, Adam at lr 3e-3), on synthetic data of the same shapes;
and the timing both sides use."""

import time

import numpy as np

LSTM = dict(vocab=16, batch=32, seq=8, embed=16, hidden=64, lr=1.0)
MLP = dict(inputs=64, hidden=128, classes=10, batch=64, lr=3e-3)
# The small step of issue 41: 64 -> 128 -> 10, tanh, softmax cross-entropy
# on class labels, SGD with momentum 0.9, batch 64; the loss is not read
# between steps.
MLP_SGD = dict(inputs=64, hidden=128, classes=10, batch=64, lr=0.05,
               momentum=0.9)
# Many small state tensors: a stack of `layers` tanh layers of `width`
# (2 parameters each, and Adam's 2 moments per parameter), batch 64.
DEEP = dict(width=32, classes=10, batch=64, lr=1e-3)


def lstm_batch(rng):
    """Per position, the tokens one-hot [batch, vocab] (seq + 1 positions:
    each predicts the next). The stride language of kiln-lstm-train."""
    v, b, t = LSTM["vocab"], LSTM["batch"], LSTM["seq"]
    start = rng.integers(0, v, b)
    stride = rng.integers(1, 4, b)
    tokens = np.empty((b, t + 1), np.int64)
    tokens[:, 0] = start
    tokens[:, 1] = stride
    for i in range(2, t + 1):
        tokens[:, i] = (start + stride * (i - 1)) % v
    eye = np.eye(v, dtype=np.float32)
    return np.stack([eye[tokens[:, i]] for i in range(t + 1)])


def lstm_weights(rng):
    v, e, h = LSTM["vocab"], LSTM["embed"], LSTM["hidden"]

    def uniform(shape, scale):
        return rng.uniform(-scale, scale, shape).astype(np.float32)

    return [uniform((v, e), 0.5), uniform((4 * h, e), 1 / np.sqrt(e)),
            uniform((4 * h, h), 1 / np.sqrt(h)), np.zeros(4 * h, np.float32),
            uniform((h, v), 1 / np.sqrt(h)), np.zeros(v, np.float32)]


def labels_batch(rng, n, classes):
    """[batch, n] inputs and int64 class labels."""
    x = rng.random((MLP_SGD["batch"], n), dtype=np.float32)
    return x, rng.integers(0, classes, MLP_SGD["batch"]).astype(np.int64)


def mlp_sgd_batch(rng):
    return labels_batch(rng, MLP_SGD["inputs"], MLP_SGD["classes"])


def mlp_sgd_weights(rng):
    n, h, c = MLP_SGD["inputs"], MLP_SGD["hidden"], MLP_SGD["classes"]
    return [(rng.standard_normal((n, h)) / np.sqrt(n)).astype(np.float32),
            np.zeros(h, np.float32),
            (rng.standard_normal((h, c)) / np.sqrt(h)).astype(np.float32),
            np.zeros(c, np.float32)]


def deep_batch(rng):
    return labels_batch(rng, DEEP["width"], DEEP["classes"])


def deep_weights(rng, layers):
    """`layers` layers: width -> width, the last width -> classes."""
    w, c = DEEP["width"], DEEP["classes"]
    out = []
    for i in range(layers):
        n_out = c if i == layers - 1 else w
        out.append((rng.standard_normal((w, n_out)) /
                    np.sqrt(w)).astype(np.float32))
        out.append(np.zeros(n_out, np.float32))
    return out


def mlp_batch(rng):
    b, n, c = MLP["batch"], MLP["inputs"], MLP["classes"]
    x = rng.random((b, n), dtype=np.float32)
    y = np.eye(c, dtype=np.float32)[rng.integers(0, c, b)]
    return x, y


def mlp_weights(rng):
    n, h, c = MLP["inputs"], MLP["hidden"], MLP["classes"]
    return [(rng.standard_normal((n, h)) * np.sqrt(2 / n)).astype(np.float32),
            np.zeros(h, np.float32),
            (rng.standard_normal((h, c)) * np.sqrt(2 / h)).astype(np.float32),
            np.zeros(c, np.float32)]


def per_op_ns(fn, n=20000, repeats=7):
    """The best, over `repeats`, of fn(n)'s time per op, in ns."""
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn(n)
        best = min(best, time.perf_counter() - t0)
    return best / n * 1e9


def record_ops(a, b):
    """Per-op cost on two tiny tensors of any framework (the same
    operators on both sides): tensor + tensor, tensor * number, tanh, @."""

    def tensor_op(n):
        for _ in range(n):
            a + b

    def scalar_op(n):
        for _ in range(n):
            a * 2.0

    def unary_op(n):
        for _ in range(n):
            a.tanh()

    def matmul_op(n):
        for _ in range(n):
            a @ b

    return {"tensor_op_ns": per_op_ns(tensor_op),
            "scalar_op_ns": per_op_ns(scalar_op),
            "unary_op_ns": per_op_ns(unary_op),
            "matmul_op_ns": per_op_ns(matmul_op)}


def time_loop(call, steps, finish):
    """Microseconds per call of call(i) over `steps` calls, after a warm-up
    of 8 that ends as the timed loop does, with finish(last result); and
    what the last finish returned."""
    for i in range(8):
        out = call(i)
    finish(out)
    t0 = time.perf_counter()
    for i in range(steps):
        out = call(i)
    value = finish(out)
    return (time.perf_counter() - t0) / steps * 1e6, value
