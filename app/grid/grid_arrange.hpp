// Where the grid's arrays go in a pane of a given size: a multiply gets the
// textbook picture (A left of C, B above it) or the three in a row, anything
// else is stacked in data-flow order or side by side, whichever gives the
// bigger cells. Pure arithmetic over the shapes and the font's size, so that
// the app can ask what a bigger pane (grid focus) would give.
#pragma once

#include <imgui.h>

#include <vector>

#include "app/grid/grid_shapes.hpp"

namespace ts::app {

// One array placed on screen.
struct Placed : ArrayShape {
  ImVec2 pos;  // top left of the cells
  float cell = 0;
  float title_max = 1e9f;  // the title's room before the next array's
};

struct Arrangement {
  std::vector<Placed> arrays;
  float cell = 0;
  // "classic", "classic, shared in the corner", "row", "stacked", "side by side"
  const char* name = "";
  bool heading = false;  // the shared arrays under one heading (the corner)
  ImVec2 heading_pos;
  float heading_w = 0;
};

Arrangement arrange(const Shapes& sh, ImVec2 origin, ImVec2 avail);

}  // namespace ts::app
