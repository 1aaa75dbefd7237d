// Matrix transpose, four elements per thread: the padded tiled transpose
// with a block of 32 x 8 threads instead of 32 x 32. The block still moves
// a 32 x 32 tile; each thread walks it 8 rows at a time, loading rows ty,
// ty + 8, ty + 16 and ty + 24 and later writing four rows of out. Its four
// loads do not depend on each other, so they are all in flight at once; a
// block of 256 threads lets 8 blocks share an SM, where 32 x 32 allowed 2,
// so while one block waits at its barrier the others keep memory busy; and
// the index arithmetic is done once for four elements.
#pragma once

#include "lessons/access.hpp"
#include "lessons/transpose_kit.hpp"

namespace ts::lessons::transpose_four_per_thread {

using transpose_kit::kTile;
inline constexpr int kPaddedCols = kTile + 1;  // one spare float per row: no bank conflicts
inline constexpr int kBlockRows = 8;           // the block: 32 x 8 threads
enum : ArraySlot { kIn = 1, kOut, kTileSlot };

template <class Rec>
TS_DEVICE void transpose_four_per_thread(Rec& rec, const KernelArgs& args) {
  const int rows = args.m, cols = args.n;
  GlobalArray<const float, Rec> in(rec, args, kIn);  // (rows, cols)
  GlobalArray<float, Rec> out(rec, args, kOut);      // (cols, rows)

  __shared__ float tile_mem[kTile][kPaddedCols];  // tile[r][c] is in bank (r + c) % 32
  SharedTile<float, kTile, kPaddedCols, Rec> tile(rec, tile_mem, kTileSlot);

  const int tx = threadIdx.x, ty = threadIdx.y;
  // Read: the block's 32 x 32 tile of in, 8 rows per pass; a warp reads one row.
  int col = blockIdx.x * kTile + tx;
  for (int j = 0; j < kTile; j += kBlockRows) {
    const int row = blockIdx.y * kTile + ty + j;
    if (row < rows && col < cols) tile[ty + j][tx] = in[row * cols + col];
  }
  SYNCTHREADS(1);  // the tile is read by columns: most of what a thread reads, other warps stored

  // Write: the tile's columns as rows of out, 8 per pass; a warp writes one row.
  col = blockIdx.y * kTile + tx;  // a column of out is a row of in
  for (int j = 0; j < kTile; j += kBlockRows) {
    const int row = blockIdx.x * kTile + ty + j;  // a row of out is a column of in
    if (row < cols && col < rows) out[row * rows + col] = tile[tx][ty + j];
  }
}

// ---- The lesson's description for TileScope (not part of the kernel) ----

TS_KERNEL_BODY(Body, transpose_four_per_thread(rec, args));

struct Lesson {
  static LessonSpec descriptor() {
    return transpose_kit::walking_lesson<kTile, kBlockRows>(
        "Transpose, four elements per thread",
        "A block of 32 x 8 threads walks the padded 32 x 32 tile: four independent loads per "
        "thread, and four times as many blocks on each SM.",
        kGuardsRaw | kGuardsRawInWarp);
  }
};

}  // namespace ts::lessons::transpose_four_per_thread
