// Grid: the lesson's arrays as cells, laid out from the trace's array table
// (model/array.hpp), never from the lesson: two inputs that chain as
// (m x k)(k x n) into an m x n output get the textbook picture of a multiply
// (A left of C, B above it); anything else is stacked in data-flow order,
// inputs, the selected block's shared arrays, outputs, with 1D arrays wrapped
// one block per row. Drawn with our shaders (app/grid/cell_renderer.hpp); colours
// follow app/shell/palette.hpp and the legend on top says what each means.
#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <unordered_set>

#include "app/grid/access_outline.hpp"
#include "app/grid/cell_renderer.hpp"
#include "app/grid/grid_memory_overlay.hpp"
#include "app/grid/grid_pane.hpp"
#include "app/grid/grid_zoom.hpp"
#include "app/grid/layout_toggle.hpp"
#include "app/grid/register_tile.hpp"
#include "app/quiz/quiz_colours.hpp"
#include "app/shell/palette.hpp"
#include "app/shell/view.hpp"

namespace ts::app {

namespace {

std::string format_value(float v) {
  char buf[32];
  if (std::isfinite(v) && std::fabs(v) < 1e6f && v == std::round(v))
    std::snprintf(buf, sizeof buf, "%d", int(v));
  else
    std::snprintf(buf, sizeof buf, "%.3g", double(v));
  return buf;
}

// The halo ring of a 2D shared array: its rows and columns beyond a 2D
// block's on every side, the same number all around (0: none).
int halo_ring(int rows, int cols, Dim3 block) {
  const int hx = cols - int(block.x), hy = rows - int(block.y);
  if (rows < 2 || block.y < 2 || hx != hy || hx <= 0 || hx % 2) return 0;
  return hx / 2;
}

// Is (row, col) of a shared array in its halo: the `halo` columns at each end
// of a 1D array, the `ring` around a 2D one.
bool in_halo(int halo, int ring, int rows, int cols, int row, int col) {
  if (halo) return col < halo || col >= cols - halo;
  return ring && (row < ring || row >= rows - ring || col < ring || col >= cols - ring);
}

Rgb mark_colour(MarkStyle m) {
  switch (m) {
    case MarkStyle::Write:
      return okabe_ito::kBlue;
    case MarkStyle::Read:
      return okabe_ito::kSkyBlue;
    case MarkStyle::Hazard:
      return okabe_ito::kVermillion;
    case MarkStyle::Wrong:
      return okabe_ito::kVermillion;
    case MarkStyle::Info:
      return okabe_ito::kYellow;
  }
  return okabe_ito::kYellow;
}

// One array placed on screen.
struct Placed {
  ArraySlot id = kNoArray;
  bool shared = false;
  bool output = false;
  bool constant = false;  // a __constant__ array (a mask): its own small matrix, never tiled
  uint32_t block = 0;
  int rows = 0, cols = 0;            // cells drawn
  int data_rows = 0, data_cols = 0;  // cells of the array itself
  int wrap = 0;                      // 1D arrays wrapped into rows of `wrap` cells
  int tile = 0;
  int halo = 0;      // 1D shared: cells on each side beyond the block's (a stencil's halo)
  int ring = 0;      // 2D shared: rows and columns all around the block's (a convolution's halo)
  std::string name;  // as the kernel's source names it
  std::string title;
  ImVec2 pos;  // top left of the cells
  float cell = 0;
  float title_max = 1e9f;  // the title's room before the next array's
};

// The lesson's arrays, grouped by what they are (positions come from arrange()).
struct Shapes {
  bool multiply = false;  // inputs[0] (m x k) x inputs[1] (k x n) = outputs[0] (m x n)
  std::vector<Placed> inputs, shared, outputs;
  bool empty() const { return inputs.empty() && shared.empty() && outputs.empty(); }
  bool wrapped() const {
    for (const auto* g : {&inputs, &outputs})
      for (const Placed& p : *g)
        if (p.wrap) return true;
    return false;
  }
  bool halos() const {
    for (const Placed& p : shared)
      if (p.halo || p.ring) return true;
    return false;
  }
};

// The arrays of a lesson and where they go, for a pane of a given size. Pure
// arithmetic over the shapes, so that the app can ask what a bigger pane
// (grid focus) would give before choosing the layout.
struct Arrangement {
  std::vector<Placed> arrays;
  float cell = 0;
  // "classic", "classic, shared in the corner", "row", "stacked", "side by side"
  const char* name = "";
  bool heading = false;  // the shared arrays under one heading (the corner)
  ImVec2 heading_pos;
  float heading_w = 0;
};

float snap_cell(float cell) {
  return std::clamp(std::floor(cell), 2.0f, 96.0f);
}

// A multiply: B above C, A to the left of C (the row of A and the column of B
// meet at their cell of C), or the three in a row; the shared arrays in the
// free corner (left of B, above A) when they fit, else in a column right of C.
void arrange_multiply(const Shapes& sh, ImVec2 origin, ImVec2 avail, Arrangement& out) {
  const float font = ImGui::GetFontSize();
  const float label_h = ImGui::GetTextLineHeightWithSpacing() + 2;
  const float gap = std::min(font * 1.2f, 24.0f);  // between arrays: not a big font's
  Placed A = sh.inputs[0], B = sh.inputs[1], C = sh.outputs[0];
  std::vector<Placed> S = sh.shared;
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
  std::vector<Placed> items = sh.inputs;
  items.insert(items.end(), sh.shared.begin(), sh.shared.end());
  items.insert(items.end(), sh.outputs.begin(), sh.outputs.end());
  if (items.empty()) return;
  const float n = float(items.size());
  int left = 0;  // the widest halo: how far shared arrays reach left of the block
  for (const Placed& p : items)
    left = std::max(left, p.halo);
  int wcells = 0, hcells = 0, sum_cols = 0, max_rows = 0;
  for (const Placed& p : items) {
    wcells = std::max(wcells, left - p.halo + p.cols);
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
    float x = origin.x + std::max(0.0f, (avail.x - sum_cols * cell - gap * (n - 1)) * 0.5f);
    for (Placed& p : items) {
      p.cell = cell;
      p.pos = ImVec2(x, origin.y + label_h);
      p.title_max = &p == &items.back() ? 1e9f : p.cols * cell + gap - 6;
      x += p.cols * cell + gap;
    }
  } else {
    const float x0 = origin.x + std::max(0.0f, (avail.x - wcells * cell) * 0.5f) + left * cell;
    float y = origin.y + label_h;
    for (Placed& p : items) {
      p.cell = cell;
      p.pos = ImVec2(x0 - p.halo * cell, y);
      y += p.rows * cell + gap + label_h;
    }
  }
  out.arrays = std::move(items);
}

// Which output cell each thread of the run stores to (its first store), per
// output array: the selected block's part of an output, its threads' cells at
// a barrier and the thread behind a clicked cell. Where every store lands at
// its thread's own place (the block's corner plus the thread index: every
// lesson so far) the grid keeps that geometry, which also places the threads
// that store nothing (over the edge); other lessons (a transpose) get the
// cells their stores name.
struct OutputOwners {
  struct Of {
    ArraySlot slot = kNoArray;
    bool geometric = true;
    std::vector<int64_t> element;  // block * threads + thread -> element, -1: none
  };
  uint64_t generation = ~0ull;
  uint32_t threads = 1;  // per block
  std::vector<Of> outputs;

