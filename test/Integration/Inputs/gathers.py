"""Inputs for gathers.mlir, and numpy's answers, Philox4x32-10 included
(written here from the contract, independently of kiln's)."""
import sys

import numpy as np

M0, M1, W0, W1 = 0xD2511F53, 0xCD9E8D57, 0x9E3779B9, 0xBB67AE85
MASK = 0xFFFFFFFF


def philox(counter, key):
    c, k = list(counter), list(key)
    for r in range(10):
        if r:
            k = [(k[0] + W0) & MASK, (k[1] + W1) & MASK]
        p0, p1 = M0 * c[0], M1 * c[2]
        c = [(p1 >> 32) ^ c[1] ^ k[0], p1 & MASK, (p0 >> 32) ^ c[3] ^ k[1],
             p0 & MASK]
    return c


def uniform(seed, offset, count):
    out = np.empty(count, np.float32)
    for n in range(count):
        c = (offset + n // 4) & (2**64 - 1)
        word = philox([c & MASK, c >> 32, 0, 0], [seed & MASK, seed >> 32])
        out[n] = np.float32(word[n % 4] >> 8) * np.float32(2.0**-24)
    return out


def inputs():
    rng = np.random.default_rng(38)
    table = rng.standard_normal((7, 4)).astype(np.float32)
    ids = np.array([[3, 0, 3], [6, -1, 9]], np.int64)  # repeats, out of range
    cot = rng.standard_normal((2, 3, 4)).astype(np.float32)
    logits = rng.standard_normal((3, 5)).astype(np.float32)
    logits[1] = [1, 4, 4, 2, 4]            # ties: the first wins
    logits[2] = [0, np.nan, 9, np.nan, 1]  # the first NaN wins
    key = np.array([20261127, 5], np.int64)
    return table, ids, cot, logits, key


def expected(table, ids, cot, logits, key):
    valid = (ids >= 0) & (ids < table.shape[0])
    gathered = np.where(valid[..., None], table[np.clip(ids, 0, 6)], np.nan)
    scattered = table.copy()
    for j, i in enumerate(ids.reshape(-1)):
        if 0 <= i < table.shape[0]:
            scattered[i] += cot.reshape(-1, 4)[j]
    argmax = np.array([np.argmax(r) if not np.isnan(r).any()
                       else int(np.flatnonzero(np.isnan(r))[0])
                       for r in logits], np.int64)
    iota = np.broadcast_to(np.arange(3, dtype=np.int32), (2, 3)).copy()
    seed, offset = int(key[0]), int(key[1])
    return [gathered.astype(np.float32), scattered, argmax, iota,
            uniform(seed, offset, 24).reshape(4, 6)]


def main():
    mode, directory = sys.argv[1:3]
    values = inputs()
    if mode == "inputs":
        for name, value in zip(["table", "ids", "cot", "logits", "key"],
                               values):
            np.save(f"{directory}/{name}.npy", value)
        return
    for i, want in enumerate(expected(*values)):
        got = np.load(f"{directory}/out/out{i}.npy")
        assert got.dtype == want.dtype, (i, got.dtype, want.dtype)
        assert got.shape == want.shape, (i, got.shape, want.shape)
        if i == 1:  # a sum of floats: numpy adds in the same order
            np.testing.assert_allclose(got, want, rtol=1e-6, err_msg="out1")
        else:
            np.testing.assert_array_equal(got, want, err_msg=f"out{i}")
    print(f"numpy agrees on {i + 1} outputs")


if __name__ == "__main__":
    main()
