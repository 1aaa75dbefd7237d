// What every cell of the grid shows (app/grid/grid_cells.hpp).
#include "app/grid/grid_cells.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "app/grid/grid_auto_zoom.hpp"

namespace ts::app {

namespace {

uint64_t key_of(uint64_t buffer, uint32_t element) {
  return (buffer << 32) | element;
}

bool is_output(const Replay& r, ArraySlot id) {
  const ReplayArray* a = r.array(id);
  return a && a->is_output;
}

// A shared slot's role: stale over padded over loaded over written.
CellRole shared_role(const ArrayShape& p, const CellState& c, int row, int col) {
  if (c.flags & kCellStale) return CellRole::Stale;
  if (c.flags & kCellPadded) return CellRole::SharedPadded;
  if (c.flags & kCellLoaded)
    return p.in_halo(row, col) ? CellRole::SharedHalo : CellRole::SharedLoaded;
  if (c.flags & kCellWritten) return CellRole::SharedWritten;
  return CellRole::SharedEmpty;
}

CellRole output_role(const AppState& s, const ArrayShape& p, const CellState& c, uint32_t e,
                     bool at_end) {
  if (c.flags & kCellWritten) return cell_wrong(s, p.id, e) ? CellRole::Wrong : CellRole::Written;
  if (at_end && cell_wrong(s, p.id, e)) return CellRole::Wrong;
  return CellRole::Plain;
}

CellRole input_role(const AppState& s, const Residency& res, const ArrayShape& p,
                    const CellState& c, uint32_t e) {
  const uint64_t key = key_of(p.id, e);
  if (s.present.heatmap) return c.reads ? CellRole::Heat : CellRole::Plain;
  if (res.selected.count(key)) return CellRole::Resident;
  if (res.selected_halo.count(key)) return CellRole::ResidentHalo;
  if (res.other.count(key)) return CellRole::ResidentOther;
  if (c.reads) return CellRole::InputRead;
  return CellRole::Plain;
}

GridCell cell_at(const AppState& s, const ArrayShape& p, const Residency& res, int row, int col,
                 bool at_end) {
  const Replay& r = *s.replay;
  GridCell g;
  g.element = p.element_at(row, col);
  if (g.element < 0) {
    // Beyond a tile's overhang the tiles hold zeros (padding); past the
    // end of a wrapped 1D array there is no element at all.
    g.role = p.wrap ? CellRole::PastEnd : CellRole::Padding;
    g.hatched = !p.wrap;
    return g;
  }
  const uint32_t e = uint32_t(g.element);
  const CellState* c = r.cell(p.id, p.block, e);
  if (!c) {
    g.role = CellRole::NoState;
    return g;
  }
  g.reads = c->reads;
  g.touched = (c->flags & kCellTouchedNow) != 0;
  if (p.shared) {
    g.role = shared_role(p, *c, row, col);
    g.hatched = (c->flags & kCellPadded) != 0;
  } else if (is_output(r, p.id)) {
    g.role = output_role(s, p, *c, e, at_end);
  } else {
    g.role = input_role(s, res, p, *c, e);
  }
  return g;
}

// Does a mark or a quiz paint of (buffer, block) belong on p.
bool on(const ArrayShape& p, ArraySlot buffer, uint32_t block) {
  return buffer == p.id && (!p.shared || block == p.block);
}

// Marks from other panels (races, verdict, ...) and the quiz's paint.
void add_marks(const AppState& s, const ArrayShape& p, ArrayCells& out) {
  const Replay& r = *s.replay;
  int row = 0, col = 0;
  for (const auto& [owner, marks] : s.marks)
    for (const CellMark& m : marks) {
      if (!on(p, m.buffer, m.block)) continue;
      if (m.style == MarkStyle::Wrong && !r.output_final(m.buffer, m.element)) continue;
      if (!p.cell_of(m.element, &row, &col)) continue;
      out.cells[size_t(row) * size_t(p.cols) + size_t(col)].outline = m.style;
    }
  for (const QuizPaint& q : s.quiz.paint)  // chosen, right, extra cells
    if (!q.ring() && on(p, q.buffer, q.block) && p.cell_of(q.element, &row, &col))
      out.cells[size_t(row) * size_t(p.cols) + size_t(col)].quiz = q.mark;
  // Rings: a chosen access's write and read; in presenter mode and the grid
  // focus the races' cells too, a ring per group of them (a one-pixel outline
  // is lost on a projector, a ring per cell crowds it).
  const bool projector = hall_view(s.present);
  for (const auto& [owner, marks] : s.marks)
    for (const CellMark& m : marks) {
      if (!on(p, m.buffer, m.block) || !p.cell_of(m.element, &row, &col)) continue;
      if (m.style == MarkStyle::Write || m.style == MarkStyle::Read) {
        out.rings.push_back({row, col, m.style});
      } else if (m.style == MarkStyle::Hazard && projector) {
        out.hazard.resize(out.cells.size(), 0);
        out.hazard[size_t(row) * size_t(p.cols) + size_t(col)] = 1;
      }
    }
  for (const QuizPaint& q : s.quiz.paint)  // missed cells and the keyboard's cursor
    if (q.ring() && on(p, q.buffer, q.block) && p.cell_of(q.element, &row, &col))
      out.quiz_rings.push_back({row, col, q.mark});
}

// The hover lines of a cell with a replay state.
void state_lines(const AppState& s, const ArrayShape& p, const CellState& c, uint32_t e,
                 std::vector<HoverLine>& lines) {
  const Trace& t = s.trace();
  const bool output = is_output(*s.replay, p.id);
  const uint32_t bx = std::max(1u, t.config.geometry.block.x);
  const uint32_t gx = std::max(1u, t.config.geometry.grid.x);
  char buf[256];
  auto line = [&](HoverLine::Style style, const std::string& text) {
    lines.push_back({style, text});
  };
  if (!(p.shared || output) || (c.flags & kCellWritten))
    line(HoverLine::Plain, "value " + format_value(c.value));
  else if (c.flags & kCellReadUnwritten)
    line(HoverLine::Plain, "read " + format_value(c.value) + " before anything was stored here");
  if (c.time) {
    std::snprintf(buf, sizeof buf, "last %s by block (%u, %u) thread (%u, %u) at step %u",
                  to_string(c.last_kind), c.block % gx, c.block / gx, c.thread % bx, c.thread / bx,
                  c.time);
    line(HoverLine::Plain, buf);
  } else {
    line(HoverLine::Dim, "not touched yet");
  }
  if (!p.shared && !output)
    line(HoverLine::Plain, "read from global memory " + std::to_string(c.reads) + " times so far");
  if (c.flags & kCellPadded)
    line(HoverLine::Plain, "padding: a zero for an element outside the matrix");
  if ((c.flags & kCellLoaded) && p.shared && c.src >= 0)
    line(HoverLine::Plain,
         "copied from " + element_name(t.config.arrays, c.src_buffer, uint32_t(c.src)));
  if (c.flags & kCellStale) line(HoverLine::Warning, "a thread read a stale value here (a race)");
  if (cell_wrong(s, p.id, e)) line(HoverLine::Warning, "wrong: differs from the CPU reference");
}

}  // namespace

const char* to_string(CellRole r) {
  switch (r) {
    case CellRole::NoState:
      return "no state";
    case CellRole::PastEnd:
      return "past the end";
    case CellRole::Padding:
      return "padding";
    case CellRole::Plain:
      return "plain";
    case CellRole::InputRead:
      return "read";
    case CellRole::Heat:
      return "heat";
    case CellRole::Resident:
      return "in shared memory";
    case CellRole::ResidentHalo:
      return "in the halo";
    case CellRole::ResidentOther:
      return "in other blocks' shared memory";
    case CellRole::SharedEmpty:
      return "empty";
    case CellRole::SharedLoaded:
      return "loaded";
    case CellRole::SharedHalo:
      return "halo";
    case CellRole::SharedPadded:
      return "padded";
    case CellRole::SharedWritten:
      return "written (shared)";
    case CellRole::Stale:
      return "stale";
    case CellRole::Written:
      return "written";
    case CellRole::Wrong:
      return "wrong";
  }
  return "?";
}

std::string format_value(float v) {
  char buf[32];
  if (std::isfinite(v) && std::fabs(v) < 1e6f && v == std::round(v))
    std::snprintf(buf, sizeof buf, "%d", int(v));
  else
    std::snprintf(buf, sizeof buf, "%.3g", double(v));
  return buf;
}

bool cell_wrong(const AppState& s, ArraySlot id, uint32_t e) {
  // The verdict's wrong cells are of the trace's (first) output.
  const auto& w = s.result.verdict.wrong_cells;
  const BufferData* out = s.trace().output();
  return out && id == out->slot && s.replay->output_final(id, e) &&
         std::binary_search(w.begin(), w.end(), e);
}

Residency residency(const Replay& r, const Shapes& sh, uint32_t selected_block) {
  Residency res;
  for (const ReplayArray& a : r.arrays()) {
    if (!a.shared) continue;
    const ArrayShape* shape = nullptr;
    for (const ArrayShape& p : sh.shared)
      if (p.id == a.id) shape = &p;
    for (uint32_t b = 0; b < a.blocks; ++b)
      for (uint32_t e = 0; e < a.count(); ++e) {
        const CellState* c = r.cell(a.id, b, e);
        if (!c || !(c->flags & kCellLoaded) || c->src < 0) continue;
        const uint64_t key = key_of(c->src_buffer, uint32_t(c->src));
        // The selected block's halo slots: their input elements get the halo
        // colour too, so the picture shows where the halo comes from.
        int row = int(e / uint32_t(a.cols)), col = int(e % uint32_t(a.cols));
        if (shape && shape->wrap) shape->cell_of(e, &row, &col);  // wrapped into warp rows
        const bool halo_slot = shape && shape->in_halo(row, col);
        if (b != selected_block)
          res.other.insert(key);
        else
          (halo_slot ? res.selected_halo : res.selected).insert(key);
      }
  }
  // One scale for every lesson: how often an element would be read if nothing
  // were shared (a multiply: a row of C per element of A, a column per
  // element of B; else the terms of one output's sum, 2R + 1 for a stencil),
  // so that naive and tiled can be compared picture to picture.
  const Trace& t = r.trace();
  if (sh.multiply) {
    const ArrayShape& c = sh.outputs[0];
    res.heat_max = uint32_t(std::max(c.data_rows, c.data_cols));
  } else if (const LessonInfo* v = find_lesson(t.config.lesson_id); v && v->sum_length) {
    res.heat_max = uint32_t(std::max(1, v->sum_length(t.config.params)));
  }
  for (const ReplayArray& a : r.arrays())
    if (!a.shared && !a.is_output)
      for (uint32_t e = 0; e < a.count(); ++e)
        res.heat_max = std::max(res.heat_max, r.cell(a.id, 0, e)->reads);
  return res;
}

ArrayCells array_cells(const AppState& s, const ArrayShape& p, const Residency& res,
                       bool with_values) {
  ArrayCells out;
  out.rows = p.rows;
  out.cols = p.cols;
  out.cells.reserve(size_t(p.rows) * size_t(p.cols));
  const bool at_end = s.replay->position() >= s.replay->size();
  for (int row = 0; row < p.rows; ++row)
    for (int col = 0; col < p.cols; ++col) {
      out.cells.push_back(cell_at(s, p, res, row, col, at_end));
      if (with_values) out.cells.back().value = cell_value(s, p, out.cells.back().element);
    }
  add_marks(s, p, out);
  return out;
}

std::string cell_value(const AppState& s, const ArrayShape& p, int64_t e) {
  if (e < 0) return {};
  const CellState* c = s.replay->cell(p.id, p.block, uint32_t(e));
  if (!c) return {};
  const bool output = is_output(*s.replay, p.id);
  // Shown once stored, or once a load read it: a load's value is on screen
  // even where nothing was written (a stale read of uninitialised memory).
  if ((p.shared || output) && !(c->flags & (kCellWritten | kCellReadUnwritten))) return {};
  if (s.present.heatmap && !p.shared && !output) return std::to_string(c->reads);
  return format_value(c->value);
}

CellHover cell_hover(const AppState& s, const ArrayShape& p, int row, int col) {
  CellHover h;
  h.element = p.element_at(row, col);
  if (h.element < 0) {
    if (p.wrap) {
      h.lines.push_back({HoverLine::Plain, "Past the array's last element."});
    } else {
      h.lines.push_back({HoverLine::Plain, "Outside the array: a tile hanging over the edge."});
      h.lines.push_back({HoverLine::Dim, "Threads here load a zero instead (padding)."});
    }
    return h;
  }
  const uint32_t e = uint32_t(h.element);
  char name[160];
  if (p.wrap)
    std::snprintf(name, sizeof name, "%s[%lld]", p.name.c_str(), (long long)e);
  else
    std::snprintf(name, sizeof name, "%s[%d][%d]", p.name.c_str(), row, col);
  h.lines.push_back({HoverLine::Plain, name});
  if (const CellState* c = s.replay->cell(p.id, p.block, e)) state_lines(s, p, *c, e, h.lines);
  for (const auto& [owner, marks] : s.marks)
    for (const CellMark& mk : marks)
      if (mk.buffer == p.id && mk.element == e && (!p.shared || mk.block == p.block) &&
          !mk.label.empty())
        h.marks.push_back(owner + ": " + mk.label);
  return h;
}

std::optional<std::pair<uint32_t, int>> thread_behind(const AppState& s, const ArrayShape& p,
                                                      const OutputOwners& owners, int row,
                                                      int col) {
  const int64_t e = p.element_at(row, col);
  if (e < 0) return std::nullopt;
  const Trace& t = s.trace();
  const bool output = is_output(*s.replay, p.id);
  const OutputOwners::Of* o = owners.of(p.id);
  if (output && o && !o->geometric) {
    // Where the stores say: block * threads + thread of the cell's thread.
    const auto it = std::find(o->element.begin(), o->element.end(), e);
    if (it != o->element.end()) {
      const int64_t owner = it - o->element.begin();
      return std::make_pair(uint32_t(owner / owners.threads), int(owner % owners.threads));
    }
  }
  if (output && (!o || o->geometric)) {
    // The thread that computes this output cell.
    const uint32_t bx = std::max(1u, t.config.geometry.block.x);
    const uint32_t by = std::max(1u, t.config.geometry.block.y);
    const uint32_t gx = std::max(1u, t.config.geometry.grid.x);
    const uint32_t ox = p.wrap ? uint32_t(e) : uint32_t(col);
    const uint32_t oy = p.wrap ? 0 : uint32_t(row);
    return std::make_pair((oy / by) * gx + ox / bx, int((oy % by) * bx + ox % bx));
  }
  const CellState* c = s.replay->cell(p.id, p.block, uint32_t(e));
  if (c && c->time) return std::make_pair(c->block, int(c->thread));
  return std::nullopt;
}

BlockOutline block_outline(const AppState& s, const ArrayShape& p, const OutputOwners& owners) {
  BlockOutline out;
  if (p.shared || !p.output) return out;
  const Trace& t = s.trace();
  const uint32_t bx = std::max(1u, t.config.geometry.block.x);
  const uint32_t by = std::max(1u, t.config.geometry.block.y);
  const uint32_t gx = std::max(1u, t.config.geometry.grid.x);
  const uint32_t b = s.selection.block;
  const int followed = s.selection.thread;
  if (const OutputOwners::Of* o = owners.of(p.id); o && !o->geometric) {
    // Where the block's threads store: the box around their cells.
    int r0 = p.rows, r1 = -1, c0 = p.cols, c1 = -1;
    for (uint32_t th = 0; th < owners.threads; ++th) {
      int row = 0, col = 0;
      if (!owners.owner_cell(p, *o, b, th, &row, &col)) continue;
      r0 = std::min(r0, row), r1 = std::max(r1, row);
      c0 = std::min(c0, col), c1 = std::max(c1, col);
    }
    if (r1 >= 0) out = {true, r0, c0, r1 + 1, c1 + 1};
    out.thread = followed >= 0 &&
                 owners.owner_cell(p, *o, b, uint32_t(followed), &out.thread_row, &out.thread_col);
  } else if (p.wrap) {
    // The rows of warps the block's threads store to (a block starts a row).
    const int64_t threads = int64_t(bx) * by * std::max(1u, t.config.geometry.block.z);
    const int64_t first = int64_t(b) * threads + p.lead;
    const int r0 = int(first / p.wrap);
    const int r1 = int((first + threads - 1) / p.wrap) + 1;
    out = {true, r0, 0, std::min(r1, p.rows), p.cols};
    if (followed >= 0)
      out.thread =
          p.cell_of(uint32_t(int64_t(b) * threads + followed), &out.thread_row, &out.thread_col);
  } else {
    const int r0 = int((b / gx) * by), c0 = int((b % gx) * bx);
    out = {true, r0, c0, std::min(r0 + int(by), p.rows), std::min(c0 + int(bx), p.cols)};
    if (followed >= 0) {
      out.thread = true;
      out.thread_row = r0 + int(uint32_t(followed) / bx);
      out.thread_col = c0 + int(uint32_t(followed) % bx);
    }
  }
  return out;
}

std::vector<WaitMark> wait_marks(const AppState& s, const ArrayShape& p, const OutputOwners& owners,
                                 const BarrierWait& wait) {
  std::vector<WaitMark> marks;
  if (!wait.active || p.shared || !p.output) return marks;
  const Trace& t = s.trace();
  const uint32_t bx = std::max(1u, t.config.geometry.block.x);
  const uint32_t by = std::max(1u, t.config.geometry.block.y);
  const uint32_t gx = std::max(1u, t.config.geometry.grid.x);
  const uint32_t b = s.selection.block;
  const OutputOwners::Of* o = owners.of(p.id);
  for (uint32_t th = 0; th < wait.threads; ++th) {
    int row = 0, col = 0;
    if (o && !o->geometric) {
      if (!owners.owner_cell(p, *o, b, th, &row, &col)) continue;
    } else if (p.wrap) {
      if (!p.cell_of(uint32_t(uint64_t(b) * wait.threads + th), &row, &col)) continue;
    } else {
      row = int((b / gx) * by + th / bx);
      col = int((b % gx) * bx + th % bx);
    }
    if (row >= p.rows || col >= p.cols) continue;
    marks.push_back({row, col, wait.at_barrier[th] != 0});
  }
  return marks;
}

}  // namespace ts::app
