#!/usr/bin/env python3
"""Checks the README and the guides: what a reader follows must exist.

    scripts/check-docs.py [--bin BUILD/bin]

- README.md is at most 12 KB.
- Every relative link in README.md, CONTRIBUTING.md, bench/README.md and
  docs/*.md resolves to a file of the repository; none leaves it (no
  http(s) link, no path above the root).
- Every command in the README's and CONTRIBUTING.md's shell blocks names
  what exists: `build/bin/TOOL` a tool of tools/ (with --bin, each of its
  options is one that `TOOL --help` lists), `bash FILE` and
  `python3 FILE` a file, `--target NAME` a target the CMake files define.
- docs/Dialect.md, the contract: each generic-form example it shows is
  in test/Dialect/Kiln/generic.mlir verbatim (which parses it), and each
  pass or pipeline its table names is one that a pass page documents.

Prints one line per problem; exits 1 if there is any.
"""

import argparse
import glob
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
README_LIMIT = 12 * 1024
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


def markdown_files():
    files = ["README.md", "CONTRIBUTING.md", os.path.join("bench", "README.md")]
    files += sorted(os.path.relpath(p, ROOT)
                    for p in glob.glob(os.path.join(ROOT, "docs", "*.md")))
    return files


def check_links(path, problems):
    with open(os.path.join(ROOT, path), encoding="utf-8") as f:
        text = f.read()
    # Code blocks hold no links.
    text = re.sub(r"```.*?```", "", text, flags=re.S)
    for target in LINK.findall(text):
        if target.startswith("#"):
            continue
        if re.match(r"[a-z]+:", target):
            problems.append(f"{path}: links outside the repository: {target}")
            continue
        file = target.split("#", 1)[0]
        resolved = os.path.normpath(
            os.path.join(ROOT, os.path.dirname(path), file))
        if os.path.relpath(resolved, ROOT).startswith(".."):
            problems.append(f"{path}: links above the repository: {target}")
        elif not os.path.exists(resolved):
            problems.append(f"{path}: broken link: {target}")


def cmake_targets():
    names = set()
    for pattern in ["CMakeLists.txt", "**/CMakeLists.txt", "cmake/*.cmake"]:
        for path in glob.glob(os.path.join(ROOT, pattern), recursive=True):
            if "/build" in os.path.relpath(path, ROOT).replace(os.sep, "/")[:7]:
                continue
            with open(path, encoding="utf-8") as f:
                names.update(re.findall(
                    r"add_(?:custom_target|executable|library|llvm_executable|lit_testsuite)"
                    r"\(\s*([\w-]+)", f.read()))
    return names


def tool_options(bin_dir, tool, cache):
    if tool not in cache:
        out = subprocess.run([os.path.join(bin_dir, tool), "--help-hidden"],
                             capture_output=True, text=True)
        cache[tool] = out.stdout + out.stderr
    return cache[tool]


def check_commands(path, bin_dir, problems):
    with open(os.path.join(ROOT, path), encoding="utf-8") as f:
        text = f.read()
    targets = None
    helps = {}
    blocks = re.findall(r"```sh\n(.*?)```", text, flags=re.S)
    for block in blocks:
        for line in block.replace("\\\n", " ").splitlines():
            line = line.split("#", 1)[0].strip()
            for command in re.split(r"&&|\|", line):
                words = command.split()
                if not words:
                    continue
                for i, word in enumerate(words):
                    if word.startswith("build/bin/"):
                        tool = word[len("build/bin/"):]
                        if not os.path.isdir(os.path.join(ROOT, "tools", tool)) \
                                and not tool.startswith("kiln-lstm"):
                            problems.append(f"{path}: no tool {tool}")
                        elif bin_dir and os.path.exists(
                                os.path.join(bin_dir, tool)):
                            known = tool_options(bin_dir, tool, helps)
                            for option in words[i + 1:]:
                                if re.match(r"--?[a-z]", option):
                                    name = option.split("=", 1)[0].lstrip("-")
                                    if not re.search(
                                            r"(^|\s)--?%s\b" % re.escape(name),
                                            known, re.M):
                                        problems.append(
                                            f"{path}: {tool} has no option "
                                            f"{option}")
                    if word in ("bash", "python3") and i + 1 < len(words):
                        file = words[i + 1]
                        if file.endswith((".sh", ".py")) and not os.path.exists(
                                os.path.join(ROOT, file)):
                            problems.append(f"{path}: no file {file}")
                    if word == "--target" and i + 1 < len(words):
                        targets = targets or cmake_targets()
                        if words[i + 1] not in targets:
                            problems.append(
                                f"{path}: no CMake target {words[i + 1]}")


def check_contract(problems):
    with open(os.path.join(ROOT, "docs", "Dialect.md"), encoding="utf-8") as f:
        contract = f.read()
    with open(os.path.join(ROOT, "test", "Dialect", "Kiln", "generic.mlir"),
              encoding="utf-8") as f:
        tested = {line.strip() for line in f}
    examples = re.findall(r'^\s*(%\w+ = "kiln\.[^\n]*)$', contract, re.M)
    if len(examples) < 10:
        problems.append("docs/Dialect.md: shows no generic-form examples")
    for example in examples:
        if example.strip() not in tested:
            problems.append("docs/Dialect.md: generic example not in "
                            f"test/Dialect/Kiln/generic.mlir: {example}")
    documented = set()
    for page in glob.glob(os.path.join(ROOT, "docs", "*Passes.md")):
        with open(page, encoding="utf-8") as f:
            documented.update(re.findall(r"^### `(-[\w-]+)`", f.read(), re.M))
    # Pipelines and the passes registered by hand (-kiln-export-fusion-graph).
    for source in glob.glob(os.path.join(ROOT, "lib", "**", "*.cpp"),
                            recursive=True):
        with open(source, encoding="utf-8") as f:
            documented.update(re.findall(
                r'(?:Registration\b|getArgument\(\))[^;]*?"(kiln-[\w-]+)"',
                f.read(), re.S))
    documented = {name.lstrip("-") for name in documented}
    for name in re.findall(r"^\| `-([\w-]+)", contract, re.M):
        if name not in documented:
            problems.append(f"docs/Dialect.md: names -{name}, which no pass "
                            "page or pipeline documents")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin", help="the build's bin folder: check tools' "
                        "options against their --help")
    args = parser.parse_args()
    problems = []
    size = os.path.getsize(os.path.join(ROOT, "README.md"))
    if size > README_LIMIT:
        problems.append(f"README.md: {size} bytes, over {README_LIMIT}")
    for path in markdown_files():
        check_links(path, problems)
    for path in ["README.md", "CONTRIBUTING.md"]:
        check_commands(path, args.bin, problems)
    check_contract(problems)
    for problem in problems:
        print(problem)
    print(f"checked {len(markdown_files())} files: {len(problems)} problems; "
          f"README.md {size} bytes")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
