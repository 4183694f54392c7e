#!/usr/bin/env bash
# Packs kiln-run, the kiln runtime and every shared library they load
# (glibc's loader included, so the bundle runs on any x86-64 Linux with an
# NVIDIA driver and no LLVM/MLIR) into one .tar.xz, with the examples, the
# Integration tests and their GPU runner, and the GPU benchmark.
#
#   scripts/pack-gpu.sh [BUILD_DIR] [OUT.tar.xz]
#
# BUILD_DIR is best a static build, whose kiln-run carries only the LLVM and
# MLIR code it uses (about 30 MiB packed with kiln-lstm-train, against about 60 MiB with
# libLLVM.so and libMLIR.so):
#   cmake -S . -B build-static -G Ninja -DKILN_STATIC=ON
#   ninja -C build-static kiln-run kiln-lstm-train kiln-gpt-train kiln-fuzz-diff kiln_runtime
#   scripts/pack-gpu.sh build-static kiln-gpu.tar.xz
#
# On the GPU machine:
#   tar xf kiln-gpu.tar.xz && kiln/gpu-suite.sh LOG_DIR   # everything below
#   kiln/bin/kiln-run kiln/examples/lstm_cell.mlir \
#     --backend cuda --random-inputs 0 --check-reference --report
#   /usr/bin/python3 kiln/test/GPU/run_integration.py kiln/bin/kiln-run cuda kiln/test/Integration
#   KILN_DEVICE=cuda kiln/bin/kiln-lstm-train
#   kiln/bin/kiln-fuzz-diff --programs 300 --seed 15 --backends cuda
set -euo pipefail
BUILD="${1:-build}"
OUT="${2:-kiln-gpu.tar.xz}"
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
[ -x "$BUILD/bin/kiln-run" ] || { echo "pack-gpu.sh: no $BUILD/bin/kiln-run; build first" >&2; exit 1; }

STAGE="$(mktemp -d)"
trap 'rm -rf "$STAGE"' EXIT
K="$STAGE/kiln"
mkdir -p "$K/bin" "$K/lib" "$K/include" "$K/test/GPU" "$K/bench"
cp "$BUILD/bin/kiln-run" "$K/bin/kiln-run.bin"
# Every library the dynamic loader would map, and the loader itself.
for lib in $(ldd "$BUILD/bin/kiln-run" | awk '/=>/ {print $3} !/=>/ && /^\t\// {print $1}'); do
  cp -L "$lib" "$K/lib/"
done
# What the CPU JIT loads by name (found on the bundle's library path).
for lib in /usr/lib/llvm-22/lib/libomp.so.5 /usr/lib/llvm-22/lib/libmlir_c_runner_utils.so.22.1; do
  [ -e "$lib" ] && cp -L "$lib" "$K/lib/"
done
# The runtime for host programs of one's own, with its headers.
if [ -e "$BUILD/lib/libkiln_runtime.so" ]; then
  cp "$BUILD/lib/libkiln_runtime.so" "$K/lib/"
fi
cp -r "$ROOT/runtime/include/kiln_rt" "$K/include/"
# libdevice, for f64 transcendentals on the GPU, where this machine has it.
for candidate in "${KILN_LIBDEVICE:-}" "${CUDA_HOME:-/usr/local/cuda}/nvvm/libdevice/libdevice.10.bc" \
    /usr/local/cuda/nvvm/libdevice/libdevice.10.bc; do
  if [ -n "$candidate" ] && [ -f "$candidate" ]; then
    cp "$candidate" "$K/lib/libdevice.10.bc"
    break
  fi
done
# Symbols and debug info are most of a static kiln-run.
if command -v strip >/dev/null; then
  strip "$K/bin/kiln-run.bin"
  for lib in "$K"/lib/*; do
    case "$(basename "$lib")" in ld-linux*) ;; *) strip --strip-unneeded "$lib" 2>/dev/null || true ;; esac
  done
fi
LOADER="$(basename "$(ldd "$BUILD/bin/kiln-run" | awk '!/=>/ && /ld-linux/ {print $1}')")"
# Each tool runs through the bundled loader with the bundled libraries.
launcher() {
  cat > "$K/bin/$1" <<LAUNCHER
#!/bin/sh
# $1 with the bundled libraries and loader.
here="\$(cd "\$(dirname "\$0")/.." && pwd)"
if [ -z "\$KILN_LIBDEVICE" ] && [ -f "\$here/lib/libdevice.10.bc" ]; then
  export KILN_LIBDEVICE="\$here/lib/libdevice.10.bc"
fi
exec "\$here/lib/$LOADER" --library-path "\$here/lib\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}" "\$here/bin/$1.bin" "\$@"
LAUNCHER
  chmod +x "$K/bin/$1"
}
launcher kiln-run
# The lazy API's example (KILN_DEVICE=cuda trains on the GPU), where built
# statically like kiln-run (it then needs no other library).
# The differential fuzzer likewise (--backends cuda checks the GPU).
for tool in kiln-lstm-train kiln-gpt-train kiln-fuzz-diff; do
  if [ -x "$BUILD/bin/$tool" ] && ! ldd "$BUILD/bin/$tool" | grep -q libMLIR; then
    cp "$BUILD/bin/$tool" "$K/bin/$tool.bin"
    strip "$K/bin/$tool.bin" 2>/dev/null || true
    launcher $tool
  fi
done
cp -r "$ROOT/examples" "$K/examples"
cp "$ROOT/scripts/gpu-suite.sh" "$K/gpu-suite.sh"
cp -r "$ROOT/test/Integration" "$K/test/Integration"
mkdir -p "$K/test/Distributed"
cp -r "$ROOT/test/Distributed/Inputs" "$K/test/Distributed/Inputs"
cp "$ROOT/test/GPU/run_integration.py" "$K/test/GPU/"
cp -r "$ROOT/bench/gpu" "$ROOT/bench/lstm_cell" "$ROOT/bench/hessian" \
  "$ROOT/bench/attention" "$ROOT/bench/common.py" "$K/bench/"
# One stream with a dictionary larger than a tool: the second static tool
# is mostly the first one's code again, and costs little.
tar -C "$STAGE" -cf - kiln | xz -T1 --lzma2=preset=9,dict=256MiB > "$OUT"
SIZE=$(stat -c %s "$OUT")
echo "pack-gpu.sh: $OUT: $((SIZE / 1024 / 1024)) MiB ($SIZE bytes)"
# The device tool carries 64 MiB at most; kiln's goal is 48 MiB.
[ "$SIZE" -le $((64 * 1024 * 1024)) ] || { echo "pack-gpu.sh: over the 64 MiB the device tool carries" >&2; exit 1; }
[ "$SIZE" -le $((48 * 1024 * 1024)) ] || echo "pack-gpu.sh: warning: over the 48 MiB goal (pack a -DKILN_STATIC=ON build)" >&2
