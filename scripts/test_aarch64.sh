#!/usr/bin/env bash
# Cross-builds the simulator's core and its fiber switch (tests/CMakeLists.txt:
# ts_sim_core_tests: engine/sim, the lessons and the model, no catalogue) for
# aarch64 with Debian's g++-aarch64-linux-gnu and runs its tests under
# qemu-user: the aarch64 context switch and the core's barrier and schedule
# semantics, on every change, in about two minutes. Installs what it needs
# with apt-get (root or sudo); any step that fails -- packages, qemu, the
# build, a test -- fails the script.
#   scripts/test_aarch64.sh [extra gtest arguments, e.g. --gtest_filter=FiberSwitch.*]
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(cmake ninja-build g++-aarch64-linux-gnu qemu-user googletest nlohmann-json3-dev
          libcli11-dev)
scripts/apt_install.sh "${packages[@]}"
for tool in aarch64-linux-gnu-g++ qemu-aarch64; do
  command -v "$tool" >/dev/null || { echo "error: $tool is missing" >&2; exit 1; }
done
[ -d /usr/src/googletest ] || { echo "error: /usr/src/googletest is missing" >&2; exit 1; }

build=${TS_AARCH64_BUILD_DIR:-build/aarch64}
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
start=$(date +%s)
cmake -S . -B "$build" -G Ninja --toolchain cmake/aarch64-linux-gnu.cmake \
  -DCMAKE_BUILD_TYPE=Release -DTS_WITH_CUDA=OFF -DTS_BUILD_GUI=OFF -DTS_BUILD_BENCH=OFF \
  -DTS_GTEST_FROM_SOURCE=ON "${launcher[@]}"
cmake --build "$build" -j "$(nproc)" --target ts_sim_core_tests
built=$(date +%s)
qemu-aarch64 -L /usr/aarch64-linux-gnu "$build/tests/ts_sim_core_tests" "$@"
done_at=$(date +%s)
echo "aarch64: cross build $((built - start)) s, tests under qemu $((done_at - built)) s"
