#!/usr/bin/env bash
# Builds TileScope and opens it on its default lesson. Extra arguments go to
# the app (e.g. a trace file to open, or --lesson stencil.shared).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
[ -x /usr/local/cuda/bin/nvcc ] && export PATH=/usr/local/cuda/bin:$PATH
# The same build as scripts/test.sh (the default preset, build/default, every
# target): whichever of the two runs second finds everything built and starts
# in seconds. TS_PRESET picks another preset (its directory is build/<preset>).
preset=${TS_PRESET:-default}
cmake --preset "$preset"
cmake --build --preset "$preset" -j "$(nproc)"
app=./build/$preset/app/tilescope
if [ ! -x "$app" ]; then
  echo "error: $app was not built (the $preset preset builds no window)" >&2
  exit 1
fi
exec "$app" "$@"
