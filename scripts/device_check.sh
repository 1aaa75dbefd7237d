#!/usr/bin/env bash
# Everything the GPU machine checks, a part per `device` call:
#   scripts/device_check.sh build    the headless build from a clean folder, timed, the
#                                    slowest files, and the compiled-code table it made
#                                    against the copy kept in the tree
#   scripts/device_check.sh engine   GPU tests + memcheck + trace timing, then the perf checks
#   scripts/device_check.sh lessons  every lesson GPU = simulator (scripts/gpu_lessons.sh)
#   scripts/device_check.sh races    compute-sanitizer racecheck against our hazard verdicts
# Logs go to $OUT (or build/); each part ends with its own short table.
set -u
cd "$(dirname "$0")/.."
export PATH=/usr/local/cuda/bin:$PATH
case "${1:-engine}" in
  build)
    rm -rf build/headless
    start=$(date +%s)
    { cmake --preset headless && cmake --build --preset headless -j "$(nproc)"; } > "${OUT:-build}/build.log" 2>&1 ||
      { tail -30 "${OUT:-build}/build.log"; echo "BUILD FAILED"; exit 1; }
    echo "headless build from a clean folder: $(($(date +%s) - start)) s on $(nproc) cores"
    echo "slowest files (s):"
    awk 'NR > 1 { printf "%7.1f %s\n", ($2 - $1) / 1000, $4 }' build/headless/.ninja_log | sort -rn | head -8
    table=build/headless/engine/compiled/sm_90.cpp
    if [ -f "$table" ]; then
      if diff <(grep -v 'kOrigin' "$table") <(grep -v 'kOrigin' engine/compiled/sm_90.cpp) > /dev/null; then
        echo "compiled-code table made here = the copy in the tree"
      else
        echo "compiled-code table made here DIFFERS from the copy in the tree:"
        diff <(grep -v 'kOrigin' "$table") <(grep -v 'kOrigin' engine/compiled/sm_90.cpp) | head -20
      fi
    fi
    ;;
  lessons)
    scripts/gpu_lessons.sh build/headless
    ;;
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
