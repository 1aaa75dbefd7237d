#include "app/grid/access_outline.hpp"

#include <algorithm>

namespace ts::app {

ImVec4 draw_region_outline(ImDrawList* dl, ImVec2 pos, float cell, int rows, int cols,
                           const std::vector<uint8_t>& mask, ImU32 colour, float thick) {
  auto in = [&](int r, int c) {
    return r >= 0 && c >= 0 && r < rows && c < cols && mask[size_t(r) * size_t(cols) + size_t(c)];
  };
  // The border as runs of cell edges: horizontal ones between rows r - 1 and
  // r, vertical ones between columns c - 1 and c, each run one rectangle.
  struct Run {
    ImVec2 a, b;
  };
  std::vector<Run> runs;
  const float h = thick * 0.5f;
  for (int r = 0; r <= rows; ++r)
    for (int c = 0; c < cols;) {
      if (in(r - 1, c) == in(r, c)) {
        ++c;
        continue;
      }
      const bool below = in(r, c);  // which side the region is on: the run stops where that changes
      int e = c;
      while (e < cols && in(r - 1, e) != in(r, e) && in(r, e) == below)
        ++e;
      const float y = pos.y + float(r) * cell;
      runs.push_back(
          {ImVec2(pos.x + float(c) * cell - h, y - h), ImVec2(pos.x + float(e) * cell + h, y + h)});
      c = e;
    }
  for (int c = 0; c <= cols; ++c)
    for (int r = 0; r < rows;) {
      if (in(r, c - 1) == in(r, c)) {
        ++r;
        continue;
      }
      const bool right = in(r, c);
      int e = r;
      while (e < rows && in(e, c - 1) != in(e, c) && in(e, c) == right)
        ++e;
      const float x = pos.x + float(c) * cell;
      runs.push_back(
          {ImVec2(x - h, pos.y + float(r) * cell - h), ImVec2(x + h, pos.y + float(e) * cell + h)});
      r = e;
    }
  ImVec4 box(1, 1, 0, 0);
  for (const Run& run : runs) {
    if (box.z < box.x) {
      box = ImVec4(run.a.x, run.a.y, run.b.x, run.b.y);
    } else {
      box.x = std::min(box.x, run.a.x);
      box.y = std::min(box.y, run.a.y);
      box.z = std::max(box.z, run.b.x);
      box.w = std::max(box.w, run.b.y);
    }
  }
  // All the dark edges first, then the colour: no dark corner over a run.
  for (const Run& run : runs)
    dl->AddRectFilled(ImVec2(run.a.x - 1, run.a.y - 1), ImVec2(run.b.x + 1, run.b.y + 1),
                      IM_COL32(0, 0, 0, 220));
  for (const Run& run : runs)
    dl->AddRectFilled(run.a, run.b, colour);
  return box;
}

}  // namespace ts::app
