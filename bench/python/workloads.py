"""The benchmark's workloads, as data and sizes both sides share: an LSTM
language model step (as kiln-lstm-train: vocab 16, batch 32, 8 positions,
embedding 16, hidden 64, SGD at lr 1) and the digits MLP step (64 -> 128 ->
10 at batch 64, Adam at lr 3e-3), on synthetic data of the same shapes."""

import numpy as np

LSTM = dict(vocab=16, batch=32, seq=8, embed=16, hidden=64, lr=1.0)
MLP = dict(inputs=64, hidden=128, classes=10, batch=64, lr=3e-3)


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
