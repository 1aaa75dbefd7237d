#!/usr/bin/env bash
# Installs the Debian 12 packages TileScope builds and tests with. The CUDA
# toolkit is expected at /usr/local/cuda (without it, only the simulator is built).
set -euo pipefail
packages=(
  cmake ninja-build g++ pkg-config
  googletest libgtest-dev libgmock-dev
  nlohmann-json3-dev libcli11-dev
  libglfw3-dev libimgui-dev python3-glad libstb-dev fonts-dejavu-core
  libgif-dev ffmpeg
  dpkg-dev file
  xvfb xauth libgl1-mesa-dri
  clang libclang-rt-14-dev
)
"$(dirname "$0")/apt_install.sh" "${packages[@]}"
