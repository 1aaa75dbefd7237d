// Grid: the lesson's arrays as cells (A, B, C as in the textbook picture, or
// the stencil's In and Out wrapped one block per row), the selected block's
// shared memory beside them, drawn with our shaders (app/cell_renderer.hpp).
// Colours follow app/palette.hpp; the legend on top says what each means.
#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <unordered_set>

#include "app/cell_renderer.hpp"
#include "app/palette.hpp"
#include "app/view.hpp"

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
  Buffer id = Buffer::None;
  bool shared = false;
  uint32_t block = 0;
  int rows = 0, cols = 0;            // cells drawn
  int data_rows = 0, data_cols = 0;  // cells of the array itself
  int wrap = 0;                      // 1D arrays wrapped into rows of `wrap` cells
  int tile = 0;
  std::string title;
  ImVec2 pos;  // top left of the cells
  float cell = 0;
};

}  // namespace

class GridView final : public View {
 public:
  const char* name() const override { return "Grid"; }
  Slot slot() const override { return Slot::Center; }
  int order() const override { return 0; }

  void draw(AppState& s) override {
    s.drawn.clear();
    s.selection.hover = {};
    if (!renderer_.ready() && !init_failed_) {
      std::string err;
      if (!renderer_.init(&err)) {
        init_failed_ = true;
        s.banner.show(Banner::Error, "The grid's shaders did not build: " + err);
      }
    }
    renderer_.begin_frame();
    if (!s.has_trace()) {
      ImGui::TextDisabled(
          s.job.active() ? "Running the lesson..."
                         : "No trace yet: press Run in the Lesson panel, or open a trace file.");
      return;
    }
    const Replay& r = *s.replay;
    const Trace& t = r.trace();
    const Palette& pal = palette(s.present.theme);
    if (s.selection.block >= r.block_count()) s.selection.block = 0;

    draw_header(s, r, pal);
    legend(s, pal);

    const ImVec2 origin = ImGui::GetCursorScreenPos();
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    if (avail.x < 40 || avail.y < 40) return;
    std::vector<Placed> placed = layout(s, r, t, origin, avail);
    resident(s, r);

    ImDrawList* dl = ImGui::GetWindowDrawList();
    for (Placed& p : placed)
      draw_array(s, r, t, pal, dl, p);
    selection_overlay(s, t, pal, dl, placed);
    ImGui::Dummy(avail);
  }

 private:
  void draw_header(AppState& s, const Replay& r, const Palette&) {
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
    // The hint last, and only where the line has room for it (a narrow pane).
    char hint[64];
    std::snprintf(hint, sizeof hint, "(click a cell of %s to follow its block)",
                  r.array(Buffer::C) ? "C" : "Out");
    if (same_line_if_fits(ImGui::CalcTextSize(hint).x)) ImGui::TextDisabled("%s", hint);
  }

  void toggles(AppState& s) {
    const float need = ImGui::CalcTextSize("values  heatmap").x + ImGui::GetFrameHeight() * 2 + 30;
    if (ImGui::GetContentRegionAvail().x < need) ImGui::NewLine();
    ImGui::Checkbox("values", &s.present.show_values);
    ImGui::SameLine();
    ImGui::Checkbox("heatmap (H)", &s.present.heatmap);
  }

  // Starts a new legend line when the next chip would not fit.
  void wrap_for(const char* label) {
    const float need = ImGui::GetTextLineHeight() + 4 + ImGui::CalcTextSize(label).x + 14;
    if (ImGui::GetContentRegionAvail().x < need) ImGui::NewLine();
  }

