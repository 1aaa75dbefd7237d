#!/usr/bin/env bash
# Remakes docs/screenshots/projector/: what a lecture hall sees, at 1280 x 720
# with font 28 and at 1920 x 1080 with font 18 (presenter mode where a class
# watches the grid): the default lesson, every step of the race lab lecture,
# the transpose's 32-way bank conflict, a quiz question revealed and the road
# to cuBLAS. Usage: scripts/projector_screenshots.sh [build dir]
set -euo pipefail
cd "$(dirname "$0")/.."
app=$PWD/${1:-build/default}/app/tilescope
out=docs/screenshots/projector
mkdir -p "$out"
shot() {  # name, size, font, then the app's arguments
  local name=$1 size=$2 font=$3
  shift 3
  xvfb-run -a -s "-screen 0 1920x1080x24" "$app" "$@" --size "$size" --font-size "$font" \
    --screenshot "$out/${name}_${size}_f${font}.png" --force --exit
}
for s in "1280x720 28" "1920x1080 18"; do
  set -- $s
  size=$1 font=$2
  shot default "$size" "$font" --present --position barrier:1
  shot default_panels "$size" "$font" --position barrier:1
  # Every step of the race lab, in presenter mode (one process: FILE_stepK.png).
  shot race_lab "$size" "$font" --present --lecture assets/lectures/race_lab.tslecture --all-steps
  # The first column read of transpose.shared's tile, the tile coloured by bank:
  # the column outlined is one bank (32-way), the narration says so.
  shot banks_transpose "$size" "$font" --present --lesson transpose.shared --position 12064 \
    --memory banks
  # A quiz question revealed (seed 1 on the default lesson, answered with the truth less a
  # cell: right cells green, the missed one ringed).
  shot quiz_reveal "$size" "$font" --present --backend sim --quiz 1 --quiz-answer truth-1 \
    --keys enter
  shot ladder_h200 "$size" "$font" --backend sim --tab Performance
  shot ladder_h100 "$size" "$font" --backend sim --tab Performance \
    --perf-report docs/perf_h100_ladder.json
done
