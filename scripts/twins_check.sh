#!/usr/bin/env bash
# Are the lesson kernels as fast as the same kernels written plainly? For the
# GPU machine, one call (about 5 minutes on an H200, build included):
#   1. builds headless: tilescope-cli, textbook_sgemm, family_twins;
#   2. SASS: scripts/sass_compare.sh (instruction counts, lesson vs twin);
#   3. the tiled multiply at tiles 16 and 32, n = 1024, 2048, 4096:
#      `tilescope-cli bench` (the panel's engine) vs bench/textbook_sgemm;
#   4. each bandwidth family's last step at 2^24 and 2^26 elements:
#      `tilescope-cli bench` vs bench/family_twins (plain twins);
#   5. each family's ladder with its library line: `tilescope-cli bench --ladder FAMILY`
#      (and the SGEMM ladder at n = 4096 with TWINS_SGEMM_LADDER=1);
#   6. prints the ratio table LAST: lesson median ms / twin median ms, want <= 1.02.
# Usage: scripts/twins_check.sh   (TWINS_LENGTHS, TWINS_REPS, TWINS_LIMIT, SKIP_LADDERS=1 change it)
# Files (CSV, JSON, logs) go to $OUT when set (the device tool's folder), else build/twins_check.
set -u
cd "$(dirname "$0")/.."
ROOT=$PWD
BUILD=${BUILD:-build/headless}
RES=${OUT:-$ROOT/build/twins_check}
mkdir -p "$RES"
JOBS=$(nproc 2>/dev/null || echo 4)
ARCH=${TS_CUDA_ARCH:-90}
LENGTHS=${TWINS_LENGTHS:-16777216,67108864}
REPS=${TWINS_REPS:-20}
LIMIT=${TWINS_LIMIT:-1.02}
t0=$(date +%s)
stage() { echo; echo "=== [$(( $(date +%s) - t0 ))s] $*"; }

# The lessons each twin stands for (the current last step of each family)
# and the parameters both are timed at: the lessons' timed defaults.
BLOCK=256 RADIUS=3 CONV_TILE=8 CONV_RADIUS=2
AS=(transpose_padded=transpose.shared_padded transpose_swizzled=transpose.shared_swizzled
    reduce_warp_shuffle=reduction.warp_shuffle stencil_shared=stencil.shared
    conv2d_tiled=conv2d.tiled histogram_shared=histogram.shared_atomics
    histogram_grid_stride=histogram.grid_stride scan_blelloch=scan.blelloch
    transpose_vectorized=transpose.vectorized transpose_large_tile=transpose.large_tile
    reduce_single_pass=reduction.single_pass
    stencil_vectorized=stencil.vectorized conv2d_double_buffer=conv2d.double_buffer)
lessons() { printf '%s\n' "${AS[@]}" | cut -d= -f2 | grep -E "$1" | paste -sd, -; }
as_args() { for a in "${AS[@]}"; do printf -- '--as %s ' "$a"; done; }

stage "GPU"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv,noheader 2>/dev/null ||
  echo "nvidia-smi not available"

stage "build (headless, sm_$ARCH)"
if [ "${TWINS_NO_BUILD:-0}" = 1 ]; then
  echo "TWINS_NO_BUILD=1: using what $BUILD holds"
elif ! cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DTS_BUILD_GUI=OFF \
     -DTS_CUDA_ARCHITECTURES="$ARCH" > "$RES/cmake.log" 2>&1; then
  tail -30 "$RES/cmake.log"; echo "TWINS CHECK: configure FAILED"; exit 1
elif ! cmake --build "$BUILD" -j "$JOBS" --target tilescope-cli textbook_sgemm family_twins \
     > "$RES/build.log" 2>&1; then
  grep -E "error|Error" "$RES/build.log" | head -30; echo "TWINS CHECK: build FAILED"; exit 1
fi
CLI=$BUILD/tilescope-cli

stage "SASS: lesson kernels vs their twins (scripts/sass_compare.sh, sm_$ARCH)"
TS_CUDA_ARCH=$ARCH scripts/sass_compare.sh
sass_rc=$?

stage "the tiled multiply: tilescope-cli bench vs textbook_sgemm (tiles 16, 32; n = 1024, 2048, 4096)"
timeout -s INT 150 "$CLI" bench --kernels matmul.tiled_square --sizes 1024,2048,4096 --tiles 16,32 \
  --reps "$REPS" --no-copy --csv "$RES/panel_matmul.csv" --force 2> "$RES/panel_matmul.log" > /dev/null
timeout 150 "$BUILD/bench/textbook_sgemm" --sizes 1024,2048,4096 --reps "$REPS" \
  --csv "$RES/textbook.csv" --tiled-as matmul.tiled_square > "$RES/textbook.log" 2>&1 ||
  tail -3 "$RES/textbook.log"

stage "the families' last steps at $LENGTHS: tilescope-cli bench vs family_twins"
# The 1D lessons at block $BLOCK (stencil radius $RADIUS); the 2D ones at their defaults, conv2d radius $CONV_RADIUS.
timeout -s INT 150 "$CLI" bench --kernels "$(lessons 'reduction|stencil|histogram|scan')" \
  --lengths "$LENGTHS" --block "$BLOCK" --radius "$RADIUS" --reps "$REPS" --no-library \
  --csv "$RES/panel_1d.csv" --force 2> "$RES/panel_1d.log" > /dev/null
timeout -s INT 150 "$CLI" bench --kernels "$(lessons 'transpose|conv2d')" --lengths "$LENGTHS" \
  --radius "$CONV_RADIUS" --reps "$REPS" --no-library --no-copy --csv "$RES/panel_2d.csv" --force 2> "$RES/panel_2d.log" > /dev/null
