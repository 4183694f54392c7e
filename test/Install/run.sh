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

# Ahead-of-time modules: the installed kiln-compile compiles the LSTM cell's
# forward and backward; run_module (linked with kiln::runtime alone) runs
# them on inputs it writes, and the installed kiln-run runs the .mlir on
# those inputs: the results must agree.
if ldd "$work/project/run_module" | grep -E 'libMLIR|libLLVM|libmlir'; then
  echo "run_module links MLIR or LLVM" >&2
  exit 1
fi
# The dynamic-batch cell: one module, run at batch sizes 1 and 5.
for run in lstm_cell:forward:lstm_forward lstm_cell:backward:lstm_backward \
  lstm_cell_dynamic:1:lstm_cell lstm_cell_dynamic:5:lstm_cell_grad; do
  IFS=: read -r file size entry <<< "$run"
  dir="$work/modules/$entry$size"
  rm -rf "$dir" && mkdir -p "$dir/module" "$dir/kiln-run"
  "$work/prefix/bin/kiln-compile" "$here/Inputs/$file.mlir" --entry "$entry" \
    -o "$dir/$entry.kiln"
  size_args=()
  [[ "$size" =~ ^[0-9]+$ ]] && size_args=(--size "$size")
  "$work/project/run_module" "$dir/$entry.kiln" "$dir/module" "${size_args[@]}"
  inputs=()
  i=0
  while [ -f "$dir/module/in$i.npy" ]; do
    inputs+=(--input "$dir/module/in$i.npy")
    i=$((i + 1))
  done
  "$work/prefix/bin/kiln-run" "$here/Inputs/$file.mlir" --entry "$entry" \
    --no-cache "${inputs[@]}" --output-dir "$dir/kiln-run"
  count=0
  while [ -f "$dir/module/out$count.npy" ]; do
    "$work/project/run_module" --compare "$dir/module/out$count.npy" \
      "$dir/kiln-run/out$count.npy"
    count=$((count + 1))
  done
  [ "$count" -gt 0 ]
  echo "$entry ($size): $count results of the module equal kiln-run's"
done
