#!/usr/bin/env bash
# One device call (session 11): the tools for the SASS table, the GPU tests on
# binaries built here for sm_90, ncu at the defaults and larger, the SGEMM ladder.
set -u -o pipefail
T0=$(date +%s); el() { echo "[t=$(( $(date +%s) - T0 )) s] $*"; }
mkdir -p /work; [ -e /work/main ] || ln -s "$PWD" /work/main; cd /work/main || exit 1
mkdir -p build/default/tests
tar xJf .device/bins.tar.xz -C .device && mv .device/tilescope-cli build/default/ && mv .device/ts_gpu_tests build/default/tests/
D=$(dirname "$(command -v nvcc)")
tar cJf "$OUT/nvdisasm.tar.xz" -C "$D" nvdisasm; tar cJf "$OUT/cuobjdump.tar.xz" -C "$D" cuobjdump
ls -la "$OUT"; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader; nvcc --version | tail -2
el "gpu tests"
timeout 150 build/default/tests/ts_gpu_tests > "$OUT/gpu_tests.log" 2>&1; echo "rc $?"
grep -E "^\[ +(OK|FAILED|PASSED|SKIPPED) +\]|tests? (ran|passed)|Failure" "$OUT/gpu_tests.log" | head -40
el "ncu LARGER"
OUT=/tmp/ncuo LARGER=1 NO_BUILD=1 timeout 220 scripts/ncu_compare.sh build/default > "$OUT/ncu.log" 2>&1; echo "rc $?"
grep -c exact "$OUT/ncu.log"; grep -E "DIFF|^== " "$OUT/ncu.log" | head -30; tail -4 "$OUT/ncu.log"
el "sgemm ladder"
timeout 90 build/default/tilescope-cli bench --ladder sgemm --sizes 1024 2048 4096 --json "$OUT/perf_h200_ladder.json" > "$OUT/ladder.log" 2>&1; echo "rc $?"
tail -22 "$OUT/ladder.log"
el done
