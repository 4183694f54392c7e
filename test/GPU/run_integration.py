#!/usr/bin/env python3
"""Runs every CPU Integration test's checked kiln-run command again on the
GPU path and compares with the reference interpreter.

Each `// RUN: kiln-run %s ... --check-reference ...` line of
test/Integration/**/*.mlir whose inputs need no files (random inputs or
constants) is run again with MODE's flag: `--emulate-gpu` (the GPU kernels
run on the CPU, one thread after another) or `--backend cuda` (a GPU). A
command passes when kiln-run succeeds: --check-reference fails it on any
output that does not match the reference interpreter. A
program the GPU path does not take yet must fail with one clear error line
naming why; it is listed as unsupported, not passed.

Mode `launch` runs the commands with `--backend cuda` but without
--check-reference: on a stand-in driver that runs no kernels
(unittests/Runtime/FakeCudaDriver.c, via KILN_RT_LIBCUDA), a command passes
when it compiles to PTX, loads, and launches every kernel with parameters
that match its PTX signature.

Prints one line per command and a summary; exits 1 on any failure.
Usage: run_integration.py KILN_RUN {emulate|cuda|launch} INTEGRATION_DIR
"""
import glob
import os
import re
import shlex
import subprocess
import sys

MODES = {"emulate": ["--emulate-gpu"], "cuda": ["--backend", "cuda"],
         "launch": ["--backend", "cuda"]}
# What the GPU path does not take yet, and says so.
UNSUPPORTED = [
    "a GPU kernel needs buffers of static shape",
    "the cuda backend needs static shapes",
    "the cuda backend does not copy strided views yet",
    "the cuda backend cannot run",
    "is a libdevice function",
]


def commands(path):
    for line in open(path):
        m = re.match(r"\s*//\s*RUN:\s*kiln-run\s+%s\s+(.*?)(\||$)", line)
        if not m or "--check-reference" not in m.group(1) or "%t" in m.group(1):
            continue
        yield shlex.split(m.group(1))


def main():
    kiln_run, mode, root = sys.argv[1], sys.argv[2], sys.argv[3]
    failures = unsupported = passed = 0
    for path in sorted(glob.glob(os.path.join(root, "**", "*.mlir"),
                                 recursive=True)):
        for args in commands(path):
            run_args = args
            if mode in ("cuda", "launch"):
                # How the CPU compiles its host code means nothing on a GPU
                # (kiln-run refuses the flag there).
                run_args = [a for a in run_args if a != "--compile-host"]
            if mode == "launch":
                run_args = [a for a in run_args
                            if a not in ("--check-reference", "--print")]
            cmd = [kiln_run, path] + run_args + MODES[mode]
            run = subprocess.run(cmd, capture_output=True, text=True)
            name = os.path.relpath(path, root) + " " + " ".join(args)
            out = run.stdout + run.stderr
            if run.returncode == 0:
                passed += 1
                print(f"PASS {name}")
            elif run.returncode != 0 and any(u in out for u in UNSUPPORTED) \
                    and len(run.stderr.strip().splitlines()) == 1:
                unsupported += 1
                print(f"UNSUPPORTED {name}: {run.stderr.strip()}")
            else:
                failures += 1
                print(f"FAIL {name}\n{out[-2000:]}")
    print(f"summary: {passed} passed, {unsupported} unsupported, "
          f"{failures} failed")
    sys.exit(1 if failures or not passed else 0)


if __name__ == "__main__":
    main()
