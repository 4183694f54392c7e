"""Inputs of bench/compile_cache/lstm_cell.py's program (input 6, hidden 5,
f64) at batch sizes 1, 3 and 7, as DIR/{x,h,c,cth,ctc}N.npy, and the
weights DIR/{wx,wh,b}.npy. Usage: lstm_batches.py DIR"""
import os
import sys

import numpy as np

out = sys.argv[1]
rng = np.random.default_rng(7)
for n in (1, 3, 7):
    for name, size in (("x", 6), ("h", 5), ("c", 5), ("cth", 5), ("ctc", 5)):
        np.save(os.path.join(out, f"{name}{n}.npy"),
                rng.uniform(-1, 1, (n, size)))
for name, shape in (("wx", (20, 6)), ("wh", (20, 5)), ("b", (20,))):
    np.save(os.path.join(out, f"{name}.npy"), rng.uniform(-1, 1, shape))