  const Of* of(ArraySlot slot) const {
    for (const Of& o : outputs)
      if (o.slot == slot) return &o;
    return nullptr;
  }

  void build(uint64_t gen, const Trace& t, const Shapes& sh) {
    if (gen == generation) return;
    generation = gen;
    outputs.clear();
    const LaunchGeometry& g = t.config.geometry;
    const uint32_t bx = std::max(1u, g.block.x), by = std::max(1u, g.block.y);
    const uint32_t gx = std::max(1u, g.grid.x);
    threads = bx * by * std::max(1u, g.block.z);
    const uint64_t total = uint64_t(threads) * std::max(1u, g.grid.x) * std::max(1u, g.grid.y) *
                           std::max(1u, g.grid.z);
    if (total > (1u << 26)) return;  // too big to index: the geometry it is
    for (const Placed& p : sh.outputs) {
      Of o;
      o.slot = p.id;
      o.element.assign(size_t(total), -1);
      for (const Event& e : t.events) {
        if (e.kind != EventKind::GlobalStore || e.array != p.id) continue;
        const uint64_t i = uint64_t(e.block) * threads + e.thread;
        if (i >= total || o.element[i] >= 0) continue;
        o.element[i] = e.element;
        // Where the geometry puts this thread's cell.
        int64_t at = -1;
        if (p.wrap) {
          at = int64_t(e.block) * threads + e.thread;
        } else {
          const uint64_t row = (e.block / gx) * by + e.thread / bx;
          const uint64_t col = (e.block % gx) * bx + e.thread % bx;
          if (row < uint64_t(p.data_rows) && col < uint64_t(p.data_cols))
            at = int64_t(row * uint64_t(p.data_cols) + col);
        }
        o.geometric = o.geometric && at == int64_t(e.element);
      }
      outputs.push_back(std::move(o));
    }
  }
};

Arrangement arrange(const Shapes& sh, ImVec2 origin, ImVec2 avail) {
  Arrangement out;
  if (avail.x < 40 || avail.y < 40) return out;
  if (sh.multiply)
    arrange_multiply(sh, origin, avail, out);
  else
    arrange_stacked(sh, origin, avail, out);
  for (Placed& p : out.arrays)
    p.pos = ImVec2(std::floor(p.pos.x), std::floor(p.pos.y));  // whole pixels: crisp lines
  return out;
}

}  // namespace

class GridView final : public View, public GridPane {
 public:
  const char* name() const override { return "Grid"; }
  Slot slot() const override { return Slot::Center; }
  int order() const override { return 0; }

  float cell_size_if_grown(ImVec2 growth) const override {
    if (!drawn_once_ || shapes_.empty()) return 0;
    // A pane whose legend leaves no room draws no cell at all: say "a fraction
    // of a pixel" rather than "cannot tell", so that the app still chooses.
    const ImVec2 room(std::max(0.0f, avail_.x + growth.x), std::max(0.0f, avail_.y + growth.y));
    return std::max(kNoRoomCell, arrange(shapes_, ImVec2(0, 0), room).cell);
  }

  void draw(AppState& s) override {
    s.drawn.clear();
    s.grid_facts.clear();
    s.selection.hover = {};
    if (!prepare(s)) {
      drawn_once_ = false;
      ImGui::TextDisabled(
          s.job.active() ? "Running the lesson..."
                         : "No trace yet: press Run in the Lesson panel, or open a trace file.");
      return;
    }
    draw_header(s, *s.replay, palette(s.present.theme));
    draw_legend(s);

    const ImVec2 origin = ImGui::GetCursorScreenPos();
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    avail_ = avail;
    drawn_once_ = true;
    if (avail.x < 40 || avail.y < 40) return;
    // Fitted to the room, times the grid's own zoom (app/grid/grid_zoom.hpp), clipped to the room.
    const ZoomedRoom z = grid_zoom_room(s, origin, avail);
    ImGui::PushClipRect(origin, ImVec2(origin.x + avail.x, origin.y + avail.y), true);
    paint(s, z.origin, z.size, 0);
    ImGui::PopClipRect();
    draw_grid_zoom_badge(s);
    ImGui::Dummy(avail);
  }

  // A slide: the legend's colours and the arrays, none of the header's or the
  // legend's controls.
  void draw_slide(AppState& s) override {
    s.drawn.clear();
    s.selection.hover = {};
    if (!prepare(s)) return;
    slide_ = true;
    draw_legend(s);
    slide_ = false;
    const ImVec2 origin = ImGui::GetCursorScreenPos();
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    if (avail.x < 40 || avail.y < 40) return;
    paint(s, origin, avail, 0);
    ImGui::Dummy(avail);
  }

  // --- GridPane: the same drawing for any run's state, into any rectangle ---
  bool prepare(AppState& s) override {
    if (!renderer_.ready() && !init_failed_) {
      std::string err;
      if (!renderer_.init(&err)) {
        init_failed_ = true;
        s.banner.show(Banner::Error, "The grid's shaders did not build: " + err);
      }
    }
    renderer_.begin_frame();
    if (!s.has_trace()) return false;
    const Replay& r = *s.replay;
    if (s.selection.block >= r.block_count()) s.selection.block = 0;
    wait_ = barrier_wait(r, s.selection.block);
    shapes_ = shapes(s, r, r.trace());
    owners_.build(s.result.generation, r.trace(), shapes_);
    memory_.prepare(s);
    tiles_.prepare(s);
    return true;
  }

  void draw_legend(AppState& s) override {
    legend(s, palette(s.present.theme));
    tiles_.legend(s);
  }

  void paint(AppState& s, ImVec2 origin, ImVec2 avail, uint32_t heat_at_least) override {
    const Replay& r = *s.replay;
    const Trace& t = r.trace();
    const Palette& pal = palette(s.present.theme);
    Arrangement arr = arrange(shapes_, origin, avail);
    cell_ = arr.cell;
    values_ = values_readable(arr.cell, ImGui::GetFontSize());
    publish(s, arr);
    resident(s, r);
    heat_max_ = std::max(heat_max_, heat_at_least);

    ImDrawList* dl = ImGui::GetWindowDrawList();
    if (arr.heading) {
      const uint32_t gx = std::max(1u, t.config.geometry.grid.x);
      char h[64];
      std::snprintf(h, sizeof h, "shared memory of block (%u, %u)", s.selection.block % gx,
                    s.selection.block / gx);
      if (ImGui::CalcTextSize(h).x > arr.heading_w)
        std::snprintf(h, sizeof h, "block (%u, %u)", s.selection.block % gx,
                      s.selection.block / gx);
      dl->AddText(arr.heading_pos, pal.text_dim.abgr(), h);
    }
    for (Placed& p : arr.arrays)
      draw_array(s, r, t, pal, dl, p);
    selection_overlay(s, t, pal, dl, arr.arrays);
    for (const Placed& p : arr.arrays)
      if (p.output) tiles_.draw(s, dl, area(p));
  }

  float cell() const override { return cell_; }
  bool values_shown() const override { return values_; }
  uint32_t own_heat_max() const override { return own_heat_max_; }

