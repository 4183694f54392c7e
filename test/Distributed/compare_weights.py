"""Compares the .npy files of two directories: python3 compare_weights.py A B
TOLERANCE. Prints "N weights equal to TOLERANCE", or the worst difference of
each file that differs (relative to max(1, |a|)) and exits 1."""
import os
import sys

import numpy as np


def main():
    a_dir, b_dir, tolerance = sys.argv[1], sys.argv[2], float(sys.argv[3])
    names = sorted(f for f in os.listdir(a_dir) if f.endswith(".npy"))
    if not names or names != sorted(
            f for f in os.listdir(b_dir) if f.endswith(".npy")):
        sys.exit(f"compare_weights: {a_dir} and {b_dir} hold different files")
    bad = []
    for name in names:
        a = np.load(os.path.join(a_dir, name)).astype(np.float64)
        b = np.load(os.path.join(b_dir, name)).astype(np.float64)
        if a.shape != b.shape:
            bad.append(f"{name}: shapes {a.shape} and {b.shape}")
            continue
        worst = float(np.max(np.abs(a - b) / np.maximum(1.0, np.abs(a))))
        if not worst <= tolerance:
            bad.append(f"{name}: differs by {worst:.3g}")
    if bad:
        print("\n".join(bad))
        sys.exit(1)
    print(f"{len(names)} weights equal to {tolerance:g}")


if __name__ == "__main__":
    main()
