#!/usr/bin/env bash
# Performance check for the GPU machine (issue 5 and issue 2 section 7):
#   1. builds headless (tilescope-cli, textbook_sgemm, ts_gpu_tests);
#   2. runs the GPU perf tests (correct outputs, positive times, tiled beats naive);
#   3. times naive, tiled and cuBLAS at 1024/2048/4096 with `tilescope-cli bench`
#      (the panel's engine) and with bench/textbook_sgemm (an independent
#      harness: the textbook kernels compiled on their own, no TileScope code);
#   4. prints the registers of both (nvcc -Xptxas -v);
#   5. runs the panel's default sweep (all kernels, stencils too), time-capped;
#   6. prints the agreement table LAST: panel vs standalone, want within 10 %,
#      and our untraced tiled kernel vs the textbook one compiled alone.
# Usage: scripts/perf_check.sh            (about 4-6 minutes on an H100, build included)
# Files (JSON/CSV) go to $OUT when set (the device tool's folder), else build/perf_check.
set -u
cd "$(dirname "$0")/.."
ROOT=$PWD
BUILD=${BUILD:-build/headless}
RES=${OUT:-$ROOT/build/perf_check}
mkdir -p "$RES"
JOBS=$(nproc 2>/dev/null || echo 4)
SIZES=1024,2048,4096
NVCC=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
ARCH=${TS_CUDA_ARCH:-90}
t0=$(date +%s)
stage() { echo; echo "=== [$(( $(date +%s) - t0 ))s] $*"; }

stage "GPU"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv,noheader 2>/dev/null ||
  echo "nvidia-smi not available"

stage "build (headless, sm_$ARCH)"
if ! cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DTS_BUILD_GUI=OFF \
     -DTS_CUDA_ARCHITECTURES="$ARCH" > "$RES/cmake.log" 2>&1; then
  tail -30 "$RES/cmake.log"; echo "PERF CHECK: configure FAILED"; exit 1
fi
if ! cmake --build "$BUILD" -j "$JOBS" --target tilescope-cli textbook_sgemm ts_gpu_tests \
     > "$RES/build.log" 2>&1; then
  grep -E "error|Error" "$RES/build.log" | head -30; echo "PERF CHECK: build FAILED"; exit 1
fi
CLI=$BUILD/tilescope-cli
TB=$BUILD/bench/textbook_sgemm
echo "built: $CLI $TB"

stage "GPU perf tests (tests/gpu_perf.cpp)"
timeout 180 "$BUILD/tests/ts_gpu_tests" --gtest_filter='GpuPerf*' 2>&1 | grep -E "^\[ +(OK|FAILED|SKIPPED|PASSED) |skipped|Failure|Expected|Which|actual" | head -40
tests_rc=${PIPESTATUS[0]}

stage "tilescope-cli bench: naive, tiled, cuBLAS at $SIZES (the panel's numbers)"
timeout -s INT 240 "$CLI" bench --kernels matmul.naive_grid,matmul.tiled_square --sizes "$SIZES" \
  --tiles 16,32 --reps 15 --json "$RES/panel.json" --csv "$RES/panel.csv" 2> "$RES/panel.log"
panel_rc=$?
[ $panel_rc -ne 0 ] && { echo "bench exit code $panel_rc"; tail -5 "$RES/panel.log"; }

stage "textbook_sgemm: the standalone harness at $SIZES"
timeout 180 "$TB" --sizes "$SIZES" --reps 15 --csv "$RES/standalone.csv" \
  --naive-as matmul.naive_grid --tiled-as matmul.tiled_square
tb_rc=$?

