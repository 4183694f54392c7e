#!/usr/bin/env python3
"""Reads every #include of kiln's C and C++ sources and fails on a cycle
between units or an include that runs up the layers.

    scripts/check-layers.py [--graph]

A unit is a header together with its source file (include/kiln/X/Y.h and
lib/X/Y.cpp, or lib/X/Y.h and lib/X/Y.cpp). Two units that include each
other, directly or through a chain, are a cycle. Each unit belongs to a
layer (its folder under lib/, include/kiln/ or runtime/); BELOW says
which layers each may include, and an include outside that list is an
upward (or sideways) include. Code outside the layers (tools, the Python
extension, examples, benchmarks) may not include a private header of lib/.
docs/Architecture.md draws the same order.

Prints the layers' include graph with --graph; then one line per problem
and a summary. Exits 1 if there is any problem.
"""

import argparse
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Each layer and the layers below it that it may include (closed under
# "below": listed in full).
BELOW = {
    "runtime": [],
    "Support": ["runtime"],
    "Trace": ["Support", "runtime"],
    "Dialect/Kiln/IR": ["Support", "runtime"],
    "Reference": ["Dialect/Kiln/IR", "Support", "runtime"],
    "Dialect/Kiln/Transforms": ["Dialect/Kiln/IR", "Support", "runtime"],
    "Conversion": ["Dialect/Kiln/Transforms", "Dialect/Kiln/IR", "Support",
                   "runtime"],
}
# Codegen: what both targets share, then each target (beside each other).
_CODEGEN_BASE = ["Conversion", "Dialect/Kiln/Transforms", "Dialect/Kiln/IR",
                 "Support", "runtime"]
BELOW["Codegen/Common"] = _CODEGEN_BASE
BELOW["Codegen/CPU"] = ["Codegen/Common"] + _CODEGEN_BASE
BELOW["Codegen/GPU"] = ["Codegen/Common"] + _CODEGEN_BASE
BELOW["Pipelines"] = ["Codegen/CPU", "Codegen/GPU", "Codegen/Common"] + \
    _CODEGEN_BASE
# The compiler's rooms, each above the last: the public interface
# (include/kiln/Compiler), the device, compiling, the cache, the frontend.
_COMPILER_BASE = ["Pipelines", "Codegen/CPU", "Codegen/GPU", "Codegen/Common",
                  "Conversion", "Dialect/Kiln/Transforms",
                  "Dialect/Kiln/IR", "Reference", "Trace", "Support",
                  "runtime"]
_rooms = ["Compiler", "Compiler/Device", "Compiler/Compile", "Compiler/Cache",
          "Compiler/Frontend"]
for _i, _room in enumerate(_rooms):
    BELOW[_room] = _rooms[:_i][::-1] + _COMPILER_BASE
BELOW["Lazy"] = _rooms[::-1] + _COMPILER_BASE
# The tools' internal API (include/kiln/Tools, lib/Tools) sits on top.
BELOW["Tools"] = ["Lazy"] + BELOW["Lazy"]
# Code outside the layers (the tools, the Python extension, the examples and
# benchmarks) may include headers under include/ and the runtime's, never a
# private header of lib/.
CLIENT_DIRS = ["tools", "python", "examples", "bench"]
SOURCE_DIRS = ["include", "lib", "runtime"]
SUFFIXES = (".h", ".c", ".cpp", ".def", ".inc")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def layer_of(path):
    """The layer of a repository path, or None (tools, tests, python)."""
    parts = path.split("/")
    if parts[0] == "runtime":
        return "runtime"
    if parts[0] == "include" and len(parts) > 2 and parts[1] == "kiln":
        parts = parts[1:]
    elif parts[0] != "lib":
        return None
    rest = "/".join(parts[1:])
    for layer in sorted(BELOW, key=len, reverse=True):
        if rest.startswith(layer + "/"):
            return layer
    return None


def unit_of(path):
    """include/kiln/X/Y.h and lib/X/Y.cpp are one unit, X/Y."""
    stem = os.path.splitext(path)[0]
    if stem.startswith("include/kiln/"):
        return stem[len("include/kiln/"):]
    if stem.startswith("lib/"):
        return stem[len("lib/"):]
    return stem


def resolve(include, source):
    """The repository path an include names, or None (a system or
    third-party header, or a generated one)."""
    candidates = [os.path.join(os.path.dirname(source), include),
                  os.path.join("include", include),
                  os.path.join("lib", include),
                  os.path.join("runtime", "include", include)]
    for candidate in candidates:
        candidate = os.path.normpath(candidate)
        if os.path.isfile(os.path.join(ROOT, candidate)):
            return candidate
    return None


def includes_of(tops):
    """(source, include, resolved target) for each include of the sources
    under the folders `tops`, in path order."""
    for top in tops:
        for directory, subdirs, files in os.walk(os.path.join(ROOT, top)):
            subdirs.sort()
            for name in sorted(files):
                if not name.endswith(SUFFIXES):
                    continue
                path = os.path.relpath(os.path.join(directory, name), ROOT)
                with open(os.path.join(ROOT, path), encoding="utf-8",
                          errors="replace") as f:
                    text = f.read()
                yield path, None, None
                for include in INCLUDE.findall(text):
                    yield path, include, resolve(include, path)


def read_graph():
    edges = {}  # unit -> {unit: (source, include)}
    layers = {}
    for path, include, target in includes_of(SOURCE_DIRS):
        unit = unit_of(path)
        layers.setdefault(unit, layer_of(path))
        if target is None:
            continue
        other = unit_of(target)
        layers.setdefault(other, layer_of(target))
        if other != unit:
            edges.setdefault(unit, {}).setdefault(other, (path, include))
    return edges, layers


def private_includes():
    """Each include of a lib/ header from outside the layers."""
    return [f"private include: {path} includes \"{include}\" ({target}); "
            "use an installed header or kiln/Tools/"
            for path, include, target in includes_of(CLIENT_DIRS)
            if target is not None and target.startswith("lib/")]


def cycles(edges):
    """The strongly connected components of more than one unit (Tarjan's
    algorithm, iteratively, in sorted order for a stable output)."""
    index, low, on_stack, stack, found = {}, {}, set(), [], []
    counter = [0]
    nodes = sorted(set(edges) | {v for e in edges.values() for v in e})
    for root in nodes:
        if root in index:
            continue
        work = [(root, iter(sorted(edges.get(root, {}))))]
        index[root] = low[root] = counter[0]
        counter[0] += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, successors = work[-1]
            advanced = False
            for succ in successors:
                if succ not in index:
                    index[succ] = low[succ] = counter[0]
                    counter[0] += 1
                    stack.append(succ)
                    on_stack.add(succ)
                    work.append((succ, iter(sorted(edges.get(succ, {})))))
                    advanced = True
                    break
                if succ in on_stack:
                    low[node] = min(low[node], index[succ])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return sorted(found)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--graph", action="store_true",
                        help="print which layer includes which")
    args = parser.parse_args()
    edges, layers = read_graph()
    problems = []
    layer_edges = {}
    for unit, targets in sorted(edges.items()):
        for other, (source, include) in sorted(targets.items()):
            a, b = layers.get(unit), layers.get(other)
            if a is None or b is None or a == b:
                continue
            layer_edges.setdefault(a, set()).add(b)
            if b not in BELOW.get(a, []):
                problems.append(f"upward include: {source} ({a}) includes "
                                f"\"{include}\" ({b})")
    for component in cycles(edges):
        chain = []
        for unit in component:
            for other, (source, include) in sorted(edges[unit].items()):
                if other in component:
                    chain.append(f"{source} -> {include}")
        problems.append("include cycle between units " + ", ".join(component)
                        + ": " + "; ".join(chain))
    problems.extend(private_includes())
    if args.graph:
        for layer in sorted(layer_edges):
            print(f"{layer} -> {', '.join(sorted(layer_edges[layer]))}")
    for problem in problems:
        print(problem)
    print(f"checked {len(layers)} units in {len(BELOW)} layers: "
          f"{len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
