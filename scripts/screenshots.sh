#!/usr/bin/env bash
# Remakes docs/screenshots/ with the app's scripted mode under Xvfb.
# Usage: scripts/screenshots.sh [build dir]   (default build/default)
set -euo pipefail
cd "$(dirname "$0")/.."
app=$PWD/${1:-build/default}/app/tilescope
out=docs/screenshots
shot() {  # name, size, then the app's arguments
  local name=$1 size=$2
  shift 2
  xvfb-run -a -s "-screen 0 1920x2200x24" "$app" "$@" --size "$size" \
    --screenshot "$out/$name.png" --force --exit
}
# The README's first picture: the race on the defaults (barrier 2 removed,
# warp skew), at the first load that saw a stale value.
shot race_defaults 1600x900 --barriers 1 --position stale --tab Races --hazard 0
# The default lesson at the three window sizes a course meets (a 720p
# projector picks grid focus by itself).
shot default_1280x720 1280x720 --position barrier:1
shot default_1600x900 1600x900 --position barrier:1
shot default_1920x1080 1920x1080 --position barrier:1
# One warp per block: every barrier removed and the output still right.
shot race_one_warp_latent 1600x900 --n 10 --tile 4 --barriers none --position end --tab Races
shot tiled_padding 1600x900 --order recorded --position phase:1 --select-block 3
shot stencil_halo_light 1600x900 --lesson stencil.shared --position phase:1 --select-block 1 \
  --theme light
shot heatmap_tiled 1600x900 --n 16 --tile 4 --position end --heatmap --tab Memory
shot performance_h200 1600x900 --tab Performance --perf-report docs/perf_h200_panel.json
shot ladder_h100 1600x2100 --tab Performance --perf-report docs/perf_h100_ladder.json
# A bandwidth family's ladder from the shipped H200 report, on a 720p
# projector with text at 28 and at 1920 x 1080.
shot family_ladder_1280x720 1280x720 --tab Performance --perf-report docs/perf_h200_families.json \
  --perf-family reduction --font-size 28
shot family_ladder_1920x1080 1920x1080 --tab Performance \
  --perf-report docs/perf_h200_families.json --perf-family reduction --font-size 18
shot grid_focus 1600x900 --position phase:1 --select-block 3 --focus-grid
# The Banks view at the transposes' first column read of the tile (lockstep
# position 12064): 32-way conflict unpadded, none padded.
shot banks_transpose 1600x900 --lesson transpose.shared --position 12064 --tab Banks
shot banks_transpose_padded 1600x900 --lesson transpose.shared_padded --position 12064 --tab Banks
# The Banks view at the tiled multiply's first read of a row of tileA
# (lockstep access 47): what the source asks for (4 loads a lane) and what the
# GPU executes (one LDS.128), and the run's counts at both levels.
shot banks_compiled_lds128 1920x1080 --lesson matmul.tiled_square --order lockstep \
  --position access:47 --tab Banks
# The grid's memory colours (M) on one 32 x 32 tile (lockstep order). The
# coalescing picture at each transpose's first warp store to out (access:33
# naive, access:97 tiled): 32 sectors against 4.
shot coalescing_transpose_naive 1600x900 --lesson transpose.naive --m 32 --n 32 \
  --memory coalescing --position access:33 --focus-grid
shot coalescing_transpose_shared 1600x900 --lesson transpose.shared --m 32 --n 32 \
  --memory coalescing --position access:97 --focus-grid
# The tile by bank: plain (a column per bank) and padded (the banks shift a row).
shot bank_colours_transpose 1600x900 --lesson transpose.shared --m 32 --n 32 --memory banks \
  --position end --focus-grid
shot bank_colours_transpose_padded 1600x900 --lesson transpose.shared_padded --m 32 --n 32 \
  --memory banks --position end --focus-grid
# Atomic contention per bin (M): the private shared bins coloured by the
# atomics each received over all blocks, the longest queue in the cell.
shot contention_histogram 1280x720 --lesson histogram.shared_atomics --memory contention \
  --position end
# The Banks view at the last warp's first shuffle (lockstep position 2305):
# delta 16, a line from each lane i to lane i+16.
shot shuffle_reduction 1920x1080 --lesson reduction.warp_shuffle --order lockstep --position 2305 \
  --tab Banks
# Side by side: the defaults against themselves without barrier 2, at the
# end (the cells the race got wrong ringed on both sides).
shot compare_barrier2 1920x1080 --compare "--barriers 1" --position end
# A lecture step at projector size: the caption band over the grid.
shot lecture_step 1280x720 --lecture assets/lectures/tiled_multiply.tslecture --step 4
# A quiz question at projector size (quiz seed 1: which cells of A block (0, 0)
# loads in phase 2, the A tile at columns 8-11), answered with rows 0-6 of that
# tile and one cell beside it; then the same answer revealed (Enter): 28 right
# (green), row 7 missed (ringed), the extra cell red.
answer=$(for r in 0 1 2 3 4 5 6; do for c in 8 9 10 11; do printf '%d,' $((r * 12 + c)); done; done)7
shot quiz_question 1280x720 --backend sim --quiz 1 --quiz-answer "$answer"
shot quiz_reveal 1280x720 --backend sim --quiz 1 --quiz-answer "$answer" --keys enter
# What a lecture hall sees (1280 x 720 at font 28, 1920 x 1080 at font 18).
"$(dirname "$0")/projector_screenshots.sh" "${1:-build/default}"
