#!/usr/bin/env bash
# Regenerates the compiled-code table kept in the tree, engine/compiled/sm_90.cpp
# (engine/compiled_code.hpp): compiles every lesson kernel for sm_90 and reads
# its SASS. Run it after editing a lesson, lessons/access.hpp or the launch;
# the test CompiledCode.CommittedTableIsCurrent says when. Needs nvcc and
# nvdisasm: where nvdisasm is missing, copy it from the GPU machine (it sits next
# to nvcc) or install cuda-nvdisasm, and point NVDISASM at it.
#   scripts/sass_table.sh                 NVDISASM=/path/to/nvdisasm scripts/sass_table.sh
# Extra arguments go to scripts/sass_table.py (--keep DIR keeps the .sass).
set -euo pipefail
cd "$(dirname "$0")/.."
command -v python3 >/dev/null || { echo "sass_table.sh: python3 is needed" >&2; exit 2; }
exec python3 scripts/sass_table.py --out engine/compiled/sm_90.cpp "$@"
