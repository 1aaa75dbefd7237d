#!/usr/bin/env bash
# The SGEMM ladder's last three steps against cuBLAS, in one device call:
#   1. builds bench/sgemm_ladder (headless build dir, sm_90 by default);
#   2. runs it: the ladder's last three steps at their tuned configurations
#      (the last picks its block tile by n) and cuBLAS at n = 1024, 2048, 4096,
#      medians (min, max) of 15 launches, L2 flushed, each output checked
#      against cuBLAS; it prints the grid, shared memory, registers and local
#      memory (spills) of each kernel it times, from cudaFuncGetAttributes.
#      Exit status: the harness's (0 = all right).
# Usage: scripts/sgemm_ladder.sh [harness options, e.g. --sizes 4096 --reps 25]
# Logs go to $OUT when set (the device tool's folder), else build/sgemm_ladder.
set -u
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build/headless}
LOG=${OUT:-$PWD/build}/sgemm_ladder
mkdir -p "$LOG"
ARCH=${TS_CUDA_ARCH:-90}
t0=$(date +%s)
if ! cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DTS_BUILD_GUI=OFF \
     -DTS_BUILD_BENCH=ON -DTS_CUDA_ARCHITECTURES="$ARCH" >"$LOG/cmake.log" 2>&1; then
  tail -30 "$LOG/cmake.log"; echo "SGEMM LADDER: configure FAILED"; exit 1
fi
if ! cmake --build "$BUILD" -j "$(nproc 2>/dev/null || echo 4)" --target sgemm_ladder \
     >"$LOG/build.log" 2>&1; then
  grep -E "error|Error" "$LOG/build.log" | head -30; echo "SGEMM LADDER: build FAILED"; exit 1
fi
echo "built in $(($(date +%s) - t0)) s"
"$BUILD/bench/sgemm_ladder" "$@" | tee "$LOG/sgemm_ladder.txt"
exit "${PIPESTATUS[0]}"
