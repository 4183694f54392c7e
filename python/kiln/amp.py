"""Mixed precision with PyTorch's names: ``kiln.autocast`` (also
``kiln.amp.autocast``) and ``kiln.amp.GradScaler``.

Under ``with kiln.autocast(device_type="cuda", dtype=kiln.bfloat16):``,
while the lazy tensors run on that device (``kiln.set_device``), on this
thread:

- matrix products (``@``, ``matmul``, ``linear``) cast their float32,
  float16 and bfloat16 operands to the autocast dtype and return it: on the
  GPU they run on tensor cores, with float32 sums;
- PyTorch's float32 ops cast float16 and bfloat16 operands to float32 and
  return float32; as in PyTorch, the list depends on the device: on cuda
  softmax, log_softmax, sum, exp, log, pow, rsqrt, reciprocal, layer_norm,
  rms_norm and the losses; on the cpu the losses only;
- every other op runs in its operands' types, with PyTorch's promotion.

float64 is never cast. The casts are recorded ops, so each parameter's
gradient comes back in the parameter's own dtype. On the CPU, bfloat16
values are stored as bfloat16 and computed in float32.
"""

import functools as _functools

from . import _C
from . import _dtypes

_NARROW = (_dtypes.bfloat16, _dtypes.float16)


def _dtype_name(dtype):
    return "bfloat16" if dtype == _dtypes.bfloat16 else "float16"


def _check_device_type(device_type):
    if device_type not in ("cpu", "cuda"):
        raise ValueError(f"autocast: device_type must be 'cpu' or 'cuda', "
                         f"not {device_type!r}")


def get_autocast_dtype(device_type):
    """The dtype autocast casts products to on ``device_type``: float16 on
    cuda and bfloat16 on the cpu until an autocast says otherwise."""
    _check_device_type(device_type)
    _, name = _C._get_autocast_state(device_type)
    return _dtypes.to_dtype(name)


def is_autocast_enabled(device_type="cuda"):
    """Whether autocast is on for ``device_type`` on this thread."""
    _check_device_type(device_type)
    return _C._get_autocast_state(device_type)[0]


class autocast:
    """``torch.autocast``: a context manager (and decorator) that turns
    mixed precision on for ``device_type`` ("cpu" or "cuda") in ``dtype``
    (bfloat16 or float16; by default float16 on cuda and bfloat16 on the
    cpu, as PyTorch). ``enabled=False`` turns it off inside an outer one.
    Where PyTorch warns about a dtype it cannot use and disables autocast,
    kiln raises ValueError."""

    def __init__(self, device_type, dtype=None, enabled=True,
                 cache_enabled=None):
        _check_device_type(device_type)
        if not isinstance(enabled, bool):
            raise TypeError(f"autocast: enabled must be a bool, not "
                            f"{type(enabled).__name__}")
        fast = get_autocast_dtype(device_type) if dtype is None else \
            _dtypes.to_dtype(dtype)
        if fast not in _NARROW:
            raise ValueError(f"autocast: dtype must be kiln.bfloat16 or "
                             f"kiln.float16, not {fast}")
        self.device = device_type
        self.fast_dtype = fast
        self._enabled = enabled
        self._previous = []

    def __enter__(self):
        self._previous.append(_C._set_autocast_state(
            self.device, self._enabled, _dtype_name(self.fast_dtype)))
        return self

    def __exit__(self, *exc):
        enabled, name = self._previous.pop()
        _C._set_autocast_state(self.device, enabled, name)
        return False

    def __call__(self, func):
        @_functools.wraps(func)
        def under_autocast(*args, **kwargs):
            with autocast(self.device, self.fast_dtype, self._enabled):
                return func(*args, **kwargs)

        return under_autocast


def _float32_under_autocast(fn=None, *, cuda_only=False):
    """Runs ``fn`` (one of PyTorch's float32 ops under autocast) with its
    float16 and bfloat16 tensor arguments cast to float32 while autocast is
    on (``cuda_only``: on the cuda device only, as PyTorch's cpu autocast
    leaves the norms narrow)."""
    if fn is None:
        return _functools.partial(_float32_under_autocast,
                                  cuda_only=cuda_only)

    def widen(x):
        if isinstance(x, _C.Tensor) and x.dtype in _NARROW:
            return x.float()
        return x

    @_functools.wraps(fn)
    def in_float32(*args, **kwargs):
        if (_C._autocast_widening_math() if cuda_only
                else _C._autocast_active()):
            args = tuple(widen(a) for a in args)
            kwargs = {k: widen(v) for k, v in kwargs.items()}
        return fn(*args, **kwargs)

    return in_float32


