"""PyTorch's Tensor methods on kiln.Tensor, with PyTorch's meaning.

The compiled class (kiln._C.Tensor) records every op; the methods here
parse PyTorch's arguments (``dim=``, ``keepdim=``, sizes as ints or one
sequence) and compose those ops. numpy's spellings that kiln accepted
before (``axis=``, ``keepdims=``, ``astype``, a full permutation given to
``transpose``) keep working where PyTorch has no other meaning for them.
"""

import builtins
import collections
import math

import numpy as _np

from . import _C
from ._dtypes import (bfloat16, bool_, float16, float32, float64, int32,
                      int64, is_floating, is_integer, to_dtype)

Tensor = _C.Tensor

# The compiled methods that the PyTorch forms below wrap.
_reduce_sum = Tensor.sum
_reduce_mean = Tensor.mean
_reduce_max = Tensor.max
_permute = Tensor.transpose
_basic_getitem = Tensor.__getitem__
_astype = Tensor.astype
_to_numpy = Tensor.numpy
_from_dlpack = _C.from_dlpack

values_indices = collections.namedtuple("values_indices",
                                        ["values", "indices"])


def _size_args(size, what="size"):
    """Sizes given as separate ints or as one sequence, as a tuple."""
    if len(size) == 1 and not isinstance(size[0], (int, _np.integer)):
        size = tuple(size[0])
    for d in size:
        if not isinstance(d, (int, _np.integer)) or isinstance(d, bool):
            raise TypeError(f"{what} must be ints, not {type(d).__name__}")
    return tuple(int(d) for d in size)


def _dims(dim, axis, ndim):
    """The dims of a reduction (``dim``, or numpy's ``axis``) as a sorted
    tuple, negative ones counted from the end; None means every dim."""
    if dim is not None and axis is not None:
        raise TypeError("give dim or axis, not both")
    dim = axis if dim is None else dim
    if dim is None:
        return None
    if isinstance(dim, (int, _np.integer)):
        dim = (dim,)
    out = []
    for d in dim:
        d = int(d)
        if not -builtins.max(ndim, 1) <= d < builtins.max(ndim, 1):
            raise IndexError(f"Dimension out of range (expected to be in "
                             f"range of [{-builtins.max(ndim, 1)}, "
                             f"{builtins.max(ndim, 1) - 1}], but got {d})")
        out.append(d % builtins.max(ndim, 1))
    if len(set(out)) != len(out):
        raise ValueError(f"dim {tuple(dim)} appears multiple times in the "
                         "list of dims")
    return tuple(sorted(out))


def _keep(keepdim, keepdims):
    return bool(keepdim if keepdims is None else keepdims)


def _dim1(dim, ndim):
    """One dim, negative counted from the end; IndexError when out of
    range."""
    return _dims(dim, None, ndim)[0]


# --- Shapes ---------------------------------------------------------------

def size(self, dim=None):
    """The shape as a tuple, or the size of ``dim``."""
    if dim is None:
        return tuple(self.shape)
    return self.shape[_dim1(dim, self.ndim)]


def numel(self):
    return math.prod(self.shape)


def dim(self):
    return self.ndim


def view(self, *shape):
    """A tensor of another shape over the same elements (kiln tensors are
    values: view and reshape are the same)."""
    return self.reshape(*shape)


def view_as(self, other):
    return self.reshape(other.shape)


def permute(self, *dims):
    dims = _size_args(dims, "permute's dims")
    if len(dims) != self.ndim:
        raise RuntimeError(f"permute: number of dims {len(dims)} doesn't "
                           f"match the tensor's {self.ndim}")
    return _permute(self, tuple(_dim1(d, self.ndim) for d in dims))


def transpose(self, *dims):
    """``transpose(d0, d1)`` swaps two dims, as PyTorch's. A full
    permutation (three or more dims, or one sequence) or no argument is
    numpy's transpose."""
    if len(dims) == 2 and all(isinstance(d, (int, _np.integer))
                              for d in dims):
        if self.ndim == 0:
            return self
        perm = list(range(self.ndim))
        a, b = _dim1(dims[0], self.ndim), _dim1(dims[1], self.ndim)
        perm[a], perm[b] = perm[b], perm[a]
        return _permute(self, tuple(perm))
    return _permute(self, *dims)