# The histogram also on the library's two inputs: every bin as likely, and every element in one bin.
for input in uniform one-hot; do
  timeout -s INT 120 "$CLI" bench --kernels "$(lessons histogram)" --lengths "$LENGTHS" \
    --block "$BLOCK" --input "$input" --reps "$REPS" --no-library --no-copy \
    --csv "$RES/panel_input_$input.csv" --force 2> "$RES/panel_input_$input.log" > /dev/null
done
# shellcheck disable=SC2046
timeout 200 "$BUILD/bench/family_twins" --lengths "$LENGTHS" --reps "$REPS" --block "$BLOCK" \
  --radius "$RADIUS" --conv-tile "$CONV_TILE" --conv-radius "$CONV_RADIUS" $(as_args) \
  --csv "$RES/twins.csv"
twins_rc=$?

if [ "${SKIP_LADDERS:-0}" != 1 ]; then
  ladder() {  # file tag, ladder name, bench options: prints the table, or why there is none
    local out="$RES/ladder_$1" name=$2
    shift 2
    timeout -s INT 150 "$CLI" bench --ladder "$name" "$@" --quiet --json "$out.json" --force \
      > "$out.txt" 2> "$out.log"
    local rc=$?
    sed -n '/^The .* family, step by step/,$p; /^The road/,$p' "$out.txt"
    [ "$rc" -eq 0 ] || { echo "(bench --ladder $name: exit $rc)"; tail -3 "$out.log"; }
  }
  for fam in transpose reduction histogram stencil conv2d scan; do
    stage "tilescope-cli bench --ladder $fam (2^26 elements; the library line in the same run)"
    ladder "$fam" "$fam" --lengths 67108864 --reps 15
  done
  stage "tilescope-cli bench --ladder histogram --input uniform (the lessons on the library's uniform input)"
  ladder histogram_uniform histogram --input uniform --lengths 67108864 --reps 15
  stage "tilescope-cli bench --ladder conv2d --radius 3 (a 7 x 7 mask: the issue's measure)"
  ladder conv2d_r3 conv2d --radius 3 --lengths 67108864 --reps 15
  stage "tilescope-cli bench --ladder histogram --input one-hot (the lessons on the skewed input)"
  ladder histogram_one-hot histogram --input one-hot --lengths 67108864 --reps 15
  if [ "${TWINS_SGEMM_LADDER:-0}" = 1 ]; then
    stage "tilescope-cli bench --ladder (sgemm, n = 4096)"
    ladder sgemm sgemm --sizes 4096 --reps 10
  fi
fi

stage "RATIOS: lesson median ms / twin median ms (the same kernel written plainly), want <= $LIMIT"
awk -F, -v limit="$LIMIT" '
  FNR == 1 { next }
  FILENAME ~ /(^|\/)textbook\.csv$/ { if ($9 == "textbook tiled") { twin[$1 "," $2 "," $3 ","] = $4; ok[$1 "," $2 "," $3 ","] = $8 }; next }
  FILENAME ~ /(^|\/)twins\.csv$/ { input = ($3 == "plain" || $3 == "small-integers") ? "" : $3
                       k = $1 ",0," $4 "," input; twin[k] = $6; ok[k] = $10; next }
  { input = FILENAME; sub(/.*panel_input_/, "", input); sub(/\.csv$/, "", input)
    if (FILENAME !~ /panel_input_/) input = ""
    k = $2 "," $3 "," $4 "," input; if (!(k in seen)) { seen[k] = 1; order[++n] = k }; ms[k] = $8; counted[k] = $6 }
  END {
    printf "%-28s %4s %10s %-8s %10s %10s %7s  %s\n", "lesson", "tile", "size", "input", "lesson ms", "twin ms", "ratio", "verdict"
    bad = 0; worst = 0; rows = 0
    for (i = 1; i <= n; i++) {
      k = order[i]; if (!(k in twin)) continue
      split(k, p, ","); rows++
      r = twin[k] > 0 ? ms[k] / twin[k] : 0
      v = (counted[k] != 1 || ok[k] != 1) ? "NOT CHECKED (wrong or failed)" : (r <= limit ? "free" : "SLOWER")
      if (v != "free") bad++
      if (r > worst) worst = r
      printf "%-28s %4s %10s %-8s %10.4f %10.4f %7.3f  %s\n", p[1], (p[2] == 0 ? "-" : p[2]), p[3], (p[4] == "" ? "own" : p[4]), ms[k], twin[k], r, v
    }
    if (rows == 0) { print "TWINS: nothing measured (see the logs in the results folder)"; exit 1 }
    printf "TWINS: %s (%d of %d rows above %s or unchecked; slowest ratio %.3f)\n",
           (bad == 0 ? "PASS" : "FAIL"), bad, rows, limit, worst
    exit bad > 0
  }' $(ls "$RES"/textbook.csv "$RES"/twins.csv "$RES"/panel_*.csv 2> /dev/null)
ratio_rc=$?
echo "SASS compare: $([ "$sass_rc" -eq 0 ] && echo PASS || echo "FAIL (exit $sass_rc)"); twins' own checks: $([ "$twins_rc" -eq 0 ] && echo PASS || echo "FAIL (exit $twins_rc)")"
echo "twins_check took $(( $(date +%s) - t0 )) s; files in $RES"
[ "$ratio_rc" -eq 0 ] && [ "$sass_rc" -eq 0 ] && [ "$twins_rc" -eq 0 ]