 private:
  void draw_header(AppState& s, const Replay& r, const Palette& pal) {
    const Trace& t = r.trace();
    const Dim3 g = t.config.geometry.grid;
    const uint32_t gx = std::max(1u, g.x);
    const uint32_t b = s.selection.block;
    ImGui::Text("Block (%u, %u) of %u x %u", b % gx, b / gx, gx, std::max(1u, g.y));
    ImGui::SameLine();
    if (ImGui::SmallButton("<##blk") && b > 0) s.selection.block = b - 1;
    ImGui::SameLine();
    if (ImGui::SmallButton(">##blk") && b + 1 < r.block_count()) s.selection.block = b + 1;
    if (s.selection.thread >= 0) {
      ImGui::SameLine();
      ImGui::Text("  thread %d", s.selection.thread);
      ImGui::SameLine();
      if (ImGui::SmallButton("unfollow")) s.selection.thread = -1;
    }
    if (s.present.focus_grid) {
      ImGui::SameLine();
      if (ImGui::SmallButton("panels (G)")) {
        s.present.focus_grid = false;
        s.present.focus_auto = false;
      }
      if (ImGui::IsItemHovered())
        ImGui::SetTooltip(
            "The lesson, verdict and source panels are hidden so that the grid\n"
            "has the room for its values. G shows them again.");
    }
    // Who waits at the barrier the block is at, in room as wide as the longest
    // such line, so that the header does not reflow while the replay plays:
    // the longest of three forms that fits on this line.
    const float tri = ImGui::GetTextLineHeight();
    const uint32_t n = wait_.threads;
    char forms[3][96];
    std::snprintf(forms[0], sizeof forms[0], "%u of %u threads at barrier 0 (line 000)", n, n);
    std::snprintf(forms[1], sizeof forms[1], "%u of %u threads at barrier 0", n, n);
    std::snprintf(forms[2], sizeof forms[2], "%u of %u at barrier 0", n, n);
    int form = 0;
    float wait_w = 0;
    bool fits = false;
    for (; form < 3; ++form) {
      wait_w = tri + 6 + ImGui::CalcTextSize(forms[form]).x;
      if ((fits = same_line_if_fits(wait_w))) break;
    }
    if (!fits) form = 0, wait_w = tri + 6 + ImGui::CalcTextSize(forms[0]).x;  // a line of its own
    const ImVec2 p = ImGui::GetCursorScreenPos();
    if (wait_.active) {
      char text[96];
      if (form == 0)
        std::snprintf(text, sizeof text, "%s", wait_.text.c_str());
      else
        std::snprintf(text, sizeof text,
                      form == 1 ? "%u of %u threads at barrier %d" : "%u of %u at barrier %d",
                      wait_.arrived, n, wait_.barrier);
      ImDrawList* dl = ImGui::GetWindowDrawList();
      arrival_mark(dl, ImVec2(p.x, p.y + 1), tri * 0.8f, pal.barrier, true);
      ImGui::Dummy(ImVec2(tri + 6, tri));
      ImGui::SameLine(0, 0);
      ImGui::TextUnformatted(text);
      if (ImGui::IsItemHovered())
        ImGui::SetTooltip(
            "%s.\nMarked on this block's cells of %s: a full triangle where its\n"
            "thread waits at the barrier, an empty one where it has not\n"
            "arrived yet. Nobody leaves until all %u are there.",
            wait_.text.c_str(), output_name(t).c_str(), n);
      ImGui::SameLine(0, 0);
      ImGui::Dummy(ImVec2(std::max(0.0f, p.x + wait_w - ImGui::GetCursorScreenPos().x), tri));
    } else {
      ImGui::Dummy(ImVec2(wait_w, tri));
    }
  }

  // The timeline's barrier triangle: full where a thread waits, empty where not yet.
  static void arrival_mark(ImDrawList* dl, ImVec2 p, float size, Rgb c, bool arrived) {
    const ImVec2 a(p.x, p.y), b(p.x + size, p.y), m(p.x + size * 0.5f, p.y + size * 0.8f);
    if (arrived) {
      dl->AddTriangleFilled(a, b, m, c.abgr());
      dl->AddTriangle(a, b, m, IM_COL32(0, 0, 0, 200), 1.0f);
    } else {
      dl->AddTriangle(a, b, m, c.abgr(), std::max(1.0f, size * 0.12f));
    }
  }

  void toggles(AppState& s) {
    // A slide has no controls; in presenter mode the keys (H, M, +/-) and the
    // menu do their work and the grid keeps the room: the legend's line ends here.
    if (slide_ || s.present.presenter) {
      ImGui::NewLine();
      return;
    }
    const float need =
        ImGui::CalcTextSize("values  heatmap (H)").x + ImGui::GetFrameHeight() * 2 + 30;
    if (ImGui::GetContentRegionAvail().x < need) ImGui::NewLine();
    ImGui::Checkbox("values", &s.present.show_values);
    if (s.present.show_values && !values_) {
      // Say why "values" is ticked and none show, and what helps; the short
      // form where the long one would take another line.
      const char* hint = s.present.focus_grid || s.present.presenter
                             ? "(too small: + zooms the grid, P presents)"
                             : "(too small: + zooms the grid, G hides the panels)";
      if (!same_line_if_fits(ImGui::CalcTextSize(hint).x)) {
        hint = "(too small for values)";
        if (!same_line_if_fits(ImGui::CalcTextSize(hint).x)) hint = nullptr;
      }
      if (hint) ImGui::TextColored(ImVec4(0.9f, 0.62f, 0.0f, 1.0f), "%s", hint);
      if (ImGui::IsItemHovered())
        ImGui::SetTooltip(
            "The cells are %.0f px; values need %.0f px.\n"
            "+ / - or Ctrl+wheel zoom the grid (0 fits it again; the text size does not\n"
            "change the cells); G hides the side panels, P is the presenter mode.\n"
            "Hover a cell to see it, its row and its column magnified.",
            double(cell_), double(min_readable_cell()));
    }
    same_line_if_fits(ImGui::CalcTextSize("heatmap (H)").x + ImGui::GetFrameHeight() + 8);
    if (ImGui::Checkbox("heatmap (H)", &s.present.heatmap) && s.present.heatmap)
      s.present.memory = MemoryColours::State;
    memory_.selector(s);
    layout_toggle(s);
  }

  static float min_readable_cell() {
    float c = 4;
    while (c < 200 && !values_readable(c, ImGui::GetFontSize()))
      c += 1;
    return c;
  }

  // Starts a new legend line when the next chip would not fit.
  void wrap_for(const char* label) {
    const float need = ImGui::GetTextLineHeight() + 4 + ImGui::CalcTextSize(label).x + 14;
    if (ImGui::GetContentRegionAvail().x < need) ImGui::NewLine();
  }

  void chip(Rgb c, const char* label, bool hatch = false) {
    if (legend_out_) legend_out_->push_back({label, c.abgr(), c.abgr()});
    wrap_for(label);
    const float h = ImGui::GetTextLineHeight();
    const ImVec2 p = ImGui::GetCursorScreenPos();
    ImDrawList* dl = ImGui::GetWindowDrawList();
    dl->AddRectFilled(p, ImVec2(p.x + h, p.y + h), c.abgr());
    if (hatch) {
      const Rgb hc = palette(Theme::Dark).hatch;
      for (float d = -h; d < h; d += 6)
        dl->AddLine(ImVec2(p.x + std::max(0.0f, d), p.y + std::max(0.0f, -d)),
                    ImVec2(p.x + std::min(h, d + h), p.y + std::min(h, h - d)), hc.abgr(), 2);
    }
    ImGui::Dummy(ImVec2(h, h));
    ImGui::SameLine(0, 4);
    ImGui::TextUnformatted(label);
    ImGui::SameLine(0, 14);
  }

