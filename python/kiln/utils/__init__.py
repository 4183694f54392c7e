"""Utilities, as ``torch.utils``: ``kiln.utils.checkpoint``."""

from . import checkpoint

__all__ = ["checkpoint"]
