#!/usr/bin/env bash
# Builds TileScope with its tests and runs them all (GPU tests skip where there
# is no CUDA device; window tests run under Xvfb).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
[ -x /usr/local/cuda/bin/nvcc ] && export PATH=/usr/local/cuda/bin:$PATH
preset=${TS_PRESET:-ci}
cmake --preset "$preset"
cmake --build --preset "$preset" -j "$(nproc)"
ctest --preset "$preset" -j "$(nproc)" --timeout 600
