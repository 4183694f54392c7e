"""Inputs for integers.mlir, and numpy's answers to check its outputs."""
import sys

import numpy as np

INT32_MAX, INT32_MIN = 2**31 - 1, -2**31


def inputs():
    rng = np.random.default_rng(38)
    a = rng.integers(-1000, 1000, (4, 6)).astype(np.int32)
    b = rng.integers(-1000, 1000, (4, 6)).astype(np.int32)
    # Wrap-around: INT32_MAX + 1 and a product beyond 2^31.
    a[0, 0], b[0, 0] = INT32_MAX, 1
    a[0, 1], b[0, 1] = 65536, 65537
    x = rng.uniform(-5, 5, (4, 6)).astype(np.float32)
    # Truncation toward zero, saturation, NaN to 0.
    x[0, :5] = [2.9, -2.9, 1e20, -1e20, np.nan]
    return a, b, x


def saturate(x):
    out = np.where(np.isnan(x), 0, np.trunc(np.nan_to_num(x)))
    return np.clip(out, INT32_MIN, INT32_MAX).astype(np.int64).astype(np.int32)


def expected(a, b, x):
    a64, b64 = a.astype(np.int64), b.astype(np.int64)
    wrap = lambda v: ((v + 2**31) % 2**32 - 2**31).astype(np.int32)
    lt = a < b
    pick = np.where(lt, np.abs(-b), a).astype(np.int32)
    with np.errstate(invalid="ignore"):
        scaled = pick.astype(np.float32) * x
    return [wrap(a64 + b64), wrap(a64 * b64), lt, a.max(axis=1),
            a64.sum(axis=0), pick, scaled, saturate(x)]


def main():
    mode, directory = sys.argv[1:3]
    a, b, x = inputs()
    if mode == "inputs":
        for name, value in zip("abx", (a, b, x)):
            np.save(f"{directory}/{name}.npy", value)
        return
    for i, want in enumerate(expected(a, b, x)):
        got = np.load(f"{directory}/out/out{i}.npy")
        assert got.dtype == want.dtype, (i, got.dtype, want.dtype)
        assert got.shape == want.shape, (i, got.shape, want.shape)
        np.testing.assert_array_equal(got, want, err_msg=f"out{i}")
    print(f"numpy agrees on {i + 1} outputs")


if __name__ == "__main__":
    main()
