#!/usr/bin/env bash
# Remakes docs/screenshots/puzzles/: the puzzle desk as a student meets it, a
# puzzle's file opened in the window (tests/puzzle_solutions/' reference
# solutions; shared without its barrier), at 1600 x 900 and 1920 x 1080, and on
# a projector: 1280 x 720 with text at 28 and 32.
# Usage: scripts/puzzle_screenshots.sh [build dir]
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
app=$root/${1:-build/default}/app/tilescope
out=$root/docs/screenshots/puzzles
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# The progress and the plug-in cache in the scratch folder, not the user's.
export XDG_DATA_HOME=$work/data XDG_CACHE_HOME=$work/cache TILESCOPE_PUZZLES=$root/assets/puzzles
cd "$work"
cp "$root"/tests/puzzle_solutions/{prefix_sum,matmul}.cu .
sed 's|^.*// @BARRIER$|  // (no barrier)  // @BARRIER|' "$root/tests/puzzle_solutions/shared.cu" \
  > shared_no_barrier.cu
mkdir -p "$out"
rm -f "$out"/*.png
shot() {  # name, file, size, font (18, the default: no _f in the name), then the app's arguments
  local name=$1 file=$2 size=$3 font=$4 tag=_f$4
  shift 4
  [[ $font == 18 ]] && tag=""
  xvfb-run -a -s "-screen 0 1920x1080x24" "$app" --theme dark --lesson-file "$file" \
    --size "$size" --font-size "$font" --backend sim "$@" \
    --screenshot "$out/${name}_${size}${tag}.png" --force --exit
}
shot prefix_sum prefix_sum.cu 1600x900 18 --position 300
shot matmul matmul.cu 1600x900 22 --position 300
shot matmul matmul.cu 1920x1080 18 --position 300
for font in 28 32; do
  shot shared_no_barrier shared_no_barrier.cu 1280x720 "$font" --position stale
  shot matmul matmul.cu 1280x720 "$font" --position 300
done
ls -l "$out"
