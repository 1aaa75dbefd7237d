#!/usr/bin/env bash
# Builds TileScope and opens it on its default lesson. Extra arguments go to
# the app (e.g. a trace file to open, or --lesson stencil.shared).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
[ -x /usr/local/cuda/bin/nvcc ] && export PATH=/usr/local/cuda/bin:$PATH
cmake --preset default
cmake --build --preset default -j "$(nproc)"
exec ./build/default/app/tilescope "$@"
