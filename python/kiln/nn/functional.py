"""torch.nn.functional's names on kiln tensors, with PyTorch's meaning.

Every function records kiln ops (nothing runs). ``cross_entropy`` picks
each label's log-probability with ``iota == label`` and a select, which
fuses into the softmax's row kernel whatever the number of classes.
"""

import math

from .. import _C
from ..amp import _float32_under_autocast
from .._dtypes import bool_, finfo, int64, is_floating, is_integer
from ..random import default_generator

_REDUCTIONS = ("none", "mean", "sum")


def linear(input, weight, bias=None):
    """input @ weight.T + bias."""
    out = input @ weight.mT
    return out + bias if bias is not None else out


def embedding(input, weight, padding_idx=None):
    """Rows of ``weight`` picked by the integer ``input`` (a kiln.take). A
    ``padding_idx`` row gets no gradient. An id out of range gives NaN
    rows where its value is not known when recorded (PyTorch raises)."""
    if not is_integer(input.dtype):
        raise RuntimeError(f"embedding: expected an int32 or int64 index "
                           f"tensor, got {input.dtype}")
    out = _C.take(weight, input, 0)
    if padding_idx is not None:
        if padding_idx < 0:
            padding_idx += weight.shape[0]
        pad = (input == padding_idx).unsqueeze(-1)
        out = _C.where(pad, out.detach(), out)
    return out


def _normalized_dims(x, normalized_shape):
    if isinstance(normalized_shape, int):
        normalized_shape = (normalized_shape,)
    normalized_shape = tuple(normalized_shape)
    if tuple(x.shape[x.ndim - len(normalized_shape):]) != normalized_shape:
        raise RuntimeError(f"Given normalized_shape={list(normalized_shape)},"
                           f" expected input with shape [*, "
                           f"{', '.join(map(str, normalized_shape))}], but "
                           f"got input of size{list(x.shape)}")
    return tuple(range(x.ndim - len(normalized_shape), x.ndim))


@_float32_under_autocast(cuda_only=True)
def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):
    dims = _normalized_dims(input, normalized_shape)
    mean = input.mean(dims, keepdim=True)
    centered = input - mean
    var = (centered * centered).mean(dims, keepdim=True)
    out = centered * _C.rsqrt(var + eps)
    if weight is not None:
        out = out * weight
    if bias is not None:
        out = out + bias
    return out


@_float32_under_autocast(cuda_only=True)
def rms_norm(input, normalized_shape, weight=None, eps=None):
    """x / sqrt(mean(x^2) + eps) * weight; eps defaults to the dtype's
    machine epsilon, as PyTorch's."""
    dims = _normalized_dims(input, normalized_shape)
    if eps is None:
        eps = finfo(input.dtype).eps
    out = input * _C.rsqrt((input * input).mean(dims, keepdim=True) + eps)
    return out * weight if weight is not None else out


def dropout(input, p=0.5, training=True, inplace=False):
    """Zeroes each element with probability ``p`` and scales the rest by
    1 / (1 - p); the mask comes from kiln's generator (its key is data, so
    every step draws a new mask without compiling)."""
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, "
                         f"but got {p}")
    if not training or p == 0.0:
        return input
    if p == 1.0:
        return input * 0.0
    keep = default_generator.uniform(input.shape) >= p
    out = _C.where(keep, input * (1.0 / (1.0 - p)), 0.0)
    return input._assign_(out) if inplace else out


def gelu(input, approximate="none"):
    if approximate not in ("none", "tanh"):
        raise ValueError(f"approximate argument must be either none or "
                         f"tanh, not {approximate!r}")
    return _C.gelu(input, approximate == "tanh")


def relu(input, inplace=False):
    return input._assign_(_C.relu(input)) if inplace else _C.relu(input)


def silu(input):
    return input * _C.sigmoid(input)


def tanh(input):
    return _C.tanh(input)


def sigmoid(input):
    return _C.sigmoid(input)


def softmax(input, dim=None, dtype=None):
    if dim is None:
        raise TypeError("softmax: give dim (PyTorch's implicit dim choice is "
                        "deprecated)")
    x = input.to(dtype) if dtype is not None else input
    return _C.softmax(x, dim)


def log_softmax(input, dim=None, dtype=None):
    if dim is None:
        raise TypeError("log_softmax: give dim")
    x = input.to(dtype) if dtype is not None else input
    return _C.log_softmax(x, dim)


def _reduce(loss, reduction, divisor=None):
    if reduction not in _REDUCTIONS:
        raise ValueError(f"{reduction} is not a valid value for reduction")
    if reduction == "none":
        return loss
    total = loss.sum()
    if reduction == "sum":
        return total
    return total / (divisor if divisor is not None else loss.numel())


def _check_targets(target, classes, ignore_index):
    """Labels known when recorded are checked as PyTorch checks them."""
    if target._has_value:
        values = target._known_numpy()
        bad = (values != ignore_index) & ((values < 0) | (values >= classes))
        if bad.any():
            raise IndexError(f"Target {int(values[bad].flat[0])} is out of "
                             f"bounds.")


def _class_last(x):
    """[N, C, d1, ...] as [N, d1, ..., C]."""
    return x if x.ndim <= 2 else x.movedim(1, -1)


