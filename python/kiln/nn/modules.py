"""torch.nn's Module and layers on kiln tensors.

A parameter is a kiln tensor that requires grad and is a leaf
(``kiln.nn.Parameter(t)`` makes one); assigning one to a module attribute
registers it, as assigning a ``torch.nn.Parameter`` does. Layers are
initialised as PyTorch initialises them, from kiln's generator
(``kiln.manual_seed``), so the values differ from PyTorch's.
"""

import collections
import math

import numpy as _np

from .. import _C
from .._dtypes import float32, is_floating, to_dtype
from ..autograd import no_grad
from . import functional as F
from . import init


def Parameter(data=None, requires_grad=True):
    """A leaf tensor over ``data``'s value that requires grad (a module
    registers it when assigned). Its value, if still to be computed (an
    initialisation), is computed with the next program that runs."""
    if data is None:
        data = _C.tensor(_np.zeros((0,), _np.float32))
    if not isinstance(data, _C.Tensor):
        data = _C.tensor(data)
    p = data.detach()
    if requires_grad:
        p.requires_grad_(True)
    if not p._has_value:
        _C._mark_pending([p])
    return p


def _is_parameter(value):
    return isinstance(value, _C.Tensor) and value.requires_grad and \
        value.is_leaf


class Module:
    """torch.nn.Module: parameters, buffers and submodules found by
    attribute, ``state_dict``, ``train``/``eval``, ``__call__`` calling
    ``forward``."""

    def __init__(self):
        object.__setattr__(self, "_parameters", collections.OrderedDict())
        object.__setattr__(self, "_buffers", collections.OrderedDict())
        object.__setattr__(self, "_modules", collections.OrderedDict())
        object.__setattr__(self, "training", True)

    def __setattr__(self, name, value):
        if "_parameters" not in self.__dict__:
            raise AttributeError("cannot assign before Module.__init__() "
                                 "call")
        for table in (self._parameters, self._buffers, self._modules):
            table.pop(name, None)
        if isinstance(value, Module):
            self._modules[name] = value
        elif _is_parameter(value):
            self._parameters[name] = value
        elif name in self.__dict__.get("_buffer_names", ()):
            self._buffers[name] = value
        else:
            object.__setattr__(self, name, value)
            return
        self.__dict__.pop(name, None)

    def __getattr__(self, name):
        for table in ("_parameters", "_buffers", "_modules"):
            entries = self.__dict__.get(table)
            if entries is not None and name in entries:
                return entries[name]
        raise AttributeError(f"'{type(self).__name__}' object has no "
                             f"attribute '{name}'")

    def __delattr__(self, name):
        for table in (self._parameters, self._buffers, self._modules):
            if name in table:
                del table[name]
                return
        object.__delattr__(self, name)

    def register_buffer(self, name, tensor, persistent=True):
        names = self.__dict__.setdefault("_buffer_names", set())
        names.add(name)
        if not persistent:
            self.__dict__.setdefault("_non_persistent", set()).add(name)
        self.__dict__.pop(name, None)
        self._buffers[name] = tensor

    def register_parameter(self, name, param):
        if param is None:
            self._parameters.pop(name, None)
            object.__setattr__(self, name, None)
            return
        if not _is_parameter(param):
            raise TypeError(f"cannot assign '{type(param).__name__}' as "
                            f"parameter '{name}' (a leaf that requires "
                            f"grad, kiln.nn.Parameter, is required)")
        self._parameters[name] = param

    def add_module(self, name, module):
        self._modules[name] = module

    def __call__(self, *args, **kwargs):
        return self.forward(*args, **kwargs)

    def forward(self, *args, **kwargs):
        raise NotImplementedError(f"Module [{type(self).__name__}] is "
                                  "missing the required \"forward\" function")

    # Traversal.
    def named_modules(self, prefix="", memo=None):
        memo = set() if memo is None else memo
        if id(self) in memo:
            return
        memo.add(id(self))
        yield prefix, self
        for name, module in self._modules.items():
            if module is not None:
                yield from module.named_modules(
                    prefix + ("." if prefix else "") + name, memo)

    def modules(self):
        for _, m in self.named_modules():
            yield m

    def named_children(self):
        yield from self._modules.items()

    def children(self):
        for _, m in self.named_children():
            yield m

    def _named(self, table, prefix, recurse):
        seen = set()
        modules = self.named_modules(prefix) if recurse else [(prefix, self)]
        for module_prefix, module in modules:
            for name, value in getattr(module, table).items():
                if value is None or id(value) in seen:
                    continue
                seen.add(id(value))
                yield module_prefix + ("." if module_prefix else "") + name, \
                    value

    def named_parameters(self, prefix="", recurse=True):
        yield from self._named("_parameters", prefix, recurse)

    def parameters(self, recurse=True):
        for _, p in self.named_parameters(recurse=recurse):
            yield p

    def named_buffers(self, prefix="", recurse=True):
        yield from self._named("_buffers", prefix, recurse)

    def buffers(self, recurse=True):
        for _, b in self.named_buffers(recurse=recurse):
            yield b

    # Modes.
    def train(self, mode=True):
        for m in self.modules():
            object.__setattr__(m, "training", bool(mode))
        return self

    def eval(self):
        return self.train(False)

    def requires_grad_(self, requires_grad=True):
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none=True):
        for p in self.parameters():
            if set_to_none or p.grad is None:
                p.grad = None
            else:
                p.grad = _C._constant(list(p.shape), 0.0, p.dtype)

    def to(self, *args, dtype=None, **kwargs):
        """Floating parameters and buffers converted to ``dtype`` (new
        leaves; an optimizer made before holds the old ones). A device
        name is accepted and ignored (kiln.set_device picks the device)."""
        for a in args:
            if not (isinstance(a, str) and a != "bfloat16"):
                dtype = a
        if dtype is None:
            return self
        dtype = to_dtype(dtype)
        for m in self.modules():
            for name, p in list(m._parameters.items()):
                if p is not None and is_floating(p.dtype) and p.dtype != dtype:
                    m._parameters[name] = Parameter(p.detach().to(dtype),
                                                    p.requires_grad)
            for name, b in list(m._buffers.items()):
                if b is not None and is_floating(b.dtype):
                    m._buffers[name] = b.to(dtype)
        return self

    def float(self):
        return self.to(float32)

    def half(self):
        return self.to("float16")

    def bfloat16(self):
        return self.to("bfloat16")

    def double(self):
        return self.to("float64")

    def apply(self, fn):
        for m in self.children():
            m.apply(fn)
        fn(self)
        return self

    # State.
    def state_dict(self, destination=None, prefix="", keep_vars=False):
        """Parameters and persistent buffers by dotted name, detached."""
        out = collections.OrderedDict() if destination is None else \
            destination
        for module_prefix, m in self.named_modules(prefix.rstrip(".")):
            dot = module_prefix + ("." if module_prefix else "")
            for name, p in m._parameters.items():
                if p is not None:
                    out[dot + name] = p if keep_vars else p.detach()
            skipped = m.__dict__.get("_non_persistent", set())
            for name, b in m._buffers.items():
                if b is not None and name not in skipped:
                    out[dot + name] = b if keep_vars else b.detach()
        return out

    def load_state_dict(self, state_dict, strict=True, assign=False):
        """Copies values (kiln tensors or numpy arrays) into the
        parameters and buffers of the same names. Each keeps its tensor
        object, dtype and flags (an optimizer made before sees the new
        values)."""
        own = self.state_dict(keep_vars=True)
        missing = [k for k in own if k not in state_dict]
        unexpected = [k for k in state_dict if k not in own]
        if strict and (missing or unexpected):
            raise RuntimeError(
                f"Error(s) in loading state_dict for {type(self).__name__}: "
                f"missing keys {missing}, unexpected keys {unexpected}")
        for name, target in own.items():
            if name not in state_dict:
                continue
            value = state_dict[name]
            value = value if isinstance(value, _C.Tensor) else _C.tensor(
                _np.asarray(value))
            if tuple(value.shape) != tuple(target.shape):
                raise RuntimeError(
                    f"size mismatch for {name}: copying a param with shape "
                    f"{list(value.shape)} from checkpoint, the shape in "
                    f"current model is {list(target.shape)}.")
            target._rebind(value.detach().to(target.dtype))
        return collections.namedtuple("IncompatibleKeys", [
            "missing_keys", "unexpected_keys"])(missing, unexpected)

    def extra_repr(self):
        return ""

    def __repr__(self):
        lines = [f"({name}): " + repr(m).replace("\n", "\n  ")
                 for name, m in self._modules.items()]
        head = type(self).__name__ + "(" + self.extra_repr()
        if not lines:
            return head + ")"
        return head + "\n  " + "\n  ".join(lines) + "\n)"


