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
    abs,
    concatenate,
    cos,
    erf,
    exp,
    explain_misses,
    from_dlpack,
    from_numpy,
    full,
    gelu,
    get_device,
    grad,
    log,
    log_softmax,
    mark_dynamic,
    matmul,
    maximum,
    metrics,
    minimum,
    ones,
    power,
    relu,
    rsqrt,
    set_device,
    set_kernel_timing,
    sigmoid,
    sin,
    softmax,
    split,
    sqrt,
    stack,
    sync,
    synchronize,
    tanh,
    tensor,
    where,
    zeros,
)
from . import distributed, optim
from .runner import KilnRunError, find_tool, run


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


# dtypes, as numpy names them (kiln has no bfloat16 in numpy: a name).
float32 = _np.dtype("float32")
float64 = _np.dtype("float64")
float16 = _np.dtype("float16")
bool_ = _np.dtype("bool")
bfloat16 = "bfloat16"

__all__ = [
    "KilnRunError", "Tensor", "abs", "bfloat16", "bool_", "concatenate",
    "cos", "erf", "exp", "explain_misses", "find_tool", "float16", "float32",
    "float64", "from_dlpack", "from_numpy", "full", "gelu", "get_device",
    "grad", "jit", "log", "log_softmax", "mark_dynamic", "matmul", "maximum",
    "metrics", "minimum",
    "ones", "optim", "power", "relu", "rsqrt", "run", "set_device",
    "set_kernel_timing", "sigmoid", "sin", "softmax", "split", "sqrt",
    "stack", "sync", "synchronize", "tanh", "tensor", "where", "zeros",
]
