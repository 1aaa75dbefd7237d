#!/usr/bin/env bash
# The CPU tests once more under AddressSanitizer and UndefinedBehaviorSanitizer
# (the `debug` preset: Debug, no CUDA, build/debug), so that a memory error or
# undefined behaviour fails CI instead of waiting for someone to build that
# preset. It builds only the CPU test binaries and runs every test labelled
# cpu but the package's (ts_tests, ts_sim_ucontext_tests, the fuzz corpus
# checks); the window's tests (label gui, over half an hour sanitized) are
# left to a full `ctest --preset debug`. Measured in the README's test section.
#   scripts/test_sanitized.sh [extra ctest arguments, e.g. -R FiberSwitch]
set -euo pipefail
cd "$(dirname "$0")/.."

launcher=()
command -v ccache >/dev/null &&
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
start=$(date +%s)
cmake --preset debug "${launcher[@]}"
cmake --build --preset debug -j "$(nproc)" --target ts_tests ts_sim_ucontext_tests \
  fuzz_trace_file_corpus fuzz_trace_fields_smoke
built=$(date +%s)
# Package.* packs every built target, the window included, which this script
# does not build (the main ctest checks the package).
ctest --preset debug -j "$(nproc)" --timeout 1500 -L cpu -E '^Package\.' "$@"
done_at=$(date +%s)
echo "sanitized: build $((built - start)) s, tests $((done_at - built)) s"
