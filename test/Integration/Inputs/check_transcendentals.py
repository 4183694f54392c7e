"""Writes a dense f32/f64 grid with special values (mode 'inputs'), or checks
kiln's exp, tanh and sigmoid on it against numpy in f64 (mode 'check').

The f32 forms are kiln's own polynomials and rational functions
(-kiln-expand-math): their relative error must stay within a few ulp over
the whole range, tails and signed zeros included; f64 uses libm.
"""
import sys

import numpy as np

N = 65536


def grid():
    tiny = np.logspace(-30, 1.4, 8000)
    specials = [np.inf, -np.inf, np.nan, 0.0, -0.0, 7.9053111, 88.3, -87.3]
    dense = np.linspace(-100, 100, N - 2 * len(tiny) - len(specials))
    return np.concatenate([dense, tiny, -tiny, specials])


def main():
    mode, directory = sys.argv[1], sys.argv[2]
    x = grid()
    if mode == "inputs":
        np.save(f"{directory}/x32.npy", x.astype(np.float32))
        np.save(f"{directory}/x64.npy", x.astype(np.float64))
        return
    # Bounds on the relative error: f32 ~ 2^-24 per ulp.
    bounds = {"32": {"exp": 4e-7, "tanh": 5e-7, "sigmoid": 4e-7},
              "64": {"exp": 1e-15, "tanh": 1e-15, "sigmoid": 1e-15}}
    for width, limits in bounds.items():
        xs = np.load(f"{directory}/x{width}.npy").astype(np.float64)
        with np.errstate(all="ignore"):
            want = {"exp": np.exp(xs), "tanh": np.tanh(xs),
                    "sigmoid": 1 / (1 + np.exp(-xs))}
        for index, name in enumerate(("exp", "tanh", "sigmoid")):
            got = np.load(f"{directory}/out{width}/out{index}.npy").astype(np.float64)
            ref = want[name]
            # Subnormal results have fewer bits, and sigmoid flushes them
            # to 0 (1 / (1 + exp(-x)) with exp(-x) = inf): there the
            # absolute error must stay below the smallest normal number.
            tiny = np.finfo(np.float32 if width == "32" else np.float64)
            if width == "32":
                ref = ref.astype(np.float32).astype(np.float64)
            subnormal = np.abs(ref) < tiny.tiny
            same = (got == ref) | (np.isnan(got) & np.isnan(ref))
            with np.errstate(all="ignore"):
                rel = np.abs(got - ref) / np.abs(ref)
            close = np.where(subnormal,
                             np.abs(got - ref) < tiny.tiny,
                             rel <= limits[name])
            bad = ~same & ~close
            if bad.any():
                i = int(np.argmax(bad))
                sys.exit(f"f{width} {name}({xs[i]!r}) = {got[i]!r}, want {ref[i]!r}")
            signs = np.signbit(got[xs == 0]) == np.signbit(xs[xs == 0])
            if name == "tanh" and not signs.all():
                sys.exit(f"f{width} tanh loses the sign of zero")
            worst = np.where(same | subnormal, 0, rel)
            print(f"f{width} {name}: max rel error {np.nanmax(worst):.2e}")


if __name__ == "__main__":
    main()
