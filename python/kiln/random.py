"""kiln's random numbers: one global generator, as PyTorch's default one.

The generator's state is a kiln tensor of two int64s, (seed, offset). A
draw of n numbers uses ``kiln.rng_uniform`` with the state as its key
(Philox4x32-10: number i of the draw is 32-bit word ``i mod 4`` of the
block at counter ``offset + i div 4``, scaled to [0, 1) from its top 24
bits) and advances the offset by ``ceil(n / 4)`` counters. The key is data:
a new seed or offset never compiles a new program, and a ``kiln.jit``
replay draws new numbers on every call.

- ``rand``: those uniform numbers in [0, 1).
- ``randn``: Box-Muller on pairs. For n normals, 2m = 2 ceil(n / 2)
  uniforms are drawn; uniform 2k is u1, 2k + 1 is u2, and normals 2k and
  2k + 1 are ``r cos(2 pi u2)`` and ``r sin(2 pi u2)``, with
  ``r = sqrt(-2 log(1 - u1))``.
- ``randint(low, high)``: ``low + floor(u (high - low))`` computed in
  float64 (24 random bits: ranges above 2^24 are not all reachable).

The numbers are not PyTorch's (its CPU generator is mt19937): the same
seed gives other values than ``torch.manual_seed``.
"""

import math

import numpy as _np

from . import _C
from ._dtypes import float32, int64, is_floating, to_dtype

_DEFAULT_SEED = 67280421310721  # PyTorch's default initial seed


class _Generator:
    def __init__(self):
        self._state = None
        self._seed = _DEFAULT_SEED

    def state(self):
        if self._state is None:
            self._state = _C.tensor(_np.array([self._seed, 0], _np.int64))
        return self._state

    def manual_seed(self, seed):
        seed = int(seed)
        if not -(1 << 63) <= seed < (1 << 64):
            raise RuntimeError("Overflow when unpacking long")
        self._seed = seed & ((1 << 64) - 1)
        value = _C.tensor(_np.array([self._seed, 0], _np.uint64).view(
            _np.int64))
        if self._state is None:
            self._state = value
        else:
            # The same tensor object, rebound: a kiln.jit capture that reads
            # the state reads the new seed.
            self._state._rebind(value)
        return self

    def initial_seed(self):
        return self._seed

    def uniform(self, shape):
        """``shape``'s uniform f32 numbers; advances the offset."""
        state = self.state()
        numbers = _C._rng_uniform(state, list(shape))
        count = -(-math.prod(shape) // 4)
        # Computed with the program that next reads a value (a backward()
        # or an optimizer step does not compute it first: none needs it).
        state._rebind(state + _C.tensor(_np.array([0, count], _np.int64)))
        _C._mark_companion([state])
        return numbers


default_generator = _Generator()


def manual_seed(seed):
    """Seeds kiln's generator (the offset goes back to 0)."""
    return default_generator.manual_seed(seed)


def seed():
    s = int.from_bytes(_np.random.default_rng().bytes(8), "little") >> 1
    manual_seed(s)
    return s


def initial_seed():
    return default_generator.initial_seed()


def _shape(size):
    if len(size) == 1 and not isinstance(size[0], (int, _np.integer)):
        size = tuple(size[0])
    return tuple(int(d) for d in size)


def _finish(x, dtype, requires_grad):
    if dtype is not None:
        dtype = to_dtype(dtype)
        if not is_floating(dtype):
            raise RuntimeError(f"{dtype} is not a floating dtype: rand and "
                               "randn make floats")
        if dtype != float32:
            x = x.to(dtype)
    if requires_grad:
        x = x.detach().requires_grad_()
    return x


def rand(*size, dtype=None, requires_grad=False):
    """Uniform numbers in [0, 1) of shape ``size``."""
    return _finish(default_generator.uniform(_shape(size)), dtype,
                   requires_grad)


def _normal(shape):
    n = math.prod(shape)
    pairs = -(-n // 2)
    u = default_generator.uniform((pairs, 2))
    u1, u2 = u[:, 0], u[:, 1]
    r = ((1.0 - u1).log() * -2.0).sqrt()
    angle = u2 * (2 * math.pi)
    z = _C.stack([r * angle.cos(), r * angle.sin()], axis=1).reshape(-1)
    if 2 * pairs != n:
        z = z[:n]
    return z.reshape(shape)


def randn(*size, dtype=None, requires_grad=False):
    """Standard normal numbers of shape ``size`` (Box-Muller)."""
    return _finish(_normal(_shape(size)), dtype, requires_grad)


def randint(*args, size=None, dtype=None, requires_grad=False):
    """``randint(high, size)`` or ``randint(low, high, size)``: integers in
    [low, high), int64 unless ``dtype`` says otherwise."""
    if size is not None:
        args = args + (size,)
    if len(args) == 2:
        low, (high, size) = 0, args
    elif len(args) == 3:
        low, high, size = args
    else:
        raise TypeError("randint(low=0, high, size)")
    low, high = int(low), int(high)
    if high <= low:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', "
                           f"but got from={low} >= to={high}")
    shape = _shape((size,))
    u = default_generator.uniform(shape).to("float64")
    picked = (u * float(high - low)).to(int64)
    values = _C.minimum(picked, high - low - 1) + low
    return values.to(dtype) if dtype is not None else values


def _like(x, dtype):
    return x.shape, (x.dtype if dtype is None else dtype)


def rand_like(x, dtype=None, requires_grad=False):
    shape, dtype = _like(x, dtype)
    return rand(shape, dtype=dtype, requires_grad=requires_grad)


def randn_like(x, dtype=None, requires_grad=False):
    shape, dtype = _like(x, dtype)
    return randn(shape, dtype=dtype, requires_grad=requires_grad)


def randperm(n, dtype=int64):
    """A random permutation of 0..n-1 (an argsort of n uniforms, done on
    the host: its values are read)."""
    keys = rand(n).numpy()
    return _C.tensor(_np.argsort(keys, kind="stable").astype(_np.int64)
                     ).to(dtype)


def _normal_(self, mean=0.0, std=1.0):
    return self._assign_(_normal(self.shape).to(self.dtype) * std + mean)


def _uniform_(self, a=0.0, b=1.0):
    u = default_generator.uniform(self.shape).to(self.dtype)
    return self._assign_(u * (b - a) + a)


_C.Tensor.normal_ = _normal_
_C.Tensor.uniform_ = _uniform_
