// Matrix transpose through a padded shared tile, `tile[32][33]`: the same
// kernel as transpose.shared with one spare column. A row of the tile is now
// 33 floats long, so going down a column moves one bank further each row:
// the 32 elements of a column lie in 32 different banks, and the warp's
// column read is served in one go instead of 32. The spare column is never
// read or written; it only shifts where each row starts.
#pragma once

#include "lessons/access.hpp"
#include "lessons/transpose_kit.hpp"

namespace ts::lessons::transpose_shared_padded {

using transpose_kit::kTile;
inline constexpr int kPaddedCols = kTile + 1;  // the padding: one float per row
enum : ArraySlot { kIn = 1, kOut, kTileSlot };

template <class Rec>
TS_DEVICE void transpose_shared_padded(Rec& rec, const KernelArgs& args) {
  const int rows = args.m, cols = args.n;
  GlobalArray<const float, Rec> in(rec, args, kIn);  // (rows, cols)
  GlobalArray<float, Rec> out(rec, args, kOut);      // (cols, rows)

  __shared__ float tile_mem[kTile]
                           [kTile + 1];  // 33 floats a row: tile[r][c] is in bank (r + c) % 32
  SharedTile<float, kTile, kPaddedCols, Rec> tile(rec, tile_mem, kTileSlot);

  const int tx = threadIdx.x, ty = threadIdx.y;
  // Read: this block's tile of in, a row per warp.
  int col = blockIdx.x * kTile + tx;
  int row = blockIdx.y * kTile + ty;
  if (row < rows && col < cols) {
    tile[ty][tx] = in[row * cols + col];
  }
  SYNCTHREADS(1);  // the tile is read by columns: every thread reads what other warps stored

  // Write: the same tile to its transposed place in out, again a row per warp.
  col = blockIdx.y * kTile + tx;  // a column of out is a row of in
  row = blockIdx.x * kTile + ty;  // a row of out is a column of in
  if (row < cols && col < rows) {
    out[row * rows + col] = tile[tx][ty];  // a column of the tile: 32 different banks now
  }
}

// ---- The lesson's description for TileScope (not part of the kernel) ----

TS_KERNEL_BODY(Body, transpose_shared_padded(rec, args));

struct Lesson {
  static LessonSpec descriptor() {
    using namespace transpose_kit;
    return lesson<kPaddedCols>(
        "Transpose through a padded shared tile",
        "The shared tile gets one spare column, [32][33]: a column of the tile now spans all 32 "
        "banks, and the column reads are free of bank conflicts.",
        "padded [32][33]");
  }
};

}  // namespace ts::lessons::transpose_shared_padded
