#!/usr/bin/env bash
# Installs kiln from BUILD into a fresh prefix, then configures, builds and
# runs this outside project against it, as a user would.
# Usage: test/Install/run.sh BUILD_DIR [WORK_DIR]
set -euo pipefail
build=$(cd "$1" && pwd)
work=${2:-$(mktemp -d)}
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$work/prefix" "$work/project"
cmake --install "$build" --prefix "$work/prefix" >/dev/null
cmake -S "$here" -B "$work/project" -G Ninja \
  -DCMAKE_PREFIX_PATH="$work/prefix" >/dev/null
cmake --build "$work/project"
"$work/project/train_linear"
"$work/project/compile_module"
"$work/project/runtime_only"
