"""Run kiln functions on numpy arrays through the kiln-run tool."""

import json
import os
import shutil
import subprocess
import tempfile

import numpy as np


class KilnRunError(RuntimeError):
    """kiln-run rejected the program or its inputs; the message is its one
    line on stderr."""


def find_tool(name="kiln-run"):
    """The path of a kiln tool: $KILN_BUILD_DIR/bin, the package's own bin/
    (pip install .), the build tree this package was copied into
    (build/python/kiln), the build/ next to the source package, or PATH."""
    candidates = []
    if os.environ.get("KILN_BUILD_DIR"):
        candidates.append(os.path.join(os.environ["KILN_BUILD_DIR"], "bin", name))
    here = os.path.dirname(os.path.abspath(__file__))
    candidates.append(os.path.join(here, "bin", name))
    candidates.append(os.path.join(here, "..", "..", "bin", name))
    candidates.append(os.path.join(here, "..", "..", "build", "bin", name))
    for path in candidates:
        if os.access(path, os.X_OK):
            return os.path.normpath(path)
    found = shutil.which(name)
    if found:
        return found
    raise FileNotFoundError(f"cannot find {name}; set KILN_BUILD_DIR")


def run(mlir_file, *inputs, entry=None, repeat=1, report=False):
    """Runs `entry` of `mlir_file` on the numpy arrays `inputs`.

    Returns the list of outputs, or (outputs, report dict) when `report`.
    float32, float64, float16 and bool arrays are accepted; they are passed
    C-contiguous and little-endian.
    """
    tool = find_tool()
    with tempfile.TemporaryDirectory(prefix="kiln-run-") as tmp:
        cmd = [tool, str(mlir_file), "--output-dir", os.path.join(tmp, "out"),
               "--repeat", str(repeat)]
        if entry:
            cmd += ["--entry", entry]
        for i, array in enumerate(inputs):
            path = os.path.join(tmp, f"in{i}.npy")
            array = np.asarray(array)
            np.save(path, np.ascontiguousarray(array.astype(array.dtype.newbyteorder("<"))))
            cmd += ["--input", path]
        if report:
            cmd.append("--report")
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode != 0:
            raise KilnRunError(proc.stderr.strip())
        outputs = []
        out_dir = os.path.join(tmp, "out")
        i = 0
        while os.path.exists(os.path.join(out_dir, f"out{i}.npy")):
            outputs.append(np.load(os.path.join(out_dir, f"out{i}.npy")))
            i += 1
        if report:
            line = [l for l in proc.stdout.splitlines() if l.startswith("{")][-1]
            return outputs, json.loads(line)
        return outputs
