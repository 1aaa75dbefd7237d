// What the Banks panel says of the compiled level (analysis/compiled_access.hpp)
// beside the source access the replay is at: which instruction the GPU runs
// for it, and the run's counts at both levels. GUI-free, so that the words
// are tested without a window (tests/app/test_compiled_note.cpp).
#pragma once

#include <string>
#include <vector>

#include "app/core/warp_index.hpp"

namespace ts::app {

// One sentence: "GPU: this line's 4 loads per lane run as one LDS.128 (2
// wavefronts) ...", or where the table has no entry, that the counts follow
// the source.
std::string compiled_note(const WarpIndex& w, const Trace& t, const WarpAccess& a);

// The run's totals, one line per kind of access, the source's count first,
// then the GPU's (Nsight Compute's): "shared loads: source 256 accesses, 256
// wavefronts; GPU 160 instructions, 192 wavefronts".
std::vector<std::string> level_totals(const WarpIndex& w);

}  // namespace ts::app
