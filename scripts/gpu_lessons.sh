#!/usr/bin/env bash
# Every lesson of the registry on the GPU and on the simulator, with its
# defaults, all barriers kept: the two `run --json` reports must agree on
# everything but the backend, the device and the timing (verdict, event
# counts per kind and array, loads per element). Prints one line per lesson
# and the differences; exits 1 on any.
#   scripts/gpu_lessons.sh [build dir]    (default: builds the headless preset)
set -u
cd "$(dirname "$0")/.."
export PATH=/usr/local/cuda/bin:$PATH
BUILD=${1:-}
if [ -z "$BUILD" ]; then
  cmake --preset headless > /dev/null && cmake --build --preset headless -j "$(nproc)" \
    --target tilescope-cli > /dev/null || { echo "build failed"; exit 1; }
  BUILD=build/headless
fi
CLI=$BUILD/tilescope-cli
TMP=$(mktemp -d)
strip() {  # what may differ between the backends: names, timing, how faults are worded
  local wrong_values='^$'
  # A wrong output's values depend on which out-of-range store landed last
  # (matmul.tiled_exact): then the cells must agree, not the errors.
  grep -q '"correct": false' "$TMP/gpu.json" && grep -q '"correct": false' "$TMP/sim.json" &&
    wrong_values='"max_abs_error"\|"max_rel_error"\|"summary"'
  awk '/"faults": \[/ { skip = 1 } skip && /^  \]/ { skip = 0; next } !skip' "$1" |
    grep -v '"backend"\|"backend_note"\|"device"\|"kernel_ms"\|"skew_ns"\|"faults"' |
    grep -v "$wrong_values"
}
bad=0
for id in $("$CLI" list | awk 'NR > 1 && $1 ~ /\./ { print $1 }'); do
  "$CLI" run "$id" --backend cuda --json > "$TMP/gpu.json" 2> "$TMP/gpu.err"
  rc_gpu=$?
  "$CLI" run "$id" --backend sim --json > "$TMP/sim.json" 2> "$TMP/sim.err"
  verdict=$(grep -m1 '"summary"' "$TMP/gpu.json" | sed 's/.*"summary": *"//; s/ (.*//')
  events=$(grep -m1 '"recorded"' "$TMP/gpu.json" | sed 's/.*: *//; s/,$//')
  if [ $rc_gpu -ne 0 ]; then
    printf '%-24s GPU run failed: %s\n' "$id" "$(head -c 300 "$TMP/gpu.err")"
    bad=1
  elif diff <(strip "$TMP/gpu.json") <(strip "$TMP/sim.json") > "$TMP/diff"; then
    printf '%-24s same as the simulator  verdict %s, %s events\n' "$id" "$verdict" "$events"
  else
    printf '%-24s DIFFERS from the simulator\n' "$id"
    head -20 "$TMP/diff"
    bad=1
  fi
done
rm -rf "$TMP"
exit $bad
