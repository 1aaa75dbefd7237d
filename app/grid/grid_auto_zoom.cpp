// Presenter mode's zoom to the moment's subject (app/grid/grid_auto_zoom.hpp).
#include "app/grid/grid_auto_zoom.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "app/grid/grid_arrange.hpp"
#include "app/grid/grid_cells.hpp"

namespace ts::app {

namespace {

// The shape the grid draws for (id, block), or null.
const ArrayShape* drawn_shape(const Shapes& sh, ArraySlot id, uint32_t block) {
  for (const auto* g : {&sh.inputs, &sh.shared, &sh.outputs})
    for (const ArrayShape& p : *g)
      if (p.id == id && (!p.shared || p.block == block)) return &p;
  return nullptr;
}

// The cells of the last warp instruction in the array of the last event.
GridSubject warp_access(const AppState& s, const Shapes& sh) {
  GridSubject g;
  const Replay& r = *s.replay;
  const Event* e = r.last_event();
  if (!e) return g;
  const ArrayShape* p = drawn_shape(sh, e->array, e->block);
  const ReplayArray* a = r.array(e->array);
  if (!p || !a) return g;
  for (uint32_t i = 0; i < a->count(); ++i)
    if (const CellState* c = r.cell(e->array, e->block, i); c && (c->flags & kCellTouchedNow))
      g.elements.push_back(i);
  if (g.elements.empty()) return g;
  g.any = true;
  g.id = e->array;
  g.block = p->block;
  g.what = "the warp's access";
  return g;
}

// The selected block's part of the first output, or its followed thread's cell.
GridSubject block_part(const AppState& s, const Shapes& sh, const OutputOwners& owners) {
  GridSubject g;
  if (sh.outputs.empty()) return g;
  const ArrayShape& p = sh.outputs.front();
  const BlockOutline o = block_outline(s, p, owners);
  if (!o.any) return g;
  const Trace& t = s.trace();
  const uint32_t gx = std::max(1u, t.config.geometry.grid.x);
  char what[96];
  if (o.thread) {
    std::snprintf(what, sizeof what, "thread %d's cell", s.selection.thread);
    const int64_t e = p.element_at(o.thread_row, o.thread_col);
    if (e >= 0) g.elements.push_back(uint32_t(e));
  } else {
    std::snprintf(what, sizeof what, "block (%u, %u)'s part of %s", s.selection.block % gx,
                  s.selection.block / gx, p.name.c_str());
    for (int row = o.r0; row < o.r1; ++row)
      for (int col = o.c0; col < o.c1; ++col)
        if (const int64_t e = p.element_at(row, col); e >= 0) g.elements.push_back(uint32_t(e));
  }
  g.any = !g.elements.empty();
  g.id = p.id;
  g.what = what;
  return g;
}

// The box of the subject's cells (and its margin) in an arrangement, widened
// to its array's whole rows where they fit the room (a row cut at the room's
// edge reads worse than a little less zoom than the subject needs); false
// when the array is not placed.
bool subject_box(const Arrangement& a, const GridSubject& g, ImVec2 room, ImVec2* lo, ImVec2* hi) {
  for (const Placed& p : a.arrays) {
    if (p.id != g.id || (p.shared && p.block != g.block)) continue;
    int r0 = p.rows, r1 = -1, c0 = p.cols, c1 = -1;
    for (uint32_t e : g.elements) {
      int row = 0, col = 0;
      if (!p.cell_of(e, &row, &col)) continue;
      r0 = std::min(r0, row), r1 = std::max(r1, row);
      c0 = std::min(c0, col), c1 = std::max(c1, col);
    }
    if (r1 < 0) return false;
    r0 = std::max(0, r0 - g.margin), c0 = std::max(0, c0 - g.margin);
    r1 = std::min(p.rows - 1, r1 + g.margin), c1 = std::min(p.cols - 1, c1 + g.margin);
    if (float(p.cols) * p.cell <= room.x) c0 = 0, c1 = p.cols - 1;
    *lo = ImVec2(p.pos.x + float(c0) * p.cell, p.pos.y + float(r0) * p.cell);
    *hi = ImVec2(p.pos.x + float(c1 + 1) * p.cell, p.pos.y + float(r1 + 1) * p.cell);
    // (The titles: the grid keeps a line above the zoomed room for them,
    // app/grid/array_title.hpp.)
    return true;
  }
  return false;
}

}  // namespace

float presenter_min_cell(float font) {
  return std::max(20.0f, std::ceil(font * 0.7f));
}

float presenter_zoom_cell(float font) {
  return std::max(24.0f, std::ceil(font));
}

GridSubject grid_subject(const AppState& s, const Shapes& sh, const OutputOwners& owners) {
  GridSubject g;
  if (!s.has_trace()) return g;
  const Replay& r = *s.replay;
  // A quiz question about cells: its array, every cell of it a pick.
  if (const Question* q = s.quiz.question(); q && q->cells())
    if (const ArrayShape* p = drawn_shape(sh, q->array, q->block)) {
      g.any = true;
      g.id = q->array;
      g.block = p->block;
      for (uint32_t e = 0; e < uint32_t(p->data_rows * p->data_cols); ++e)
        g.elements.push_back(e);
      g.what = "the question's " + p->name;
      return g;
    }
  if (r.position() > 0) {
    const uint32_t i = r.event_at(r.position());
    const Event& e = r.trace().events[i];
    if (r.is_stale_read(i) && drawn_shape(sh, e.array, e.block)) {
      g.any = true;
      g.id = e.array;
      g.block = e.block;
      g.elements = {e.element};
      g.margin = 2;  // its neighbours: the row and column the thread reads along
      g.what = "the stale read";
      return g;
    }
  }
  // At the end of the run: the races' cells where the output came out right
  // regardless (a warp race racecheck reports), else the output, the news
  // cell by cell.
  if (r.position() >= r.size() && s.result.verdict.correct) {
    const auto it = s.marks.find("races");
    GridSubject h;
    if (it != s.marks.end())
      for (const CellMark& m : it->second)
        if (m.style == MarkStyle::Hazard && drawn_shape(sh, m.buffer, m.block) &&
            (h.elements.empty() || (m.buffer == h.id && m.block == h.block))) {
          h.any = true;
          h.id = m.buffer;
          h.block = drawn_shape(sh, m.buffer, m.block)->block;
          h.elements.push_back(m.element);
        }
    if (h.any) {
      h.what = "the racing cells";
      return h;
    }
  }
  if (r.position() >= r.size() && !sh.outputs.empty()) {
    const ArrayShape& p = sh.outputs.front();
    g.any = true;
    g.id = p.id;
    for (uint32_t e = 0; e < uint32_t(p.data_rows * p.data_cols); ++e)
      g.elements.push_back(e);
    g.what = "the output, " + p.name;
    return g;
  }
  g = warp_access(s, sh);
  if (g.any) return g;
  return block_part(s, sh, owners);
}

std::optional<ZoomedRoom> auto_zoom_room(AppState& s, const Shapes& fit_shapes,
                                         const OutputOwners& owners, ImVec2 origin, ImVec2 avail,
                                         int* wrap) {
  const Presentation& pr = s.present;
  if (!subject_zoom_mode(pr) || !pr.auto_zoom || pr.grid_zoom != 1.0f || avail.x < 40 ||
      avail.y < 40)
    return std::nullopt;
  const float font = ImGui::GetFontSize();
  const Arrangement fit = arrange(fit_shapes, ImVec2(0, 0), avail);
  if (fit.arrays.empty() || fit.cell >= presenter_min_cell(font)) return std::nullopt;
  Shapes sh = fit_shapes;
  if (const std::vector<int> widths = wrap_widths(fit_shapes); !widths.empty()) {
    sh = rewrapped(fit_shapes, widths.front());
    sh.pinned_wrap = widths.front();
  }
  if (wrap) *wrap = sh.pinned_wrap;
  GridSubject g = grid_subject(s, sh, owners);
  if (!g.any) return std::nullopt;
  const float want = presenter_zoom_cell(font), floor_cell = presenter_min_cell(font);
  float k = 1;
  Arrangement a;
  ImVec2 lo, hi;
  // The zoom for a subject: false when it is not placed.
  auto zoom_to = [&](const GridSubject& subject) {
    // The least zoom whose cells reach the zoom cell (titles and gaps do not
    // grow with the zoom, so a step or two past the ratio).
    k = std::clamp(want / std::max(1.0f, fit.cell), 1.0f, 32.0f);
    a = arrange(sh, ImVec2(0, 0), ImVec2(avail.x * k, avail.y * k));
    for (int i = 0; i < 16 && a.cell < want && k < 32; ++i) {
      k *= 1.08f;
      a = arrange(sh, ImVec2(0, 0), ImVec2(avail.x * k, avail.y * k));
    }
    // A larger room may arrange the arrays another way, with far bigger
    // cells: back down to the zoom cell (a room of 95 px cells showed one
    // row of a quiz's tile).
    for (int i = 0; i < 24 && a.cell > want * 1.15f && k > 1.08f; ++i) {
      const Arrangement less =
          arrange(sh, ImVec2(0, 0), ImVec2(avail.x * k / 1.08f, avail.y * k / 1.08f));
      if (less.cell < want) break;
      k /= 1.08f;
      a = less;
    }
    if (!subject_box(a, subject, avail, &lo, &hi)) return false;
    // A subject larger than the room (a block's part of a big output): zoom out
    // until it fits, not below the legible cell.
    for (int i = 0; i < 16 && (hi.x - lo.x > avail.x || hi.y - lo.y > avail.y); ++i) {
      const Arrangement smaller =
          arrange(sh, ImVec2(0, 0), ImVec2(avail.x * k / 1.08f, avail.y * k / 1.08f));
      ImVec2 l2, h2;
      if (smaller.cell < floor_cell || !subject_box(smaller, subject, avail, &l2, &h2)) break;
      k /= 1.08f;
      a = smaller, lo = l2, hi = h2;
    }
    return true;
  };
  if (!zoom_to(g)) return std::nullopt;
  // The whole output at the end larger than the room even at the legible
  // cell: the selected block's part of it, which fits.
  if ((hi.x - lo.x > avail.x || hi.y - lo.y > avail.y) && g.what.rfind("the output", 0) == 0)
    if (GridSubject part = block_part(s, sh, owners); part.any) {
      const GridSubject whole = g;
      if (zoom_to(part) && hi.x - lo.x <= avail.x && hi.y - lo.y <= avail.y)
        g = part;
      else
        zoom_to(whole);
    }
  // The subject in the middle of the room; the view kept on the arrays (the
  // zoomed room's empty margins out of it) where they are larger than the
  // room. The top row's titles go in the line the grid keeps above the room.
  ImVec2 c0(1e30f, 1e30f), c1(-1e30f, -1e30f);
  for (const Placed& p : a.arrays) {
    c0 = ImVec2(std::min(c0.x, p.pos.x), std::min(c0.y, p.pos.y));
    c1 = ImVec2(std::max(c1.x, p.pos.x + float(p.cols) * p.cell),
                std::max(c1.y, p.pos.y + float(p.rows) * p.cell));
  }
  auto pan = [](float want, float lo_edge, float hi_edge, float room, float virt) {
    const float from = std::max(0.0f, lo_edge - 4), to = std::min(virt - room, hi_edge + 4 - room);
    return from <= to ? std::clamp(want, from, to)
                      : std::clamp(want, 0.0f, std::max(0.0f, virt - room));
  };
  const float px = pan((lo.x + hi.x - avail.x) * 0.5f, c0.x, c1.x, avail.x, avail.x * k);
  const float py = pan((lo.y + hi.y - avail.y) * 0.5f, c0.y, c1.y, avail.y, avail.y * k);
  ZoomFacts& f = s.grid_facts.zoom;
  f.active = true;
  f.zoom = k;
  f.what = g.what;
  f.id = g.id;
  f.block = g.block;
  f.elements = g.elements;
  const float box[4] = {origin.x + lo.x - px, origin.y + lo.y - py, hi.x - lo.x, hi.y - lo.y};
  std::copy(box, box + 4, f.box);
  return ZoomedRoom{ImVec2(std::floor(origin.x - px), std::floor(origin.y - py)),
                    ImVec2(avail.x * k, avail.y * k)};
}

std::string auto_zoom_line(const AppState& s) {
  const ZoomFacts& f = s.grid_facts.zoom;
  if (!f.active) return {};
  std::string where;
  if (s.has_trace() && f.elements.size() == 1)
    where = ", " + element_name(s.trace().config.arrays, f.id, f.elements.front());
  return "Zoomed to " + f.what + where + "   (0: the whole grid)";
}

}  // namespace ts::app