class Linear(Module):
    def __init__(self, in_features, out_features, bias=True, dtype=None):
        super().__init__()
        self.in_features, self.out_features = in_features, out_features
        dtype = to_dtype(dtype or float32)
        self.weight = Parameter(_C._filled((out_features, in_features), 0.0,
                                           dtype))
        self.bias = Parameter(_C._filled((out_features,), 0.0, dtype)) \
            if bias else None
        self.reset_parameters()

    def reset_parameters(self):
        # PyTorch's: kaiming_uniform_(a=sqrt(5)), i.e. U(+-1/sqrt(fan_in)),
        # and the bias U(+-1/sqrt(fan_in)).
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            bound = 1 / math.sqrt(self.in_features) if self.in_features \
                else 0
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input):
        return F.linear(input, self.weight, self.bias)

    def extra_repr(self):
        return (f"in_features={self.in_features}, out_features="
                f"{self.out_features}, bias={self.bias is not None}")


class Embedding(Module):
    def __init__(self, num_embeddings, embedding_dim, padding_idx=None,
                 dtype=None):
        super().__init__()
        self.num_embeddings, self.embedding_dim = num_embeddings, \
            embedding_dim
        if padding_idx is not None and padding_idx < 0:
            padding_idx += num_embeddings
        self.padding_idx = padding_idx
        self.weight = Parameter(_C._filled((num_embeddings, embedding_dim),
                                           0.0, to_dtype(dtype or float32)))
        self.reset_parameters()

    def reset_parameters(self):
        init.normal_(self.weight)
        if self.padding_idx is not None:
            with no_grad():
                row = _C._iota([self.num_embeddings, 1], 0) == \
                    self.padding_idx
                self.weight._assign_(self.weight.masked_fill(row, 0.0))

    def forward(self, input):
        return F.embedding(input, self.weight, self.padding_idx)

    def extra_repr(self):
        return f"{self.num_embeddings}, {self.embedding_dim}"


