// The grid's memory colours (MemoryColours, chosen in the grid's toggle row or
// with M): how the memory system serves the accesses, drawn on the arrays
// themselves, all from the run's warp accesses (app/core/warp_index.hpp), so they
// hold in every replay order.
//   Banks       shared arrays: each element in its bank's colour, the bank's
//               number in the cell when cells are big enough.
//   Conflicts   shared arrays: per element, the extra wavefronts (bank
//               conflicts) of the warp accesses that touched it, summed over
//               the run, as a heatmap from 0 to the run's worst element, any
//               conflict at least a quarter up the ramp (a 2-way conflict is
//               seen), conflict-free at the cold end.
//   Sectors     global arrays: per element, the sectors per request of the
//               warp accesses that touched it, a heatmap on a fixed 0..32 scale
//               (ideal 4 for 32 lanes of 4 bytes).
//   Coalescing  the warp access the replay is at: its lanes' elements in their
//               sector's colour with the lane number, the 32-byte sector
//               boundaries of their rows drawn and each touched sector outlined,
//               "32 loads -> 32 sectors (ideal 4)" above the grid.
//   Contention  arrays that received atomics (a histogram's bins): per element
//               the atomics it received over the run, on a heatmap from 0 to
//               the array's hottest element, and its longest queue (the most
//               lanes of one warp instruction on it at once) in the cell. A
//               shared array's bin b is counted over all blocks' copies
//               (analysis/atomic_contention.hpp), and every copy shows that sum.
// The grid (app/grid/view_grid.cpp) asks it for the legend, the cells' colours and
// texts and what goes over the cells; everything else stays the grid's.
#pragma once

#include <imgui.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "analysis/store_tiles.hpp"
#include "app/core/app_state.hpp"
#include "app/core/palette.hpp"
#include "app/grid/cell_renderer.hpp"

namespace ts::app {

// 32 colours, one per bank: the hue wheel, neighbouring banks a step apart in
// lightness as well, so that a row reads as a rainbow and a column of one bank
// as one colour, on a projector too.
Rgb bank_colour(int bank);
// "state", "banks", "bank conflicts", "sectors / request", "coalescing", "atomic contention".
const char* memory_colours_name(MemoryColours m);
// Sector colours (the Banks view and the coalescing picture): the palette's hues in turn.
Rgb sector_colour(size_t i);

// An array as the grid drew it this frame.
struct GridArea {
  ArraySlot id = kNoArray;
  bool shared = false;
  uint32_t block = 0;
  int rows = 0, cols = 0;            // cells drawn
  int data_rows = 0, data_cols = 0;  // the array's own
  int wrap = 0;                      // 1D arrays wrapped into rows of `wrap` cells
  ImVec2 pos;                        // top left of the cells
  float cell = 0;
  int lead = 0;  // wrapped: empty cells before element 0 (app/grid/grid_shapes.hpp)
};

class MemoryOverlay {
 public:
  // Once a frame before the grid draws: the run's index and the current access.
  void prepare(AppState& s);
  // The mode selector (a combo) for the grid's toggle row.
  void selector(AppState& s);
  // The legend line of the mode; false in State mode (the grid's own legend then).
  bool legend(AppState& s);
  // Recolours the cells of `a` that the mode colours.
  void recolour(const AppState& s, const GridArea& a, CellImage& img) const;
  // What a cell prints under the mode ("" for nothing); nullopt: its value.
  std::optional<std::string> cell_text(const AppState& s, const GridArea& a,
                                       uint32_t element) const;
  // Drawn over the cells: the coalescing picture's sector boundaries and outlines.
  void draw_over(AppState& s, ImDrawList* dl, const GridArea& a) const;
  // The hovered element's lines for the grid's tooltip.
  void tooltip(const AppState& s, const GridArea& a, uint32_t element) const;

 private:
  const ArrayInfo* info(const AppState& s, ArraySlot id) const;
  bool is_current_array(const GridArea& a) const;
  uint32_t conflict_scale() const;                   // the heatmap's top: the run's worst
  std::string contention_legend(AppState& s) const;  // draws it; returns its title

  std::shared_ptr<const WarpIndex> index_;
  MemoryColours mode_ = MemoryColours::State;
  // The current access (Coalescing).
  int32_t current_ = -1;
  bool earlier_ = false;
  std::vector<std::pair<uint32_t, int>> lane_of_element_;  // (element, lane), by element
  std::vector<LaneCells> lanes_;   // each lane's cells: four for a 16-byte access
  std::vector<uint64_t> sectors_;  // distinct, ascending
  std::string caption_;
};

}  // namespace ts::app
