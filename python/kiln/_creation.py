"""Tensor creation with PyTorch's signatures: sizes as ints or one
sequence, ``dtype=`` and ``requires_grad=``."""

import numpy as _np

from . import _C
from ._dtypes import bool_, float32, int64, to_dtype


def _shape(size):
    if len(size) == 1 and not isinstance(size[0], (int, _np.integer)):
        size = tuple(size[0])
    return tuple(int(d) for d in size)


def _dtype_of_value(value, dtype):
    if dtype is not None:
        return to_dtype(dtype)
    if isinstance(value, (bool, _np.bool_)):
        return bool_
    if isinstance(value, (int, _np.integer)):
        return int64
    return float32


def full(size, fill_value, *, dtype=None, requires_grad=False):
    """A tensor of ``size`` filled with ``fill_value``; its dtype, unless
    given, follows the value (bool, int64 or float32), as PyTorch's."""
    if isinstance(size, (int, _np.integer)):
        size = (size,)
    return _C._filled(tuple(size), float(fill_value),
                      _dtype_of_value(fill_value, dtype), requires_grad)


def zeros(*size, dtype=None, requires_grad=False):
    return _C._filled(_shape(size), 0.0, to_dtype(dtype or float32),
                      requires_grad)


def ones(*size, dtype=None, requires_grad=False):
    return _C._filled(_shape(size), 1.0, to_dtype(dtype or float32),
                      requires_grad)


def empty(*size, dtype=None, requires_grad=False):
    """Zeros: kiln has no uninitialized memory to hand out."""
    return zeros(*size, dtype=dtype, requires_grad=requires_grad)


def _like(fn):
    def like(x, *args, dtype=None, requires_grad=False):
        return fn(x.shape, *args, dtype=dtype or x.dtype,
                  requires_grad=requires_grad)
    like.__name__ = fn.__name__ + "_like"
    return like


zeros_like = _like(zeros)
ones_like = _like(ones)
empty_like = _like(empty)
full_like = _like(full)


def arange(start, end=None, step=1, *, dtype=None, requires_grad=False):
    """``[start, end)`` by ``step``: int64 when every argument is an int,
    float32 otherwise (unless ``dtype`` says)."""
    if end is None:
        start, end = 0, start
    if step == 0:
        raise RuntimeError("step must be nonzero")
    integral = all(isinstance(v, (int, _np.integer)) for v in
                   (start, end, step))
    if dtype is None:
        dtype = int64 if integral else float32
    dtype = to_dtype(dtype)
    values = _np.arange(start, end, step,
                        dtype=_np.int64 if integral else _np.float64)
    return _C.tensor(values, dtype=dtype, requires_grad=requires_grad)


def linspace(start, end, steps, *, dtype=None):
    return _C.tensor(_np.linspace(start, end, steps), dtype=dtype or float32)


def eye(n, m=None, *, dtype=None):
    return _C.tensor(_np.eye(n, m), dtype=dtype or float32)


def _triangle(x, diagonal, lower):
    rows, cols = x.shape[-2], x.shape[-1]
    row = _C._iota([rows, cols], 0)
    col = _C._iota([rows, cols], 1)
    keep = (col - row <= diagonal) if lower else (col - row >= diagonal)
    return x.masked_fill(~keep, 0)


def tril(x, diagonal=0):
    """The lower triangle of the last two dims (the rest zeros)."""
    return _triangle(x, diagonal, True)


def triu(x, diagonal=0):
    return _triangle(x, diagonal, False)


def cat(tensors, dim=0, *, axis=None):
    """torch.cat: tensors joined along ``dim``."""
    return _C.concatenate(list(tensors), axis=dim if axis is None else axis)


def stack(tensors, dim=0, *, axis=None):
    return _C.stack(list(tensors), axis=dim if axis is None else axis)


def where(condition, x, y):
    return _C.where(condition, x, y)