def _mT(self):
    if self.ndim < 2:
        raise RuntimeError("tensor.mT is only supported on matrices or "
                           "batches of matrices")
    return transpose(self, -2, -1)


def t(self):
    if self.ndim > 2:
        raise RuntimeError("t() expects a tensor with <= 2 dimensions")
    return self if self.ndim < 2 else transpose(self, 0, 1)


def unsqueeze(self, dim):
    d = _dim1(dim, self.ndim + 1)
    shape = list(self.shape)
    shape.insert(d, 1)
    return self.reshape(shape)


def squeeze(self, dim=None):
    shape = list(self.shape)
    if dim is None:
        return self.reshape([s for s in shape if s != 1])
    dims = _dims(dim, None, self.ndim)
    return self.reshape([s for i, s in enumerate(shape)
                         if not (i in dims and s == 1)])


def flatten(self, start_dim=0, end_dim=-1):
    if self.ndim == 0:
        return self.reshape(1)
    a, b = _dim1(start_dim, self.ndim), _dim1(end_dim, self.ndim)
    if a > b:
        raise RuntimeError("flatten() has invalid args: start_dim cannot "
                           "come after end_dim")
    shape = list(self.shape)
    return self.reshape(shape[:a] + [math.prod(shape[a:b + 1])]
                        + shape[b + 1:])


def unflatten(self, dim, sizes):
    d = _dim1(dim, self.ndim)
    shape = list(self.shape)
    return self.reshape(shape[:d] + list(sizes) + shape[d + 1:])


def expand(self, *sizes):
    sizes = list(_size_args(sizes, "expand's sizes"))
    if len(sizes) < self.ndim:
        raise RuntimeError(f"expand: the number of sizes provided "
                           f"({len(sizes)}) must be greater or equal to the "
                           f"number of dimensions in the tensor "
                           f"({self.ndim})")
    lead = len(sizes) - self.ndim
    for i, s in enumerate(self.shape):
        if sizes[lead + i] == -1:
            sizes[lead + i] = s
        elif s != 1 and s != sizes[lead + i]:
            raise RuntimeError(f"expand: the expanded size of the tensor "
                               f"({sizes[lead + i]}) must match the existing "
                               f"size ({s}) at non-singleton dimension "
                               f"{lead + i}. Target sizes: {sizes}. Tensor "
                               f"sizes: {list(self.shape)}")
    if self.shape == tuple(sizes):
        return self
    zeros = _C._constant(sizes, 0.0, self.dtype)
    if self.dtype == bool_:
        return _C.where(self, _C._constant(sizes, 1.0, bool_), zeros)
    return self + zeros


def expand_as(self, other):
    return expand(self, other.shape)


def contiguous(self, memory_format=None):
    """A no-op: kiln tensors are values, laid out row-major."""
    return self


def split(self, split_size_or_sections, dim=0):
    """PyTorch's split: pieces of ``split_size`` (the last smaller), or of
    the sizes in a list."""
    d = _dim1(dim, self.ndim)
    n = self.shape[d]
    if isinstance(split_size_or_sections, (int, _np.integer)):
        step = int(split_size_or_sections)
        if step <= 0:
            raise RuntimeError("split expects split_size be positive")
        sizes = [builtins.min(step, n - s) for s in range(0, n, step)] or [0]
    else:
        sizes = [int(s) for s in split_size_or_sections]
        if builtins.sum(sizes) != n:
            raise RuntimeError(f"split_with_sizes expects split_sizes to sum "
                               f"exactly to {n} (input tensor's size at "
                               f"dimension {d}), but got split_sizes={sizes}")
    cuts = list(_np.cumsum(sizes)[:-1])
    return tuple(_C.split(self, [int(c) for c in cuts], axis=d))


