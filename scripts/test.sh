#!/usr/bin/env bash
# Builds TileScope with its tests and runs them all (GPU tests skip where there
# is no CUDA device; window tests run under Xvfb).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
# The layers first: no include reaches above its layer, no source outside
# lessons/ names a lesson (seconds; docs/architecture.md).
./scripts/check_layers.sh
[ -x /usr/local/cuda/bin/nvcc ] && export PATH=/usr/local/cuda/bin:$PATH
# The same build as scripts/tilescope.sh (the default preset, build/default):
# whichever of the two runs second finds everything built. TS_PRESET picks another.
preset=${TS_PRESET:-default}
cmake --preset "$preset"
cmake --build --preset "$preset" -j "$(nproc)"
ctest --preset "$preset" -j "$(nproc)" --timeout 600
# The CPU tests once more under AddressSanitizer and UndefinedBehaviorSanitizer
# (the debug preset, build/debug; README). TS_SKIP_SANITIZED=1 leaves it out of
# a local run, and says so.
if [ "${TS_SKIP_SANITIZED:-0}" = 1 ]; then
  echo "NOTE: sanitized tests skipped (TS_SKIP_SANITIZED=1)"
elif [ "$preset" != debug ]; then  # the debug preset's whole ctest just ran
  ./scripts/test_sanitized.sh
fi
# The engine and its CPU tests once more, cross-built for aarch64 and run under
# qemu-user (fails if its packages cannot be installed). TS_SKIP_AARCH64=1
# leaves it out of a local run, and says so.
if [ "${TS_SKIP_AARCH64:-0}" = 1 ]; then
  echo "NOTE: aarch64 tests skipped (TS_SKIP_AARCH64=1)"
else
  ./scripts/test_aarch64.sh
fi
