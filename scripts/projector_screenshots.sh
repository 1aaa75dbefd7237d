#!/usr/bin/env bash
# Remakes docs/screenshots/projector/: what a lecture hall sees (issue 33), at
# 1280 x 720 with text at 28 (and 32 where the text size is the point), and
# a step of each lecture at 1600 x 900 (22) and 1920 x 1080 (18):
#   race_lab_*, tiled_multiply_*   every step of the shipped lectures, as opened
#   stale_*        the stale read labelled "read 3, expected 4" (presenter mode)
#   panels_*       the default lesson with the panels: the window presents by itself
#   values_*       the values at the end, digits as large as the text asks
#   oned_*         a reduction and a stencil wrapped into warp rows; zoomed in (plus x3)
#   conflicts_*    the largest tile's bank conflicts, C pressed: the next conflicting access
#   padding_*      the double-buffered convolution: only the tile's overhang hatched
#   quiz_*         a quiz question and its reveal; puzzles_*: the Puzzles panel
# Usage: scripts/projector_screenshots.sh [build dir]
set -euo pipefail
cd "$(dirname "$0")/.."
app=$PWD/${1:-build/default}/app/tilescope
out=docs/screenshots/projector
mkdir -p "$out"
rm -f "$out"/*.png
shot() {  # name, size, font, then the app's arguments
  local name=$1 size=$2 font=$3
  shift 3
  xvfb-run -a -s "-screen 0 1920x1080x24" "$app" --theme dark "$@" --size "$size" \
    --font-size "$font" --screenshot "$out/${name}_${size}_f${font}.png" --force --exit
}
keep_steps() {  # lecture name, size, font, steps to keep: the rest of --all-steps removed
  local name=$1 tagged=$1_$2_f$3
  shift 3
  for f in "$out/${tagged}"_step*.png; do
    local k=${f##*_step}
    k=${k%.png}
    [[ " $* " == *" $k "* ]] || rm -f "$f"
  done
}
for lecture in race_lab tiled_multiply; do
  shot "$lecture" 1280x720 28 --lecture "assets/lectures/$lecture.tslecture" --all-steps
done
shot race_lab 1280x720 32 --lecture assets/lectures/race_lab.tslecture --all-steps
keep_steps race_lab 1280x720 32 1 5 6
shot race_lab 1600x900 22 --lecture assets/lectures/race_lab.tslecture --all-steps
keep_steps race_lab 1600x900 22 1 2
shot tiled_multiply 1920x1080 18 --lecture assets/lectures/tiled_multiply.tslecture --all-steps
keep_steps tiled_multiply 1920x1080 18 4 8
for font in 28 32; do
  shot stale 1280x720 "$font" --present --no-barrier 2 --position stale
  shot panels 1280x720 "$font" --position barrier:1
  shot values 1280x720 "$font" --present --position end
  shot quiz 1280x720 "$font" --present --quiz 1
done
shot quiz_reveal 1280x720 28 --present --quiz 1 --quiz-answer truth-1 --keys enter
shot oned_reduction 1280x720 28 --lesson reduction.sequential --present --position barrier:1
shot oned_reduction_zoom 1280x720 28 --lesson reduction.sequential --present --keys plus,plus,plus
shot oned_stencil 1280x720 28 --lesson stencil.vectorized --present --position barrier:1
shot conflicts 1280x720 28 --lesson transpose.large_tile --present --memory conflicts --keys c
shot padding 1280x720 28 --lesson conv2d.double_buffer --present --position barrier:2 --keys 0
shot puzzles 1280x720 28 --tab Puzzles
shot puzzles 1600x900 22 --tab Puzzles
for size_font in "1280x720 28" "1280x720 32" "1920x1080 18"; do
  # shellcheck disable=SC2086  # size and font: two words
  shot focus $size_font --focus-grid --no-barrier 2 --position stale
  # shellcheck disable=SC2086
  shot banks $size_font --present --memory banks --lesson transpose.shared --keys c
done
shot focus_end 1280x720 32 --focus-grid --position end
ls -l "$out"