stage "registers: nvcc -Xptxas -v (sm_$ARCH)"
TMP=$(mktemp -d)
cat > "$TMP/ours.cu" <<'EOF'
// Only the untraced instantiations the table compares, exactly as the harness wraps them.
#include "lessons/matmul_naive_grid.hpp"
#include "lessons/matmul_tiled_square.hpp"
#include "engine/cuda/recorders.cuh"
template <class Body> __global__ void timed(ts::PlainRec rec, ts::KernelArgs a) { Body::run(rec, a); }
template __global__ void timed<ts::lessons::matmul_naive_grid::Body>(ts::PlainRec, ts::KernelArgs);
template __global__ void timed<ts::lessons::matmul_tiled_square::Body<16>>(ts::PlainRec, ts::KernelArgs);
template __global__ void timed<ts::lessons::matmul_tiled_square::Body<32>>(ts::PlainRec, ts::KernelArgs);
EOF
regs() {  # file -> "kernel: N registers" lines
  "$NVCC" -std=c++20 -O3 -arch=sm_$ARCH -lineinfo --expt-relaxed-constexpr -I"$ROOT" \
    -Xptxas -v -c "$1" -o "$TMP/x.o" 2>&1 |
    awk '/Compiling entry function/ { match($0, /function .[^ ]+/); f = substr($0, RSTART + 10, RLENGTH - 11) }
         /Used [0-9]+ registers/ { match($0, /Used [0-9]+ registers/); print "  " f ": " substr($0, RSTART, RLENGTH) }' |
    c++filt 2>/dev/null || true
}
echo "ours (launch_body<Body, PlainRec>, the harness's wrapper, with the same body):"
regs "$TMP/ours.cu" | c++filt
echo "textbook (bench/textbook_sgemm.cu):"
regs "$ROOT/bench/textbook_sgemm.cu" | c++filt
rm -rf "$TMP"

stage "the panel's default sweep: every kernel, matmul 128..4096, stencil 2^16..2^26 (capped at ${PERF_SWEEP_SECONDS:-100} s)"
# SIGINT cancels the sweep: what was measured by then is still printed and saved.
timeout -s INT "${PERF_SWEEP_SECONDS:-100}" "$CLI" bench --warmup 1 --max-seconds 0.3 --json "$RES/sweep.json" --csv "$RES/sweep.csv" \
  2> "$RES/sweep.log"
echo "(full sweep exit code $?; JSON/CSV in $RES; load sweep.json in the app's Performance panel)"

stage "AGREEMENT: panel (tilescope-cli bench) vs standalone harness (textbook_sgemm), median ms"
if [ -s "$RES/panel.csv" ] && [ -s "$RES/standalone.csv" ]; then
  awk -F, -v gpu="$(head -2 "$RES/panel.csv" | tail -1 | cut -d, -f1)" '
    FNR == 1 { next }
    FILENAME ~ /standalone/ { sa[$1 "," $2 "," $3] = $4; ok[$1 "," $2 "," $3] = $8; next }
    { if ($2 == "copy.d2d") next
      key = $2 "," $3 "," $4; panel[key] = $8; counted[key] = $6; order[++n] = key }
    END {
      printf "GPU: %s\n", gpu
      printf "%-20s %4s %5s %10s %12s %7s  %s\n", "kernel", "tile", "n", "panel ms", "standalone", "ratio", "within 10%"
      bad = 0; worst_tiled = 0
      for (i = 1; i <= n; i++) {
        k = order[i]; split(k, p, ",")
        if (!(k in sa)) continue
        r = (sa[k] > 0) ? panel[k] / sa[k] : 0
        agree = (counted[k] == 1 && ok[k] == 1 && r > 0.9 && r < 1.1) ? "yes" : "NO"
        if (agree == "NO") bad++
        if (p[1] == "matmul.tiled_square" && r > worst_tiled) worst_tiled = r
        printf "%-20s %4s %5s %10.4f %12.4f %7.3f  %s\n", p[1], (p[2] == 0 ? "-" : p[2]), p[3], panel[k], sa[k], r, agree
      }
      printf "matmul.tiled_square rows = our untraced tiled kernel vs the textbook kernel compiled alone.\n"
      printf "AGREEMENT: %s (%d of the rows outside 10 %%); slowest untraced-tiled/textbook ratio %.3f (%s)\n",
             (bad == 0 ? "PASS" : "FAIL"), bad, worst_tiled, (worst_tiled <= 1.10 ? "as fast" : "SLOWER")
    }' "$RES/standalone.csv" "$RES/panel.csv"
else
  echo "AGREEMENT: not measured (panel exit $panel_rc, standalone exit $tb_rc)"
fi
echo "GPU perf tests: $([ "${tests_rc:-1}" -eq 0 ] && echo PASS || echo "FAIL (exit $tests_rc)")"
echo "perf_check took $(( $(date +%s) - t0 )) s"
