#include "app/grid/register_tile.hpp"

#include <algorithm>

#include "app/core/palette.hpp"

namespace ts::app {

namespace {

// The warp tile's colour: apart from the selection's outline (white or black), the last
// instruction's (blue) and the cells' state colours, on both themes.
constexpr Rgb kWarpTile = okabe_ito::kPurple;

bool cell_of(const GridArea& a, uint32_t e, int* row, int* col) {
  const int width = a.wrap ? a.wrap : a.data_cols;
  if (width <= 0) return false;
  *row = int(e / uint32_t(width));
  *col = int(e % uint32_t(width));
  return *row < a.rows && *col < a.cols;
}

// The outline of a set of cells: each cell side that borders a cell outside the set.
void outline(ImDrawList* dl, const GridArea& a, const CellSet& c, ImU32 colour, float width,
             float inset) {
  const int w = a.wrap ? a.wrap : a.data_cols;
  auto in = [&](int row, int col) {
    if (row < 0 || col < 0 || col >= w) return false;
    return c.contains(uint32_t(row) * uint32_t(w) + uint32_t(col));
  };
  for (uint32_t e : c.elements) {
    int row = 0, col = 0;
    if (!cell_of(a, e, &row, &col)) continue;
    const float x0 = a.pos.x + float(col) * a.cell, y0 = a.pos.y + float(row) * a.cell;
    const float x1 = x0 + a.cell, y1 = y0 + a.cell;
    // Inset at the set's own border only, so that the sides of neighbouring cells join.
    const float l = x0 + inset, r = x1 - inset, t = y0 + inset, b = y1 - inset;
    const float hl = in(row, col - 1) ? x0 : l, hr = in(row, col + 1) ? x1 : r;
    const float vt = in(row - 1, col) ? y0 : t, vb = in(row + 1, col) ? y1 : b;
    if (!in(row - 1, col)) dl->AddLine(ImVec2(hl, t), ImVec2(hr, t), colour, width);
    if (!in(row + 1, col)) dl->AddLine(ImVec2(hl, b), ImVec2(hr, b), colour, width);
    if (!in(row, col - 1)) dl->AddLine(ImVec2(l, vt), ImVec2(l, vb), colour, width);
    if (!in(row, col + 1)) dl->AddLine(ImVec2(r, vt), ImVec2(r, vb), colour, width);
  }
}

}  // namespace

void RegisterTiles::prepare(const AppState& s) {
  hovered_.reset();
  if (!s.has_trace()) {
    followed_.reset();
    hovered_cache_.reset();
    generation_ = ~0ull;
    return;
  }
  if (generation_ != s.result.generation) {
    generation_ = s.result.generation;
    followed_key_ = hovered_key_ = -1;
    followed_.reset();
    hovered_cache_.reset();
  }
  const int64_t key =
      s.selection.thread < 0 ? -1 : int64_t(s.selection.block) * 65536 + s.selection.thread;
  if (key == followed_key_) return;
  followed_key_ = key;
  followed_.reset();
  if (key >= 0) followed_ = store_tiles(s.trace(), s.selection.block, uint32_t(s.selection.thread));
}

void RegisterTiles::legend(AppState& s) const {
  if (!followed_ || followed_->thread_tile.empty() || !s.has_trace()) return;
  const std::string line = describe(s.trace(), *followed_);
  const ImVec2 at = ImGui::GetCursorScreenPos();
  const float h = ImGui::GetTextLineHeight();
  ImDrawList* dl = ImGui::GetWindowDrawList();
  // Chips in the outlines' colours: the thread's, then the warp's.
  const Palette& pal = palette(s.present.theme);
  dl->AddRect(ImVec2(at.x + 1, at.y + 2), ImVec2(at.x + h - 3, at.y + h - 2), pal.selected.abgr(),
              0, 0, 2.5f);
  dl->AddRect(ImVec2(at.x + h + 1, at.y + 2), ImVec2(at.x + 2 * h - 3, at.y + h - 2),
              kWarpTile.abgr(), 0, 0, 2.5f);
  ImGui::Dummy(ImVec2(2 * h, h));
  ImGui::SameLine();
  ImGui::TextUnformatted(line.c_str());
  const ImVec2 end = ImGui::GetItemRectMax();
  s.plot_marks.push_back({"grid", "tiles", line, at.x, at.y, end.x - at.x, end.y - at.y, 0});
}

void RegisterTiles::tooltip(const AppState& s, const GridArea& a, uint32_t element) {
  if (a.shared || !s.has_trace()) return;
  const Trace& t = s.trace();
  const ArrayInfo* info = t.array(a.id);
  if (!info || info->role != ArrayRole::Output) return;
  const auto who = storing_thread(t, a.id, element);
  if (!who) return;
  const int64_t key = int64_t(who->first) * 65536 + who->second;
  if (key != hovered_key_ || !hovered_cache_) {
    hovered_key_ = key;
    hovered_cache_ = store_tiles(t, a.id, who->first, who->second);
  }
  hovered_ = hovered_cache_;
  ImGui::TextDisabled("%s", describe(t, *hovered_).c_str());
}

const StoreTiles* RegisterTiles::shown() const {
  if (hovered_) return &*hovered_;
  if (followed_) return &*followed_;
  return nullptr;
}

void RegisterTiles::draw(const AppState& s, ImDrawList* dl, const GridArea& a) {
  const StoreTiles* t = shown();
  if (!t || a.shared || t->thread_tile.array != a.id || t->thread_tile.empty()) return;
  const Palette& pal = palette(s.present.theme);
  const float w = std::clamp(a.cell * 0.12f, 2.0f, 4.0f);
  outline(dl, a, t->warp_tile, kWarpTile.abgr(), w, 0);
  outline(dl, a, t->thread_tile, pal.selected.abgr(), w, w + 1);
}

}  // namespace ts::app
