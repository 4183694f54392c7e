"""Inputs of the dynamic-batch Integration programs for
test/GPU/dynamic-shapes.test: DIR/x{0,1,5,300}.npy (n x 8), DIR/w.npy
(8 x 4), DIR/b4.npy (4) and DIR/b8.npy (8). Usage: dynamic_inputs.py DIR"""
import os
import sys

import numpy as np

out = sys.argv[1]
rng = np.random.default_rng(3)
for n in (0, 1, 5, 300):
    np.save(os.path.join(out, f"x{n}.npy"),
            rng.uniform(-1, 1, (n, 8)).astype(np.float32))
for name, shape in (("w", (8, 4)), ("b4", (4,)), ("b8", (8,))):
    np.save(os.path.join(out, f"{name}.npy"),
            rng.uniform(-1, 1, shape).astype(np.float32))
