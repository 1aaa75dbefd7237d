#!/usr/bin/env bash
# Cross-builds the engine, tilescope-cli and the CPU tests for aarch64 with
# Debian's g++-aarch64-linux-gnu and runs the tests under qemu-user (no CUDA,
# no window). Installs what it needs with apt-get (root or sudo); any step
# that fails -- packages, qemu, the build, a test -- fails the script.
#   scripts/test_aarch64.sh [extra ctest arguments, e.g. -R FiberSwitch]
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
cmake --build "$build" -j "$(nproc)"
built=$(date +%s)
# Every CPU test, through qemu-aarch64 (the toolchain's emulator); the CLI
# tests start tilescope-cli through it as well (tests/CMakeLists.txt).
# A private TMPDIR: the CLI tests' scratch files have fixed names, and another
# run of the suite on this machine must not delete them under this one.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
TMPDIR=$tmp ctest --test-dir "$build" -L cpu -j "$(nproc)" --timeout 600 --output-on-failure "$@"
done_at=$(date +%s)
for t in ts_tests ts_sim_ucontext_tests; do
  qemu-aarch64 -L /usr/aarch64-linux-gnu "$build/tests/$t" --gtest_filter=FiberSwitch.TimePerStep |
    grep timing
done
echo "aarch64: cross build $((built - start)) s, tests under qemu $((done_at - built)) s"
