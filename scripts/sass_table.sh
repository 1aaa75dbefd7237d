#!/usr/bin/env bash
# Remakes the compiled-code table kept in the tree, lessons/compiled/sm_90/
# <lesson>.tsv (engine/compiled_code.hpp): compiles every lesson kernel for
# sm_90, reads its SASS and writes one file per lesson with the hashes of the
# sources it was made from; the lessons it remade leave
# lessons/compiled/sm_90/pending.txt. Run it after editing a lesson, a kit,
# lessons/access.hpp or the launch; the test
# CompiledTable.InTheTreeOnlyThePendingLessonsAreStale says when. Needs nvcc
# and nvdisasm: where nvdisasm is missing, copy it from the GPU machine (it
# sits next to nvcc) or install cuda-nvdisasm and point NVDISASM at it; or
# name the stale lessons in pending.txt for a session that has them.
#   scripts/sass_table.sh                 NVDISASM=/path/to/nvdisasm scripts/sass_table.sh
# Extra arguments go to scripts/sass_table.py (--keep DIR keeps the .sass).
set -euo pipefail
cd "$(dirname "$0")/.."
command -v python3 >/dev/null || { echo "sass_table.sh: python3 is needed" >&2; exit 2; }
exec python3 scripts/sass_table.py --out-dir lessons/compiled/sm_90 "$@"