class GradScaler:
    """``torch.amp.GradScaler``: scales the loss so that float16 gradients
    do not underflow, unscales the gradients before the optimizer's step,
    skips the step when a gradient is inf or NaN, and adapts the scale:
    times ``backoff_factor`` after a skipped step, times ``growth_factor``
    after ``growth_interval`` steps in a row without one.

        scaler = kiln.amp.GradScaler()
        with kiln.autocast("cuda", dtype=kiln.float16):
            loss = loss_fn(model(x), y)
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()

    Deciding to skip reads one value back (whether any gradient is not
    finite), as PyTorch's step does."""

    def __init__(self, device="cuda", init_scale=2.0 ** 16,
                 growth_factor=2.0, backoff_factor=0.5, growth_interval=2000,
                 enabled=True):
        _check_device_type(device)
        if growth_factor <= 1.0:
            raise ValueError("GradScaler: growth_factor must be > 1")
        if not 0.0 < backoff_factor < 1.0:
            raise ValueError("GradScaler: backoff_factor must be in (0, 1)")
        if growth_interval < 1:
            raise ValueError("GradScaler: growth_interval must be >= 1")
        self._enabled = bool(enabled)
        self._scale = float(init_scale)
        self._growth_factor = float(growth_factor)
        self._backoff_factor = float(backoff_factor)
        self._growth_interval = int(growth_interval)
        self._growth_tracker = 0
        # Per optimizer since the last update(): "unscaled" or "stepped",
        # and whether its gradients held an inf or a NaN.
        self._states = {}

    def is_enabled(self):
        return self._enabled

    def get_scale(self):
        return self._scale if self._enabled else 1.0

    def get_growth_factor(self):
        return self._growth_factor

    def get_backoff_factor(self):
        return self._backoff_factor

    def get_growth_interval(self):
        return self._growth_interval

    def scale(self, outputs):
        """``outputs`` (a tensor, or lists and tuples of them) times the
        scale."""
        if not self._enabled:
            return outputs
        if isinstance(outputs, (list, tuple)):
            return type(outputs)(self.scale(o) for o in outputs)
        if not isinstance(outputs, _C.Tensor):
            raise TypeError(f"GradScaler.scale: expected a tensor, not "
                            f"{type(outputs).__name__}")
        return outputs * self._scale

    def _state(self, optimizer):
        return self._states.setdefault(id(optimizer), {"stage": "ready",
                                                       "found_inf": False})

    def unscale_(self, optimizer):
        """Divides ``optimizer``'s gradients by the scale (once per step),
        and notes whether any is inf or NaN."""
        if not self._enabled:
            return
        state = self._state(optimizer)
        if state["stage"] == "unscaled":
            raise RuntimeError("unscale_() has already been called on this "
                               "optimizer since the last update().")
        if state["stage"] == "stepped":
            raise RuntimeError("unscale_() is being called after step().")
        inverse = 1.0 / self._scale
        non_finite = None
        for group in optimizer.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                p.grad = p.grad * inverse
                # x - x is NaN exactly where x is inf or NaN.
                bad = ((p.grad - p.grad) != 0).any()
                non_finite = bad if non_finite is None else non_finite | bad
        state["found_inf"] = bool(non_finite.item()) \
            if non_finite is not None else False
        state["stage"] = "unscaled"

    def step(self, optimizer, *args, **kwargs):
        """``optimizer.step()`` on the unscaled gradients, unless one of
        them is inf or NaN: then nothing is updated and None comes back."""
        if not self._enabled:
            return optimizer.step(*args, **kwargs)
        state = self._state(optimizer)
        if state["stage"] == "stepped":
            raise RuntimeError("step() has already been called since the "
                               "last update().")
        if state["stage"] == "ready":
            self.unscale_(optimizer)
        state["stage"] = "stepped"
        if state["found_inf"]:
            return None
        return optimizer.step(*args, **kwargs)

    def update(self, new_scale=None):
        """Adapts the scale to the steps since the last update (or sets it
        to ``new_scale``)."""
        if not self._enabled:
            return
        if new_scale is not None:
            self._scale = float(new_scale.item() if isinstance(
                new_scale, _C.Tensor) else new_scale)
        else:
            if not self._states:
                raise RuntimeError("No inf checks were recorded prior to "
                                   "update().")
            if any(s["found_inf"] for s in self._states.values()):
                self._scale *= self._backoff_factor
                self._growth_tracker = 0
            else:
                self._growth_tracker += 1
                if self._growth_tracker == self._growth_interval:
                    self._scale *= self._growth_factor
                    self._growth_tracker = 0
        self._states = {}

    def state_dict(self):
        if not self._enabled:
            return {}
        return {"scale": self._scale, "growth_factor": self._growth_factor,
                "backoff_factor": self._backoff_factor,
                "growth_interval": self._growth_interval,
                "_growth_tracker": self._growth_tracker}

    def load_state_dict(self, state_dict):
        if not self._enabled:
            return
        if not state_dict:
            raise RuntimeError("The source state dict is empty, possibly "
                               "because it was saved from a disabled "
                               "instance of GradScaler.")
        self._scale = float(state_dict["scale"])
        self._growth_factor = float(state_dict["growth_factor"])
        self._backoff_factor = float(state_dict["backoff_factor"])
        self._growth_interval = int(state_dict["growth_interval"])
        self._growth_tracker = int(state_dict["_growth_tracker"])
