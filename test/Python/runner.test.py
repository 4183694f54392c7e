import sys

import numpy as np

import kiln

path = sys.argv[1]
rng = np.random.default_rng(0)
x, h, c = (rng.standard_normal(s, dtype=np.float32) for s in [(4, 16), (4, 8), (4, 8)])
wx = rng.standard_normal((32, 16), dtype=np.float32) * 0.1
wh = rng.standard_normal((32, 8), dtype=np.float32) * 0.1
b = rng.standard_normal(32, dtype=np.float32)

h2, c2 = kiln.run(path, x, h, c, wx, wh, b)

sig = lambda v: 1 / (1 + np.exp(-v))
gates = x @ wx.T + h @ wh.T + b
i, f, g, o = np.split(gates, 4, axis=1)
c_ref = sig(f) * c + sig(i) * np.tanh(g)
h_ref = sig(o) * np.tanh(c_ref)
assert h2.dtype == np.float32 and h2.shape == (4, 8)
np.testing.assert_allclose(c2, c_ref, rtol=1e-5, atol=1e-5)
np.testing.assert_allclose(h2, h_ref, rtol=1e-5, atol=1e-5)
print("lstm ok")

_, report = kiln.run(path, x, h, c, wx, wh, b, repeat=3, report=True)
assert report["backend"] == "cpu" and report["repeat"] == 3
print("report ok")

try:
    kiln.run(path, x)
except kiln.KilnRunError as e:
    print("error ok:", e)
