"""kiln: a lazy-tensor compiler on MLIR, from Python.

Tensors are lazy: each op records into a trace (in C++), and nothing runs
until a value is asked for (``.numpy()``, ``.item()``, ``float(t)``,
``kiln.sync``). Then the whole recorded program compiles once into fused
kernels, and every later program of the same structure is a cache hit.

    import kiln, numpy as np
    x = kiln.tensor(np.ones((4, 8), np.float32), requires_grad=True)
    y = (x * 2 + 1).tanh().sum()
    (g,) = kiln.grad(y, [x])
    print(y.item(), g.numpy())

``kiln.run`` runs a function of a kiln MLIR file on numpy arrays through the
``kiln-run`` tool.
"""

import numpy as _np

from ._C import (
    Tensor,
    concatenate,
    explain_misses,
    from_numpy,
    get_device,
    get_float32_matmul_precision,
    grad,
    is_grad_enabled,
    log_softmax,
    mark_dynamic,
    matmul,
    metrics,
    power,
    reset_peak_memory_stats,
    scatter_add,
    set_device,
    set_float32_matmul_precision,
    set_kernel_timing,
    softmax,
    sync,
    synchronize,
    take,
    tensor,
)
from . import _C

# The elementwise ops of TraceOps.def, generated into the extension:
# kiln.exp(x), kiln.maximum(a, b), ... (add, sub, mul, div and pow below).
for _name in _C.unary_functions + _C.binary_functions:
    globals()[_name] = getattr(_C, _name)
del _name

from ._dtypes import (bfloat16, bool_, finfo, float16, float32, float64,
                      iinfo, int32, int64)
from . import _tensor
from ._tensor import from_dlpack
from ._creation import (arange, cat, empty, empty_like, eye, full, full_like,
                        linspace, ones, ones_like, stack, tril, triu, where,
                        zeros, zeros_like)
from .autograd import enable_grad, inference_mode, no_grad, set_grad_enabled
from .random import (initial_seed, manual_seed, rand, rand_like, randint,
                     randn, randn_like, randperm, seed)
from .serialization import load, save
from . import amp, distributed, nn, optim, utils
from .amp import autocast, get_autocast_dtype, is_autocast_enabled
from .runner import KilnRunError, find_tool, run

# PyTorch's other names for the dtypes.
float = float32  # noqa: A001 (kiln.float, as torch.float)
double = float64
half = float16
long = int64
int = int32  # noqa: A001
bool = bool_  # noqa: A001


def _method(name):
    def function(x, *args, **kwargs):
        return getattr(x, name)(*args, **kwargs)
    function.__name__ = name
    function.__doc__ = f"kiln.{name}(x, ...) is x.{name}(...)."
    return function


# torch.sum(x, dim) and friends: the Tensor methods as functions.
for _name in ["sum", "mean", "var", "std", "amax", "amin", "argmax",
              "argmin", "max", "min", "logsumexp", "reshape", "permute",
              "transpose", "flatten", "unsqueeze", "squeeze", "chunk",
              "split", "masked_fill", "gather", "index_select", "clamp",
              "clip", "numel", "movedim", "unbind", "t", "all", "any"]:
    globals()[_name] = _method(_name)
del _name


def add(input, other, *, alpha=1):
    """torch.add: ``input + alpha * other``, promoted as PyTorch's ``+``."""
    return input + (other if alpha == 1 else other * alpha)


def sub(input, other, *, alpha=1):
    """torch.sub: ``input - alpha * other``, promoted as PyTorch's ``-``."""
    return input - (other if alpha == 1 else other * alpha)


def mul(input, other):
    """torch.mul: ``input * other``, promoted as PyTorch's ``*``."""
    return input * other


def div(input, other, *, rounding_mode=None):
    """torch.div: true division (integers give float32), as ``/``."""
    if rounding_mode is not None:
        raise NotImplementedError(
            "kiln.div supports rounding_mode=None only; for 'floor' or "
            "'trunc' divide, then round the quotient in numpy")
    return input / other


def pow(input, exponent):
    """torch.pow: ``input ** exponent`` (an integer exponent is exact, by
    repeated multiplication)."""
    return input ** exponent


def jit(fn):
    """Replays ``fn``'s recorded step instead of recording it on every call.

    Usable as a decorator. The first calls run ``fn`` as plain lazy code and
    capture what it did; once two consecutive calls with the same argument
    types captured the same step, later calls replay it: no op is recorded,
    the new arguments and the current values of the state ``fn`` reads are
    bound to the compiled programs, they run, and the results are returned.

    - Arguments: tensors (also inside tuples, lists and dicts), numpy
      arrays (borrowed), and other values (compared by ``==``). A call with
      other shapes, dtypes or other values records again; both steps are
      kept.
    - State: tensors ``fn`` reads without taking them as arguments
      (parameters, optimizer moments, a parameter's ``.grad``) are bound
      anew on every replay. Tensors ``fn`` rebinds (``opt.step()``), whose
      ``.grad`` it sets (``backward()``, ``zero_grad()``) are rebound after a
      replay as a recorded call leaves them. A training step with
      ``backward()`` and ``opt.step()`` inside ``fn`` works unchanged.
    - Everything ``fn`` leaves (results, new parameters, gradients) is
      computed when a call returns.

    Like ``TinyJit`` and ``torch.compile``'s graphs, a replay does not run
    ``fn``'s Python code: Python control flow on tensor values, and Python
    numbers that change between calls without being arguments (a learning
    rate changed in ``opt.param_groups``, a counter), are what they were
    when ``fn`` was captured. Numbers that change on every call are noticed
    (the two captures differ) and such a function is recorded on every
    call, with a warning. State that ``fn`` reads must keep its dtype and
    shape: a replay raises ``ValueError`` otherwise. ``fn`` may call
    ``.numpy()`` or ``.item()`` (a warning says that the Python work that
    depends on them is not replayed).
    """
    if not callable(fn):
        raise TypeError("kiln.jit expects a function, not "
                        + type(fn).__name__)
    return _C.Jit(fn)


# `from kiln import *` leaves Python's float, int and bool alone.
__all__ = [name for name in dir() if not name.startswith("_") and
           name not in ("float", "int", "bool", "abs", "sum", "max", "min",
                        "all", "any", "pow")]
