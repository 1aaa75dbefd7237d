// Grid: the lesson's arrays as cells, laid out from the trace's array table
// (model/array.hpp), never from the lesson: two inputs that chain as
// (m x k)(k x n) into an m x n output get the textbook picture of a multiply
// (A left of C, B above it); anything else is stacked in data-flow order,
// inputs, the selected block's shared arrays, outputs, with 1D arrays wrapped
// one block per row. Drawn with our shaders (app/grid/cell_renderer.hpp); colours
// follow app/core/palette.hpp and the legend on top says what each means.
#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "app/core/palette.hpp"
#include "app/core/view.hpp"
#include "app/grid/access_outline.hpp"
#include "app/grid/array_title.hpp"
#include "app/grid/cell_groups.hpp"
#include "app/grid/cell_renderer.hpp"
#include "app/grid/grid_arrange.hpp"
#include "app/grid/grid_auto_zoom.hpp"
#include "app/grid/grid_cells.hpp"
#include "app/grid/grid_memory_overlay.hpp"
#include "app/grid/grid_pane.hpp"
#include "app/grid/grid_zoom.hpp"
#include "app/grid/layout_toggle.hpp"
#include "app/grid/register_tile.hpp"
#include "app/grid/stale_callout.hpp"
#include "app/quiz/quiz_colours.hpp"

