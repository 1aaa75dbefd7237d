// The grid's register and warp tiles: for the thread under the mouse (an
// output cell's thread) or else the followed one, every output cell it stores
// (its register tile) outlined, and in another colour the cells its warp
// stores (the warp tile), with "thread (3, 1): register tile 4 x 4 = 16
// outputs; warp 0 tile 16 x 8". All from the trace's GlobalStore events
// (analysis/store_tiles.hpp), so a register-blocked kernel shows its TM x TN
// tile and a naive one its single cell.
#pragma once

#include <imgui.h>

#include <cstdint>
#include <optional>
#include <string>

#include "analysis/store_tiles.hpp"
#include "app/core/app_state.hpp"
#include "app/grid/grid_memory_overlay.hpp"

namespace ts::app {

class RegisterTiles {
 public:
  // Once a frame before the grid draws: the followed thread's tiles (the
  // hovered cell's are found again by this frame's tooltip).
  void prepare(const AppState& s);
  // The followed thread's legend line (under the grid's legend; a plot mark
  // "grid" "tiles" for the scripted map); nothing when no thread is followed
  // or it stores no output.
  void legend(AppState& s) const;
  // In the hovered cell's tooltip: that output cell's thread and its tiles
  // (which the outlines then show instead of the followed thread's).
  void tooltip(const AppState& s, const GridArea& a, uint32_t element);
  // After the cells: the outlines on the output array `a`.
  void draw(const AppState& s, ImDrawList* dl, const GridArea& a);

 private:
  const StoreTiles* shown() const;

  uint64_t generation_ = ~0ull;
  int64_t followed_key_ = -1;  // block * 65536 + thread of followed_
  std::optional<StoreTiles> followed_;
  std::optional<StoreTiles> hovered_;
  int64_t hovered_key_ = -1;  // the last hovered thread (kept: the same thread hovered again)
  std::optional<StoreTiles> hovered_cache_;
};

}  // namespace ts::app
