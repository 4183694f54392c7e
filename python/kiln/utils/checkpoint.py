"""Activation checkpointing, as ``torch.utils.checkpoint``.

``checkpoint(function, *args)`` returns ``function(*args)``; a gradient
that needs the values computed inside recomputes them from ``args`` when
the backward reaches them, instead of keeping them from the forward. The
forward's own values inside die as soon as the forward is done with them:
activation memory for the price of running ``function`` again.

kiln records lazily and derives gradients by its compiler, so the ops
recorded inside ``function`` are marked as a checkpoint segment and
``-kiln-autodiff`` copies them into the backward. The gradients are the
same as without checkpointing. Random ops inside (dropout) recompute the
same values: kiln's generator is counter-based, so ``preserve_rng_state``
always holds. ``use_reentrant`` selects between two PyTorch
implementations with the same gradients; kiln has one, and takes either.
"""

from .. import _C

__all__ = ["checkpoint", "checkpoint_sequential"]


def checkpoint(function, *args, use_reentrant=None, context_fn=None,
               determinism_check="default", debug=False,
               preserve_rng_state=True, **kwargs):
    """``function(*args, **kwargs)``, its values recomputed by gradients."""
    if context_fn is not None:
        raise NotImplementedError(
            "kiln.utils.checkpoint.checkpoint: context_fn is not supported "
            "(kiln records no autograd hooks); call it without one")
    if determinism_check not in ("default", "none"):
        raise ValueError(
            "determinism_check must be 'default' or 'none', not "
            f"{determinism_check!r}")
    with _C._CheckpointScope():
        return function(*args, **kwargs)


def checkpoint_sequential(functions, segments, input, use_reentrant=None,
                          **kwargs):
    """Runs ``functions`` (a list or a ``kiln.nn.Sequential``) on ``input``
    in ``segments`` checkpointed chunks, as PyTorch's: the last chunk is
    not checkpointed (its values are needed at once by the backward)."""
    if hasattr(functions, "children") and not isinstance(functions, list):
        functions = list(functions.children())
    functions = list(functions)
    if segments < 1:
        raise ValueError(f"segments must be at least 1, not {segments}")
    size = max(1, len(functions) // segments)

    def run(start, end):
        def forward(x):
            for f in functions[start:end]:
                x = f(x)
            return x
        return forward

    end = -1
    for start in range(0, size * (segments - 1), size):
        end = start + size - 1
        input = checkpoint(run(start, end + 1), input,
                           use_reentrant=use_reentrant, **kwargs)
    return run(end + 1, len(functions))(input)
