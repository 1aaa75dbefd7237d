# Cross build for 64-bit Arm Linux with Debian's g++-aarch64-linux-gnu; the
# programs run under qemu-user (scripts/test_aarch64.sh).
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)

set(TS_AARCH64_SYSROOT /usr/aarch64-linux-gnu)
# ctest and gtest_discover_tests run every test program through it.
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-aarch64 -L ${TS_AARCH64_SYSROOT})

set(CMAKE_FIND_ROOT_PATH ${TS_AARCH64_SYSROOT})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

# The header-only libraries (nlohmann-json, CLI11) come from the host's
# /usr/include, searched after the cross compiler's own headers so that its
# C library and libstdc++ headers win.
set(CMAKE_CXX_FLAGS_INIT "-idirafter /usr/include")
