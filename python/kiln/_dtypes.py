"""kiln's dtypes, named as PyTorch names them.

A dtype is a numpy dtype (bfloat16, which numpy lacks, is the name
"bfloat16"), so ``t.dtype == kiln.float32`` and ``np.zeros(3,
kiln.int64)`` both work.
"""

import numpy as _np

float32 = _np.dtype("float32")
float64 = _np.dtype("float64")
float16 = _np.dtype("float16")
bfloat16 = "bfloat16"
int32 = _np.dtype("int32")
int64 = _np.dtype("int64")
bool_ = _np.dtype("bool")

_FLOATS = (float32, float64, float16, bfloat16)
_INTEGERS = (int32, int64)


def to_dtype(dtype):
    """The kiln dtype ``dtype`` names (a kiln or numpy dtype, a type such
    as ``float``, or a name); TypeError for one kiln lacks."""
    if isinstance(dtype, str) and dtype == "bfloat16":
        return bfloat16
    try:
        d = _np.dtype(dtype)
    except TypeError:
        raise TypeError(f"not a dtype: {dtype!r}") from None
    if d in _FLOATS or d in _INTEGERS or d == bool_:
        return d
    raise TypeError(f"kiln tensors hold float32, float64, float16, bfloat16, "
                    f"int32, int64 or bool, not {d}")


def is_floating(dtype):
    return dtype in _FLOATS


def is_integer(dtype):
    return dtype in _INTEGERS


class finfo:
    """torch.finfo for kiln's float dtypes: eps, max, min, tiny."""

    def __init__(self, dtype=float32):
        dtype = to_dtype(dtype)
        if dtype == bfloat16:
            self.bits, self.eps, self.max = 16, 2.0 ** -7, 3.3895313892515355e38
            self.tiny = 2.0 ** -126
        else:
            info = _np.finfo(dtype)
            self.bits, self.eps = info.bits, float(info.eps)
            self.max, self.tiny = float(info.max), float(info.tiny)
        self.min = -self.max
        self.dtype = dtype


class iinfo:
    def __init__(self, dtype):
        info = _np.iinfo(to_dtype(dtype))
        self.bits, self.max, self.min = info.bits, int(info.max), int(info.min)
