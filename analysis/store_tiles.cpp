#include "analysis/store_tiles.hpp"

#include <algorithm>

namespace ts {

namespace {

CellSet cell_set(const Trace& t, ArraySlot array, std::vector<uint32_t> elements) {
  CellSet c;
  c.array = array;
  std::sort(elements.begin(), elements.end());
  elements.erase(std::unique(elements.begin(), elements.end()), elements.end());
  c.elements = std::move(elements);
  const ArrayInfo* a = t.array(array);
  if (c.elements.empty() || !a) return c;
  const uint32_t cols = uint32_t(std::max(1, a->cols));
  uint32_t r0 = UINT32_MAX, r1 = 0, c0 = UINT32_MAX, c1 = 0;
  for (uint32_t e : c.elements) {
    r0 = std::min(r0, e / cols), r1 = std::max(r1, e / cols);
    c0 = std::min(c0, e % cols), c1 = std::max(c1, e % cols);
  }
  c.row0 = int(r0), c.col0 = int(c0);
  c.rows = int(r1 - r0 + 1), c.cols = int(c1 - c0 + 1);
  return c;
}

std::string box(const CellSet& c) {
  return std::to_string(c.rows) + " x " + std::to_string(c.cols);
}

}  // namespace

bool CellSet::contains(uint32_t e) const {
  return std::binary_search(elements.begin(), elements.end(), e);
}

StoreTiles store_tiles(const Trace& t, ArraySlot array, uint32_t block, uint32_t thread) {
  StoreTiles s;
  s.block = block, s.thread = thread, s.warp = thread / uint32_t(kWarpLanes);
  std::vector<uint32_t> mine, warp;
  for (const Event& e : t.events) {
    if (e.kind != EventKind::GlobalStore || e.array != array || e.block != block ||
        warp_of(e) != s.warp)
      continue;
    warp.push_back(e.element);
    if (e.thread == thread) mine.push_back(e.element);
  }
  s.thread_tile = cell_set(t, array, std::move(mine));
  s.warp_tile = cell_set(t, array, std::move(warp));
  return s;
}

std::optional<StoreTiles> store_tiles(const Trace& t, uint32_t block, uint32_t thread) {
  for (const Event& e : t.events)
    if (e.kind == EventKind::GlobalStore && e.block == block && e.thread == thread)
      return store_tiles(t, e.array, block, thread);
  return std::nullopt;
}

std::optional<std::pair<uint32_t, uint32_t>> storing_thread(const Trace& t, ArraySlot array,
                                                            uint32_t element) {
  for (const Event& e : t.events)
    if (e.kind == EventKind::GlobalStore && e.array == array && e.element == element)
      return std::pair<uint32_t, uint32_t>(e.block, e.thread);
  return std::nullopt;
}

std::string describe(const Trace& t, const StoreTiles& s) {
  const uint32_t bx = std::max(1u, t.config.geometry.block.x);
  std::string out =
      "thread (" + std::to_string(s.thread % bx) + ", " + std::to_string(s.thread / bx) + "): ";
  const size_t n = s.thread_tile.elements.size();
  const std::string outputs = std::to_string(n) + (n == 1 ? " output" : " outputs");
  if (n == 0)
    out += "stores no output";
  else if (s.thread_tile.rectangle())
    out += "register tile " + box(s.thread_tile) + " = " + outputs;
  else
    out += "register tile of " + outputs + " over " + box(s.thread_tile);
  out += "; warp " + std::to_string(s.warp) + " tile ";
  const size_t w = s.warp_tile.elements.size();
  if (s.warp_tile.rectangle())
    out += box(s.warp_tile);
  else
    out += "of " + std::to_string(w) + " outputs over " + box(s.warp_tile);
  return out;
}

std::vector<LaneCells> lane_cells(const Trace& t, const WarpAccesses& w, const WarpAccess& a) {
  std::vector<LaneCells> out;
  for (uint32_t i : w.lanes_of(a)) {
    const Event& e = t.events[i];
    // The lane's event is a 16-byte access's first element (leads_access).
    out.push_back({int(e.thread % uint32_t(kWarpLanes)), e.element, is_vector_element(e) ? 4 : 1});
  }
  return out;
}

}  // namespace ts