  void outline_chip(Rgb c, const char* label) {
    if (legend_out_) legend_out_->push_back({label, c.abgr(), c.abgr()});
    wrap_for(label);
    const float h = ImGui::GetTextLineHeight();
    const ImVec2 p = ImGui::GetCursorScreenPos();
    ImGui::GetWindowDrawList()->AddRect(p, ImVec2(p.x + h, p.y + h), c.abgr(), 0, 0, 3);
    ImGui::Dummy(ImVec2(h, h));
    ImGui::SameLine(0, 4);
    ImGui::TextUnformatted(label);
    ImGui::SameLine(0, 14);
  }

  void legend(AppState& s, const Palette& pal) {
    legend_out_ = &s.grid_facts.legend;
    if (memory_.legend(s)) {  // banks, conflicts, sectors or coalescing
      toggles(s);
      return;
    }
    if (s.present.heatmap) {
      ImGui::TextUnformatted("Global loads per element:");
      legend_out_->push_back({"Global loads per element: 1 .. " + std::to_string(heat_max_),
                              heat(0).abgr(), heat(1).abgr()});
      ImGui::SameLine();
      const float h = ImGui::GetTextLineHeight();
      const ImVec2 p = ImGui::GetCursorScreenPos();
      for (int i = 0; i < 40; ++i)
        ImGui::GetWindowDrawList()->AddRectFilled(
            ImVec2(p.x + i * 4, p.y), ImVec2(p.x + i * 4 + 4, p.y + h), heat(float(i) / 39).abgr());
      ImGui::Dummy(ImVec2(160, h));
      ImGui::SameLine();
      ImGui::Text("1 .. %u", heat_max_);
      if (ImGui::IsItemHovered())
        ImGui::SetTooltip("%u: the reads of each element if nothing were shared", heat_max_);
      ImGui::SameLine();
      // The explanation on this line where it fits, else on the next.
      char note[96];
      std::snprintf(note, sizeof note, "(%u = the reads if nothing were shared)", heat_max_);
      if (ImGui::CalcTextSize(note).x > ImGui::GetContentRegionAvail().x) ImGui::NewLine();
      ImGui::TextDisabled("%s", note);
      ImGui::SameLine(0, 20);
      toggles(s);
      return;
    }
    // Arrays wrapped one block per row hold elements, 2D ones tiles.
    const bool elements = shapes_.wrapped();
    chip(pal.loaded, elements ? "in shared memory" : "tile in shared memory");
    chip(pal.loaded_other, elements ? "in other blocks' shared memory" : "other blocks' tiles");
    if (shapes_.halos()) chip(pal.halo, "halo");
    chip(pal.padded, "padding", true);
    chip(pal.written, "written");
    chip(pal.wrong, "wrong / stale");
    outline_chip(pal.touched, "last instruction");
    toggles(s);
  }

  // The trace's arrays with their shapes (positions come from arrange()).
  static Shapes shapes(const AppState& s, const Replay& r, const Trace& t) {
    Shapes sh;
    const ArrayTable& table = t.config.arrays;
    for (size_t i = 0; i < table.size(); ++i) {
      const ArraySlot slot = ArraySlot(i + 1);
      const ReplayArray* a = r.array(slot);
      if (!a || a->count() == 0) continue;
      Placed p;
      p.id = slot;
      p.shared = a->shared;
      p.output = a->is_output;
      p.block = a->shared ? s.selection.block : 0;
      p.rows = p.data_rows = a->rows;
      p.cols = p.data_cols = a->cols;
      p.name = p.title = table[i].name;
      p.constant = table[i].space == Space::Constant;
      if (p.constant) p.title = p.name + " (constant)";
      (a->shared ? sh.shared : a->is_output ? sh.outputs : sh.inputs).push_back(p);
    }
    // A multiply: two inputs whose shapes chain as (m x k)(k x n) into one m x n output.
    if (sh.inputs.size() == 2 && sh.outputs.size() == 1) {
      Placed &x = sh.inputs[0], &y = sh.inputs[1];
      const Placed& z = sh.outputs[0];
      auto chains = [&](const Placed& a, const Placed& b) {
        return a.data_cols == b.data_rows && a.data_rows == z.data_rows &&
               b.data_cols == z.data_cols;
      };
      if (!chains(x, y) && chains(y, x)) std::swap(x, y);
      sh.multiply = chains(x, y);
      if (sh.multiply)
        sh.outputs[0].title = z.name + " = " + sh.inputs[0].name + " x " + sh.inputs[1].name;
    }
    // A 2D shared array larger than a 2D block by the same ring on every side
    // holds the block's cells and a halo around them (a convolution's input tile).
    const Dim3 bd = t.config.geometry.block;
    for (Placed& p : sh.shared)
      if (int r = halo_ring(p.data_rows, p.data_cols, bd); r > 0) {
        p.ring = r;
        p.title = p.name + " (block + halo ring)";
      }
    // Square shared tiles (every 2D shared array t x t without its halo ring,
    // or t x (t + a few): a tile padded against bank conflicts): the global
    // matrices are drawn in tiles of t, padded to whole tiles, where the tiles
    // hang over; so a padded layout is drawn at the scale of the plain one.
    int tile = 0;
    for (const Placed& p : sh.shared) {
      if (p.data_rows < 2 || p.data_cols < 2) continue;
      const int rows = p.data_rows - 2 * p.ring, cols = p.data_cols - 2 * p.ring;
      const int side = std::min(rows, cols);
      const int extra = std::max(rows, cols) - side;
      if (extra > std::max(1, side / 8) || (tile && tile != side)) {
        tile = -1;
        break;
      }
      tile = side;
    }
    // 1D global arrays (one row), outside a multiply: wrapped one block's
    // threads per row. A 1D shared array longer than the block by the same
    // number of cells on both sides holds a halo there.
    const int threads = int(std::max(1u, bd.x) * std::max(1u, bd.y) * std::max(1u, bd.z));
    int wrap = 0;
    for (auto* group : {&sh.inputs, &sh.outputs})
      for (Placed& p : *group) {
        if (p.constant) continue;
        if (!sh.multiply && p.data_rows == 1) {
          p.wrap = wrap = threads;
          p.cols = std::min(threads, p.data_cols);  // its real extent when shorter than a row
          p.rows = int((int64_t(p.data_cols) + threads - 1) / threads);
        } else if (tile > 1) {
          p.rows = (p.data_rows + tile - 1) / tile * tile;
          p.cols = (p.data_cols + tile - 1) / tile * tile;
          p.tile = tile;
        }
      }
    for (Placed& p : sh.shared)
      if (wrap && p.data_rows == 1 && p.data_cols > wrap && (p.data_cols - wrap) % 2 == 0) {
        p.halo = (p.data_cols - wrap) / 2;
        p.title = p.name + " (halo | block | halo)";
      }
    return sh;
  }

  // The first output's name, for the barrier tooltip.
  static std::string output_name(const Trace& t) {
    for (size_t i = 0; i < t.config.arrays.size(); ++i)
      if (t.config.arrays[i].output()) return t.config.arrays[i].name;
    return "the output";
  }

