#include "app/grid/array_title.hpp"

#include <algorithm>
#include <cstdio>
#include <string>

namespace ts::app {

ImVec4 draw_array_title(const Trace& t, const Palette& pal, ImDrawList* dl, const Placed& p) {
  char full[128], mid[96];
  const uint32_t gx = std::max(1u, t.config.geometry.grid.x);
  if (p.wrap) {
    // A row is whole warps (app/grid/grid_shapes.hpp); the caption names them,
    // since the row's width changes with the room.
    const char* unit = p.data_cols == 1 ? "element" : "elements";
    if (p.rows > 1 && p.wrap % 32 == 0)
      std::snprintf(full, sizeof full, "%s  (%d %s; a row = %d %s)", p.title.c_str(), p.data_cols,
                    unit, p.wrap / 32, p.wrap == 32 ? "warp" : "warps");
    else if (p.rows > 1)
      std::snprintf(full, sizeof full, "%s  (%d %s; a row = a block's %d threads)", p.title.c_str(),
                    p.data_cols, unit, p.wrap);
    else
      std::snprintf(full, sizeof full, "%s  (%d %s)", p.title.c_str(), p.data_cols, unit);
    std::snprintf(mid, sizeof mid, "%s  (%d %s)", p.title.c_str(), p.data_cols, unit);
  } else if (p.shared) {
    std::snprintf(full, sizeof full, "%s of block (%u, %u)", p.title.c_str(), p.block % gx,
                  p.block / gx);
    std::snprintf(mid, sizeof mid, "%s", p.title.c_str());
  } else {
    std::snprintf(full, sizeof full, "%s  (%d x %d)", p.title.c_str(), p.data_rows, p.data_cols);
    std::snprintf(mid, sizeof mid, "%s", p.title.c_str());
  }
  const float line = ImGui::GetTextLineHeightWithSpacing();
  const ImVec2 lo = dl->GetClipRectMin(), hi = dl->GetClipRectMax();
  const float right = p.pos.x + float(p.cols) * p.cell, bottom = p.pos.y + float(p.rows) * p.cell;
  ImVec2 at(p.pos.x, p.pos.y - line);
  // Cut by the room's top or left edge while cells show below and beside it:
  // pinned to that edge (the cells under it are the subject's margin: the
  // zoom keeps a line above the subject).
  const bool pin_y = at.y < lo.y && bottom > lo.y + line;
  const bool pin_x = at.x < lo.x && right > lo.x + line;
  if (pin_y) at.y = lo.y;
  if (pin_x) at.x = lo.x + 4;
  if (at.y + line <= lo.y || at.y >= hi.y || right <= lo.x || at.x >= hi.x)
    return ImVec4(at.x, at.y, 0, 0);  // the array is out of view
  const float room = std::min(p.title_max - (at.x - p.pos.x), hi.x - at.x - 4);
  const std::string shortest = p.short_title();
  const char* title = ImGui::CalcTextSize(full).x <= room  ? full
                      : ImGui::CalcTextSize(mid).x <= room ? mid
                                                           : shortest.c_str();
  const ImVec2 size = ImGui::CalcTextSize(title);
  if (pin_y || pin_x) {
    dl->AddRectFilled(ImVec2(at.x - 4, at.y), ImVec2(at.x + size.x + 6, at.y + size.y + 2),
                      pal.background.abgr(235), 3);
  }
  dl->AddText(at, pal.text.abgr(), title);
  return ImVec4(at.x, at.y, size.x, size.y);
}

}  // namespace ts::app
