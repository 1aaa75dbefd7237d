#!/usr/bin/env bash
# Times the replay export (--record) of a 64 x 64 tiled multiply (tile 16),
# its first phase, 10 s at 10 fps (100 frames) of the whole 1600x900 window,
# as GIF and as MP4, under Xvfb. The issue's target: under a minute each on a
# 2-core machine.
#   scripts/export_bench.sh [build/default/app/tilescope]
set -euo pipefail
exe=${1:-build/default/app/tilescope}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
echo "$(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
for ext in gif mp4; do
  start=$(date +%s.%N)
  xvfb-run -a -s "-screen 0 1920x1080x24" "$exe" --lesson matmul.tiled_square --n 64 --tile 16 \
    --backend sim --size 1600x900 --theme dark --record "$out/phase.$ext" --to phase:1 \
    --fps 10 --duration 10 --exit
  end=$(date +%s.%N)
  printf '%s: %.1f s in all (run, settle and export), %s bytes\n' "$ext" \
    "$(echo "$end - $start" | bc)" "$(stat -c %s "$out/phase.$ext")"
done
