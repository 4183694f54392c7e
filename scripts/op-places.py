#!/usr/bin/env python3
"""The hand-edited files that name a kiln op: how cheap an op is to add.

    scripts/op-places.py gelu erf take      # one line per op
    scripts/op-places.py --files gelu       # and the files
    scripts/op-places.py --elementwise --max 5   # every elementwise op;
                                            # exits 1 if one needs more

An op is named by its kiln name (`kiln.gelu`), its C++ class (`GeluOp`),
its trace enumerator (`TraceOp::Gelu`, a TraceOps.def line) and its rule
name in the fuzzer (`"kiln.gelu"`), outside comments. Generated files (the
build), tests, docs, benchmarks and examples are not counted, nor is code
that only uses the op (kiln.nn's GELU): the question is where an op's own
code lives.
"""

import argparse
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SOURCE_DIRS = ["include", "lib", "python", "runtime", "tools"]
SUFFIXES = (".cpp", ".h", ".c", ".td", ".def", ".py", ".txt", ".cmake")


def camel(mnemonic):
    return "".join(part.capitalize() for part in mnemonic.split("_"))


def patterns(mnemonic):
    name = camel(mnemonic)
    # `math::TanhOp` is another dialect's op; kiln code names its own bare.
    return re.compile(
        r"kiln\.%s\b|(?<![:\w])(?:Kiln_)?%sOp\b|\bTraceOp::%s\b|KILN_TRACE_\w+\(%s\b"
        % (re.escape(mnemonic), name, name, name))


def code_of(path, text):
    """`text` without its comments (line comments; Python docstrings stay)."""
    marker = "#" if path.endswith((".py", ".txt", ".cmake")) else "//"
    return "\n".join(line.split(marker, 1)[0] if marker in line else line
                     for line in text.splitlines())


def places(mnemonic):
    pattern = patterns(mnemonic)
    found = []
    for top in SOURCE_DIRS:
        for directory, subdirs, files in os.walk(os.path.join(ROOT, top)):
            subdirs[:] = sorted(d for d in subdirs if d != "__pycache__")
            for name in sorted(files):
                if not name.endswith(SUFFIXES):
                    continue
                path = os.path.join(directory, name)
                with open(path, encoding="utf-8", errors="replace") as f:
                    if pattern.search(code_of(path, f.read())):
                        found.append(os.path.relpath(path, ROOT))
    return found


def elementwise_ops():
    """The mnemonics of TraceOps.def's KILN_TRACE_UNARY/BINARY lines."""
    path = os.path.join(ROOT, "include", "kiln", "Trace", "TraceOps.def")
    with open(path, encoding="utf-8") as f:
        text = f.read()
    return re.findall(
        r'^KILN_TRACE_(?:UNARY|UNARY_FLAG|BINARY)\(\w+, "kiln\.(\w+)"',
        text, re.MULTILINE)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("ops", nargs="*", help="op mnemonics: gelu, take")
    parser.add_argument("--elementwise", action="store_true",
                        help="every elementwise op of TraceOps.def too")
    parser.add_argument("--files", action="store_true",
                        help="list the files too")
    parser.add_argument("--max", type=int, default=None,
                        help="exit 1 if an op is in more files than this")
    args = parser.parse_args()
    ops = args.ops + (elementwise_ops() if args.elementwise else [])
    if not ops:
        parser.error("name an op, or pass --elementwise")
    over = []
    for op in ops:
        files = places(op)
        print("%-14s %2d" % (op, len(files)))
        if args.files:
            for path in files:
                print("    " + path)
        if not files:
            print("error: no file names kiln.%s" % op, file=sys.stderr)
            return 1
        if args.max is not None and len(files) > args.max:
            over.append(op)
    if over:
        print("error: in more than %d files: %s" % (args.max, ", ".join(over)),
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
