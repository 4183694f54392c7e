"""Inputs and a numpy model of the LSTM cell in lstm_cell.mlir.

  lstm.py make DIR      writes the inputs of both entries into DIR
  lstm.py check DIR ENTRY OUTDIR
                        compares OUTDIR/out*.npy (written by kiln-run
                        --output-dir) with numpy and prints one line per output
"""

import sys

import numpy as np

B, H, I = 64, 256, 48


def sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def pointwise(gates, c):
    # torch.chunk(gates, 4, 1): input, forget, cell and output gates.
    i, f, g, o = np.split(gates, 4, axis=1)
    i, f, g, o = sigmoid(i), sigmoid(f), np.tanh(g), sigmoid(o)
    c2 = f * c + i * g
    h2 = o * np.tanh(c2)
    return h2, c2


def make(d):
    rng = np.random.default_rng(2018)

    def save(name, shape, scale=1.0):
        a = (rng.standard_normal(shape) * scale).astype(np.float32)
        np.save(f"{d}/{name}.npy", a)

    save("gates", (B, 4 * H), 2.0)
    save("c", (B, H))
    save("x", (B, I))
    save("h", (B, H))
    save("w_ih", (4 * H, I), 0.2)
    save("w_hh", (4 * H, H), 0.1)
    save("b_ih", (4 * H,), 0.1)
    save("b_hh", (4 * H,), 0.1)


def load(d, name):
    return np.load(f"{d}/{name}.npy").astype(np.float64)


def check(d, entry, out):
    if entry == "lstm_pointwise":
        want = pointwise(load(d, "gates"), load(d, "c"))
    elif entry == "lstm_cell":
        x, h, c = load(d, "x"), load(d, "h"), load(d, "c")
        gates = (x @ load(d, "w_ih").T + load(d, "b_ih") +
                 h @ load(d, "w_hh").T + load(d, "b_hh"))
        want = pointwise(gates, c)
    else:
        sys.exit(f"unknown entry {entry}")
    ok = True
    for k, w in enumerate(want):
        got = np.load(f"{out}/out{k}.npy")
        if got.dtype != np.float32 or got.shape != w.shape:
            print(f"out{k}: got {got.dtype} {got.shape}, want float32 {w.shape}")
            ok = False
            continue
        err = np.abs(got.astype(np.float64) - w)
        close = np.allclose(got, w, rtol=1e-5, atol=1e-5)
        ok = ok and close
        print(f"numpy: out{k} {got.dtype} {'x'.join(map(str, got.shape))} "
              f"{'matches' if close else 'DIFFERS'}, max abs error {err.max():.3g}")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    if sys.argv[1] == "make":
        make(sys.argv[2])
    else:
        check(*sys.argv[2:5])
