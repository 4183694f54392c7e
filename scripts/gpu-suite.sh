#!/usr/bin/env bash
# kiln's CUDA suite, on a GPU machine, from an unpacked scripts/pack-gpu.sh
# bundle (no LLVM/MLIR needed there):
#
#   tar xf kiln-gpu.tar.xz && kiln/gpu-suite.sh [LOG_DIR] [STEP...]
#
# Steps (default: all, in this order):
#   info        nvidia-smi and the driver kiln's runtime finds
#   examples    every examples/*.mlir on the GPU against the reference
#   integration every CPU Integration test's checked command on the GPU
#   train       the lazy API's LSTM and GPT-block training examples on the GPU
#   nccl        collectives on the GPU with NCCL, one rank: the collective
#               programs against the reference (in a CUDA graph, with and
#               without the communication stream), and kiln-lstm-train with
#               and without --data-parallel (KILN_NCCL_LIBRARY, else the
#               first libnccl.so.2 under /opt, /usr/lib or /usr/local)
#   fuzz        kiln-fuzz-diff --backends cuda (random programs)
#   sanitize    the integration commands under compute-sanitizer's tools
#   bench       bench/gpu/run.py and bench/gpu/kernels.py against PyTorch
#               eager and torch.compile
#   training    bench/gpu/training.py (both lazy training steps against
#               PyTorch eager and torch.compile) and bench/gpu/graph_overhead.py
# Each step's output goes to LOG_DIR/STEP.log; a summary line per step to
# stdout. Exits 1 if any step failed. Each step stops after STEP_TIMEOUT
# seconds (default 900); FUZZ_PROGRAMS programs are fuzzed (default 300);
# JOBS commands run side by side (default: the cores, at most 8).
set -uo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
LOGS="${1:-$HERE/logs}"
shift || true
STEPS=("$@")
[ ${#STEPS[@]} -gt 0 ] || STEPS=(info examples integration train nccl fuzz bench training)
mkdir -p "$LOGS"
PY="${PYTHON:-python3}"
KR="$HERE/bin/kiln-run"
FUZZ_PROGRAMS="${FUZZ_PROGRAMS:-300}"
STEP_TIMEOUT="${STEP_TIMEOUT:-900}"
JOBS="${JOBS:-$(( $(nproc) < 8 ? $(nproc) : 8 ))}"
export HERE LOGS PY KR FUZZ_PROGRAMS JOBS
failed=0

step_info() {
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv
  "$KR" "$HERE/examples/lstm_cell.mlir" --backend cuda --random-inputs 0 \
    --check-reference --report
}
step_examples() {
  local rc=0 tmp
  tmp="$(mktemp)"
  for f in "$HERE"/examples/*.mlir; do
    for entry in $(grep -o '^func.func @[A-Za-z0-9_]*' "$f" | cut -d@ -f2); do
      if "$KR" "$f" --entry "$entry" --backend cuda --random-inputs 0 \
          --check-reference --report >"$tmp" 2>&1; then
        echo "PASS $(basename "$f") @$entry $(tail -1 "$tmp")"
      else
        echo "FAIL $(basename "$f") @$entry"; cat "$tmp"; rc=1
      fi
    done
  done
  rm -f "$tmp"
  return $rc
}
step_integration() {
  "$PY" "$HERE/test/GPU/run_integration.py" --jobs="$JOBS" "$KR" cuda \
    "$HERE/test/Integration"
}
# The same commands under compute-sanitizer: out-of-bounds and misaligned
# accesses (memcheck), shared-memory races (racecheck), barriers
# (synccheck), reads of uninitialized device memory (initcheck).
step_sanitize() {
  local rc=0 tool
  for tool in ${SANITIZE_TOOLS:-memcheck racecheck synccheck initcheck}; do
    echo "== compute-sanitizer --tool $tool"
    "$PY" "$HERE/test/GPU/run_integration.py" --jobs="$JOBS" \
      "compute-sanitizer --tool $tool --error-exitcode 3 $KR" cuda \
      "$HERE/test/Integration" || rc=1
  done
  return $rc
}
step_train() {
  [ -x "$HERE/bin/kiln-lstm-train" ] || { echo "no kiln-lstm-train in the bundle"; return 1; }
  KILN_DEVICE=cuda "$HERE/bin/kiln-lstm-train" || return 1
  [ -x "$HERE/bin/kiln-gpt-train" ] || { echo "no kiln-gpt-train in the bundle"; return 1; }
  KILN_DEVICE=cuda "$HERE/bin/kiln-gpt-train"
}
step_nccl() {
  local lib="${KILN_NCCL_LIBRARY:-}" rc=0 f
  [ -n "$lib" ] || lib="$(find /opt /usr/lib /usr/local -name libnccl.so.2 2>/dev/null | head -1)"
  [ -n "$lib" ] || { echo "no libnccl.so.2 found (set KILN_NCCL_LIBRARY)"; return 1; }
  export KILN_NCCL_LIBRARY="$lib"
  echo "NCCL: $lib"
  for f in "$HERE"/test/Distributed/Inputs/*.mlir; do
    case "$f" in *other_shape*) continue ;; esac # a fault test's input
    echo "== $(basename "$f"): graphs, communication stream"
    "$KR" "$f" --backend cuda --random-inputs 0 --check-reference --report --repeat 5 || rc=1
    echo "== $(basename "$f"): KILN_DIST_OVERLAP=0 KILN_CUDA_GRAPHS=0"
    KILN_DIST_OVERLAP=0 KILN_CUDA_GRAPHS=0 "$KR" "$f" --backend cuda --random-inputs 0 \
      --check-reference || rc=1
  done
  echo "== kiln-lstm-train 200 --data-parallel (one rank)"
  KILN_DEVICE=cuda "$HERE/bin/kiln-lstm-train" 200 --data-parallel || rc=1
  echo "== kiln-lstm-train 200"
  KILN_DEVICE=cuda "$HERE/bin/kiln-lstm-train" 200 || rc=1
  return $rc
}
# FUZZ_PROGRAMS programs from seed 15 on, in JOBS shards side by side.
step_fuzz() {
  [ -x "$HERE/bin/kiln-fuzz-diff" ] || { echo "no kiln-fuzz-diff in the bundle"; return 1; }
  local per=$(( (FUZZ_PROGRAMS + JOBS - 1) / JOBS )) i rc=0 pids=()
  for ((i = 0; i < JOBS; i++)); do
    "$HERE/bin/kiln-fuzz-diff" --programs "$per" --seed $((15 + i * per)) \
      --backends cuda --out "$LOGS/fuzz-repros-$i" ${FUZZ_FLAGS:-} >"$LOGS/fuzz-$i.out" 2>&1 &
    pids+=($!)
  done
  for ((i = 0; i < JOBS; i++)); do
    wait "${pids[$i]}" || rc=1
    cat "$LOGS/fuzz-$i.out"; rm -f "$LOGS/fuzz-$i.out"
  done
  return $rc
}
step_bench() {
  "$PY" "$HERE/bench/gpu/run.py" --kiln-run "$KR" --out "$LOGS/gpu-bench.json" || return 1
  # Attention and the row kernels against the memory limit (issue 40).
  "$PY" "$HERE/bench/gpu/kernels.py" --kiln-run "$KR" --out "$LOGS/gpu-kernels.json"
}
# The lazy training steps (CUDA graphs) against PyTorch eager and
# torch.compile, and the host time per run with and without graphs.
step_training() {
  "$PY" "$HERE/bench/gpu/training.py" --kiln-lstm-train "$HERE/bin/kiln-lstm-train" \
    --kiln-gpt-train "$HERE/bin/kiln-gpt-train" --out "$LOGS/gpu-training.json" || return 1
  "$PY" "$HERE/bench/gpu/graph_overhead.py" --kiln-run "$KR" --out "$LOGS/gpu-graph-overhead.json"
}

for step in "${STEPS[@]}"; do
  start=$(date +%s)
  timeout "$STEP_TIMEOUT" bash -c "$(declare -f "step_$step"); step_$step" \
    >"$LOGS/$step.log" 2>&1
  rc=$?
  [ $rc -eq 0 ] || failed=1
  echo "$step: $([ $rc -eq 0 ] && echo ok || echo "FAILED (rc $rc)") in $(( $(date +%s) - start )) s; $(tail -1 "$LOGS/$step.log" | cut -c1-300)"
done
exit $failed
