"""kiln: a lazy-tensor compiler on MLIR.

This pure-Python package drives the command-line tools today; the pybind11
lazy-tensor module joins it later. `kiln.run` compiles and runs a function
of a kiln MLIR file on numpy arrays through `kiln-run`.
"""

from .runner import KilnRunError, find_tool, run

__all__ = ["KilnRunError", "find_tool", "run"]
