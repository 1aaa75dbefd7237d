// A bandwidth family's ladder in the Performance panel (io/ladder.hpp's
// LadderChart with PerfMetric::Bytes): one bar per step and length timed in
// GB/s, the copy measured in the same run and the family's library routine
// (CUB, cublasSgeam, cuDNN) as flat labelled lines, each step's % of the copy
// above its bars, then a table of the steps. A report of several families
// gets a selector. Works from a saved report alone: no GPU needed.
#pragma once

#include <string>
#include <vector>

#include "app/core/app_state.hpp"
#include "io/ladder.hpp"

namespace ts::app {

// The steps a family chart needs before it is charted: a report of the
// panel's naive-and-tiled kind times one or two.
inline constexpr int kFamilyLadderMinSteps = 3;

// Every bandwidth family of the catalogue (not a declared multiply ladder)
// with at least kFamilyLadderMinSteps steps timed in `r`, charted at the
// lengths the report timed its steps at; in catalogue order.
std::vector<LadderChart> family_ladders(const PerfReport& r);

// What the section remembers between frames (the view owns it).
struct FamilyLadderState {
  std::string family;  // the family shown; "" or one not charted: the first
};

// The section at the cursor: the selector (where there are several), the
// legend, the chart and the table. Every bar, flat line, label, tick and the
// legend also go into `marks` (plot "family_ladder"), with the number each
// stands for in PlotMark::value.
void draw_family_ladders(const std::vector<LadderChart>& charts, FamilyLadderState& state,
                         std::vector<PlotMark>& marks);

}  // namespace ts::app