class LayerNorm(Module):
    def __init__(self, normalized_shape, eps=1e-5, elementwise_affine=True,
                 bias=True, dtype=None):
        super().__init__()
        if isinstance(normalized_shape, int):
            normalized_shape = (normalized_shape,)
        self.normalized_shape = tuple(normalized_shape)
        self.eps = eps
        dtype = to_dtype(dtype or float32)
        if elementwise_affine:
            self.weight = Parameter(_C._filled(self.normalized_shape, 1.0,
                                               dtype))
            self.bias = Parameter(_C._filled(self.normalized_shape, 0.0,
                                             dtype)) if bias else None
        else:
            self.weight = self.bias = None

    def forward(self, input):
        return F.layer_norm(input, self.normalized_shape, self.weight,
                            self.bias, self.eps)

    def extra_repr(self):
        return f"{self.normalized_shape}, eps={self.eps}"


class RMSNorm(Module):
    def __init__(self, normalized_shape, eps=None, elementwise_affine=True,
                 dtype=None):
        super().__init__()
        if isinstance(normalized_shape, int):
            normalized_shape = (normalized_shape,)
        self.normalized_shape = tuple(normalized_shape)
        self.eps = eps
        self.weight = Parameter(_C._filled(
            self.normalized_shape, 1.0, to_dtype(dtype or float32))) \
            if elementwise_affine else None

    def forward(self, input):
        return F.rms_norm(input, self.normalized_shape, self.weight,
                          self.eps)


