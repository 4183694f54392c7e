"""Optimizers with PyTorch's names and update rules: SGD, Adam and AdamW.

``step()`` records the update (nothing runs) and rebinds each parameter to
its new value. The new parameters, the optimizer's state and the gradients
are computed together with whatever is read next (``loss.item()``,
``kiln.sync()``), so a training step is one compiled program. A step also
computes what an earlier step left pending, so the trace never grows from
step to step, even when nothing is read.

A group's learning rate is data: each group holds it in a rank-0 float64
tensor as well, which ``param_groups[i]["lr"] = x`` (and a scheduler)
rebinds. A new rate never compiles a new program, and a ``kiln.jit``
replay of a step uses the rate set since.
"""


import numpy as _np

from .. import _C


class _ParamGroup(dict):
    """A param group whose "lr" is also the rank-0 tensor the updates
    read."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.lr_tensor = None

    def __setitem__(self, key, value):
        super().__setitem__(key, value)
        if key == "lr" and self.lr_tensor is not None:
            self.lr_tensor._rebind(_lr_data(value))

    def lr(self, dtype):
        """The learning rate as a tensor of `dtype`."""
        if self.lr_tensor is None:
            self.lr_tensor = _lr_data(self["lr"])
        lr = self.lr_tensor
        return lr if dtype == _np.float64 else lr.to(dtype)


def _lr_data(value):
    if isinstance(value, _C.Tensor):
        value = value.item()
    return _C.tensor(_np.array(float(value), _np.float64))


class Optimizer:
    def __init__(self, params, defaults):
        self.param_groups = []
        params = list(params)
        if not params:
            raise ValueError("optimizer got an empty parameter list")
        if isinstance(params[0], dict):
            for group in params:
                self.add_param_group(dict(group), defaults)
        else:
            self.add_param_group({"params": params}, defaults)
        self.state = {}

    def add_param_group(self, group, defaults=None):
        defaults = self.defaults if defaults is None else defaults
        self.defaults = defaults
        group = _ParamGroup(group)
        params = group["params"]
        group["params"] = [params] if isinstance(params, _C.Tensor) else \
            list(params)
        for p in group["params"]:
            if not isinstance(p, _C.Tensor):
                raise TypeError("optimizer params must be kiln.Tensor, not "
                                + type(p).__name__)
            if not p.requires_grad or not p.is_leaf:
                raise ValueError("optimizer params must be leaves with "
                                 "requires_grad=True")
        for key, value in defaults.items():
            group.setdefault(key, value)
        # Made now, not in the first step: a kiln.jit capture of the first
        # step then reads the same state as every later one.
        group.lr_tensor = _lr_data(group["lr"])
        self.param_groups.append(group)

    def zero_grad(self, set_to_none=True):
        for group in self.param_groups:
            for p in group["params"]:
                if set_to_none or p.grad is None:
                    p.grad = None
                else:
                    p.grad = _C._constant(list(p.shape), 0.0, p.dtype)

    def step(self):
        # What the previous step left uncomputed is computed now, so that
        # parameters never chain one step's trace onto the next.
        if _C._has_pending():
            _C._flush_pending()
        updated = []
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                updated.extend(self._update(p, p.grad, group))
                updated.append(p.grad)
        _C._mark_pending(updated)

    def state_dict(self):
        """PyTorch's layout: {"state": {index: {name: tensor or number}},
        "param_groups": [{hyperparameters..., "params": [indices]}]}, the
        parameters numbered in group order."""
        index = {}
        groups = []
        for group in self.param_groups:
            packed = {k: v for k, v in group.items() if k != "params"}
            packed["params"] = []
            for p in group["params"]:
                index.setdefault(id(p), len(index))
                packed["params"].append(index[id(p)])
            groups.append(packed)
        state = {}
        for group in self.param_groups:
            for p in group["params"]:
                if p in self.state:
                    state[index[id(p)]] = {
                        k: v.detach() if isinstance(v, _C.Tensor) else v
                        for k, v in self.state[p].items()}
        return {"state": state, "param_groups": groups}

    def load_state_dict(self, state_dict):
        """Takes a state_dict of an optimizer over parameters of the same
        shapes, in the same order: hyperparameters (lr as data) and
        state (tensors or numpy arrays, converted to this optimizer's
        dtypes)."""
        groups = state_dict["param_groups"]
        if len(groups) != len(self.param_groups):
            raise ValueError("loaded state dict has a different number of "
                             "parameter groups")
        params = []
        for saved, group in zip(groups, self.param_groups):
            if len(saved["params"]) != len(group["params"]):
                raise ValueError("loaded state dict contains a parameter "
                                 "group that doesn't match the size of "
                                 "optimizer's group")
            for key, value in saved.items():
                if key != "params":
                    group[key] = tuple(value) if isinstance(value, list) \
                        else value
            params.extend(zip(saved["params"], group["params"]))
        saved_state = {int(k): v for k, v in state_dict["state"].items()}
        for number, p in params:
            if number not in saved_state:
                continue
            mine = self.state.setdefault(p, {})
            for key, value in saved_state[number].items():
                if not isinstance(value, (_C.Tensor, _np.ndarray)):
                    mine[key] = value
                    continue
                value = value if isinstance(value, _C.Tensor) else \
                    _C.tensor(value)
                old = mine.get(key)
                dtype = old.dtype if old is not None else (
                    p.dtype if value.ndim else value.dtype)
                value = value.to(dtype)
                if old is not None and tuple(old.shape) == tuple(value.shape):
                    old._rebind(value)
                else:
                    mine[key] = _C.tensor(value)

    def _zeros_like(self, p):
        # Data (not a constant), so that the first step has the structure
        # of every later one: one compile for the training step.
        dtype = p.dtype if p.dtype != "bfloat16" else _np.float32
        state = _C.tensor(_np.zeros(p.shape, dtype))
        return state if p.dtype != "bfloat16" else state.astype("bfloat16")


class SGD(Optimizer):
    """torch.optim.SGD: p -= lr * (g + weight_decay * p), with momentum
    buf = momentum * buf + (1 - dampening) * g (nesterov: g + momentum *
    buf)."""

    def __init__(self, params, lr, momentum=0.0, dampening=0.0,
                 weight_decay=0.0, nesterov=False):
        if lr < 0 or momentum < 0 or weight_decay < 0:
            raise ValueError("SGD: lr, momentum and weight_decay must be "
                             "non-negative")
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("SGD: nesterov needs momentum > 0 and no "
                             "dampening")
        super().__init__(params, dict(lr=lr, momentum=momentum,
                                      dampening=dampening,
                                      weight_decay=weight_decay,
                                      nesterov=nesterov))

    def _update(self, p, g, group):
        if group["weight_decay"]:
            g = g + group["weight_decay"] * p
        changed = []
        momentum = group["momentum"]
        if momentum:
            state = self.state.setdefault(p, {})
            buf = state.get("momentum_buffer")
            dampening = group["dampening"]
            if buf is None and dampening:
                # torch's first step: the buffer is the gradient itself.
                buf = state["momentum_buffer"] = _C.tensor(g)
            else:
                if buf is None:
                    # Zero data: momentum * 0 + g is g exactly, and the
                    # first step has the structure of every later one.
                    buf = state["momentum_buffer"] = self._zeros_like(p)
                buf._rebind(buf * momentum + g * (1 - dampening))
            changed.append(buf)
            g = g + momentum * buf if group["nesterov"] else buf
        p._rebind(p - group.lr(p.dtype) * g)
        changed.append(p)
        return changed


class Adam(Optimizer):
    """torch.optim.Adam (weight_decay added to the gradient, as torch's
    Adam; AdamW decouples it)."""

    _decoupled = False

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8,
                 weight_decay=0.0, amsgrad=False):
        if amsgrad:
            raise NotImplementedError("amsgrad is not implemented in kiln")
        if lr < 0 or eps < 0 or weight_decay < 0:
            raise ValueError("Adam: lr, eps and weight_decay must be "
                             "non-negative")
        if not (0 <= betas[0] < 1 and 0 <= betas[1] < 1):
            raise ValueError("Adam: betas must be in [0, 1)")
        super().__init__(params, dict(lr=lr, betas=tuple(betas), eps=eps,
                                      weight_decay=weight_decay))

    def _update(self, p, g, group):
        beta1, beta2 = group["betas"]
        state = self.state.get(p)
        if state is None:
            # The step count is a tensor (as torch's), so that the bias
            # corrections are computed in the step's program: a Python
            # counter would be a new number every step, which kiln.jit
            # cannot replay.
            count_dtype = _np.float64 if p.dtype == _np.float64 else \
                _np.float32
            state = self.state[p] = {
                "step": _C.tensor(_np.zeros((), count_dtype)),
                "exp_avg": self._zeros_like(p),
                "exp_avg_sq": self._zeros_like(p),
            }
        step = state["step"]
        step._rebind(step + 1)
        if group["weight_decay"] and self._decoupled:
            # AdamW: p *= 1 - lr * weight_decay, before the update.
            p._rebind(p * (1 - group.lr(_np.float64) * group["weight_decay"]))
        elif group["weight_decay"]:
            g = g + group["weight_decay"] * p
        m, v = state["exp_avg"], state["exp_avg_sq"]
        m._rebind(m * beta1 + g * (1 - beta1))
        v._rebind(v * beta2 + g * g * (1 - beta2))
        step_size = group.lr(step.dtype) / (1 - beta1 ** step)
        inv_sqrt_bias_correction2 = _C.rsqrt(1 - beta2 ** step)
        if step.dtype != p.dtype:
            step_size = step_size.astype(p.dtype)
            inv_sqrt_bias_correction2 = inv_sqrt_bias_correction2.astype(
                p.dtype)
        denom = v.sqrt() * inv_sqrt_bias_correction2 + group["eps"]
        p._rebind(p - step_size * (m / denom))
        return [step, m, v, p]


class AdamW(Adam):
    """torch.optim.AdamW: Adam with the weight decay applied to the
    parameter (p *= 1 - lr * weight_decay) instead of the gradient;
    weight_decay defaults to 0.01, as PyTorch's."""

    _decoupled = True

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8,
                 weight_decay=1e-2, amsgrad=False):
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad)
