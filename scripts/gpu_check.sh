#!/usr/bin/env bash
# The GPU machine's check, in one call (well under 10 minutes):
#   1. configure and build the headless preset (no GUI dependencies);
#   2. run the GPU tests (ctest label gpu);
#   3. run part of them under compute-sanitizer memcheck;
#   4. time recording: traced vs untraced tiled 64 x 64, tile 16, and the
#      end-to-end record + download + decode;
#   5. print a short table: test / result, the GPU's name, memcheck, timings.
# Usage: scripts/gpu_check.sh            (from anywhere inside the repository)
# Exit status: 0 when everything passed.
set -u
cd "$(dirname "$0")/.."
ROOT=$(pwd)
BUILD=$ROOT/build/headless
LOG=${OUT:-$ROOT/build}/gpu_check
mkdir -p "$LOG"
status=0
t_start=$(date +%s)

step() { printf '\n== %s\n' "$*"; }

step "GPU"
if command -v nvidia-smi >/dev/null 2>&1; then
  gpu=$(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | head -1)
else
  gpu="(nvidia-smi not found)"
fi
echo "$gpu"
nvcc_version=$(nvcc --version 2>/dev/null | grep -o 'release [0-9.]*' || echo "nvcc not found")
echo "nvcc: $nvcc_version"

step "configure + build (headless preset)"
if ! { cmake --preset headless && cmake --build --preset headless -j 16; } >"$LOG/build.log" 2>&1; then
  tail -40 "$LOG/build.log"
  echo "BUILD FAILED (full log: $LOG/build.log)"
  exit 1
fi
echo "built in $(($(date +%s) - t_start)) s"

step "ctest -L gpu"
ctest --test-dir "$BUILD" -L gpu --output-on-failure --timeout 300 >"$LOG/ctest.log" 2>&1
ctest_rc=$?
grep -E "Test +#|tests passed|tests failed" "$LOG/ctest.log"
[ $ctest_rc -eq 0 ] || { status=1; grep -B2 -A25 -E "Failure|\*\*\*Failed" "$LOG/ctest.log" | head -120; }

step "compute-sanitizer memcheck"
memcheck="not run"
if command -v compute-sanitizer >/dev/null 2>&1; then
  # Traces, overflow, removed barriers, out-of-range reads of tiled_exact
  # (inside the padded allocation by design), bad requests, and one
  # correctness pass of every lesson's defaults (GpuVsSimulator).
  filter='GpuTrace.*:GpuErrors.*:GpuKernels.ExactMultiples*:GpuVsSimulator.*:GpuStatus.*'
  compute-sanitizer --tool memcheck --error-exitcode 3 --leak-check full \
    "$BUILD/tests/ts_gpu_tests" --gtest_filter="$filter" >"$LOG/memcheck.log" 2>&1
  mc_rc=$?
  memcheck=$(grep -E "ERROR SUMMARY" "$LOG/memcheck.log" | tail -1)
  [ -n "$memcheck" ] || memcheck="no summary (exit $mc_rc)"
  if [ $mc_rc -ne 0 ]; then
    status=1
    grep -E "=========|FAILED" "$LOG/memcheck.log" | head -40
  fi
  echo "$memcheck (exit $mc_rc)"
else
  echo "compute-sanitizer not found"
fi

step "timing (bench_gpu_trace)"
bench="not built"
if [ -x "$BUILD/bench/bench_gpu_trace" ]; then
  "$BUILD/bench/bench_gpu_trace" matmul.tiled_square 64 16 21 >"$LOG/bench.log" 2>&1 || status=1
  bench=$(cat "$LOG/bench.log")
  echo "$bench"
fi

step "summary"
printf '%-70s %s\n' "test" "result"
printf '%-70s %s\n' "----" "------"
# ctest lines look like: "  3/12 Test  #3: GpuKernels.EveryVariantMatchesTheReference ....   Passed    1.23 sec"
sed -nE 's/^ *[0-9]+\/[0-9]+ Test +#[0-9]+: ([^ ]+) \.*[ *]*([A-Za-z*]+.*) +[0-9.]+ sec$/\1|\2/p' \
  "$LOG/ctest.log" | while IFS='|' read -r name result; do
  printf '%-70s %s\n' "$name" "$(echo "$result" | sed 's/ *$//')"
done
echo
echo "GPU:       $gpu"
echo "memcheck:  $memcheck"
echo "$bench" | grep -E "kernel|end to end|events" | sed 's/^/timing:    /'
echo "total:     $(($(date +%s) - t_start)) s, $([ $status -eq 0 ] && echo ALL PASSED || echo FAILURES)"
exit $status