@_float32_under_autocast
def nll_loss(input, target, weight=None, ignore_index=-100,
             reduction="mean"):
    """-input[n, target[n]] (times weight[target[n]]), averaged over the
    weights of the labels not ignored. The class dim is 1."""
    return _nll(input, target, weight, ignore_index, reduction, 0.0)


def _as_tensor(value):
    """A tensor of `value` (numpy data as kiln.tensor takes it)."""
    return value if isinstance(value, _C.Tensor) else _C.tensor(value)


def _nll(logp, target, weight, ignore_index, reduction, smoothing):
    target = _as_tensor(target)
    if not is_integer(target.dtype):
        raise RuntimeError(f"expected an int64 (or int32) target of class "
                           f"indices, got {target.dtype}")
    if logp.ndim < 1:
        raise ValueError("input must have a class dim")
    classes = logp.shape[1] if logp.ndim >= 2 else logp.shape[0]
    expected = (logp.shape[:1] + logp.shape[2:]) if logp.ndim >= 2 else ()
    if tuple(target.shape) != tuple(expected):
        raise ValueError(f"Expected target of shape {list(expected)} for "
                         f"input of shape {list(logp.shape)}, got "
                         f"{list(target.shape)}")
    _check_targets(target, classes, ignore_index)
    rows = _class_last(logp)
    label = target.unsqueeze(-1)
    onehot = _C._iota(list(rows.shape), rows.ndim - 1, "int64") == label.to(
        int64)
    picked = _C.where(onehot, rows, 0.0).sum(-1)
    kept = target != ignore_index
    if weight is not None:
        label_weight = _C.where(onehot, weight, 0.0).sum(-1)
        label_weight = _C.where(kept, label_weight, 0.0)
    else:
        label_weight = kept.to(logp.dtype)
    loss = -picked * label_weight
    if smoothing:
        w = weight if weight is not None else 1.0
        smooth = -(rows * w).sum(-1)
        smooth = _C.where(kept, smooth, 0.0)
        loss = (1.0 - smoothing) * loss + (smoothing / classes) * smooth
    return _reduce(loss, reduction, label_weight.sum())


@_float32_under_autocast
def cross_entropy(input, target, weight=None, ignore_index=-100,
                  reduction="mean", label_smoothing=0.0):
    """PyTorch's cross_entropy: logits with the class dim at 1 ([N, C] or
    [N, C, d1, ...]); ``target`` holds class indices ([N, d1, ...],
    integers) or class probabilities (input's shape, floats)."""
    if not 0.0 <= label_smoothing <= 1.0:
        raise ValueError("label_smoothing must be between 0.0 and 1.0")
    dim = 1 if input.ndim >= 2 else 0
    logp = _C.log_softmax(input, dim)
    target = _as_tensor(target)
    if is_integer(target.dtype):
        return _nll(logp, target, weight, ignore_index, reduction,
                    label_smoothing)
    if not is_floating(target.dtype) or tuple(target.shape) != tuple(
            input.shape):
        raise ValueError(f"cross_entropy: target must be class indices "
                         f"(integers) or probabilities of the input's "
                         f"shape {list(input.shape)}, got {target.dtype} "
                         f"{list(target.shape)}")
    classes = input.shape[dim]
    if label_smoothing:
        target = target * (1.0 - label_smoothing) + label_smoothing / classes
    weighted = logp * target
    if weight is not None:
        shape = [1] * input.ndim
        shape[dim] = classes
        weighted = weighted * weight.reshape(shape)
    loss = -weighted.sum(dim)
    rows = loss.numel()
    return _reduce(loss, reduction, rows)


@_float32_under_autocast
def mse_loss(input, target, reduction="mean"):
    diff = input - target
    return _reduce(diff * diff, reduction)


@_float32_under_autocast
def l1_loss(input, target, reduction="mean"):
    return _reduce((input - target).abs(), reduction)


@_float32_under_autocast
def binary_cross_entropy_with_logits(input, target, reduction="mean"):
    loss = _C.maximum(input, 0.0) - input * target + _C.log(
        1.0 + _C.exp(-input.abs()))
    return _reduce(loss, reduction)


def one_hot(tensor, num_classes=-1):
    if num_classes < 0:
        num_classes = int(tensor.max().item()) + 1
    shape = list(tensor.shape) + [num_classes]
    return (_C._iota(shape, len(shape) - 1, "int64") == tensor.unsqueeze(
        -1).to(int64)).to(int64)


def scaled_dot_product_attention(query, key, value, attn_mask=None,
                                 dropout_p=0.0, is_causal=False, scale=None):
    """softmax(q k^T * scale + mask) v, as PyTorch's (a causal mask hides
    the upper triangle)."""
    scale = 1.0 / math.sqrt(query.shape[-1]) if scale is None else scale
    scores = (query @ key.mT) * scale
    if is_causal:
        n, m = query.shape[-2], key.shape[-2]
        row = _C._iota([n, m], 0)
        col = _C._iota([n, m], 1)
        scores = scores.masked_fill(col > row, -math.inf)
    if attn_mask is not None:
        if attn_mask.dtype == bool_:
            scores = scores.masked_fill(~attn_mask, -math.inf)
        else:
            scores = scores + attn_mask
    weights = _C.softmax(scores, -1)
    if dropout_p:
        weights = dropout(weights, dropout_p)
    return weights @ value
