// A slide: the grid alone (or the grid over the timeline's warp lanes), with
// no menu, tab, button or side panel, and an optional title line on top. What
// the export's frames show for --panels grid and grid+timeline (File > Export
// replay..., --record) and what a --panels screenshot shows: a picture for a
// lecture's slides. The whole window is the slide.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "app/core/app_state.hpp"
#include "app/core/view.hpp"

namespace ts::app {

struct SlideSpec {
  bool timeline = false;  // the timeline's lanes under the grid
  std::string title;      // a line above them; empty: none
};

// The title line across the top of the window at y (any frame: a slide or
// the whole window); returns its height, 0 for an empty title.
float draw_title_line(const AppState& s, const std::string& title, float y);

// The grid (and the timeline's lanes) in the whole window, under the title.
void draw_slide(AppState& s, const std::vector<std::unique_ptr<View>>& views,
                const SlideSpec& spec);

}  // namespace ts::app
