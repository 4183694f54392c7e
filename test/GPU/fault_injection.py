"""Fails the Nth CUDA driver call, for every N, over whole kiln-run runs on
the stand-in driver (FAKE_CUDA_FAIL_AT): each run must end with exit code 1
and one error line that names the failing call; never a crash, never a
success that hid the failure.

Usage: fault_injection.py KILN_RUN FAKE_DRIVER PROGRAM:ENTRY...
Prints one line per program, and one per fault that was not handled.
"""
import os
import re
import subprocess
import sys


def run(kiln_run, fake, program, entry, fail_at=None, count=False):
    env = dict(os.environ, KILN_RT_LIBCUDA=fake)
    env.pop("FAKE_CUDA_FAIL", None)
    if fail_at is not None:
        env["FAKE_CUDA_FAIL_AT"] = str(fail_at)
    if count:
        env["FAKE_CUDA_COUNT_CALLS"] = "1"
    return subprocess.run([kiln_run, program, "--entry", entry, "--backend",
                           "cuda", "--random-inputs", "1", "--no-cache"],
                          capture_output=True, text=True, env=env,
                          timeout=300)


def main():
    kiln_run, fake = sys.argv[1], sys.argv[2]
    bad = 0
    for spec in sys.argv[3:]:
        program, entry = spec.rsplit(":", 1)
        clean = run(kiln_run, fake, program, entry, count=True)
        match = re.search(r"fake-cuda: (\d+) calls", clean.stderr)
        if clean.returncode != 0 or not match:
            print("%s @%s: the clean run failed: %s" %
                  (os.path.basename(program), entry, clean.stderr.strip()))
            bad += 1
            continue
        calls = int(match.group(1))
        handled = 0
        for n in range(1, calls + 1):
            out = run(kiln_run, fake, program, entry, fail_at=n)
            failing = re.search(r"fake-cuda: call \d+ \((\w+)\) fails",
                                out.stderr)
            errors = [line for line in out.stderr.splitlines()
                      if line.startswith("kiln-run: error:")]
            name = failing.group(1) if failing else "?"
            if out.returncode < 0:
                why = "killed by signal %d" % -out.returncode
            elif out.returncode != 1:
                why = "exit code %d" % out.returncode
            elif len(errors) != 1:
                why = "%d error lines" % len(errors)
            elif name not in errors[0]:
                why = "the error does not name %s: %s" % (name, errors[0])
            else:
                handled += 1
                continue
            bad += 1
            print("%s @%s: call %d (%s) failing: %s" %
                  (os.path.basename(program), entry, n, name, why))
        print("%s @%s: %d of %d injected faults handled" %
              (os.path.basename(program), entry, handled, calls))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