namespace ts::app {

namespace {

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

// The palette's colour for a cell's role (app/grid/grid_cells.hpp).
Rgb role_colour(const Palette& pal, const GridCell& c, uint32_t heat_max) {
  switch (c.role) {
    case CellRole::NoState:
    case CellRole::Plain:
      return pal.cell;
    case CellRole::PastEnd:
      return pal.background;
    case CellRole::Padding:
    case CellRole::SharedPadded:
      return pal.padded;
    case CellRole::InputRead:
      return pal.cell_input;
    case CellRole::Heat:
      return heat(float(c.reads) / float(heat_max));
    case CellRole::Resident:
      return pal.loaded;
    case CellRole::ResidentHalo:
    case CellRole::SharedHalo:
      return pal.halo;
    case CellRole::ResidentOther:
      return pal.loaded_other;
    case CellRole::SharedEmpty:
      return pal.shared_empty;
    case CellRole::SharedLoaded:
      return pal.shared_loaded;
    case CellRole::SharedWritten:
    case CellRole::Written:
      return pal.written;
    case CellRole::Stale:
      return pal.stale;
    case CellRole::Wrong:
      return pal.wrong;
  }
  return pal.cell;
}

Rgb fill_of(const CellImage& img, int row, int col) {
  const uint32_t px = img.fill[size_t(row) * size_t(img.cols) + size_t(col)];
  return Rgb{uint8_t(px), uint8_t(px >> 8), uint8_t(px >> 16)};
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

    ImVec2 origin = ImGui::GetCursorScreenPos();
    ImVec2 avail = ImGui::GetContentRegionAvail();
    avail_ = avail;
    drawn_once_ = true;
    if (avail.x < 40 || avail.y < 40) return;
    // Fitted to the room, times the grid's own zoom (app/grid/grid_zoom.hpp), clipped to the room.
    // Presenter mode: zoomed to the moment's subject where the whole grid
    // would be too small to read (app/grid/grid_auto_zoom.hpp), said on a
    // line of its own above the cells.
    ZoomedRoom z = grid_zoom_room(s, origin, avail);
    int wrap = 0;
    ImVec2 cells_at = origin, cells_room = avail;  // where the cells are clipped to
    // A line above the zoomed cells for the titles the zoom would cut
    // (app/grid/array_title.hpp): none is drawn over a cell.
    const float band = std::floor(ImGui::GetTextLineHeightWithSpacing() + 2);
    title_band_ = 0;
    if (s.present.grid_zoom > 1.0f) {  // by hand: the picture's top line gives way to them
      cells_at.y += band, cells_room.y -= band;
      title_band_ = band;
    } else if (auto_zoom_room(s, shapes_, owners_, origin, avail)) {
      // The line saying so, written once the zoom in the room left is known
      // (a smaller room may zoom to a smaller subject).
      const ImVec2 line_at = ImGui::GetCursorScreenPos();
      ImGui::Dummy(ImVec2(1, ImGui::GetTextLineHeight()));
      origin = ImGui::GetCursorScreenPos();
      avail = ImGui::GetContentRegionAvail();
      s.grid_facts.zoom = {};
      z = grid_zoom_room(s, origin, avail);
      cells_at = origin, cells_room = avail;
      const ImVec2 below(origin.x, origin.y + band), room(avail.x, avail.y - band);
      if (auto a = auto_zoom_room(s, shapes_, owners_, below, room, &wrap)) {
        z = *a;
        cells_at = below, cells_room = room, title_band_ = band;
        // The grid's room is where the cells are; the titles' line is above it.
        const float rect[4] = {below.x, below.y, room.x, room.y};
        std::copy(rect, rect + 4, s.grid_rect);
        s.grid_facts.zoom.title_band = band;
      }
      ImGui::GetWindowDrawList()->AddText(
          line_at, ImGui::GetColorU32(ImVec4(0.34f, 0.71f, 0.91f, 1)), auto_zoom_line(s).c_str());
    }
    const Shapes fitted = shapes_;
    if (wrap > 0) {  // zoomed: 1D arrays one warp to a row, as the zoom placed them
      shapes_ = rewrapped(shapes_, wrap);
      shapes_.pinned_wrap = wrap;
    }
    ImGui::PushClipRect(cells_at, ImVec2(cells_at.x + cells_room.x, cells_at.y + cells_room.y),
                        true);
    paint(s, z.origin, z.size, 0);
    ImGui::PopClipRect();
    shapes_ = fitted;  // the layout's questions (cell_size_if_grown) are about the whole grid
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
    title_band_ = 0;
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
    shapes_ = grid_shapes(r, s.selection.block);
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
    res_ = residency(r, shapes_, s.selection.block);
    heat_max_ = own_heat_max_ = res_.heat_max;
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
      draw_array(s, pal, dl, p);
    selection_overlay(s, pal, dl, arr.arrays);
    draw_stale_callout(s, dl, arr.arrays, dl->GetClipRectMin(), dl->GetClipRectMax());
    for (const Placed& p : arr.arrays)
      if (p.output) tiles_.draw(s, dl, area(p));
    // The titles last, over everything, in the cells' room and the band above it.
    const ImVec2 lo = dl->GetClipRectMin(), hi = dl->GetClipRectMax();
    dl->PushClipRect(ImVec2(lo.x, lo.y - title_band_), hi, false);
    for (const Placed& p : arr.arrays) {
      const ImVec4 title = draw_array_title(t, pal, dl, p);
      s.plot_marks.push_back(
          {"grid", "title", p.name, title.x, title.y, title.z, title.w, pal.text.abgr()});
    }
    dl->PopClipRect();
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
    if (s.present.focus_grid && !s.present.presenter) {  // presenter mode: P shows them
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
    } else if (!s.present.presenter) {  // the room kept so that the header does not reflow
      ImGui::Dummy(ImVec2(wait_w, tri));
    } else if (fits) {
      ImGui::NewLine();  // presenter mode: the grid keeps the room
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
    // A slide has no controls; in presenter mode and the grid focus at a
    // projector's text the keys (H, M, +/-) and the menu do their work and the
    // grid keeps the room: the legend's line ends here.
    if (slide_ || hall_view(s.present)) {
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
    chip(pal.wrong, "wrong");
    // Its own colour, apart from the tiles' orange for colour-blind eyes too.
    if (s.replay->stale_read_count() > 0) chip(pal.stale, "stale read");
    outline_chip(pal.touched, "last instruction");
    toggles(s);
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
      d.wrap = p.wrap;
      d.lead = p.lead;
      d.x = p.pos.x;
      d.y = p.pos.y;
      d.cell_w = d.cell_h = p.cell;
      s.drawn.push_back(d);
    }
  }

  void draw_array(AppState& s, const Palette& pal, ImDrawList* dl, const Placed& p) {
    const bool with_values = s.present.show_values && values_;
    const ArrayCells cells = array_cells(s, p, res_, with_values);
    fill_image(s, pal, p, cells);
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
    draw_rings(s, dl, p, cells);
    // Values, when they are big enough to read (else the header says so and
    // hovering magnifies).
    if (with_values) draw_values(s, pal, dl, p, cells, facts);
    hover(s, p);
  }

  // The cells' colours into img_ (the memory colours recolour them; other
  // panels' marks outline them; the quiz's picks fill them), the touched
  // cells into touched_.
  void fill_image(const AppState& s, const Palette& pal, const Placed& p, const ArrayCells& cells) {
    img_.resize(p.cols, p.rows);
    img_.tile_w = img_.tile_h = p.tile;
    touched_.assign(size_t(p.cols) * size_t(p.rows), 0);
    for (int row = 0; row < p.rows; ++row)
      for (int col = 0; col < p.cols; ++col) {
        const GridCell& c = cells.at(row, col);
        if (c.role == CellRole::NoState) continue;
        img_.set(col, row, role_colour(pal, c, heat_max_), c.hatched);
        if (c.touched) touched_[size_t(row) * size_t(p.cols) + size_t(col)] = 1;
      }
    memory_.recolour(s, area(p), img_);
    for (int row = 0; row < p.rows; ++row)
      for (int col = 0; col < p.cols; ++col)
        if (const GridCell& c = cells.at(row, col); c.outline)
          img_.set_outline(col, row, mark_colour(*c.outline));
    for (int row = 0; row < p.rows; ++row)
      for (int col = 0; col < p.cols; ++col)
        if (const GridCell& c = cells.at(row, col); c.quiz)
          img_.set(col, row, quiz_colour(*c.quiz));
  }

  // A chosen access (a hazard's write and read) gets a thick ring around its
  // cell: a one-pixel outline is lost on a projector when cells are small.
  // The races' cells, one ring per group of them. The quiz rings its missed
  // cells and the keyboard's cursor.
  static void draw_rings(AppState& s, ImDrawList* dl, const Placed& p, const ArrayCells& cells) {
    const float w = std::clamp(std::floor(p.cell * 0.12f), 2.0f, 5.0f);
    for (const CellBox& g : cell_groups(cells.hazard, p.rows, p.cols)) {
      const ImVec2 a(p.pos.x + float(g.c0) * p.cell - w * 0.5f,
                     p.pos.y + float(g.r0) * p.cell - w * 0.5f);
      const ImVec2 b(p.pos.x + float(g.c1 + 1) * p.cell + w * 0.5f,
                     p.pos.y + float(g.r1 + 1) * p.cell + w * 0.5f);
      const Rgb c = mark_colour(MarkStyle::Hazard);
      dl->AddRect(a, b, IM_COL32(0, 0, 0, 220), 0, 0, w + 3);
      dl->AddRect(a, b, c.abgr(), 0, 0, w);
      s.plot_marks.push_back({"grid", "hazards", p.name, a.x, a.y, b.x - a.x, b.y - a.y, c.abgr()});
    }
    for (const MarkRing& m : cells.rings) {
      const float pad = std::max(2.0f, p.cell * 0.15f);
      const ImVec2 a(p.pos.x + m.col * p.cell - pad, p.pos.y + m.row * p.cell - pad);
      const ImVec2 b(a.x + p.cell + 2 * pad, a.y + p.cell + 2 * pad);
      dl->AddRect(a, b, IM_COL32(0, 0, 0, 200), 0, 0, 5.0f);  // contrast on any fill
      dl->AddRect(a, b, mark_colour(m.style).abgr(), 0, 0, 3.0f);
    }
    for (const QuizRing& q : cells.quiz_rings) {
      const ImVec2 a(p.pos.x + q.col * p.cell + 1, p.pos.y + q.row * p.cell + 1);
      const ImVec2 b(a.x + p.cell - 2, a.y + p.cell - 2);
      const float w = std::max(2.0f, p.cell * 0.14f);
      dl->AddRect(a, b, IM_COL32(0, 0, 0, 230), 0, 0, w + 2);
      dl->AddRect(a, b, quiz_colour(q.mark).abgr(), 0, 0, w);
    }
  }

  void draw_values(const AppState& s, const Palette& pal, ImDrawList* dl, const Placed& p,
                   const ArrayCells& cells, DrawnCells& facts) const {
    ImFont* font = ImGui::GetFont();
    const float fs = value_font_size(p.cell, ImGui::GetFontSize());
    facts.value_px = fs;
    for (int row = 0; row < p.rows; ++row)
      for (int col = 0; col < p.cols; ++col) {
        const GridCell& c = cells.at(row, col);
        std::string v = c.value;
        if (c.element >= 0)
          if (auto m = memory_.cell_text(s, area(p), uint32_t(c.element))) v = *m;
        if (v.empty()) continue;
        // A long value gets a smaller size, down to three quarters; longer ones are left out.
        float size = fs;
        ImVec2 ts = font->CalcTextSizeA(size, FLT_MAX, 0, v.c_str());
        if (ts.x > p.cell - 3) {
          size = std::floor(fs * (p.cell - 3) / ts.x);
          if (size < fs * 0.75f) continue;
          ts = font->CalcTextSizeA(size, FLT_MAX, 0, v.c_str());
        }
        const Rgb fill = fill_of(img_, row, col);
        facts.text[size_t(row) * size_t(p.cols) + size_t(col)] = v;
        dl->AddText(font, size,
                    ImVec2(p.pos.x + col * p.cell + (p.cell - ts.x) * 0.5f,
                           p.pos.y + row * p.cell + (p.cell - ts.y) * 0.5f),
                    text_on(pal, fill).abgr(), v.c_str());
      }
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
    return {p.id,        p.shared, p.block, p.rows, p.cols, p.data_rows,
            p.data_cols, p.wrap,   p.pos,   p.cell, p.lead};
  }

  // What a cell prints: the memory colours' text where they have one, else
  // the cell model's (app/grid/grid_cells.hpp).
  std::string value_text(const AppState& s, const Placed& p, int row, int col) const {
    const int64_t e = p.element_at(row, col);
    if (e < 0) return {};
    if (auto m = memory_.cell_text(s, area(p), uint32_t(e))) return *m;
    return cell_value(s, p, e);
  }

  // Cells too small for values: the hovered cell, its row and its column
  // drawn large with their values, in the tooltip.
  void magnifier(const AppState& s, const Palette& pal, const Placed& p, int row, int col) {
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
      const std::string v = value_text(s, p, rr, cc);
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

  static void hover_lines(const std::vector<HoverLine>& lines) {
    for (const HoverLine& l : lines)
      if (l.style == HoverLine::Dim)
        ImGui::TextDisabled("%s", l.text.c_str());
      else if (l.style == HoverLine::Warning)
        ImGui::TextColored(ImVec4(0.84f, 0.37f, 0, 1), "%s", l.text.c_str());
      else
        ImGui::TextUnformatted(l.text.c_str());
  }

  void hover(AppState& s, const Placed& p) {
    if (!ImGui::IsWindowHovered()) return;
    ImDrawList* clip = ImGui::GetWindowDrawList();  // zoomed: cells outside the room are hidden
    if (!ImGui::IsMouseHoveringRect(clip->GetClipRectMin(), clip->GetClipRectMax())) return;
    const ImVec2 m = ImGui::GetMousePos();
    const int col = int(std::floor((m.x - p.pos.x) / p.cell));
    const int row = int(std::floor((m.y - p.pos.y) / p.cell));
    if (col < 0 || row < 0 || col >= p.cols || row >= p.rows) return;
    const CellHover h = cell_hover(s, p, row, col);
    ImGui::BeginTooltip();
    if (h.element < 0) {
      hover_lines(h.lines);
      ImGui::EndTooltip();
      return;
    }
    const uint32_t e = uint32_t(h.element);
    s.selection.hover = {true, p.id, p.block, e};
    if (!values_) magnifier(s, palette(s.present.theme), p, row, col);
    hover_lines(h.lines);
    memory_.tooltip(s, area(p), e);
    tiles_.tooltip(s, area(p), e);
    for (const std::string& mark : h.marks)
      ImGui::TextUnformatted(mark.c_str());
    ImGui::TextDisabled("click: follow the thread that computes / touched it");
    ImGui::EndTooltip();
    if (quiz_hover(s, p.id, p.block, e)) return;  // a quiz pick: click or drag
    if (ImGui::IsMouseClicked(0))
      if (const auto th = thread_behind(s, p, owners_, row, col)) {
        s.selection.block = th->first;
        s.selection.thread = th->second;
      }
  }

  // Outline the selected block's part of each output and its thread's cell;
  // at a barrier, mark who waits there.
  void selection_overlay(const AppState& s, const Palette& pal, ImDrawList* dl,
                         const std::vector<Placed>& placed) const {
    for (const Placed& p : placed) {
      if (p.shared || !p.output) continue;
      const BlockOutline o = block_outline(s, p, owners_);
      if (o.any)
        dl->AddRect(ImVec2(p.pos.x + o.c0 * p.cell - 2, p.pos.y + o.r0 * p.cell - 2),
                    ImVec2(p.pos.x + o.c1 * p.cell + 2, p.pos.y + o.r1 * p.cell + 2),
                    pal.selected.abgr(), 0, 0, 2.5f);
      if (o.thread) {
        const ImVec2 a(p.pos.x + o.thread_col * p.cell, p.pos.y + o.thread_row * p.cell);
        dl->AddRect(a, ImVec2(a.x + p.cell, a.y + p.cell), pal.selected.abgr(), 0, 0, 3.0f);
      }
      const float size = std::clamp(p.cell * 0.45f, 4.0f, 16.0f);
      for (const WaitMark& w : wait_marks(s, p, owners_, wait_))
        arrival_mark(
            dl, ImVec2(p.pos.x + float(w.col) * p.cell + 2, p.pos.y + float(w.row) * p.cell + 2),
            size, pal.barrier, w.arrived);
    }
  }

  CellRenderer renderer_;
  bool init_failed_ = false;
  Shapes shapes_;            // the lesson's arrays, as drawn last (app/grid/grid_shapes.hpp)
  OutputOwners owners_;      // which output cell each thread stores to
  ImVec2 avail_;             // the room they had
  bool drawn_once_ = false;  // shapes_ and avail_ are known
  bool slide_ = false;       // drawing a slide: the legend without its toggles
  float title_band_ = 0;     // zoomed to the subject: the titles' line above the cells' room
  float cell_ = 0;           // the cell size drawn
  bool values_ = true;       // cells big enough to print values
  BarrierWait wait_;         // who waits at the barrier the selected block is at
  CellImage img_;
  std::vector<uint8_t> touched_;  // per cell of the array being drawn: the last instruction's
  Residency res_;                 // input elements in shared memory now (app/grid/grid_cells.hpp)
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
