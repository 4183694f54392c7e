"""Fails the Nth host allocation (KILN_RT_FAIL_HOST_ALLOC_AT), for every N
over whole kiln-run runs, until a run makes fewer than N: each failing run
must end with exit code 1 and one error line saying memory ran out (compiled
host code, which cannot check its allocations, may instead stop with the
runtime's one line "kiln: out of host memory: ..."), never a crash and never
a success that hid the failure.

Usage: host_oom.py KILN_RUN PROGRAM:ENTRY[:FLAG,FLAG...]...
Prints one line per program, and one per fault that was not handled.
"""
import os
import subprocess
import sys


def main():
    kiln_run = sys.argv[1]
    bad = 0
    for spec in sys.argv[2:]:
        program, entry, *flags = spec.split(":")
        flags = flags[0].split(",") if flags else []
        name = "%s @%s%s" % (os.path.basename(program), entry,
                             "".join(" " + f for f in flags))
        handled = aborted = 0
        for n in range(1, 1000):
            env = dict(os.environ, KILN_RT_FAIL_HOST_ALLOC_AT=str(n))
            out = subprocess.run([kiln_run, program, "--entry", entry,
                                  "--random-inputs", "1"] + flags,
                                 capture_output=True, text=True, env=env,
                                 timeout=300)
            injected = "kiln-rt: host allocation %d fails" % n in out.stderr
            errors = [line for line in out.stderr.splitlines()
                      if line.startswith("kiln-run: error:")]
            if not injected:
                if out.returncode != 0:
                    bad += 1
                    print("%s: the run past the last allocation failed: %s" %
                          (name, out.stderr.strip()))
                break
            if out.returncode == 1 and len(errors) == 1 and (
                    "out of memory" in errors[0]
                    or "out of host memory" in errors[0]):
                handled += 1
            elif out.returncode < 0 and \
                    "kiln: out of host memory: a compiled program's buffer" \
                    in out.stderr:
                aborted += 1
            else:
                bad += 1
                print("%s: allocation %d failing: exit %d: %s" %
                      (name, n, out.returncode, out.stderr.strip()[-300:]))
        print("%s: %d of %d failed allocations handled with an error, %d "
              "stopped compiled code" % (name, handled, n - 1, aborted))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
