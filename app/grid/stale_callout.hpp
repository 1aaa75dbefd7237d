// The stale read tells its story: while the replay stands on a load that saw
// another value than the synchronised program (analysis/stale_reads.hpp), its
// cell gets a ring and a label, "read 3, expected 4", both values from the
// trace and its reference run. The label is drawn in the palette's stale
// colour (Okabe-Ito blue, apart from the tiles' orange for every common kind
// of colour blindness) with white text, above the cell or below it where the
// room ends.
#pragma once

#include <imgui.h>

#include <string>
#include <vector>

#include "app/core/app_state.hpp"
#include "app/grid/grid_arrange.hpp"

namespace ts::app {

// "read 3, expected 4" for the stale read at trace event `index`, or "" when it is not one.
std::string stale_read_text(const Replay& r, uint32_t index);

// Draws the label over the placed arrays inside `clip_lo`..`clip_hi` (the grid's
// room); records it in s.grid_facts.callouts.
void draw_stale_callout(AppState& s, ImDrawList* dl, const std::vector<Placed>& arrays,
                        ImVec2 clip_lo, ImVec2 clip_hi);

}  // namespace ts::app
