// The grid's arrays as shapes, GUI-free: which arrays the trace has, what
// each is (input, shared, output, a __constant__ mask), how many cells it
// takes (1D arrays wrapped into rows of whole warps, matrices padded to whole
// tiles), where a halo lies, and which output cell each thread stores to.
// The painter (app/grid/view_grid.cpp) places and draws them; the cell model
// (app/grid/grid_cells.hpp) says what each cell shows.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/replay.hpp"
#include "model/trace.hpp"

namespace ts::app {

// One array of the trace as the grid draws it.
struct ArrayShape {
  ArraySlot id = kNoArray;
  bool shared = false;
  bool output = false;
  bool constant = false;   // a __constant__ array (a mask): its own small matrix, never tiled
  uint32_t block = 0;      // shared arrays: the selected block's copy
  int rows = 0, cols = 0;  // cells drawn
  int data_rows = 0, data_cols = 0;  // cells of the array itself
  int wrap = 0;                      // 1D arrays wrapped into rows of `wrap` cells
  // Wrapped: empty cells before element 0, so that a shared array's first
  // block element starts a row (its left halo ends the row above, under the
  // neighbour block's last elements of the input).
  int lead = 0;
  int tile = 0;
  int halo = 0;      // 1D shared: cells on each side beyond the block's (a stencil's halo)
  int ring = 0;      // 2D shared: rows and columns all around the block's (a convolution's halo)
  std::string name;  // as the kernel's source names it
  std::string title;

  // The element at (row, col), -1 outside the data (padding, past the end).
  int64_t element_at(int row, int col) const;
  // The cell of element e; false when it is not drawn.
  bool cell_of(uint32_t e, int* row, int* col) const;
  // Is (row, col) of a shared array in its halo.
  bool in_halo(int row, int col) const;
  // The title's shortest form, the name up to a space: what the grid prints
  // where nothing longer fits, and the width a placement keeps for it.
  std::string short_title() const { return title.substr(0, title.find(' ')); }
};

// The lesson's arrays, grouped by what they are.
struct Shapes {
  bool multiply = false;  // inputs[0] (m x k) x inputs[1] (k x n) = outputs[0] (m x n)
  std::vector<ArrayShape> inputs, shared, outputs;
  int threads = 1;      // per block: a wrapped row never splits a block between rows unevenly
  int pinned_wrap = 0;  // 1D arrays: this width only (0: the placement picks from wrap_widths)
  bool empty() const { return inputs.empty() && shared.empty() && outputs.empty(); }
  bool wrapped() const {
    for (const auto* g : {&inputs, &outputs})
      for (const ArrayShape& p : *g)
        if (p.wrap) return true;
    return false;
  }
  bool halos() const {
    for (const ArrayShape& p : shared)
      if (p.halo || p.ring) return true;
    return false;
  }
};

// The trace's arrays with their shapes; shared arrays show block `selected_block`.
// 1D arrays come wrapped at the narrowest of wrap_widths(); the grid's placement
// (app/grid/grid_arrange.hpp) picks the width that gives the biggest cells.
Shapes grid_shapes(const Replay& r, uint32_t selected_block);

// The row widths a lesson's 1D arrays may wrap at: whole warps (32, 64, 128, ...)
// that divide a block, so that every row is warps and every block starts a
// row; a block of fewer than 32 threads (or not a multiple of 32) is one row.
// Empty when nothing wraps.
std::vector<int> wrap_widths(const Shapes& sh);
// The same shapes with every wrapped array wrapped at `width` (one of wrap_widths()).
Shapes rewrapped(const Shapes& sh, int width);

// Which output cell each thread of the run stores to (its first store), per
// output array: the selected block's part of an output, its threads' cells at
// a barrier and the thread behind a clicked cell. Where every store lands at
// its thread's own place (the block's corner plus the thread index: every
// lesson so far) the grid keeps that geometry, which also places the threads
// that store nothing (over the edge); other lessons (a transpose) get the
// cells their stores name.
struct OutputOwners {
  struct Of {
    ArraySlot slot = kNoArray;
    bool geometric = true;
    std::vector<int64_t> element;  // block * threads + thread -> element, -1: none
  };
  uint64_t generation = ~0ull;
  uint32_t threads = 1;  // per block
  std::vector<Of> outputs;

  const Of* of(ArraySlot slot) const;
  // Rebuilt when `gen` (the result's generation) changes.
  void build(uint64_t gen, const Trace& t, const Shapes& sh);
  // The cell of an output where thread `th` of block `b` stores (its first store).
  bool owner_cell(const ArrayShape& p, const Of& o, uint32_t b, uint32_t th, int* row,
                  int* col) const;
};

}  // namespace ts::app