  // Where each array went, for hit tests and the scripted mode's cell map.
  static void publish(AppState& s, const Arrangement& arr) {
    for (const Placed& p : arr.arrays) {
      DrawnArray d;
      d.id = p.id;
      d.shared = p.shared;
      d.block = p.block;
      d.rows = p.rows;
      d.cols = p.cols;
      d.data_rows = p.data_rows;
      d.data_cols = p.data_cols;
      d.x = p.pos.x;
      d.y = p.pos.y;
      d.cell_w = d.cell_h = p.cell;
      s.drawn.push_back(d);
    }
  }

  // Which input elements sit in shared memory now: of the selected block, of others.
  void resident(const AppState& s, const Replay& r) {
    res_sel_.clear();
    res_other_.clear();
    res_sel_halo_.clear();
    for (const ReplayArray& a : r.arrays()) {
      if (!a.shared) continue;
      int halo = 0, ring = 0;
      for (const Placed& p : shapes_.shared)
        if (p.id == a.id) halo = p.halo, ring = p.ring;
      for (uint32_t b = 0; b < a.blocks; ++b)
        for (uint32_t e = 0; e < a.count(); ++e) {
          const CellState* c = r.cell(a.id, b, e);
          if (!c || !(c->flags & kCellLoaded) || c->src < 0) continue;
          const uint64_t key = (uint64_t(c->src_buffer) << 32) | uint32_t(c->src);
          // The selected block's halo slots: their input elements get the halo
          // colour too, so the picture shows where the halo comes from.
          const bool halo_slot = in_halo(halo, ring, a.rows, a.cols, int(e / uint32_t(a.cols)),
                                         int(e % uint32_t(a.cols)));
          if (b != s.selection.block)
            res_other_.insert(key);
          else
            (halo_slot ? res_sel_halo_ : res_sel_).insert(key);
        }
    }
    // One scale for every lesson: how often an element would be read if nothing
    // were shared (a multiply: a row of C per element of A, a column per
    // element of B; else the terms of one output's sum, 2R + 1 for a stencil),
    // so that naive and tiled can be compared picture to picture.
    const Trace& t = r.trace();
    heat_max_ = 1;
    if (shapes_.multiply) {
      const Placed& c = shapes_.outputs[0];
      heat_max_ = uint32_t(std::max(c.data_rows, c.data_cols));
    } else if (const Variant* v = find_variant(t.config.variant); v && v->sum_length) {
      heat_max_ = uint32_t(std::max(1, v->sum_length(t.config.params)));
    }
    for (const ReplayArray& a : r.arrays())
      if (!a.shared && !a.is_output)
        for (uint32_t e = 0; e < a.count(); ++e)
          heat_max_ = std::max(heat_max_, r.cell(a.id, 0, e)->reads);
    own_heat_max_ = heat_max_;
  }

  // Wrong only once the cell's last store is drawn: before, it is unfinished.
  // The verdict's wrong cells are of the trace's (first) output.
  bool is_wrong(const AppState& s, ArraySlot id, uint32_t e) const {
    const auto& w = s.result.verdict.wrong_cells;
    const BufferData* out = s.trace().output();
    return out && id == out->slot && s.replay->output_final(id, e) &&
           std::binary_search(w.begin(), w.end(), e);
  }

