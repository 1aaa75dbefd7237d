// Matrix transpose through a swizzled shared tile: the same 32 x 32 tile as
// transpose.shared, no spare column, but each row is stored with its columns
// permuted: element (r, c) lives at tile[r][c ^ r]. In a 32-float row, column
// c ^ r is in bank c ^ r, so going down a column (r = 0..31, c fixed) visits
// banks c ^ 0, c ^ 1, ..., c ^ 31: all 32 different. The column read is
// conflict-free like the padded tile's, and the tile stays 4096 bytes, which
// matters when shared memory, not threads, limits how many blocks fit on an SM.
#pragma once

#include "lessons/access.hpp"
#include "lessons/transpose_kit.hpp"

namespace ts::lessons::transpose_shared_swizzled {

using transpose_kit::kTile;
enum : ArraySlot { kIn = 1, kOut, kTileSlot };

template <class Rec>
TS_DEVICE void transpose_shared_swizzled(Rec& rec, const KernelArgs& args) {
  const int rows = args.m, cols = args.n;
  GlobalArray<const float, Rec> in(rec, args, kIn);  // (rows, cols)
  GlobalArray<float, Rec> out(rec, args, kOut);      // (cols, rows)

  __shared__ float tile_mem[kTile][kTile];  // (r, c) is kept at tile[r][c ^ r]: bank c ^ r
  SharedTile<float, kTile, kTile, Rec> tile(rec, tile_mem, kTileSlot);

  const int tx = threadIdx.x, ty = threadIdx.y;
  // Read: this block's tile of in, a row per warp; element (ty, tx) goes to column tx ^ ty.
  int col = blockIdx.x * kTile + tx;
  int row = blockIdx.y * kTile + ty;
  if (row < rows && col < cols) {
    tile[ty][tx ^ ty] = in[row * cols + col];  // a row, permuted: still 32 different banks
  }
  SYNCTHREADS(1);  // the tile is read by columns: every thread reads what other warps stored

  // Write: the same tile to its transposed place in out, again a row per warp.
  col = blockIdx.y * kTile + tx;  // a column of out is a row of in
  row = blockIdx.x * kTile + ty;  // a row of out is a column of in
  if (row < cols && col < rows) {
    out[row * rows + col] = tile[tx][ty ^ tx];  // element (tx, ty): a column, banks ty ^ tx
  }
}

// ---- The lesson's description for TileScope (not part of the kernel) ----

TS_KERNEL_BODY(Body, transpose_shared_swizzled(rec, args));

struct Lesson {
  static LessonSpec descriptor() {
    using namespace transpose_kit;
    return lesson<kTile>(
        "Transpose through a swizzled shared tile",
        "The 32 x 32 tile stores element (r, c) at column c XOR r: a column of the tile spans all "
        "32 banks without any padding, so the column reads are conflict-free.",
        "swizzled (c XOR r)");
  }
};

}  // namespace ts::lessons::transpose_shared_swizzled
