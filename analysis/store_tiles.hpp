// What a thread owns of its output and what one warp access covers, from the
// trace's events only (never from a lesson's constants), for the grid:
//   the register tile: every output element one thread stores (a thread of a
//   register-blocked SGEMM stores TM x TN of them, a naive one one);
//   the warp tile: every output element its warp's threads store;
//   the cells of a warp access, one group per lane: a 16-byte access (float4,
//   four events, model/event.hpp) is ONE access of four cells, as the warp
//   analysis counts it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analysis/warp_access.hpp"
#include "model/trace.hpp"

namespace ts {

// Elements of one array, ascending and distinct, with their bounding box in
// the array's rows and columns (a 1D array is one row).
struct CellSet {
  ArraySlot array = kNoArray;
  std::vector<uint32_t> elements;
  int row0 = 0, col0 = 0, rows = 0, cols = 0;
  bool empty() const { return elements.empty(); }
  bool contains(uint32_t e) const;
  // The elements fill their box: "4 x 4 = 16".
  bool rectangle() const { return uint64_t(rows) * uint64_t(cols) == elements.size(); }
};

struct StoreTiles {
  uint32_t block = 0;
  uint32_t thread = 0;  // linear index in the block
  uint32_t warp = 0;    // thread / 32
  CellSet thread_tile;  // its register tile
  CellSet warp_tile;    // its warp's tile
};

// The elements of global array `array` that thread `thread` of block `block`
// stores, and those its warp stores. Empty sets where it stores none.
StoreTiles store_tiles(const Trace& t, ArraySlot array, uint32_t block, uint32_t thread);
// The same for the first global array the thread stores to; nullopt when it stores nothing.
std::optional<StoreTiles> store_tiles(const Trace& t, uint32_t block, uint32_t thread);
// The first store to `element` of `array`: its (block, thread); nullopt when none.
std::optional<std::pair<uint32_t, uint32_t>> storing_thread(const Trace& t, ArraySlot array,
                                                            uint32_t element);
// "thread (3, 1): register tile 4 x 4 = 16 outputs; warp 0 tile 16 x 8" (a box
// the cells do not fill: "register tile of 16 outputs over 4 x 8").
std::string describe(const Trace& t, const StoreTiles& s);

// One lane's part of a warp access as cells: `count` consecutive elements from
// `first` (4 for a 16-byte access of 4-byte elements, else 1).
struct LaneCells {
  int lane = 0;
  uint32_t first = 0;
  int count = 1;
};
std::vector<LaneCells> lane_cells(const Trace& t, const WarpAccesses& w, const WarpAccess& a);

}  // namespace ts