  void draw_array(AppState& s, const Replay& r, const Trace& t, const Palette& pal, ImDrawList* dl,
                  Placed& p) {
    // Title above the cells: the longest form that fits before the next array.
    char full[128], mid[96];
    const uint32_t gx = std::max(1u, t.config.geometry.grid.x);
    if (p.wrap) {
      std::snprintf(full, sizeof full, "%s  (%d elements, one block per row)", p.title.c_str(),
                    p.data_cols);
      std::snprintf(mid, sizeof mid, "%s  (%d elements)", p.title.c_str(), p.data_cols);
    } else if (p.shared) {
      std::snprintf(full, sizeof full, "%s of block (%u, %u)", p.title.c_str(), p.block % gx,
                    p.block / gx);
      std::snprintf(mid, sizeof mid, "%s", p.title.c_str());
    } else {
      std::snprintf(full, sizeof full, "%s  (%d x %d)", p.title.c_str(), p.data_rows, p.data_cols);
      std::snprintf(mid, sizeof mid, "%s", p.title.c_str());
    }
    const std::string shortest = p.title.substr(0, p.title.find(' '));
    const char* title = ImGui::CalcTextSize(full).x <= p.title_max  ? full
                        : ImGui::CalcTextSize(mid).x <= p.title_max ? mid
                                                                    : shortest.c_str();
    dl->AddText(ImVec2(p.pos.x, p.pos.y - ImGui::GetTextLineHeightWithSpacing()), pal.text.abgr(),
                title);

    img_.resize(p.cols, p.rows);
    img_.tile_w = img_.tile_h = p.tile;
    touched_.assign(size_t(p.cols) * size_t(p.rows), 0);
    const bool heatmap = s.present.heatmap;
    const bool at_end = r.position() >= r.size();
    for (int row = 0; row < p.rows; ++row)
      for (int col = 0; col < p.cols; ++col) {
        int64_t e = -1;
        if (p.wrap) {
          const int64_t i = int64_t(row) * p.wrap + col;
          if (i < int64_t(p.data_cols) * p.data_rows) e = i;
        } else if (row < p.data_rows && col < p.data_cols) {
          e = int64_t(row) * p.data_cols + col;
        }
        if (e < 0) {
          // Beyond a tile's overhang the tiles hold zeros (padding); past the
          // end of a wrapped 1D array there is no element at all.
          if (p.wrap)
            img_.set(col, row, pal.background);
          else
            img_.set(col, row, pal.padded, true);
          continue;
        }
        const CellState* c = r.cell(p.id, p.block, uint32_t(e));
        if (!c) continue;
        Rgb fill = pal.cell;
        const ReplayArray* a = r.array(p.id);
        if (p.shared) {
          if (c->flags & kCellStale)
            fill = pal.stale;
          else if (c->flags & kCellPadded)
            fill = pal.padded;
          else if (c->flags & kCellLoaded)
            fill = in_halo(p.halo, p.ring, p.data_rows, p.data_cols, row, col) ? pal.halo
                                                                               : pal.shared_loaded;
          else if (c->flags & kCellWritten)
            fill = pal.written;
          else
            fill = pal.shared_empty;
          img_.set(col, row, fill, (c->flags & kCellPadded) != 0);
        } else if (a && a->is_output) {
          if (c->flags & kCellWritten)
            fill = (is_wrong(s, p.id, uint32_t(e)) ? pal.wrong : pal.written);
          else if (at_end && is_wrong(s, p.id, uint32_t(e)))
            fill = pal.wrong;
          img_.set(col, row, fill);
        } else {
          const uint64_t key = (uint64_t(p.id) << 32) | uint32_t(e);
          if (heatmap)
            fill = c->reads ? heat(float(c->reads) / float(heat_max_)) : pal.cell;
          else if (res_sel_.count(key))
            fill = pal.loaded;
          else if (res_sel_halo_.count(key))  // a clamped halo at an edge is also a block cell
            fill = pal.halo;
          else if (res_other_.count(key))
            fill = pal.loaded_other;
          else if (c->reads)
            fill = pal.cell_input;
          img_.set(col, row, fill);
        }
        if (c->flags & kCellTouchedNow) touched_[size_t(row) * size_t(p.cols) + size_t(col)] = 1;
      }
    memory_.recolour(s, area(p), img_);
    // Marks from other panels (races, verdict, ...).
    for (const auto& [owner, marks] : s.marks)
      for (const CellMark& m : marks) {
        if (m.buffer != p.id || (p.shared && m.block != p.block)) continue;
        if (m.style == MarkStyle::Wrong && !r.output_final(m.buffer, m.element)) continue;
        int row = 0, col = 0;
        if (!cell_of(p, m.element, &row, &col)) continue;
        img_.set_outline(col, row, mark_colour(m.style));
      }
    for (const QuizPaint& q : s.quiz.paint) {  // chosen, right, extra cells
      int row = 0, col = 0;
      if (!q.ring() && q.buffer == p.id && (!p.shared || q.block == p.block) &&
          cell_of(p, q.element, &row, &col))
        img_.set(col, row, quiz_colour(q.mark));
    }
    DrawnCells& facts = record_facts(s, p, pal);
    const ImVec2 p1(p.pos.x + p.cols * p.cell, p.pos.y + p.rows * p.cell);
    renderer_.draw(dl, p.pos, p1, img_, pal);
    // The last warp instruction's cells: one solid outline around them
    // (under the memory colours' own outlines: a coalescing picture's sectors).
    if (std::find(touched_.begin(), touched_.end(), 1) != touched_.end()) {
      const ImVec4 box =
          draw_region_outline(dl, p.pos, p.cell, p.rows, p.cols, touched_, pal.touched.abgr(),
                              std::clamp(std::floor(p.cell * 0.16f), 2.0f, 5.0f));
      s.plot_marks.push_back({"grid", "access", p.name, box.x, box.y, box.z - box.x, box.w - box.y,
                              pal.touched.abgr()});
    }
    memory_.draw_over(s, dl, area(p));
    // A chosen access (a hazard's write and read) also gets a thick ring around
    // its cell: a one-pixel outline is lost on a projector when cells are small.
    for (const auto& [owner, marks] : s.marks)
      for (const CellMark& m : marks) {
        if (m.style != MarkStyle::Write && m.style != MarkStyle::Read) continue;
        if (m.buffer != p.id || (p.shared && m.block != p.block)) continue;
        int row = 0, col = 0;
        if (!cell_of(p, m.element, &row, &col)) continue;
        const float pad = std::max(2.0f, p.cell * 0.15f);
        const ImVec2 a(p.pos.x + col * p.cell - pad, p.pos.y + row * p.cell - pad);
        const ImVec2 b(a.x + p.cell + 2 * pad, a.y + p.cell + 2 * pad);
        dl->AddRect(a, b, IM_COL32(0, 0, 0, 200), 0, 0, 5.0f);  // contrast on any fill
        dl->AddRect(a, b, mark_colour(m.style).abgr(), 0, 0, 3.0f);
      }

    for (const QuizPaint& q : s.quiz.paint) {  // missed cells and the keyboard's cursor
      int row = 0, col = 0;
      if (!q.ring() || q.buffer != p.id || (p.shared && q.block != p.block) ||
          !cell_of(p, q.element, &row, &col))
        continue;
      const ImVec2 a(p.pos.x + col * p.cell + 1, p.pos.y + row * p.cell + 1);
      const ImVec2 b(a.x + p.cell - 2, a.y + p.cell - 2);
      const float w = std::max(2.0f, p.cell * 0.14f);
      dl->AddRect(a, b, IM_COL32(0, 0, 0, 230), 0, 0, w + 2);
      dl->AddRect(a, b, quiz_colour(q.mark).abgr(), 0, 0, w);
    }

    // Values, when they are big enough to read (else the header says so and
    // hovering magnifies).
    if (s.present.show_values && values_) {
      ImFont* font = ImGui::GetFont();
      const float fs = value_font_size(p.cell, ImGui::GetFontSize());
      for (int row = 0; row < p.rows; ++row)
        for (int col = 0; col < p.cols; ++col) {
          const std::string v = value_text(s, r, p, row, col);
          if (v.empty()) continue;
          // A long value gets a smaller size, down to three quarters; longer ones are left out.
          float size = fs;
          ImVec2 ts = font->CalcTextSizeA(size, FLT_MAX, 0, v.c_str());
          if (ts.x > p.cell - 3) {
            size = std::floor(fs * (p.cell - 3) / ts.x);
            if (size < fs * 0.75f) continue;
            ts = font->CalcTextSizeA(size, FLT_MAX, 0, v.c_str());
          }
          const uint32_t px = img_.fill[size_t(row) * size_t(p.cols) + size_t(col)];
          const Rgb fill{uint8_t(px), uint8_t(px >> 8), uint8_t(px >> 16)};
          facts.text[size_t(row) * size_t(p.cols) + size_t(col)] = v;
          dl->AddText(font, size,
                      ImVec2(p.pos.x + col * p.cell + (p.cell - ts.x) * 0.5f,
                             p.pos.y + row * p.cell + (p.cell - ts.y) * 0.5f),
                      text_on(pal, fill).abgr(), v.c_str());
        }
    }
    hover(s, r, t, p);
  }

  // The cells as drawn this frame (hatching, halo colour; the values loop adds
  // the printed texts), for the scripted mode's map.
  DrawnCells& record_facts(AppState& s, const Placed& p, const Palette& pal) const {
    DrawnCells d;
    d.id = p.id;
    d.block = p.block;
    d.rows = p.rows;
    d.cols = p.cols;
    const size_t n = size_t(p.rows) * size_t(p.cols);
    d.text.assign(n, std::string());
    d.hatched.assign(n, 0);
    d.halo.assign(n, 0);
    for (size_t i = 0; i < n && i < img_.fill.size(); ++i) {
      const uint32_t px = img_.fill[i];
      d.hatched[i] = uint8_t((px >> 24) & 1);
      d.halo[i] = Rgb{uint8_t(px), uint8_t(px >> 8), uint8_t(px >> 16)} == pal.halo;
    }
    s.grid_facts.arrays.push_back(std::move(d));
    return s.grid_facts.arrays.back();
  }

  static GridArea area(const Placed& p) {
    return {p.id,        p.shared,    p.block, p.rows, p.cols,
            p.data_rows, p.data_cols, p.wrap,  p.pos,  p.cell};
  }

  // The element at (row, col) of a drawn array, -1 outside the data.
  static int64_t element_at(const Placed& p, int row, int col) {
    if (row < 0 || col < 0 || row >= p.rows || col >= p.cols) return -1;
    const int64_t e =
        p.wrap ? int64_t(row) * p.wrap + col
               : (row < p.data_rows && col < p.data_cols ? int64_t(row) * p.data_cols + col : -1);
    return e < int64_t(p.data_rows) * p.data_cols ? e : -1;
  }

  // What a cell prints: its value, nothing where none was stored or read yet
  // (shared and output cells), the load count under the heatmap.
  std::string value_text(const AppState& s, const Replay& r, const Placed& p, int row,
                         int col) const {
    const int64_t e = element_at(p, row, col);
    if (e < 0) return {};
    if (auto m = memory_.cell_text(s, area(p), uint32_t(e))) return *m;
    const CellState* c = r.cell(p.id, p.block, uint32_t(e));
    if (!c) return {};
    const ReplayArray* a = r.array(p.id);
    // Shown once stored, or once a load read it: a load's value is on screen
    // even where nothing was written (a stale read of uninitialised memory).
    if ((p.shared || (a && a->is_output)) && !(c->flags & (kCellWritten | kCellReadUnwritten)))
      return {};
    if (s.present.heatmap && !p.shared && !(a && a->is_output)) return std::to_string(c->reads);
    return format_value(c->value);
  }

