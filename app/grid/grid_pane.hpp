// The grid's drawing of one run, for any run's state and any rectangle: the
// Grid panel draws the main run with it, the side-by-side comparison
// (app/compare/view_compare.cpp) draws both runs with two of them.
//
//   auto pane = make_grid_pane();        // one per run drawn: it keeps caches
//   if (pane->prepare(s)) {              // every frame, first
//     pane->paint(s, origin, size, 0);   // the arrays, fitted into the rectangle
//   }
#pragma once

#include <imgui.h>

#include <cstdint>
#include <memory>

#include "app/core/app_state.hpp"

namespace ts::app {

class GridPane {
 public:
  virtual ~GridPane() = default;
  // False when s has no trace (nothing to draw).
  virtual bool prepare(AppState& s) = 0;
  // The colour legend and the grid's toggles (values, heatmap, colours, layout).
  virtual void draw_legend(AppState& s) = 0;
  // The arrays, fitted into the rectangle; where they went goes to s.drawn.
  // The heatmap's scale is at least heat_at_least (one scale for two runs).
  virtual void paint(AppState& s, ImVec2 origin, ImVec2 size, uint32_t heat_at_least) = 0;
  virtual float cell() const = 0;             // the cell size last painted, in pixels
  virtual bool values_shown() const = 0;      // cells were big enough for values
  virtual uint32_t own_heat_max() const = 0;  // the run's own heatmap scale last painted
};

std::unique_ptr<GridPane> make_grid_pane();

}  // namespace ts::app
