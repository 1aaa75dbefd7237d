// What a removed barrier can and cannot show with the run on screen, and one
// click to the run that shows it. The Verdict and Races panels both draw it,
// so the explanation a student reads is the same in both places.
#pragma once

#include "app/core/app_state.hpp"

namespace ts::app {

// Draws nothing while every barrier is kept. With one warp per block: why the
// race stays latent, and a button to two warps. With two or more warps and an
// output that came out right: a button to the schedule that makes it bite.
void draw_race_hint(AppState& s, bool correct, uint64_t stale_reads);

}  // namespace ts::app
