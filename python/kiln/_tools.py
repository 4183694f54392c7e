"""Console scripts of an installed kiln (pip install .): kiln-run and
kiln-opt run the tools installed in the package's bin/ directory."""

import os
import sys


def _exec(name):
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "bin",
                        name)
    if not os.access(path, os.X_OK):
        sys.exit(f"{name}: not installed with this kiln package ({path})")
    os.execv(path, [path] + sys.argv[1:])


def kiln_run():
    _exec("kiln-run")


def kiln_opt():
    _exec("kiln-opt")
