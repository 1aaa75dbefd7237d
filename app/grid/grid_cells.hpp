// What every cell of the grid shows at the replay's position, GUI-free: its
// element, the role its colour plays (loaded, written, wrong, stale, ...),
// hatching, the last instruction's touch, the marks other panels and the quiz
// put on it, its value, its hover text, the selected block's outline and who
// waits at a barrier. Plain data computed from AppState; the painter
// (app/grid/view_grid.cpp) turns roles into the palette's colours and draws.
// The unit tests (tests/app/test_grid_cells.cpp) check it without a window.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#include "app/core/app_state.hpp"
#include "app/core/barrier_wait.hpp"
#include "app/grid/grid_shapes.hpp"

namespace ts::app {

// What a cell's fill says; the painter picks the palette's colour for it.
enum class CellRole : uint8_t {
  NoState,        // the replay has no state for it: left as it was
  PastEnd,        // past a wrapped 1D array's last element: the background
  Padding,        // a tile hanging over the matrix's edge: zeros (hatched)
  Plain,          // an input or output cell nothing else says anything of
  InputRead,      // an input element read from global memory
  Heat,           // the heatmap: GridCell::reads on the heat scale
  Resident,       // an input element in the selected block's shared memory
  ResidentHalo,   // ... in its halo (a clamped halo at an edge is also a block cell)
  ResidentOther,  // ... in another block's shared memory
  SharedEmpty,    // a shared slot nothing was stored to yet
  SharedLoaded,   // a shared slot holding a value loaded from global memory
  SharedHalo,     // ... a halo value
  SharedPadded,   // a zero stored for an element outside the matrix
  SharedWritten,  // a shared slot stored to (not a load's copy)
  Stale,          // a thread read a stale value here (a race)
  Written,        // an output cell stored to
  Wrong,          // an output cell that differs from the CPU reference, once finished
};
const char* to_string(CellRole r);

struct GridCell {
  int64_t element = -1;  // -1: none (padding, past the end)
  CellRole role = CellRole::Plain;
  bool hatched = false;
  bool touched = false;              // by the last applied warp instruction
  uint32_t reads = 0;                // global loads of it so far (the heatmap's measure)
  std::optional<MarkStyle> outline;  // another panel's mark (the last one)
  std::optional<QuizMark> quiz;      // the quiz's fill: chosen, right, extra
  std::string value;                 // what it prints (with_values), "" nothing
};

struct MarkRing {  // a chosen access (a hazard's write or read): a thick ring
  int row = 0, col = 0;
  MarkStyle style = MarkStyle::Info;
};
struct QuizRing {  // a missed cell, the keyboard's cursor
  int row = 0, col = 0;
  QuizMark mark = QuizMark::Missed;
};

// One array's cells, row-major, and the rings drawn over them in order.
struct ArrayCells {
  int rows = 0, cols = 0;
  std::vector<GridCell> cells;
  std::vector<MarkRing> rings;
  std::vector<QuizRing> quiz_rings;
  // Presenter mode and the grid focus: the races' cells (row-major, 1: a
  // racing cell), ringed by group (app/grid/cell_groups.hpp); empty: none.
  std::vector<uint8_t> hazard;
  const GridCell& at(int row, int col) const {
    return cells[size_t(row) * size_t(cols) + size_t(col)];
  }
};

// Which input elements sit in shared memory now, of the selected block and
// of others (keys: buffer << 32 | element), and the heatmap's scale.
struct Residency {
  std::unordered_set<uint64_t> selected, selected_halo, other;
  uint32_t heat_max = 1;
};
Residency residency(const Replay& r, const Shapes& sh, uint32_t selected_block);

ArrayCells array_cells(const AppState& s, const ArrayShape& p, const Residency& res,
                       bool with_values);

// What element e of p prints: its value, nothing where none was stored or
// read yet (shared and output cells), the load count under the heatmap.
std::string cell_value(const AppState& s, const ArrayShape& p, int64_t e);
std::string format_value(float v);

// Wrong only once the cell's last store is in: before, it is unfinished.
bool cell_wrong(const AppState& s, ArraySlot id, uint32_t e);

// The tooltip of cell (row, col), before the memory colours' and the tiles' lines.
struct HoverLine {
  enum Style : uint8_t { Plain, Dim, Warning };
  Style style = Plain;
  std::string text;
};
struct CellHover {
  int64_t element = -1;  // -1: outside the array (the lines say why)
  std::vector<HoverLine> lines;
  std::vector<std::string> marks;  // "owner: label" of other panels' marks on it
};
CellHover cell_hover(const AppState& s, const ArrayShape& p, int row, int col);

// The thread a click on (row, col) follows: {block, thread}.
std::optional<std::pair<uint32_t, int>> thread_behind(const AppState& s, const ArrayShape& p,
                                                      const OutputOwners& owners, int row, int col);

// The selected block's part of an output (cells [r0, r1) x [c0, c1)) and the
// followed thread's cell.
struct BlockOutline {
  bool any = false;
  int r0 = 0, c0 = 0, r1 = 0, c1 = 0;
  bool thread = false;
  int thread_row = 0, thread_col = 0;
};
BlockOutline block_outline(const AppState& s, const ArrayShape& p, const OutputOwners& owners);

// At a barrier: each thread of the selected block on the output cell it
// computes, arrived (waits there) or not yet.
struct WaitMark {
  int row = 0, col = 0;
  bool arrived = false;
};
std::vector<WaitMark> wait_marks(const AppState& s, const ArrayShape& p, const OutputOwners& owners,
                                 const BarrierWait& wait);

}  // namespace ts::app
