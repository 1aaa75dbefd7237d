#!/usr/bin/env bash
# Everything the GPU machine checks, a part per `device` call:
#   scripts/device_check.sh build    the headless build from a clean folder, timed, the
#                                    slowest files, and the compiled-code table it made
#                                    against the copy kept in the tree
#   scripts/device_check.sh engine   GPU tests + memcheck + trace timing, then the perf checks
#   scripts/device_check.sh lessons  every lesson GPU = simulator (scripts/gpu_lessons.sh)
#   scripts/device_check.sh races    compute-sanitizer racecheck against our hazard verdicts
#   scripts/device_check.sh students lesson files and the grader on the GPU: the GPU tests of
#                                    plain CUDA, lesson files and puzzles, and `check --backend
#                                    cuda` of every puzzle's reference solution, side by side
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
  students)
    log=${OUT:-build}
    start=$(date +%s)
    { cmake --preset headless && cmake --build --preset headless -j "$(nproc)" --target ts_gpu_tests tilescope-cli; } \
      > "$log/build.log" 2>&1 || { tail -30 "$log/build.log"; echo "BUILD FAILED"; exit 1; }
    echo "ts_gpu_tests and tilescope-cli built in $(($(date +%s) - start)) s on $(nproc) cores"
    start=$(date +%s)
    timeout 450 build/headless/tests/ts_gpu_tests --gtest_filter='GpuLessonFiles.*:GpuPuzzles.*' \
      > "$log/gpu_students.txt" 2>&1 &
    # Each check with a plug-in cache of its own: sixteen graders compiling at once.
    for folder in assets/puzzles/[0-9]*_*/; do
      id=$(basename "$folder"); id=${id#*_}
      ( XDG_CACHE_HOME=/tmp/ts_check_$id TILESCOPE_PUZZLES=$PWD/assets/puzzles timeout 300 \
          build/headless/tilescope-cli check "$id" "tests/puzzle_solutions/$id.cu" --backend cuda \
          > "/tmp/ts_check_$id.txt" 2>&1
        echo "exit $?" >> "/tmp/ts_check_$id.txt" ) &
    done
    wait
    echo "GPU tests and checks ran side by side in $(($(date +%s) - start)) s"
    grep -E "^\[ +(OK|FAILED|SKIPPED) +\]|PASSED|FAILED|Failure|[0-9]+ ms\)$" "$log/gpu_students.txt" | tail -30
    for f in /tmp/ts_check_*.txt; do
      id=$(basename "$f" .txt); id=${id#ts_check_}
      printf '%-12s %s | %s\n' "$id" "$(tail -1 "$f")" "$(grep -m1 -E "gpu|GPU" "$f")"
      { echo "== $id"; cat "$f"; } >> "$log/checks.txt"
    done
    ;;
  *) echo "usage: scripts/device_check.sh build|engine|lessons|races|students" >&2; exit 2 ;;
esac
