"""kiln.save and kiln.load: checkpoints in the safetensors format, written
and read by the ``safetensors`` package (pinned: safetensors==0.5.3).

A flat dict of tensors (a model's ``state_dict()``) is stored under its
own names, so ``safetensors.torch.load_file`` reads a file kiln wrote,
and ``kiln.load`` reads a file ``safetensors.torch.save_file`` wrote.

Nested objects (an optimizer's ``state_dict()``, or a dict holding a model's
and an optimizer's) are flattened by one rule: each tensor is named by its
path of keys and list positions joined with ``"."`` (``optim.state.0.
exp_avg``), and everything else (numbers, strings, None, the nesting
itself) is kept as JSON in the file's metadata entry ``"kiln.structure"``,
from which ``kiln.load`` rebuilds the object, int keys and tuples
included. Tensors come back as kiln tensors (leaves, not requiring grad);
numpy arrays given to ``save`` come back as kiln tensors too.
"""

import json
import os
import struct
import sys

import numpy as _np

from . import _C
from ._dtypes import bfloat16

_SAFETENSORS_VERSION = "0.5.3"
# The dtype names safetensors' serialize takes, and the file's names that
# deserialize gives.
_DTYPES = ("float32", "float64", "float16", "bfloat16", "int32", "int64",
           "bool")
_FROM_FILE = {"F32": "float32", "F64": "float64", "F16": "float16",
              "BF16": "bfloat16", "I32": "int32", "I64": "int64",
              "BOOL": "bool"}
_STRUCTURE = "kiln.structure"


def _safetensors():
    try:
        import safetensors
    except ImportError:
        # A build tree: scripts/install-deps.sh puts the pinned package
        # beside kiln's other Python dependencies.
        try:
            from ._paths import RUNTIME_DEPS
        except ImportError:  # an installed kiln: pip installed it
            RUNTIME_DEPS = None
        if RUNTIME_DEPS and os.path.isdir(RUNTIME_DEPS):
            sys.path.append(RUNTIME_DEPS)
        try:
            import safetensors
        except ImportError:
            raise ImportError(
                f"kiln.save and kiln.load need the safetensors package: "
                f"pip install safetensors=={_SAFETENSORS_VERSION} (or run "
                f"scripts/install-deps.sh)") from None
    return safetensors


def _tensor_entry(value):
    if isinstance(value, _C.Tensor):
        dtype = str(value.dtype)
        array = value.numpy()
        if dtype == "bfloat16":
            # The float32 widening of bfloat16 is exact: its top half.
            array = (_np.ascontiguousarray(array, _np.float32).view(
                _np.uint32) >> 16).astype(_np.uint16)
    else:
        array = _np.asarray(value)
        dtype = str(array.dtype)
        if dtype not in _DTYPES:
            raise TypeError(f"kiln.save: cannot store a {dtype} array")
    return {"dtype": dtype, "shape": list(array.shape),
            "data": _np.ascontiguousarray(array).tobytes()}


def _is_tensor(value):
    return isinstance(value, (_C.Tensor, _np.ndarray))


def _flatten(obj, path, tensors):
    """The JSON form of `obj`, its tensors moved into `tensors`."""
    if _is_tensor(obj):
        name = ".".join(path)
        if name in tensors:
            raise ValueError(f"kiln.save: two tensors would both be named "
                             f"{name!r}")
        tensors[name] = _tensor_entry(obj)
        return {"__tensor__": name}
    if isinstance(obj, dict):
        return {"__dict__": [[k, _flatten(v, path + [str(k)], tensors)]
                             for k, v in obj.items()]}
    if isinstance(obj, (list, tuple)):
        items = [_flatten(v, path + [str(i)], tensors)
                 for i, v in enumerate(obj)]
        return {"__tuple__": items} if isinstance(obj, tuple) else items
    if obj is None or isinstance(obj, (bool, int, float, str)):
        return obj
    if isinstance(obj, _np.generic):
        return obj.item()
    raise TypeError(f"kiln.save: cannot store a {type(obj).__name__} at "
                    f"{'.'.join(path) or 'the top'}")


def _unflatten(form, tensors):
    if isinstance(form, dict):
        if "__tensor__" in form:
            return tensors[form["__tensor__"]]
        if "__tuple__" in form:
            return tuple(_unflatten(v, tensors) for v in form["__tuple__"])
        return {(tuple(k) if isinstance(k, list) else k):
                _unflatten(v, tensors) for k, v in form["__dict__"]}
    if isinstance(form, list):
        return [_unflatten(v, tensors) for v in form]
    return form


def save(obj, f):
    """Writes `obj` (a dict of tensors, or a nested state dict) to the
    safetensors file `f`."""
    st = _safetensors()
    tensors = {}
    if isinstance(obj, dict) and all(isinstance(k, str) and _is_tensor(v)
                                     for k, v in obj.items()):
        for k, v in obj.items():
            tensors[k] = _tensor_entry(v)
        metadata = None
    else:
        metadata = {_STRUCTURE: json.dumps(_flatten(obj, [], tensors))}
    st.serialize_file(tensors, os.fspath(f), metadata)


def _read_metadata(path):
    with open(path, "rb") as stream:
        (size,) = struct.unpack("<Q", stream.read(8))
        header = json.loads(stream.read(size))
    return header.get("__metadata__") or {}


def _to_tensor(entry):
    dtype = _FROM_FILE.get(entry["dtype"], entry["dtype"])
    if dtype not in _DTYPES:
        raise TypeError(f"kiln.load: kiln has no {entry['dtype']} tensors")
    shape = entry["shape"]
    if dtype == "bfloat16":
        bits = _np.frombuffer(entry["data"], _np.uint16).astype(_np.uint32)
        wide = (bits << 16).view(_np.float32).reshape(shape)
        return _C.tensor(wide, dtype=bfloat16)
    array = _np.frombuffer(entry["data"], _np.dtype(dtype)).reshape(shape)
    return _C.tensor(array.copy())


def load(f, map_location=None, weights_only=True):
    """Reads a safetensors file: the dict of tensors, or the nested object
    kiln.save flattened."""
    st = _safetensors()
    path = os.fspath(f)
    with open(path, "rb") as stream:
        entries = st.deserialize(stream.read())
    tensors = {name: _to_tensor(entry) for name, entry in entries}
    structure = _read_metadata(path).get(_STRUCTURE)
    if structure is None:
        return tensors
    return _unflatten(json.loads(structure), tensors)
