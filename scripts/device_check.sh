#!/usr/bin/env bash
# Everything the GPU machine checks, in at most two `device` calls:
#   scripts/device_check.sh engine   GPU tests + memcheck + trace timing, then the perf checks
#   scripts/device_check.sh races    compute-sanitizer racecheck against our hazard verdicts
# Logs go to $OUT (or build/); each part ends with its own short table.
set -u
cd "$(dirname "$0")/.."
export PATH=/usr/local/cuda/bin:$PATH
case "${1:-engine}" in
  engine)
    scripts/gpu_check.sh 2>&1 | tee "${OUT:-build}/gpu_check.txt" | tail -32
    PERF_SWEEP_SECONDS=${PERF_SWEEP_SECONDS:-60} scripts/perf_check.sh > "${OUT:-build}/perf_check.txt" 2>&1
    sed -n '/=== .*registers/,$p' "${OUT:-build}/perf_check.txt" | grep -v "^  timed\|^  _Z" | tail -40
    ;;
  races)
    cmake --preset headless > /dev/null && cmake --build --preset headless -j "$(nproc)" --target tilescope-cli > /dev/null &&
      scripts/racecheck_compare.sh build/headless
    ;;
  *) echo "usage: scripts/device_check.sh engine|races" >&2; exit 2 ;;
esac
