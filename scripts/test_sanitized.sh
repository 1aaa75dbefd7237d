#!/usr/bin/env bash
# The CPU tests once more under AddressSanitizer and UndefinedBehaviorSanitizer
# (the `debug` preset: Debug, no CUDA, build/debug), so that a memory error or
# undefined behaviour fails CI instead of waiting for someone to build that
# preset. It builds only the CPU test binaries (no window) and runs the tests
# labelled cpu except the few that take minutes each when sanitized (they run
# in the main ctest, unsanitized): about 11 minutes on 2 cores; README, Tests.
#   scripts/test_sanitized.sh [extra ctest arguments, e.g. -R FiberSwitch]
set -euo pipefail
cd "$(dirname "$0")/.."

launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
start=$(date +%s)
cmake --preset debug "${launcher[@]}"
cmake --build --preset debug -j "$(nproc)" --target ts_tests ts_sim_ucontext_tests \
  fuzz_trace_file_corpus fuzz_trace_fields_smoke
built=$(date +%s)
# Left out (each minutes under the sanitizers; the main ctest runs them):
#   ReplayInvariant.NoOrderDrawsWhatTheTraceContradicts  every lesson x barrier subset x schedule
slow='^(ReplayInvariant\.NoOrderDrawsWhatTheTraceContradicts)$'
# The window's tests (label gui) are not built: Mesa's GL driver under ASan
# takes most of an hour on 2 cores.
ctest --preset debug -j "$(nproc)" --timeout 600 -L cpu -E "$slow" "$@"
done_at=$(date +%s)
echo "sanitized: build $((built - start)) s, tests $((done_at - built)) s"
