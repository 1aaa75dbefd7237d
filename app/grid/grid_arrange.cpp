// Where the grid's arrays go (app/grid/grid_arrange.hpp).
#include "app/grid/grid_arrange.hpp"

#include <algorithm>
#include <cmath>
#include <string>

namespace ts::app {

namespace {

float snap_cell(float cell) {
  return std::clamp(std::floor(cell), 2.0f, 96.0f);
}

std::vector<Placed> placed(const std::vector<ArrayShape>& shapes) {
  std::vector<Placed> out;
  for (const ArrayShape& s : shapes)
    out.push_back(Placed{s});
  return out;
}

// A multiply: B above C, A to the left of C (the row of A and the column of B
// meet at their cell of C), or the three in a row; the shared arrays in the
// free corner (left of B, above A) when they fit, else in a column right of C.
void arrange_multiply(const Shapes& sh, ImVec2 origin, ImVec2 avail, Arrangement& out) {
  const float font = ImGui::GetFontSize();
  const float label_h = ImGui::GetTextLineHeightWithSpacing() + 2;
  const float gap = std::min(font * 1.2f, 24.0f);  // between arrays: not a big font's
  Placed A{sh.inputs[0]}, B{sh.inputs[1]}, C{sh.outputs[0]};
  std::vector<Placed> S = placed(sh.shared);
  const int count = int(S.size());
  const bool has_shared = count > 0;
  int sw = 0, sh_rows = 0, corner_cols = 0, corner_rows = 0;
  std::string longest;
  for (const Placed& p : S) {
    sw = std::max(sw, p.cols);
    sh_rows += p.rows;
    corner_cols += p.cols;
    corner_rows = std::max(corner_rows, p.rows);
    if (p.name.size() > longest.size()) longest = p.name;
  }
  const float corner_gap = gap * 0.5f * float(std::max(0, count - 1));
  // The column needs room for the arrays' names; "of block (x, y)" follows where it fits
  // (the header names the block too).
  const float col_title_w = has_shared ? ImGui::CalcTextSize(longest.c_str()).x + 8 : 0;
  // Beyond two shared arrays, each more takes a title and a gap of the column.
  const float more_titles = float(std::max(0, count - 2)) * (label_h + gap * 0.5f);
  const float classic_h = avail.y - 2 * label_h - gap * 0.5f - 4;
  auto classic = [&](int extra_cols, float extra_w) {
    return std::min((avail.x - gap - extra_w - 4) / float(A.cols + C.cols + extra_cols),
                    classic_h / float(B.rows + C.rows));
  };
  float c_corner = classic(0, 0);
  const bool corner_ok =
      has_shared && corner_cols > 0 && corner_rows < B.rows &&
      float(corner_cols) * c_corner + corner_gap <= float(A.cols) * c_corner + gap * 0.5f &&
      float(corner_rows) * c_corner + label_h <= float(B.rows) * c_corner;
  float c_column = classic(has_shared ? sw : 0, has_shared ? gap * 1.5f : 0);
  if (has_shared) {
    c_column =
        std::min(c_column, (classic_h + label_h - gap * 0.5f - more_titles) / float(sh_rows));
    if (c_column * sw < col_title_w)
      c_column =
          std::min(c_column, (avail.x - gap * 2.5f - col_title_w - 4) / float(A.cols + C.cols));
  }
  const float c_classic = corner_ok ? std::max(c_corner, c_column) : c_column;
  const bool use_corner = corner_ok && c_corner >= c_column;
  // In a row: A, B, C (and the shared column) side by side. A wide, short
  // pane (a projector, grid focus) fits cells twice as big this way.
  const float rgaps = gap * (has_shared ? 3.5f : 2.0f);
  const float row_h = avail.y - label_h - 4;
  float c_row =
      std::min((avail.x - rgaps - 4) / float(A.cols + B.cols + C.cols + (has_shared ? sw : 0)),
               row_h / float(std::max({A.rows, B.rows, C.rows})));
  if (has_shared) {
    c_row = std::min(c_row, (row_h - label_h - gap * 0.5f - more_titles) / float(sh_rows));
    if (c_row * sw < col_title_w)
      c_row =
          std::min(c_row, (avail.x - rgaps - col_title_w - 4) / float(A.cols + B.cols + C.cols));
  }
  // The classic picture unless the row is clearly bigger.
  const bool in_row = c_row > c_classic * 1.25f;
  const float cell = snap_cell(in_row ? c_row : c_classic);
  out.cell = cell;
  A.cell = B.cell = C.cell = cell;
  for (Placed& p : S)
    p.cell = cell;
  const float y0 = origin.y + label_h;
  const float shared_w = has_shared ? std::max(cell * sw, col_title_w) : 0.0f;
  if (in_row) {
    out.name = "row";
    const float used_w = cell * float(A.cols + B.cols + C.cols) + shared_w + rgaps;
    const float x0 = origin.x + std::max(0.0f, (avail.x - used_w) * 0.5f);
    A.pos = ImVec2(x0, y0);
    B.pos = ImVec2(A.pos.x + A.cols * cell + gap, y0);
    C.pos = ImVec2(B.pos.x + B.cols * cell + gap, y0);
    A.title_max = A.cols * cell + gap - 6;
    B.title_max = B.cols * cell + gap - 6;
    C.title_max = has_shared ? C.cols * cell + gap * 1.5f - 6 : 1e9f;
  } else {
    out.name = use_corner ? "classic, shared in the corner" : "classic";
    const float used_w = cell * float(A.cols + C.cols) + gap +
                         (use_corner || !has_shared ? 0 : shared_w + gap * 1.5f);
    const float x0 = origin.x + std::max(0.0f, (avail.x - used_w) * 0.5f);
    B.pos = ImVec2(x0 + A.cols * cell + gap, y0);
    C.pos = ImVec2(B.pos.x, y0 + B.rows * cell + label_h + gap * 0.5f);
    A.pos = ImVec2(x0, C.pos.y);
    A.title_max = A.cols * cell + gap - 6;
    if (has_shared && !use_corner) {
      B.title_max = B.cols * cell + gap * 1.5f - 6;
      C.title_max = C.cols * cell + gap * 1.5f - 6;
    }
  }
  out.arrays = {A, B, C};
  if (has_shared && !in_row && use_corner) {
    // Side by side in slot order, bottom-aligned with B, right-aligned a gap
    // before it (the first nearer A, the last nearer B), under one heading
    // naming the block.
    const float bottom = y0 + B.rows * cell, right = B.pos.x - gap * 0.5f;
    float x = right;
    for (int i = count - 1; i >= 0; --i) {
      Placed& p = S[size_t(i)];
      x -= p.cols * cell;
      p.pos = ImVec2(x, bottom - p.rows * cell);
      p.title_max = p.cols * cell + gap * 0.5f - 4;
      if (i > 0) x -= gap * 0.5f;
    }
    out.heading = true;
    out.heading_pos =
        ImVec2(x, bottom - corner_rows * cell - label_h - ImGui::GetTextLineHeightWithSpacing());
    out.heading_w = right - x + gap * 0.5f;
  } else if (has_shared) {
    const float sx = C.pos.x + C.cols * cell + gap * 1.5f;
    float y = y0;
    for (Placed& p : S) {
      p.pos = ImVec2(sx, y);
      p.title_max = std::max(p.cols * cell, origin.x + avail.x - sx - 4);
      y += p.rows * cell + label_h + gap * 0.5f;
    }
  }
  for (Placed& p : S)
    out.arrays.push_back(p);
}

// Anything else, in data-flow order: the inputs, the selected block's shared
// arrays, the outputs; one under the other (each block's cells lined up under
// each other, a halo hanging out on both sides) or side by side, whichever
// gives the bigger cells.
void arrange_stacked(const Shapes& sh, ImVec2 origin, ImVec2 avail, Arrangement& out) {
  const float font = ImGui::GetFontSize();
  const float label_h = ImGui::GetTextLineHeightWithSpacing() + 2;
  const float gap = std::min(font * 1.2f, 24.0f);  // between arrays: not a big font's
  std::vector<Placed> items = placed(sh.inputs);
  for (const auto* group : {&sh.shared, &sh.outputs})
    for (const ArrayShape& a : *group)
      items.push_back(Placed{a});
  if (items.empty()) return;
  const float n = float(items.size());
  // The widest halo: how far unwrapped shared arrays reach left of the block
  // (a wrapped one keeps its halo in the rows: app/grid/grid_shapes.hpp).
  auto hang = [](const Placed& p) { return p.wrap ? 0 : p.halo; };
  int left = 0;
  for (const Placed& p : items)
    left = std::max(left, hang(p));
  int wcells = 0, hcells = 0, sum_cols = 0, max_rows = 0;
  for (const Placed& p : items) {
    wcells = std::max(wcells, left - hang(p) + p.cols);
    hcells += p.rows;
    sum_cols += p.cols;
    max_rows = std::max(max_rows, p.rows);
  }
  const float vgaps = label_h * n + gap * (n - 1);
  const float c_stack =
      std::min((avail.x - 4) / float(std::max(1, wcells)), (avail.y - vgaps) / float(hcells));
  const float c_side = std::min((avail.x - gap * (n - 1) - 4) / float(std::max(1, sum_cols)),
                                (avail.y - label_h - 4) / float(std::max(1, max_rows)));
  const bool side = c_side > c_stack;
  const float cell = snap_cell(side ? c_side : c_stack);
  out.cell = cell;
  out.name = side ? "side by side" : "stacked";
  if (side) {
    // Each array takes at least its shortest title's width (the name, up to a
    // space): a 5 x 5 mask at small cells would otherwise lend its neighbour's
    // room to its title, and the two titles would overlap.
    std::vector<float> width;
    float total = gap * (n - 1);
    for (const Placed& p : items) {
      width.push_back(std::max(p.cols * cell, ImGui::CalcTextSize(p.short_title().c_str()).x));
      total += width.back();
    }
    float x = origin.x + std::max(0.0f, (avail.x - total) * 0.5f);
    for (size_t i = 0; i < items.size(); ++i) {
      Placed& p = items[i];
      p.cell = cell;
      p.pos = ImVec2(x, origin.y + label_h);
      // The last title may use the room up to the window's edge, not beyond.
      p.title_max = i + 1 == items.size()
                        ? std::max(width[i], origin.x + avail.x - x - 4)
                        : std::max(width[i], width[i] + gap - std::max(6.0f, ImGui::GetFontSize()));
      x += width[i] + gap;
    }
  } else {
    const float x0 = origin.x + std::max(0.0f, (avail.x - wcells * cell) * 0.5f) + left * cell;
    float y = origin.y + label_h;
    for (Placed& p : items) {
      p.cell = cell;
      p.pos = ImVec2(x0 - hang(p) * cell, y);
      p.title_max = std::max(p.cols * cell, origin.x + avail.x - p.pos.x - 4);
      y += p.rows * cell + gap + label_h;
    }
  }
  out.arrays = std::move(items);
}

// One placement of the shapes as they are wrapped.
Arrangement arrange_wrapped(const Shapes& sh, ImVec2 origin, ImVec2 avail) {
  Arrangement out;
  if (sh.multiply)
    arrange_multiply(sh, origin, avail, out);
  else
    arrange_stacked(sh, origin, avail, out);
  return out;
}

// The arrays (and their titles) moved down to the middle of the room's
// height: a zoom about the room's centre then zooms into them, not into the
// empty room below a row of 1D arrays.
void centre_vertically(Arrangement& out, ImVec2 origin, ImVec2 avail) {
  if (out.arrays.empty()) return;
  const float label_h = ImGui::GetTextLineHeightWithSpacing() + 2;
  float top = 1e30f, bottom = -1e30f;
  for (const Placed& p : out.arrays) {
    top = std::min(top, p.pos.y - label_h);
    bottom = std::max(bottom, p.pos.y + float(p.rows) * p.cell);
  }
  if (out.heading) top = std::min(top, out.heading_pos.y);
  const float dy = std::floor(((origin.y + avail.y - bottom) - (top - origin.y)) * 0.5f);
  if (dy < 1) return;
  for (Placed& p : out.arrays)
    p.pos.y += dy;
  out.heading_pos.y += dy;
}

}  // namespace

Arrangement arrange(const Shapes& sh, ImVec2 origin, ImVec2 avail) {
  Arrangement out;
  if (avail.x < 40 || avail.y < 40) return out;
  // 1D arrays: the row width (whole warps) whose cells come out biggest; on a
  // tie the narrower, a row of one warp.
  const std::vector<int> widths = wrap_widths(sh);
  if (widths.size() > 1) {
    for (int w : widths) {
      Arrangement a = arrange_wrapped(rewrapped(sh, w), origin, avail);
      if (out.arrays.empty() || a.cell > out.cell) out = std::move(a);
    }
  } else {
    out = arrange_wrapped(sh, origin, avail);
  }
  centre_vertically(out, origin, avail);
  for (Placed& p : out.arrays)
    p.pos = ImVec2(std::floor(p.pos.x), std::floor(p.pos.y));  // whole pixels: crisp lines
  return out;
}

}  // namespace ts::app