  // Cells too small for values: the hovered cell, its row and its column
  // drawn large with their values, in the tooltip.
  void magnifier(const AppState& s, const Replay& r, const Palette& pal, const Placed& p, int row,
                 int col) {
    const float font = ImGui::GetFontSize();
    float big = 4;
    while (!values_readable(big, font))
      big += 1;
    big = std::max(big, std::floor(font * 1.9f));
    const int reach = 6;  // cells each side of the hovered one
    const int c0 = std::max(0, col - reach), c1 = std::min(p.cols - 1, col + reach);
    const int r0 = std::max(0, row - reach), r1 = std::min(p.rows - 1, row + reach);
    const ImVec2 o = ImGui::GetCursorScreenPos();
    ImDrawList* dl = ImGui::GetWindowDrawList();
    ImFont* f = ImGui::GetFont();
    const float fs = value_font_size(big, font);
    auto cell = [&](int rr, int cc, bool centre) {
      const ImVec2 a(o.x + float(cc - c0) * big, o.y + float(rr - r0) * big);
      const ImVec2 b(a.x + big, a.y + big);
      const uint32_t px = img_.fill[size_t(rr) * size_t(p.cols) + size_t(cc)];
      const Rgb fill{uint8_t(px), uint8_t(px >> 8), uint8_t(px >> 16)};
      dl->AddRectFilled(a, b, fill.abgr());
      dl->AddRect(a, b, pal.grid_line.abgr());
      const std::string v = value_text(s, r, p, rr, cc);
      if (!v.empty()) {
        float size = fs;
        ImVec2 ts = f->CalcTextSizeA(size, FLT_MAX, 0, v.c_str());
        if (ts.x > big - 3) {
          size = std::floor(fs * (big - 3) / ts.x);
          ts = f->CalcTextSizeA(size, FLT_MAX, 0, v.c_str());
        }
        dl->AddText(f, size, ImVec2(a.x + (big - ts.x) * 0.5f, a.y + (big - ts.y) * 0.5f),
                    text_on(pal, fill).abgr(), v.c_str());
      }
      if (centre) dl->AddRect(a, b, pal.selected.abgr(), 0, 0, 3.0f);
    };
    for (int cc = c0; cc <= c1; ++cc)
      if (cc != col) cell(row, cc, false);
    for (int rr = r0; rr <= r1; ++rr)
      if (rr != row) cell(rr, col, false);
    cell(row, col, true);
    ImGui::Dummy(ImVec2(float(c1 - c0 + 1) * big, float(r1 - r0 + 1) * big));
  }

  bool cell_of(const Placed& p, uint32_t e, int* row, int* col) const {
    if (p.wrap) {
      *row = int(e / uint32_t(p.wrap));
      *col = int(e % uint32_t(p.wrap));
    } else {
      if (p.data_cols <= 0) return false;
      *row = int(e / uint32_t(p.data_cols));
      *col = int(e % uint32_t(p.data_cols));
    }
    return *row < p.rows && *col < p.cols;
  }

  void hover(AppState& s, const Replay& r, const Trace& t, const Placed& p) {
    if (!ImGui::IsWindowHovered()) return;
    ImDrawList* clip = ImGui::GetWindowDrawList();  // zoomed: cells outside the room are hidden
    if (!ImGui::IsMouseHoveringRect(clip->GetClipRectMin(), clip->GetClipRectMax())) return;
    const ImVec2 m = ImGui::GetMousePos();
    const int col = int(std::floor((m.x - p.pos.x) / p.cell));
    const int row = int(std::floor((m.y - p.pos.y) / p.cell));
    if (col < 0 || row < 0 || col >= p.cols || row >= p.rows) return;
    int64_t e =
        p.wrap ? int64_t(row) * p.wrap + col
               : (row < p.data_rows && col < p.data_cols ? int64_t(row) * p.data_cols + col : -1);
    ImGui::BeginTooltip();
    if (e < 0 || e >= int64_t(p.data_rows) * p.data_cols) {
      if (p.wrap) {
        ImGui::TextUnformatted("Past the array's last element.");
        ImGui::EndTooltip();
        return;
      }
      ImGui::TextUnformatted("Outside the array: a tile hanging over the edge.");
      ImGui::TextDisabled("Threads here load a zero instead (padding).");
      ImGui::EndTooltip();
      return;
    }
    const CellState* c = r.cell(p.id, p.block, uint32_t(e));
    s.selection.hover = {true, p.id, p.block, uint32_t(e)};
    if (!values_) magnifier(s, r, palette(s.present.theme), p, row, col);
    const uint32_t bx = std::max(1u, t.config.geometry.block.x);
    const uint32_t gx = std::max(1u, t.config.geometry.grid.x);
    if (p.wrap)
      ImGui::Text("%s[%lld]", p.name.c_str(), (long long)e);
    else
      ImGui::Text("%s[%d][%d]", p.name.c_str(), row, col);
    if (c) {
      const ReplayArray* a = r.array(p.id);
      const bool shows = !(p.shared || (a && a->is_output)) || (c->flags & kCellWritten);
      if (shows)
        ImGui::Text("value %s", format_value(c->value).c_str());
      else if (c->flags & kCellReadUnwritten)
        ImGui::Text("read %s before anything was stored here", format_value(c->value).c_str());
      if (c->time) {
        ImGui::Text("last %s by block (%u, %u) thread (%u, %u) at step %u", to_string(c->last_kind),
                    c->block % gx, c->block / gx, c->thread % bx, c->thread / bx, c->time);
      } else {
        ImGui::TextDisabled("not touched yet");
      }
      if (!p.shared && !(a && a->is_output))
        ImGui::Text("read from global memory %u times so far", c->reads);
      if (c->flags & kCellPadded)
        ImGui::TextUnformatted("padding: a zero for an element outside the matrix");
      if ((c->flags & kCellLoaded) && p.shared && c->src >= 0)
        ImGui::Text("copied from %s",
                    element_name(t.config.arrays, c->src_buffer, uint32_t(c->src)).c_str());
      if (c->flags & kCellStale)
        ImGui::TextColored(ImVec4(0.84f, 0.37f, 0, 1), "a thread read a stale value here (a race)");
      if (is_wrong(s, p.id, uint32_t(e)))
        ImGui::TextColored(ImVec4(0.84f, 0.37f, 0, 1), "wrong: differs from the CPU reference");
    }
    memory_.tooltip(s, area(p), uint32_t(e));
    tiles_.tooltip(s, area(p), uint32_t(e));
    for (const auto& [owner, marks] : s.marks)
      for (const CellMark& mk : marks)
        if (mk.buffer == p.id && mk.element == uint32_t(e) && (!p.shared || mk.block == p.block) &&
            !mk.label.empty())
          ImGui::Text("%s: %s", owner.c_str(), mk.label.c_str());
    ImGui::TextDisabled("click: follow the thread that computes / touched it");
    ImGui::EndTooltip();
    if (quiz_hover(s, p.id, p.block, uint32_t(e))) return;  // a quiz pick: click or drag
    if (ImGui::IsMouseClicked(0)) {
      const ReplayArray* a = r.array(p.id);
      const OutputOwners::Of* o = owners_.of(p.id);
      int64_t owner = -1;  // block * threads + thread of the cell's thread, where stores say
      if (a && a->is_output && o && !o->geometric) {
        const auto it = std::find(o->element.begin(), o->element.end(), e);
        if (it != o->element.end()) owner = it - o->element.begin();
      }
      if (owner >= 0) {
        s.selection.block = uint32_t(owner / owners_.threads);
        s.selection.thread = int(owner % owners_.threads);
      } else if (a && a->is_output && (!o || o->geometric)) {
        // The thread that computes this output cell.
        const uint32_t by = std::max(1u, t.config.geometry.block.y);
        uint32_t ox = 0, oy = 0;
        if (p.wrap) {
          ox = uint32_t(e);
        } else {
          ox = uint32_t(col);
          oy = uint32_t(row);
        }
        s.selection.block = (oy / by) * gx + ox / bx;
        s.selection.thread = int((oy % by) * bx + ox % bx);
      } else if (c && c->time) {
        s.selection.block = c->block;
        s.selection.thread = c->thread;
      }
    }
  }