  void chip(Rgb c, const char* label, bool hatch = false) {
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
    if (s.present.heatmap) {
      ImGui::TextUnformatted("Global loads per element:");
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
    const bool stencil = s.has_trace() && s.replay->array(Buffer::In) != nullptr;
    chip(pal.loaded, stencil ? "in shared memory" : "tile in shared memory");
    chip(pal.loaded_other, stencil ? "in other blocks' shared memory" : "other blocks' tiles");
    if (stencil) chip(pal.halo, "halo");
    chip(pal.padded, "padding", true);
    chip(pal.written, "written");
    chip(pal.wrong, "wrong / stale");
    outline_chip(pal.touched, "last instruction");
    toggles(s);
  }

  std::vector<Placed> layout(AppState& s, const Replay& r, const Trace& t, ImVec2 origin,
                             ImVec2 avail) {
    std::vector<Placed> out;
    const float label_h = ImGui::GetTextLineHeightWithSpacing() + 2;
    const float gap = ImGui::GetFontSize() * 1.5f;
    const int tile = t.config.params.tile;
    auto padded = [&](int n) { return tile > 0 ? (n + tile - 1) / tile * tile : n; };
    auto make = [&](Buffer id, bool shared, const std::string& title) {
      Placed p;
      const ReplayArray* a = r.array(id);
      if (!a) return p;
      p.id = id;
      p.shared = shared;
      p.block = shared ? s.selection.block : 0;
      p.data_rows = a->rows;
      p.data_cols = a->cols;
      p.rows = a->rows;
      p.cols = a->cols;
      p.title = title;
      return p;
    };

    if (r.array(Buffer::A)) {
      // Matrix multiply: A, B and C (in one of two arrangements, below), shared arrays on the
      // right.
      Placed A = make(Buffer::A, false, "A"), B = make(Buffer::B, false, "B"),
             C = make(Buffer::C, false, "C = A x B");
      for (Placed* p : {&A, &B, &C}) {
        if (tile > 0 && !t.config.variant.empty() &&
            t.config.variant.find("tiled") != std::string::npos) {
          p->rows = padded(p->data_rows);
          p->cols = padded(p->data_cols);
          p->tile = tile;
        }
      }
      // Shared arrays under the names the kernel's source gives them (tileA, rowsA, ...).
      Placed TA = make(Buffer::TileA, true, source_name(t.config.variant, Buffer::TileA)),
             TB = make(Buffer::TileB, true, source_name(t.config.variant, Buffer::TileB));
      const bool has_shared = TA.id != Buffer::None || TB.id != Buffer::None;
      const int sw = std::max(TA.cols, TB.cols), sh = TA.rows + TB.rows;
      // The shared column is at least as wide as its titles.
      const float title_w = has_shared ? ImGui::CalcTextSize("tileA of block (00, 00)").x : 0.0f;
      const float avail_h = avail.y - 2 * label_h - gap;
      // The largest cell that fits `cols` x `rows` matrix cells and the shared
      // column beside them (`shared_h` high, at least as wide as its titles).
      auto fit = [&](int cols, int rows, float gaps, float h, float shared_h) {
        const float w = avail.x - gaps - 4;
        float c = std::min(w / float(cols + (has_shared ? sw : 0)), h / float(rows));
        if (has_shared && sh > 0) c = std::min(c, shared_h / float(sh));
        if (has_shared && c * sw < title_w) c = std::min(c, (w - title_w) / float(cols));
        return c;
      };
      // Classic: B above C, A to the left of C (the row of A and the column of
      // B meet at their cell of C). Width A + C (+ shared), height B + C.
      const float wgaps = gap * (has_shared ? 2.5f : 1.0f);
      const float cell_classic = fit(A.cols + C.cols, B.rows + C.rows, wgaps, avail_h, avail_h);
      // In a row: A, B, C (and shared) side by side. A wide, short pane (a
      // projector, the grid-only view) fits cells twice as big this way.
      const float rgaps = gap * (has_shared ? 3.5f : 2.0f);
      const float row_h = avail.y - label_h - 4;
      const float cell_row = fit(A.cols + B.cols + C.cols, std::max({A.rows, B.rows, C.rows}),
                                 rgaps, row_h, row_h - label_h - gap * 0.5f);
      // The classic picture unless the row is clearly bigger.
      const bool in_row = cell_row > cell_classic * 1.25f;
      const float cell = std::clamp(std::floor(in_row ? cell_row : cell_classic), 2.0f, 72.0f);
      const float shared_w = has_shared ? std::max(cell * sw, title_w) : 0.0f;
      const float used_w = in_row ? cell * float(A.cols + B.cols + C.cols) + shared_w + rgaps
                                  : cell * float(A.cols + C.cols) + shared_w + wgaps;
      const float x0 = origin.x + std::max(0.0f, (avail.x - used_w) * 0.5f);
      const float y0 = origin.y + label_h;
      A.cell = B.cell = C.cell = TA.cell = TB.cell = cell;
      if (in_row) {
        A.pos = ImVec2(x0, y0);
        B.pos = ImVec2(A.pos.x + A.cols * cell + gap, y0);
        C.pos = ImVec2(B.pos.x + B.cols * cell + gap, y0);
      } else {
        B.pos = ImVec2(x0 + A.cols * cell + gap, y0);
        C.pos = ImVec2(B.pos.x, y0 + B.rows * cell + label_h + gap * 0.5f);
        A.pos = ImVec2(x0, C.pos.y);
      }
      out.push_back(A);
      out.push_back(B);
      out.push_back(C);
      if (has_shared) {
        const float sx = C.pos.x + C.cols * cell + gap * 1.5f;
        TA.pos = ImVec2(sx, y0);
        TB.pos = ImVec2(sx, y0 + TA.rows * cell + label_h + gap * 0.5f);
        if (TA.id != Buffer::None) out.push_back(TA);
        if (TB.id != Buffer::None) out.push_back(TB);
      }
    } else if (r.array(Buffer::In)) {
      // Stencil: In and Out wrapped one block per row, the block's shared array between.
      const int block = std::max(1, int(t.config.geometry.block.x));
      Placed In = make(Buffer::In, false, "In"), Out = make(Buffer::Out, false, "Out");
      Placed Sh = make(Buffer::StencilShared, true,
                       std::string(source_name(t.config.variant, Buffer::StencilShared)) +
                           " (halo | block | halo)");
      for (Placed* p : {&In, &Out}) {
        const int n = p->data_rows * p->data_cols;
        p->wrap = block;
        p->cols = block;
        p->rows = (n + block - 1) / block;
      }
      const bool has_shared = Sh.id != Buffer::None;
      const int radius = t.config.params.radius;
      const int wcells = std::max(block, has_shared ? Sh.cols : 0);
      const float hcells = float(In.rows + Out.rows + (has_shared ? 1 : 0));
      const float vgaps = label_h * (has_shared ? 3 : 2) + gap * (has_shared ? 2 : 1);
      float cell = std::min((avail.x - 4) / float(wcells), (avail.y - vgaps) / hcells);
      cell = std::clamp(std::floor(cell), 2.0f, 72.0f);
      // Line the block's cells up under each other: the shared array starts R cells earlier.
      const float x_in = origin.x + std::max(0.0f, (avail.x - wcells * cell) * 0.5f) +
                         (has_shared ? radius * cell : 0);
      float y = origin.y + label_h;
      In.cell = Out.cell = Sh.cell = cell;
      In.pos = ImVec2(x_in, y);
      y += In.rows * cell + gap + label_h;
      out.push_back(In);
      if (has_shared) {
        Sh.pos = ImVec2(x_in - radius * cell, y);
        y += cell + gap + label_h;
        out.push_back(Sh);
      }
      Out.pos = ImVec2(x_in, y);
      out.push_back(Out);
    }
    for (Placed& p : out) {
      p.pos = ImVec2(std::floor(p.pos.x), std::floor(p.pos.y));  // whole pixels: crisp lines
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
    return out;
  }

  // Which input elements sit in shared memory now: of the selected block, of others.
  void resident(const AppState& s, const Replay& r) {
    res_sel_.clear();
    res_other_.clear();
    res_sel_halo_.clear();
    const int radius = r.trace().config.params.radius;
    for (const ReplayArray& a : r.arrays()) {
      if (!a.shared) continue;
      for (uint32_t b = 0; b < a.blocks; ++b)
        for (uint32_t e = 0; e < a.count(); ++e) {
          const CellState* c = r.cell(a.id, b, e);
          if (!c || !(c->flags & kCellLoaded) || c->src < 0) continue;
          const uint64_t key = (uint64_t(c->src_buffer) << 32) | uint32_t(c->src);
          // The selected block's halo slots: their input elements get the halo
          // colour too, so the picture shows where the halo comes from.
          const bool halo_slot = a.id == Buffer::StencilShared &&
                                 (int64_t(e) < radius || int64_t(e) >= int64_t(a.count()) - radius);
          if (b != s.selection.block)
            res_other_.insert(key);
          else
            (halo_slot ? res_sel_halo_ : res_sel_).insert(key);
        }
    }
    // One scale for every lesson: how often an element would be read if nothing
    // were shared (n for a multiply, 2R + 1 for a stencil), so that naive and
    // tiled can be compared picture to picture.
    const Trace& t = r.trace();
    heat_max_ = 1;
    if (const ReplayArray* c = r.array(Buffer::C))
      heat_max_ = uint32_t(std::max(c->rows, c->cols));
    else
      heat_max_ = uint32_t(2 * std::max(0, t.config.params.radius) + 1);
    for (const ReplayArray& a : r.arrays())
      if (!a.shared && !a.is_output)
        for (uint32_t e = 0; e < a.count(); ++e)
          heat_max_ = std::max(heat_max_, r.cell(a.id, 0, e)->reads);
  }

  // Wrong only once the cell's last store is drawn: before, it is unfinished.
  bool is_wrong(const AppState& s, Buffer id, uint32_t e) const {
    const auto& w = s.result.verdict.wrong_cells;
    return (id == Buffer::C || id == Buffer::Out) && s.replay->output_final(id, e) &&
           std::binary_search(w.begin(), w.end(), e);
  }

  void draw_array(AppState& s, const Replay& r, const Trace& t, const Palette& pal, ImDrawList* dl,
                  Placed& p) {
    // Title above the cells.
    char title[96];
    if (p.shared) {
      const uint32_t gx = std::max(1u, t.config.geometry.grid.x);
      std::snprintf(title, sizeof title, "%s of block (%u, %u)", p.title.c_str(), p.block % gx,
                    p.block / gx);
    } else {
      std::snprintf(title, sizeof title, "%s  (%d x %d)", p.title.c_str(), p.data_rows,
                    p.data_cols);
    }
    if (p.wrap)
      std::snprintf(title, sizeof title, "%s  (%d elements, one block per row)", p.title.c_str(),
                    p.data_cols);
    dl->AddText(ImVec2(p.pos.x, p.pos.y - ImGui::GetTextLineHeightWithSpacing()), pal.text.abgr(),
                title);

    img_.resize(p.cols, p.rows);
    img_.tile_w = img_.tile_h = p.tile;
    const bool heatmap = s.present.heatmap;
    const int radius = t.config.params.radius;
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
            fill = (p.id == Buffer::StencilShared && (col < radius || col >= p.data_cols - radius))
                       ? pal.halo
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
        if (c->flags & kCellTouchedNow) img_.set_outline(col, row, pal.touched);
      }
    // Marks from other panels (races, verdict, ...).
    for (const auto& [owner, marks] : s.marks)
      for (const CellMark& m : marks) {
        if (m.buffer != p.id || (p.shared && m.block != p.block)) continue;
        if (m.style == MarkStyle::Wrong && !r.output_final(m.buffer, m.element)) continue;
        int row = 0, col = 0;
        if (!cell_of(p, m.element, &row, &col)) continue;
        img_.set_outline(col, row, mark_colour(m.style));
      }
    const ImVec2 p1(p.pos.x + p.cols * p.cell, p.pos.y + p.rows * p.cell);
    renderer_.draw(dl, p.pos, p1, img_, pal);
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

    // Values, when they fit.
    if (s.present.show_values && p.cell >= 14) {
      ImFont* font = ImGui::GetFont();
      const float fs = std::min(ImGui::GetFontSize(), std::floor(p.cell * 0.5f));
      for (int row = 0; row < p.rows; ++row)
        for (int col = 0; col < p.cols; ++col) {
          int64_t e =
              p.wrap ? int64_t(row) * p.wrap + col
                     : (row < p.data_rows && col < p.data_cols ? int64_t(row) * p.data_cols + col
                                                               : -1);
          if (e < 0 || e >= int64_t(p.data_rows) * p.data_cols) continue;
          const CellState* c = r.cell(p.id, p.block, uint32_t(e));
          if (!c) continue;
          const ReplayArray* a = r.array(p.id);
          if ((p.shared || (a && a->is_output)) && !(c->flags & kCellWritten)) continue;
          // The heatmap prints how often each input element was loaded.
          const bool count = heatmap && !p.shared && !(a && a->is_output);
          const std::string v = count ? std::to_string(c->reads) : format_value(c->value);
          const ImVec2 ts = font->CalcTextSizeA(fs, FLT_MAX, 0, v.c_str());
          if (ts.x > p.cell - 3) continue;
          const uint32_t px = img_.fill[size_t(row) * size_t(p.cols) + size_t(col)];
          const Rgb fill{uint8_t(px), uint8_t(px >> 8), uint8_t(px >> 16)};
          dl->AddText(font, fs,
                      ImVec2(p.pos.x + col * p.cell + (p.cell - ts.x) * 0.5f,
                             p.pos.y + row * p.cell + (p.cell - ts.y) * 0.5f),
                      text_on(pal, fill).abgr(), v.c_str());
        }
    }
    hover(s, r, t, p);
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
    const ImVec2 m = ImGui::GetMousePos();
    const int col = int(std::floor((m.x - p.pos.x) / p.cell));
    const int row = int(std::floor((m.y - p.pos.y) / p.cell));
    if (col < 0 || row < 0 || col >= p.cols || row >= p.rows) return;
    int64_t e =
        p.wrap ? int64_t(row) * p.wrap + col
               : (row < p.data_rows && col < p.data_cols ? int64_t(row) * p.data_cols + col : -1);
    ImGui::BeginTooltip();
    if (e < 0 || e >= int64_t(p.data_rows) * p.data_cols) {
      ImGui::TextUnformatted("Outside the array: a tile hanging over the edge.");
      ImGui::TextDisabled("Threads here load a zero instead (padding).");
      ImGui::EndTooltip();
      return;
    }
    const CellState* c = r.cell(p.id, p.block, uint32_t(e));
    s.selection.hover = {true, p.id, p.block, uint32_t(e)};
    const uint32_t bx = std::max(1u, t.config.geometry.block.x);
    const uint32_t gx = std::max(1u, t.config.geometry.grid.x);
    if (p.wrap)
      ImGui::Text("%s[%lld]", source_name(t.config.variant, p.id), (long long)e);
    else
      ImGui::Text("%s[%d][%d]", p.title.substr(0, p.title.find(' ')).c_str(), row, col);
    if (c) {
      const ReplayArray* a = r.array(p.id);
      const bool shows = !(p.shared || (a && a->is_output)) || (c->flags & kCellWritten);
      if (shows) ImGui::Text("value %s", format_value(c->value).c_str());
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
        ImGui::Text("copied from %s[%d]", to_string(c->src_buffer), c->src);
      if (c->flags & kCellStale)
        ImGui::TextColored(ImVec4(0.84f, 0.37f, 0, 1), "a thread read a stale value here (a race)");
      if (is_wrong(s, p.id, uint32_t(e)))
        ImGui::TextColored(ImVec4(0.84f, 0.37f, 0, 1), "wrong: differs from the CPU reference");
    }
    for (const auto& [owner, marks] : s.marks)
      for (const CellMark& mk : marks)
        if (mk.buffer == p.id && mk.element == uint32_t(e) && (!p.shared || mk.block == p.block) &&
            !mk.label.empty())
          ImGui::Text("%s: %s", owner.c_str(), mk.label.c_str());
    ImGui::TextDisabled("click: follow the thread that computes / touched it");
    ImGui::EndTooltip();
    if (ImGui::IsMouseClicked(0)) {
      const ReplayArray* a = r.array(p.id);
      if (a && a->is_output) {
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
      if (p.shared || !(p.id == Buffer::C || p.id == Buffer::Out)) continue;
      if (p.wrap) {
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
    }
  }

  CellRenderer renderer_;
  bool init_failed_ = false;
  CellImage img_;
  std::unordered_set<uint64_t> res_sel_, res_sel_halo_, res_other_;
  uint32_t heat_max_ = 1;
};

TS_REGISTER_VIEW(GridView);

}  // namespace ts::app
