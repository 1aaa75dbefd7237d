// The cells one warp instruction touched, drawn as one solid outline around
// each region they form (a column read by a transpose, a row stored), not a
// thin ring per cell: on a projector, rings of small cells broken by the grid
// lines read as a faint dotted line.
#pragma once

#include <imgui.h>

#include <cstdint>
#include <vector>

namespace ts::app {

// `mask` is rows x cols, row-major, 1 where a cell belongs to the region. The
// outline runs along the region's border, `thick` pixels wide, over a dark
// edge so that it reads on any fill. Returns the bounding box of the region
// (x0, y0, x1, y1; x1 < x0 when the mask is empty).
ImVec4 draw_region_outline(ImDrawList* dl, ImVec2 pos, float cell, int rows, int cols,
                           const std::vector<uint8_t>& mask, ImU32 colour, float thick);

}  // namespace ts::app
