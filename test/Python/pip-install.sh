#!/usr/bin/env bash
# `pip install .` tested as a user runs it: into a fresh venv, then the
# installed package (not the build tree) runs the Python suite and its
# tools from outside the source tree.
#
# Usage: test/Python/pip-install.sh [BUILD_DIR]   (default build)
#
# pip reuses BUILD_DIR's objects (--config-settings=build-dir), so kiln is
# not compiled a second time; the pinned build requirements come from
# .deps/python (scripts/install-deps.sh), without build isolation. The
# build tree's CMake cache is put back afterwards.
set -euo pipefail
repo="$(cd "$(dirname "$0")/../.." && pwd)"
build="$(cd "${1:-$repo/build}" && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# pip's configure writes the venv's python (and scikit-build-core's
# variables) into the cache: the tree's own cache is put back afterwards,
# and CMake regenerates from it (the objects stay as they are).
cp "$build/CMakeCache.txt" "$work/CMakeCache.txt"
restore_cache() {
  cp "$work/CMakeCache.txt" "$build/CMakeCache.txt"
  cmake -S "$repo" -B "$build" >/dev/null
}
trap 'restore_cache; rm -rf "$work"' EXIT

/usr/bin/python3 -m venv --system-site-packages "$work/venv"
start=$(date +%s)
PYTHONPATH="${KILN_DEPS_DIR:-$repo/.deps}/python" "$work/venv/bin/pip" install \
  --quiet --disable-pip-version-check --no-build-isolation --no-deps \
  --config-settings=build-dir="$build" "$repo"
# kiln's runtime dependencies (pyproject.toml), as pip would fetch them:
# from the wheels scripts/install-deps.sh downloaded.
"$work/venv/bin/pip" install --quiet --disable-pip-version-check --no-index \
  --find-links "${KILN_DEPS_DIR:-$repo/.deps}/wheels" safetensors==0.5.3
echo "pip-install: installed in $(($(date +%s) - start)) s"

cd "$work"
"$work/venv/bin/python" - <<'PY'
import os, kiln, numpy as np
here = os.path.dirname(kiln.__file__)
assert "site-packages" in here, here
for name in ("_C.pyi", "py.typed", "bin/kiln-run", "bin/kiln-opt"):
    assert os.path.exists(os.path.join(here, name)), name
assert kiln.find_tool("kiln-run").startswith(here)
w = kiln.tensor(np.ones((3, 2), np.float32), requires_grad=True)
opt = kiln.optim.SGD([w], lr=0.1)
step = kiln.jit(lambda x: (opt.zero_grad(), (x @ w).sum().backward(),
                           opt.step()) and None)
for _ in range(4):
    step(kiln.tensor(np.ones((4, 3), np.float32)))
assert step.replays == 2, step.replays
np.testing.assert_allclose(w.numpy(), 1 - 4 * 0.1 * 4)
print("pip-install: kiln", kiln.__file__)
PY
"$work/venv/bin/kiln-run" --version >/dev/null
"$work/venv/bin/kiln-opt" --version >/dev/null
"$work/venv/bin/python" -m pytest -q -p no:cacheprovider "$repo/test/Python"
echo "pip-install: passed in $(($(date +%s) - start)) s"