class Dropout(Module):
    def __init__(self, p=0.5, inplace=False):
        super().__init__()
        if not 0.0 <= p <= 1.0:
            raise ValueError(f"dropout probability has to be between 0 and "
                             f"1, but got {p}")
        self.p, self.inplace = p, inplace

    def forward(self, input):
        return F.dropout(input, self.p, self.training, self.inplace)

    def extra_repr(self):
        return f"p={self.p}, inplace={self.inplace}"


class GELU(Module):
    def __init__(self, approximate="none"):
        super().__init__()
        if approximate not in ("none", "tanh"):
            raise ValueError(f"approximate argument must be either none or "
                             f"tanh, not {approximate!r}")
        self.approximate = approximate

    def forward(self, input):
        return F.gelu(input, self.approximate)


class ReLU(Module):
    def __init__(self, inplace=False):
        super().__init__()

    def forward(self, input):
        return F.relu(input)


class Tanh(Module):
    def forward(self, input):
        return _C.tanh(input)


class Sigmoid(Module):
    def forward(self, input):
        return _C.sigmoid(input)


class SiLU(Module):
    def forward(self, input):
        return F.silu(input)


class Identity(Module):
    def __init__(self, *args, **kwargs):
        super().__init__()

    def forward(self, input):
        return input


class Softmax(Module):
    def __init__(self, dim=None):
        super().__init__()
        self.dim = dim

    def forward(self, input):
        return F.softmax(input, self.dim)


class CrossEntropyLoss(Module):
    def __init__(self, weight=None, ignore_index=-100, reduction="mean",
                 label_smoothing=0.0):
        super().__init__()
        self.weight, self.ignore_index = weight, ignore_index
        self.reduction, self.label_smoothing = reduction, label_smoothing

    def forward(self, input, target):
        return F.cross_entropy(input, target, self.weight, self.ignore_index,
                               self.reduction, self.label_smoothing)


class MSELoss(Module):
    def __init__(self, reduction="mean"):
        super().__init__()
        self.reduction = reduction

    def forward(self, input, target):
        return F.mse_loss(input, target, self.reduction)


class Sequential(Module):
    def __init__(self, *modules):
        super().__init__()
        if len(modules) == 1 and isinstance(modules[0],
                                            collections.OrderedDict):
            for name, m in modules[0].items():
                self.add_module(name, m)
        else:
            for i, m in enumerate(modules):
                self.add_module(str(i), m)

    def __getitem__(self, index):
        items = list(self._modules.values())
        if isinstance(index, slice):
            return Sequential(*items[index])
        return items[index]

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    def append(self, module):
        self.add_module(str(len(self)), module)
        return self

    def forward(self, input):
        for m in self._modules.values():
            input = m(input)
        return input


class ModuleList(Module):
    def __init__(self, modules=None):
        super().__init__()
        for m in modules or []:
            self.append(m)

    def append(self, module):
        self.add_module(str(len(self._modules)), module)
        return self

    def extend(self, modules):
        for m in modules:
            self.append(m)
        return self

    def __getitem__(self, index):
        items = list(self._modules.values())
        if isinstance(index, slice):
            return ModuleList(items[index])
        return items[index]

    def __setitem__(self, index, module):
        key = list(self._modules.keys())[index]
        self._modules[key] = module

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())


class ModuleDict(Module):
    def __init__(self, modules=None):
        super().__init__()
        for name, m in (dict(modules) if modules else {}).items():
            self.add_module(name, m)

    def __getitem__(self, key):
        return self._modules[key]

    def __setitem__(self, key, module):
        self.add_module(key, module)

    def __delitem__(self, key):
        del self._modules[key]

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules)

    def __contains__(self, key):
        return key in self._modules

    def keys(self):
        return self._modules.keys()

    def values(self):
        return self._modules.values()

    def items(self):
        return self._modules.items()
