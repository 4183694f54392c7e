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
Usage: run_integration.py [--jobs=N] KILN_RUN {emulate|cuda|launch} INTEGRATION_DIR
KILN_RUN may be a command line, e.g. "compute-sanitizer --error-exitcode 3
kiln-run" to run every command under a checker.
"""
import concurrent.futures
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


def run_one(kiln_run, mode, root, path, args):
    """(status, text) of one command: PASS, UNSUPPORTED or FAIL."""
    run_args = args
    if mode in ("cuda", "launch"):
        # How the CPU compiles its host code means nothing on a GPU
        # (kiln-run refuses the flag there).
        run_args = [a for a in run_args if a != "--compile-host"]
    if mode == "launch":
        run_args = [a for a in run_args
                    if a not in ("--check-reference", "--print")]
    cmd = shlex.split(kiln_run) + [path] + run_args + MODES[mode]
    run = subprocess.run(cmd, capture_output=True, text=True)
    name = os.path.relpath(path, root) + " " + " ".join(args)
    out = run.stdout + run.stderr
    if run.returncode == 0:
        return "PASS", f"PASS {name}"
    if any(u in out for u in UNSUPPORTED) \
            and len(run.stderr.strip().splitlines()) == 1:
        return "UNSUPPORTED", f"UNSUPPORTED {name}: {run.stderr.strip()}"
    return "FAIL", f"FAIL {name}\n{out[-2000:]}"


def main():
    argv = sys.argv[1:]
    jobs = 1
    if argv and argv[0].startswith("--jobs="):
        jobs = int(argv.pop(0).split("=", 1)[1])
    kiln_run, mode, root = argv
    work = [(path, args) for path in sorted(glob.glob(
        os.path.join(root, "**", "*.mlir"), recursive=True))
        for args in commands(path)]
    counts = {"PASS": 0, "UNSUPPORTED": 0, "FAIL": 0}
    # Commands run side by side where asked (a GPU machine's cores); the
    # lines come out in program order all the same.
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        for status, text in pool.map(
                lambda item: run_one(kiln_run, mode, root, *item), work):
            counts[status] += 1
            print(text, flush=True)
    print(f"summary: {counts['PASS']} passed, {counts['UNSUPPORTED']} "
          f"unsupported, {counts['FAIL']} failed")
    sys.exit(1 if counts["FAIL"] or not counts["PASS"] else 0)


if __name__ == "__main__":
    main()
