#!/usr/bin/env bash
# Remakes docs/screenshots/ with the app's scripted mode under Xvfb.
# Usage: scripts/screenshots.sh [build dir]   (default build/default)
set -euo pipefail
cd "$(dirname "$0")/.."
app=${1:-build/default}/app/tilescope
out=docs/screenshots
shot() {  # name, then the app's arguments
  local name=$1
  shift
  # The performance panel reads tilescope_perf.json from the working folder.
  (cd docs && xvfb-run -a -s "-screen 0 1920x1080x24" "../$app" "$@" --size 1600x900 \
    --screenshot "screenshots/$name.png" --exit)
}
cp docs/perf_h200_panel.json docs/tilescope_perf.json
trap 'rm -f docs/tilescope_perf.json' EXIT
# The README's first picture: the race on the defaults (barrier 2 removed,
# warp skew), at the first load that saw a stale value.
shot race_defaults --barriers 1 --schedule skew --position stale --tab Races --hazard 0
shot tiled_padding --lesson matmul.tiled_square --order recorded --position 3600 --select-block 4
shot race_barrier2_removed --lesson matmul.tiled_square --barriers 1 --schedule skew \
  --position stale --tab Races --hazard 0
shot stencil_halo_light --lesson stencil.shared --position phase:1 --select-block 1 --theme light
shot heatmap_tiled --lesson matmul.tiled_square --n 16 --tile 4 --position end --heatmap --tab Memory
shot performance_h200 --tab Performance
shot grid_focus --lesson matmul.tiled_square --n 12 --tile 4 --position phase:3 --select-block 4 \
  --focus-grid