  void selection_overlay(AppState& s, const Trace& t, const Palette& pal, ImDrawList* dl,
                         const std::vector<Placed>& placed) {
    // Outline the selected block's part of the output, and its thread's cell.
    const uint32_t bx = std::max(1u, t.config.geometry.block.x);
    const uint32_t by = std::max(1u, t.config.geometry.block.y);
    const uint32_t gx = std::max(1u, t.config.geometry.grid.x);
    const uint32_t b = s.selection.block;
    for (const Placed& p : placed) {
      if (p.shared || !p.output) continue;
      const OutputOwners::Of* o = owners_.of(p.id);
      if (o && !o->geometric) {
        // Where the block's threads store: the box around their cells.
        int r0 = p.rows, r1 = -1, c0 = p.cols, c1 = -1;
        for (uint32_t th = 0; th < owners_.threads; ++th) {
          int row = 0, col = 0;
          if (!owner_cell(p, *o, b, th, &row, &col)) continue;
          r0 = std::min(r0, row), r1 = std::max(r1, row);
          c0 = std::min(c0, col), c1 = std::max(c1, col);
        }
        if (r1 >= 0)
          dl->AddRect(ImVec2(p.pos.x + c0 * p.cell - 2, p.pos.y + r0 * p.cell - 2),
                      ImVec2(p.pos.x + (c1 + 1) * p.cell + 2, p.pos.y + (r1 + 1) * p.cell + 2),
                      pal.selected.abgr(), 0, 0, 2.5f);
        int row = 0, col = 0;
        if (s.selection.thread >= 0 &&
            owner_cell(p, *o, b, uint32_t(s.selection.thread), &row, &col)) {
          const ImVec2 a(p.pos.x + col * p.cell, p.pos.y + row * p.cell);
          dl->AddRect(a, ImVec2(a.x + p.cell, a.y + p.cell), pal.selected.abgr(), 0, 0, 3.0f);
        }
      } else if (p.wrap) {
        const float y = p.pos.y + float(b) * p.cell;
        dl->AddRect(ImVec2(p.pos.x - 2, y - 2),
                    ImVec2(p.pos.x + p.cols * p.cell + 2, y + p.cell + 2), pal.selected.abgr(), 0,
                    0, 2.5f);
      } else {
        const float x = p.pos.x + float((b % gx) * bx) * p.cell;
        const float y = p.pos.y + float((b / gx) * by) * p.cell;
        const float x1 = std::min(x + bx * p.cell, p.pos.x + p.cols * p.cell);
        const float y1 = std::min(y + by * p.cell, p.pos.y + p.rows * p.cell);
        dl->AddRect(ImVec2(x - 2, y - 2), ImVec2(x1 + 2, y1 + 2), pal.selected.abgr(), 0, 0, 2.5f);
        if (s.selection.thread >= 0) {
          const float tx = x + float(uint32_t(s.selection.thread) % bx) * p.cell;
          const float ty = y + float(uint32_t(s.selection.thread) / bx) * p.cell;
          dl->AddRect(ImVec2(tx, ty), ImVec2(tx + p.cell, ty + p.cell), pal.selected.abgr(), 0, 0,
                      3.0f);
        }
      }
      waiting_marks(pal, dl, p, o, bx, by, gx, b);
    }
  }

  // The cell of an output where thread `th` of block `b` stores (its first store).
  bool owner_cell(const Placed& p, const OutputOwners::Of& o, uint32_t b, uint32_t th, int* row,
                  int* col) const {
    const uint64_t i = uint64_t(b) * owners_.threads + th;
    if (th >= owners_.threads || i >= o.element.size() || o.element[i] < 0) return false;
    return cell_of(p, uint32_t(o.element[i]), row, col);
  }

  // At a barrier: each thread of the selected block marks the output cell it
  // computes, a full triangle if it waits there, an empty one if not yet.
  void waiting_marks(const Palette& pal, ImDrawList* dl, const Placed& p, const OutputOwners::Of* o,
                     uint32_t bx, uint32_t by, uint32_t gx, uint32_t b) const {
    if (!wait_.active) return;
    const float size = std::clamp(p.cell * 0.45f, 4.0f, 16.0f);
    for (uint32_t th = 0; th < wait_.threads; ++th) {
      int row = 0, col = 0;
      if (o && !o->geometric) {
        if (!owner_cell(p, *o, b, th, &row, &col)) continue;
      } else if (p.wrap) {
        row = int(b);
        col = int(th);
      } else {
        row = int((b / gx) * by + th / bx);
        col = int((b % gx) * bx + th % bx);
      }
      if (row >= p.rows || col >= p.cols) continue;
      const ImVec2 at(p.pos.x + float(col) * p.cell + 2, p.pos.y + float(row) * p.cell + 2);
      arrival_mark(dl, at, size, pal.barrier, wait_.at_barrier[th] != 0);
    }
  }

  CellRenderer renderer_;
  bool init_failed_ = false;
  Shapes shapes_;            // the lesson's arrays, as drawn last
  OutputOwners owners_;      // which output cell each thread stores to
  ImVec2 avail_;             // the room they had
  bool drawn_once_ = false;  // shapes_ and avail_ are known
  bool slide_ = false;       // drawing a slide: the legend without its toggles
  float cell_ = 0;           // the cell size drawn
  bool values_ = true;       // cells big enough to print values
  BarrierWait wait_;         // who waits at the barrier the selected block is at
  CellImage img_;
  std::vector<uint8_t> touched_;  // per cell of the array being drawn: the last instruction's
  std::unordered_set<uint64_t> res_sel_, res_sel_halo_, res_other_;
  uint32_t heat_max_ = 1;
  uint32_t own_heat_max_ = 1;  // this run's own scale, before a shared one (compare)
  std::vector<LegendLine>* legend_out_ = nullptr;  // where the legend's chips are reported
  MemoryOverlay
      memory_;           // banks, conflicts, sectors, coalescing (app/grid/grid_memory_overlay.hpp)
  RegisterTiles tiles_;  // the register and warp tiles (app/grid/register_tile.hpp)
};

TS_REGISTER_VIEW(GridView);

std::unique_ptr<GridPane> make_grid_pane() {
  return std::make_unique<GridView>();
}

}  // namespace ts::app
