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
    tanh,
    tensor,
    where,
    zeros,
)
from . import optim
from .runner import KilnRunError, find_tool, run

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
    "grad", "log", "log_softmax", "matmul", "maximum", "metrics", "minimum",
    "ones", "optim", "power", "relu", "rsqrt", "run", "set_device",
    "set_kernel_timing", "sigmoid", "sin", "softmax", "split", "sqrt",
    "stack", "sync", "tanh", "tensor", "where", "zeros",
]
