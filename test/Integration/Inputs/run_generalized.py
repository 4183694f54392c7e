#!/usr/bin/env python3
"""Re-runs static Integration programs with their batch dim made dynamic.

For every `kiln-run %s ... --check-reference` RUN line of the given files
(not the ones that expect a failure), the entry is generalized
(kiln-run --generalize-batch: dim 0 of its first argument of rank >= 1, and
every dim that follows it, become dynamic) and run at several batch sizes
on the same program, each against the reference interpreter.

Each entry ends as one of:
  generalized  every size ran and every output matched the reference;
  refused      -kiln-generalize-batch said why the batch cannot be dynamic
               (no argument has a dim, a non-splat constant of the batch's
               size, ...): the reason is printed;
  too small    a size below what the program slices out of the batch was
               refused at run time with a shape error; the original size
               and one above it then ran and matched;
  not differentiable
               -kiln-autodiff refused a kiln.concat along the dynamic dim
               (its parts' gradients would be slices at offsets known only
               at run time, which kiln.slice cannot express);
  failed       anything else: a mismatch, a crash, a compile error.
The script prints one line per entry and a summary, and exits 1 when any
entry failed.

usage: run_generalized.py KILN_RUN SIZES FILE...
"""

import re
import shlex
import subprocess
import sys


def run_lines(path):
    """The file's RUN commands, continuation lines joined."""
    lines, current = [], ""
    with open(path) as f:
        for line in f:
            m = re.match(r"\s*(//|#)\s*RUN:\s?(.*)$", line)
            if not m:
                continue
            text = m.group(2).rstrip()
            if text.endswith("\\"):
                current += text[:-1] + " "
                continue
            lines.append(current + text)
            current = ""
    return lines


def entries(path):
    """(entry, options) of each kiln-run --check-reference RUN line on %s,
    one per entry. Inputs are random: an entry run on .npy files takes
    --random-inputs 1 instead."""
    seen = {}
    for line in run_lines(path):
        command = line.split("|")[0].strip()
        if not command.startswith("kiln-run %s"):
            continue
        words = shlex.split(command)
        if "--check-reference" not in words:
            continue
        entry, options, seed = None, [], "1"
        i = 2
        while i < len(words):
            w = words[i]
            value = None
            if "=" in w:
                w, value = w.split("=", 1)
            elif i + 1 < len(words) and w in ("--entry", "--random-inputs",
                                               "--rtol", "--atol"):
                value = words[i + 1]
                i += 1
            if w == "--entry":
                entry = value
            elif w == "--random-inputs":
                seed = value
            elif w in ("--rtol", "--atol"):
                options += [w, value]
            elif w == "--autodiff-prune" and value is not None:
                options += [w + "=" + value]
            i += 1
        key = entry or ""
        if key not in seen:
            seen[key] = options + ["--random-inputs", seed]
    return seen


def batch_size(path, entry):
    """Dim 0 of the entry's first argument of rank >= 1 (the batch)."""
    text = open(path).read()
    if entry:
        start = text.find("func.func @" + entry + "(")
    else:
        start = text.find("func.func @")
    m = re.search(r"tensor<(\d+)x", text[start:text.find(")", start)])
    return int(m.group(1)) if m else None


def run(kiln_run, path, entry, options, sizes):
    command = [kiln_run, path, "--generalize-batch", "--dim-sizes", sizes,
               "--check-reference"] + options
    if entry:
        command += ["--entry", entry]
    try:
        done = subprocess.run(command, capture_output=True, text=True,
                              timeout=300)
        return done.returncode, done.stdout, done.stderr
    except subprocess.TimeoutExpired:
        return -1, "", "timed out after 300 s"


SHAPE_ERROR = r"out of bounds|end of the slice|at least"


def main():
    kiln_run, sizes, files = sys.argv[1], sys.argv[2], sys.argv[3:]
    counts = {"generalized": 0, "refused": 0, "too small": 0,
              "not differentiable": 0, "failed": 0}
    for path in files:
        name = path.split("/")[-1]
        for entry, options in entries(path).items():
            rc, out, err = run(kiln_run, path, entry, options, sizes)
            error = err.strip().splitlines()[-1] if err.strip() else ""
            matches = out.count(" matches")
            label = "{}:@{}".format(name, entry or "main")
            if rc == 1 and re.search(SHAPE_ERROR, error):
                # A batch smaller than the program slices out of it: run
                # the original size and one above instead.
                size = batch_size(path, entry)
                larger = "{},{}".format(size, size + 3)
                rc, out, err = run(kiln_run, path, entry, options, larger)
                matches = out.count(" matches")
                if rc == 0 and "differ" not in out:
                    outcome = "too small"
                    detail = "{} results matched at sizes {}; {}".format(
                        matches, larger, error)
                else:
                    outcome = "failed"
                    detail = "rc {} at sizes {}: {}".format(
                        rc, larger, err.strip()[-300:])
            elif rc == 0 and "differ" not in out:
                outcome = "generalized"
                detail = "{} results matched at sizes {}".format(
                    matches, sizes)
            elif rc == 1 and "cannot generalize the batch" in err:
                outcome = "refused"
                detail = error
            elif rc == 1 and "along a dynamic dim" in err:
                outcome = "not differentiable"
                detail = error
            else:
                outcome = "failed"
                detail = "rc {}: {}".format(rc, error or out[-300:])
            counts[outcome] += 1
            print("{}: {}: {}".format(outcome, label, detail))
    print("summary: " + ", ".join(
        "{} {}".format(n, k) for k, n in counts.items()))
    return 1 if counts["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
