// An array's title above its cells: the longest form that fits before the
// next array ("A  (12 x 12)", "tileA of block (1, 0)", "A"). Zoomed (by
// hand or to the moment's subject), a title that the room's top or left
// edge would cut is drawn at that edge on a backing, while the array's cells
// are in view: zoomed to a stale read, the room still says which array each
// block of cells is.
//
//   const ImVec4 box = draw_array_title(trace, palette, dl, placed);  // x, y, w, h
#pragma once

#include <imgui.h>

#include "app/core/palette.hpp"
#include "app/grid/grid_arrange.hpp"
#include "model/trace.hpp"

namespace ts::app {

// The room is the draw list's clip rectangle. Returns where the title went
// (x, y, width, height; 0 wide where none is drawn: its cells are out of view).
ImVec4 draw_array_title(const Trace& t, const Palette& pal, ImDrawList* dl, const Placed& p);

}  // namespace ts::app
