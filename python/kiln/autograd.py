"""Gradient mode: ``kiln.no_grad()``, ``enable_grad()``,
``set_grad_enabled(mode)``, as PyTorch's (context managers and
decorators)."""

import functools

from . import _C


class _GradMode:
    mode = True

    def __enter__(self):
        self._previous = _C.is_grad_enabled()
        _C._set_grad_enabled(self.mode)
        return self

    def __exit__(self, *exc):
        _C._set_grad_enabled(self._previous)
        return False

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapped(*args, **kwargs):
            with self.__class__():
                return fn(*args, **kwargs)
        return wrapped


class no_grad(_GradMode):
    """Ops inside make tensors that do not require grad; an in-place op on
    a leaf that requires grad (``p -= lr * p.grad``) keeps it a leaf."""
    mode = False


class enable_grad(_GradMode):
    mode = True


class set_grad_enabled(_GradMode):
    def __init__(self, mode):
        self.mode = bool(mode)
        self._previous = _C.is_grad_enabled()
        _C._set_grad_enabled(self.mode)

    def __enter__(self):
        return self

    def __call__(self, fn):
        _C._set_grad_enabled(self._previous)

        @functools.wraps(fn)
        def wrapped(*args, **kwargs):
            with set_grad_enabled(self.mode):
                return fn(*args, **kwargs)
        return wrapped


inference_mode = no_grad
grad = _C.grad
