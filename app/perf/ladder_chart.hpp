// "The road to cuBLAS": the Performance panel's chart of an optimisation
// ladder (io/ladder.hpp): GFLOP/s per step at n = 1024, 2048 and 4096 (one
// line per n), cuBLAS at each n and the FP32 peak as flat lines, then a table
// of the steps with their traffic (flop per global byte, shared bytes per
// flop) and a caption per step saying why it helps.
#pragma once

#include <string>
#include <vector>

#include "app/core/app_state.hpp"
#include "io/ladder.hpp"

namespace ts::app {

// The whole section at the cursor; every point, flat line and step label goes
// into `marks` too (plot "ladder": the scripted mode's map).
void draw_ladder(const LadderChart& c, bool log_y, std::vector<PlotMark>& marks);

}  // namespace ts::app
