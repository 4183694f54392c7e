"""torch.nn.utils: clip_grad_norm_."""

import math

from .. import _C
from ..autograd import no_grad


def clip_grad_norm_(parameters, max_norm, norm_type=2.0,
                    error_if_nonfinite=False):
    """Scales the gradients so that their joint norm is at most
    ``max_norm``; returns the norm (a tensor: nothing is read, so a
    training step stays one program)."""
    # A generator (model.parameters()) is walked twice.
    parameters = [parameters] if isinstance(parameters, _C.Tensor) else \
        list(parameters)
    grads = [p.grad for p in parameters if p.grad is not None]
    if not grads:
        return _C.tensor(0.0)
    if error_if_nonfinite:
        raise NotImplementedError("error_if_nonfinite needs the norm's "
                                  "value: check it after reading")
    norm_type = float(norm_type)
    with no_grad():
        if norm_type == math.inf:
            norms = [g.abs().amax().float() for g in grads]
            total = norms[0]
            for n in norms[1:]:
                total = _C.maximum(total, n)
        else:
            total = None
            for g in grads:
                part = (g.float().abs() ** norm_type).sum()
                total = part if total is None else total + part
            total = total ** (1.0 / norm_type)
        scale = _C.minimum(max_norm / (total + 1e-6), 1.0)
        for p in parameters:
            if p.grad is not None:
                p.grad = p.grad * scale.to(p.grad.dtype)
    return total
