// The Banks view's picture of a warp shuffle (__shfl_*_sync): no memory is
// touched, values pass between the lanes' registers. The 32 lanes twice,
// senders above and receivers below, a line from each receiving lane up to
// the lane it got its value from, the values in the boxes when they fit, and
// a caption that names the shuffle from the recorded source lanes (a
// WarpShuffle event's `element`), never from the source code.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "app/core/app_state.hpp"

namespace ts::app {

// "__shfl_down_sync, delta 16: lane i gets lane i+16's value (lanes 16-31
// keep their own)" from (lane, source lane) pairs; xor, up and broadcast
// patterns are named as well, anything else is described as it is.
std::string shuffle_caption(const std::vector<std::pair<int, int>>& lane_source);

// Draws shuffle `i` of the run's index at the cursor, in the pane's width
// (compact: no labels). Puts its lines and lane boxes in s.plot_marks (plot
// "banks", kinds "shuffle", "sender", "receiver").
void draw_shuffle(AppState& s, const WarpIndex::Shuffle& sh, bool compact);

}  // namespace ts::app
