#!/usr/bin/env bash
# Runs the numeric and kiln.jit suites again with kernels compiled for a
# second CPU model (KILN_CPU) and OpenBLAS on another kernel set, so that a
# result that holds only for this CPU's vector width or this BLAS's kernels
# fails here, not on a user's machine. Usage: second-cpu-target.sh BUILD_DIR
set -euo pipefail
build=${1:-build}
flags=$(grep -m1 '^flags' /proc/cpuinfo || true)
has() { [[ " $flags " == *" $1 "* ]]; }
# Another vector width than the host's where there is one to choose.
if has avx512f; then
  cpu=x86-64-v3
  blas=HASWELL
elif has avx2; then
  cpu=x86-64-v2
  blas=NEHALEM
else
  cpu=x86-64
  blas=PRESCOTT
fi
echo "second-cpu-target: KILN_CPU=$cpu OPENBLAS_CORETYPE=$blas"
lit=/usr/lib/llvm-22/bin/lit
export KILN_CPU=$cpu OPENBLAS_CORETYPE=$blas
"$lit" -sv "$build/test/Integration" "$build/test/Python" \
  "$build/test/Regression" "$build/test/Lazy"
