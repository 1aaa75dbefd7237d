#!/usr/bin/env bash
# Every lesson recorded on the GPU, at its defaults and with each barrier
# removed, then opened again: the trace validator (analysis/trace_validate)
# must accept what the real GPU records. Prints one line per run; exits 1 on
# any refusal.
#   scripts/gpu_traces_valid.sh [build dir]    (default: build/headless, built)
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
bad=0 runs=0
for id in $("$CLI" list | awk 'NR > 1 && $1 ~ /\./ { print $1 }'); do
  mask=$("$CLI" run "$id" --backend sim --json 2>/dev/null | grep -o '"barrier_mask": *[0-9]*' |
    head -1 | grep -o '[0-9]*$')
  drops=0
  for b in $(seq 1 16); do (((${mask:-0} >> (b - 1)) & 1)) && drops="$drops $b"; done
  for drop in $drops; do
    extra=()
    [ "$drop" -gt 0 ] && extra=(--no-barrier "$drop" --schedule skew)
    f="$TMP/$id.$drop.tstrace"
    runs=$((runs + 1))
    if ! "$CLI" run "$id" --backend "${TS_BACKEND:-cuda}" "${extra[@]}" -o "$f" > "$TMP/run.txt" 2>&1 &&
       ! grep -q "wrote\|saved" "$TMP/run.txt"; then
      echo "$id drop=$drop: RUN FAILED: $(head -c 300 "$TMP/run.txt")"; bad=$((bad + 1)); continue
    fi
    if "$CLI" inspect "$f" > "$TMP/inspect.txt" 2>&1; then
      echo "$id drop=$drop: ok"
    else
      echo "$id drop=$drop: REFUSED: $(head -c 400 "$TMP/inspect.txt" | tr '\n' ' ')"; bad=$((bad + 1))
    fi
  done
done
echo "gpu traces: $runs runs, $bad refused or failed"
[ "$bad" -eq 0 ]