def chunk(self, chunks, dim=0):
    """PyTorch's chunk: pieces of ceil(size / chunks)."""
    if chunks <= 0:
        raise RuntimeError("chunk expects `chunks` to be greater than 0")
    n = self.shape[_dim1(dim, self.ndim)]
    step = builtins.max(-(-n // chunks), 1)
    return split(self, step, dim)


def unbind(self, dim=0):
    d = _dim1(dim, self.ndim)
    return tuple(squeeze(p, d) for p in split(self, 1, d))


def movedim(self, source, destination):
    s, d = _dim1(source, self.ndim), _dim1(destination, self.ndim)
    perm = [i for i in range(self.ndim) if i != s]
    perm.insert(d, s)
    return _permute(self, tuple(perm))


def repeat(self, *sizes):
    sizes = _size_args(sizes, "repeat's sizes")
    x = self.reshape((1,) * (len(sizes) - self.ndim) + tuple(self.shape))
    for d, r in enumerate(sizes):
        if r != 1:
            x = _C.concatenate([x] * r, axis=d)
    return x


# --- dtypes ---------------------------------------------------------------

def to(self, *args, dtype=None, **kwargs):
    """``to(dtype)``; a device name (``"cpu"``) or a tensor's dtype as
    PyTorch's. Converting is recorded, as every op."""
    for a in args:
        if isinstance(a, Tensor):
            dtype = a.dtype
        elif isinstance(a, str) and a != "bfloat16":
            pass  # a device: kiln's device is global (kiln.set_device)
        else:
            dtype = a
    if dtype is None:
        return self
    dtype = to_dtype(dtype)
    if dtype == self.dtype:
        return self
    return _astype(self, dtype)


def _caster(dtype):
    def cast(self):
        return to(self, dtype)
    cast.__doc__ = f"This tensor as {dtype}."
    return cast


def type_(self, dtype=None):
    if dtype is None:
        return str(self.dtype)
    return to(self, dtype)


def numpy(self):
    """The value as a numpy array over the tensor's result buffer
    (materializes the tensor). A bfloat16 tensor, which numpy has no dtype
    for, returns a float32 copy."""
    return _to_numpy(self)


def item(self):
    """The one element as a Python number (int, float or bool)."""
    if numel(self) != 1:
        raise ValueError(f"a Tensor with {numel(self)} elements cannot be "
                         "converted to Scalar")
    return _to_numpy(self).reshape(-1)[0].item()


def tolist(self):
    return _to_numpy(self).tolist()


def _index(self):
    if not is_integer(self.dtype) or numel(self) != 1:
        raise TypeError("only integer tensors of a single element can be "
                        "converted to an index")
    return int(item(self))


# --- Reductions -----------------------------------------------------------

def _as_summable(x):
    """Sums of bool and int tensors are int64, as PyTorch's."""
    return to(x, int64) if x.dtype in (bool_, int32) else x


def sum(self, dim=None, keepdim=False, dtype=None, *, axis=None,
        keepdims=None):
    x = to(self, dtype) if dtype is not None else _as_summable(self)
    return _reduce_sum(x, _dims(dim, axis, self.ndim),
                       _keep(keepdim, keepdims))


def mean(self, dim=None, keepdim=False, dtype=None, *, axis=None,
         keepdims=None):
    x = to(self, dtype) if dtype is not None else self
    if not is_floating(x.dtype):
        raise RuntimeError(f"mean(): could not infer output dtype. Input "
                           f"dtype must be a floating point dtype, got "
                           f"{x.dtype}; use .float() first")
    return _reduce_mean(x, _dims(dim, axis, self.ndim),
                        _keep(keepdim, keepdims))


def var(self, dim=None, unbiased=None, keepdim=False, *, correction=None,
        axis=None, keepdims=None):
    """Variance with Bessel's correction unless ``unbiased=False`` (or
    ``correction=0``)."""
    if unbiased is not None and correction is not None:
        raise TypeError("give unbiased or correction, not both")
    if correction is None:
        correction = 1 if unbiased is None or unbiased else 0
    dims = _dims(dim, axis, self.ndim)
    keep = _keep(keepdim, keepdims)
    count = math.prod(self.shape[d] for d in
                      (dims if dims is not None else range(self.ndim)))
    centered = self - _reduce_mean(self, dims, True)
    total = _reduce_sum(centered * centered, dims, keep)
    return total / builtins.max(count - correction, 0)


def std(self, dim=None, unbiased=None, keepdim=False, *, correction=None,
        axis=None, keepdims=None):
    return var(self, dim, unbiased, keepdim, correction=correction,
               axis=axis, keepdims=keepdims).sqrt()


def amax(self, dim=(), keepdim=False):
    dims = _dims(dim if dim != () else None, None, self.ndim)
    return _reduce_max(self, dims, keepdim)


def amin(self, dim=(), keepdim=False):
    if self.dtype == bool_:
        return ~amax(~self, dim, keepdim)
    return -amax(-self, dim, keepdim)


def argmax(self, dim=None, keepdim=False):
    """The index of the first maximum (NaN counts as the maximum), as
    int64; over the flattened tensor when ``dim`` is None."""
    x = to(self, int32) if self.dtype == bool_ else self
    if dim is None:
        out = _C._argmax(x.reshape(-1), 0)
        return out.reshape([1] * self.ndim) if keepdim else out
    d = _dim1(dim, self.ndim)
    if self.ndim == 0:
        return _C._constant([], 0, int64)
    out = _C._argmax(x, d)
    return unsqueeze(out, d) if keepdim else out


def argmin(self, dim=None, keepdim=False):
    x = to(self, int32) if self.dtype == bool_ else self
    return argmax(-x, dim, keepdim)


def _max_or_min(self, dim, keepdim, pick, arg, pairwise, name):
    if isinstance(dim, Tensor):
        return pairwise(self, dim)
    if dim is None:
        return pick(self)
    values = pick(self, dim, keepdim)
    indices = arg(self, dim, keepdim)
    return values_indices(values, indices)


def max(self, dim=None, keepdim=False, *, axis=None, keepdims=None):
    """``max()`` is the largest element; ``max(dim)`` gives (values,
    indices), as PyTorch's; ``max(other)`` is ``maximum``."""
    dim = axis if dim is None else dim
    return _max_or_min(self, dim, _keep(keepdim, keepdims), amax, argmax,
                       _C.maximum, "max")


def min(self, dim=None, keepdim=False, *, axis=None, keepdims=None):
    dim = axis if dim is None else dim
    return _max_or_min(self, dim, _keep(keepdim, keepdims), amin, argmin,
                       _C.minimum, "min")


def logsumexp(self, dim, keepdim=False):
    dims = _dims(dim, None, self.ndim)
    peak = _reduce_max(self, dims, True).detach()
    peak = _C.where(peak.abs() == math.inf, 0.0, peak)
    out = (self - peak).exp()
    out = _reduce_sum(out, dims, True).log() + peak
    return squeeze(out, dims) if not keepdim else out


def all_(self, dim=None, keepdim=False):
    """Whether every element is nonzero (a bool tensor), as PyTorch's."""
    truth = to(to(self, bool_), int32)
    return amin(truth, dim if dim is not None else (), keepdim) != 0


def any_(self, dim=None, keepdim=False):
    """Whether some element is nonzero (a bool tensor), as PyTorch's."""
    truth = to(to(self, bool_), int32)
    return amax(truth, dim if dim is not None else (), keepdim) != 0


# --- Elementwise ----------------------------------------------------------

def clamp(self, min=None, max=None):
    x = self
    if min is not None:
        x = _C.maximum(x, min)
    if max is not None:
        x = _C.minimum(x, max)
    return x


def masked_fill(self, mask, value):
    """``value`` where ``mask`` is True, this tensor elsewhere (of this
    tensor's dtype)."""
    if isinstance(value, Tensor):
        value = to(value, self.dtype)
    else:
        value = _C._constant([], float(value), self.dtype)
    return to(_C.where(mask, value, self), self.dtype)


def _logical(fn):
    def op(self, other):
        if self.dtype != bool_ or (isinstance(other, Tensor)
                                   and other.dtype != bool_):
            raise TypeError("kiln's &, | and ^ take bool tensors")
        return fn(self, other)
    return op


def _invert(self):
    if self.dtype != bool_:
        raise TypeError("~ takes a bool tensor in kiln")
    return _C.where(self, False, True)


# --- Indexing -------------------------------------------------------------

def _is_basic(item):
    if item is None or item is Ellipsis:
        return True
    if isinstance(item, (int, _np.integer)) and not isinstance(
            item, (bool, _np.bool_)):
        return True
    return isinstance(item, slice) and item.step in (None, 1)


def _known_values(index):
    """The values of an index known at record time (numpy data, or a
    tensor already computed), else None."""
    if isinstance(index, _np.ndarray):
        return index
    if isinstance(index, Tensor) and index._has_value:
        return index._known_numpy()
    return None


def _expand_masks(items):
    """Boolean masks as the integer indices of their True elements."""
    out = []
    for item in items:
        if isinstance(item, (list, tuple)):
            item = _np.asarray(item)
            if item.dtype.kind == "f":
                raise IndexError("tensors used as indices must be long, "
                                 "int or bool tensors")
        if isinstance(item, (bool, _np.bool_)):
            raise IndexError("kiln does not index with a Python bool")
        is_mask = (isinstance(item, _np.ndarray) and item.dtype == bool) or (
            isinstance(item, Tensor) and item.dtype == bool_)
        if not is_mask:
            out.append(item)
            continue
        values = _known_values(item)
        if values is None:
            raise IndexError("a boolean mask whose values are not known yet "
                             "gives a shape kiln cannot know when it "
                             "records: use kiln.where(mask, x, 0) or "
                             "x.masked_fill(~mask, 0), or read the mask "
                             "(.numpy()) first")
        out.extend(_np.nonzero(values))
    return out


def _index_tensor(index, size, dim):
    """An integer index along a dim of ``size`` as an int64 tensor, negative
    values counted from the end. Known values are checked now."""
    values = _known_values(index)
    if values is not None:
        if values.dtype.kind not in "iu":
            raise IndexError("tensors used as indices must be long, int or "
                             f"bool tensors, not {values.dtype}")
        values = values.astype(_np.int64)
        bad = (values < -size) | (values >= size)
        if bad.any():
            raise IndexError(f"index {int(values[bad].flat[0])} is out of "
                             f"bounds for dimension {dim} with size {size}")
        return _C.tensor(_np.where(values < 0, values + size, values))
    if not is_integer(index.dtype):
        raise IndexError("tensors used as indices must be long, int or bool "
                         f"tensors, not {index.dtype}")
    return _C.where(index < 0, index + size, index)


def getitem(self, index):
    """PyTorch's indexing: integers, slices (steps > 0), None, ``...``,
    integer tensors, arrays and lists, and boolean masks whose values are
    known. An index tensor's values count from the end when negative; an
    out-of-range value raises IndexError when it is known now (numpy data,
    a computed tensor) and gives NaN (0 for integers) otherwise."""
    items = index if isinstance(index, tuple) else (index,)
    if all(_is_basic(i) for i in items):
        return _basic_getitem(self, index)
    items = _expand_masks(items)
    consumed = len([i for i in items if i is not None and i is not Ellipsis])
    if consumed > self.ndim:
        raise IndexError(f"too many indices for tensor of dimension "
                         f"{self.ndim}")
    expanded = []
    for item in items:
        if item is Ellipsis:
            expanded.extend([slice(None)] * (self.ndim - consumed))
            consumed = self.ndim
        else:
            expanded.append(item)
    basic, steps, advanced = [], [], []
    in_dim = out_dim = 0
    for item in expanded:
        if item is None:
            basic.append(None)
            out_dim += 1
            continue
        size_ = self.shape[in_dim]
        if isinstance(item, slice):
            start, stop, step = item.indices(size_)
            if item.step is not None and item.step <= 0:
                raise ValueError("step must be greater than zero")
            if step == 1:
                basic.append(slice(start, stop))
            else:
                basic.append(slice(None))
                steps.append((out_dim, _np.arange(start, stop, step)))
            out_dim += 1
        elif _is_basic(item):
            basic.append(int(item))
        else:
            basic.append(slice(None))
            advanced.append((out_dim, _index_tensor(item, size_, in_dim)))
            out_dim += 1
        in_dim += 1
    x = _basic_getitem(self, tuple(basic))
    for d, picks in steps:
        x = _C.take(x, _C.tensor(picks.astype(_np.int64)), d)
    if not advanced:
        return x
    if len(advanced) == 1:
        d, idx = advanced[0]
        return _C.take(x, idx, d)
    return _gather_points(x, advanced)


def _gather_points(x, advanced):
    """numpy's and PyTorch's indexing by several index tensors: they
    broadcast together; their result dims replace the indexed ones where
    those are adjacent, and go first otherwise."""
    dims = [d for d, _ in advanced]
    rest = [d for d in range(x.ndim) if d not in dims]
    sizes = [x.shape[d] for d in dims]
    block = _permute(x, tuple(dims + rest)).reshape(
        [math.prod(sizes)] + [x.shape[d] for d in rest])
    linear, valid, stride = None, None, 1
    for (d, idx), n in reversed(list(zip(advanced, sizes))):
        term = idx * stride
        linear = term if linear is None else linear + term
        ok = (idx >= 0) & (idx < n)
        valid = ok if valid is None else valid & ok
        stride *= n
    # An index out of range in one dim must not land on another point.
    linear = _C.where(valid, linear, -1)
    out = _C.take(block, linear, 0)
    adjacent = dims == list(range(dims[0], dims[0] + len(dims)))
    if not adjacent or dims[0] == 0:
        return out
    k = linear.ndim
    perm = list(range(k, k + dims[0])) + list(range(k)) + list(
        range(k + dims[0], out.ndim))
    return _permute(out, tuple(perm))


def gather(self, dim, index):
    """torch.gather: ``out[i][j] = self[index[i][j]][j]`` for dim 0 (and
    likewise for other dims); ``index`` has this tensor's rank and no
    larger sizes outside ``dim``. An out-of-range index gives NaN."""
    d = _dim1(dim, self.ndim)
    if index.ndim != self.ndim:
        raise RuntimeError("Index tensor must have the same number of "
                           "dimensions as input tensor")
    for i, (a, b) in enumerate(zip(index.shape, self.shape)):
        if i != d and a > b:
            raise RuntimeError(f"Size does not match at dimension {i} "
                               f"expected index {list(index.shape)} to be "
                               f"smaller than self {list(self.shape)} apart "
                               f"from dimension {d}")
    known = _known_values(index)
    if known is not None and ((known < 0) | (known >= self.shape[d])).any():
        raise IndexError(f"index out of range in gather along dim {d} of "
                         f"size {self.shape[d]}")
    index = index if isinstance(index, Tensor) else _C.tensor(index)
    strides = [math.prod(self.shape[i + 1:]) for i in range(self.ndim)]
    linear = None
    for i in range(self.ndim):
        part = index if i == d else _C._iota(list(index.shape), i)
        term = part * strides[i]
        linear = term if linear is None else linear + term
    valid = (index >= 0) & (index < self.shape[d])
    linear = _C.where(valid, linear, -1)
    return _C.take(self.reshape(-1), linear, 0)


def index_select(self, dim, index):
    d = _dim1(dim, self.ndim)
    if index.ndim > 1:
        raise IndexError("index_select(): Index is supposed to be a vector")
    return _C.take(self, _index_tensor(index, self.shape[d], d), d)


# --- In place -------------------------------------------------------------
# kiln tensors are values: an in-place op rebinds the Python object to the
# op's result (of the object's dtype and shape). Under kiln.no_grad() a
# leaf stays a leaf, as in an optimizer's update; outside it, an in-place
# op on a leaf that requires grad raises PyTorch's error. Other Python
# names for the old value (a slice taken before) keep the old value.

def _inplace(fn):
    def op(self, *args, **kwargs):
        return self._assign_(fn(self, *args, **kwargs))
    op.__name__ = fn.__name__ + "_"
    return op


def _fill(self, value):
    if isinstance(value, Tensor):
        return expand(to(value, self.dtype), self.shape)
    return _C._constant(list(self.shape), float(value), self.dtype)


def _copy(self, src):
    src = src if isinstance(src, Tensor) else _C.tensor(src)
    return expand(to(src, self.dtype), self.shape)


def _zero(self):
    return _C._constant(list(self.shape), 0.0, self.dtype)


class _Capsule:
    """A DLPack capsule (``torch.utils.dlpack.to_dlpack(t)``) as a CPU
    producer."""

    def __init__(self, capsule):
        self.capsule = capsule

    def __dlpack__(self, stream=None, **kwargs):
        return self.capsule

    def __dlpack_device__(self):
        return (1, 0)


def from_dlpack(producer):
    """A tensor over the producer's buffer (an object with __dlpack__, or
    a DLPack capsule), zero-copy; float, bool and int32/int64 data."""
    if type(producer).__name__ == "PyCapsule":
        producer = _Capsule(producer)
    return _from_dlpack(producer)


def _install():
    T = Tensor
    for name, fn in [
            ("size", size), ("numel", numel), ("dim", dim), ("view", view),
            ("view_as", view_as), ("permute", permute),
            ("transpose", transpose), ("t", t), ("unsqueeze", unsqueeze),
            ("squeeze", squeeze), ("flatten", flatten),
            ("unflatten", unflatten), ("expand", expand),
            ("expand_as", expand_as), ("contiguous", contiguous),
            ("split", split), ("chunk", chunk), ("unbind", unbind),
            ("movedim", movedim), ("repeat", repeat), ("to", to),
            ("type", type_), ("numpy", numpy), ("item", item),
            ("tolist", tolist), ("__index__", _index), ("sum", sum),
            ("mean", mean), ("var", var), ("std", std), ("amax", amax),
            ("amin", amin), ("argmax", argmax), ("argmin", argmin),
            ("max", max), ("min", min), ("logsumexp", logsumexp),
            ("all", all_), ("any", any_), ("clamp", clamp), ("clip", clamp),
            ("masked_fill", masked_fill), ("__getitem__", getitem),
            ("gather", gather), ("index_select", index_select),
            ("__and__", _logical(lambda a, b: _C.where(a, b, False))),
            ("__or__", _logical(lambda a, b: _C.where(a, True, b))),
            ("__xor__", _logical(lambda a, b: a != b)),
            ("__invert__", _invert), ("logical_not", _invert)]:
        setattr(T, name, fn)
    T.neg = T.__neg__
    T.reciprocal = lambda self: 1.0 / self
    T.square = lambda self: self * self
    T.pow = lambda self, exponent: self ** exponent
    T.softmax = lambda self, dim: _C.softmax(self, dim)
    T.log_softmax = lambda self, dim: _C.log_softmax(self, dim)
    T.mT = property(_mT)
    T.ndimension = dim
    T.nelement = numel
    for name, dtype in [("float", float32), ("double", float64),
                        ("half", float16), ("bfloat16", bfloat16),
                        ("long", int64), ("int", int32), ("bool", bool_)]:
        setattr(T, name, _caster(dtype))
    T.__int__ = lambda self: int(item(self))
    T.__float__ = lambda self: float(item(self))
    T.__bool__ = lambda self: bool(item(self))
    T.device = property(lambda self: _C.get_device())
    T.is_floating_point = lambda self: is_floating(self.dtype)
    # In place.
    for name, fn in [("add", lambda a, b, alpha=1: a + b * alpha
                      if alpha != 1 else a + b),
                     ("sub", lambda a, b, alpha=1: a - b * alpha
                      if alpha != 1 else a - b),
                     ("mul", lambda a, b: a * b),
                     ("div", lambda a, b: a / b)]:
        setattr(T, name, fn)
        setattr(T, name + "_", _inplace(fn))
    T.__iadd__ = _inplace(lambda a, b: a + b)
    T.__isub__ = _inplace(lambda a, b: a - b)
    T.__imul__ = _inplace(lambda a, b: a * b)
    T.__itruediv__ = _inplace(lambda a, b: a / b)
    T.zero_ = _inplace(_zero)
    T.fill_ = _inplace(_fill)
    T.copy_ = _inplace(_copy)
    T.clamp_ = _inplace(clamp)
    T.masked_fill_ = _inplace(masked_fill)


_install()
