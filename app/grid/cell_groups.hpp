// Groups of marked cells, for one ring each: presenter mode and the grid
// focus ring the races' cells, and a ring per cell (dozens on a tiled
// multiply's race) reads as noise from the back of a hall. Cells within
// `gap` empty cells of each other form a group; groups whose boxes come
// closer than that merge, so that no two rings overlap.
//
//   for (const CellBox& b : cell_groups(mask, rows, cols)) ring(b);
#pragma once

#include <cstdint>
#include <vector>

namespace ts::app {

struct CellBox {
  int r0 = 0, c0 = 0, r1 = 0, c1 = 0;  // rows r0..r1, columns c0..c1 (inclusive)
};

// `mask` is rows x cols, row-major, non-zero where a cell is marked. Boxes in
// the order of their first cell (row-major).
std::vector<CellBox> cell_groups(const std::vector<uint8_t>& mask, int rows, int cols, int gap = 1);

}  // namespace ts::app
