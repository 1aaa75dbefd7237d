// Matrix transpose with float4 loads and stores: a block of 8 x 16 threads
// moves the padded 32 x 32 tile; each thread reads four neighbouring floats
// of a row of in with one 16-byte load (LDG.E.128), twice (rows ty and
// ty + 16), and writes four neighbouring floats of a row of out with one
// 16-byte store. Four neighbours along a row of out are four rows of one
// column of the tile. A warp now moves 512 bytes per instruction: the same
// sectors as before with a quarter of the load and store instructions, and
// eight elements in flight per thread. A 16-byte access needs its row to
// start on a multiple of 4 floats: where a side is not a multiple of 4, the
// kernel moves the four elements one by one.
#pragma once

#include "lessons/access.hpp"
#include "lessons/transpose_kit.hpp"

namespace ts::lessons::transpose_vectorized {

using transpose_kit::kTile;
inline constexpr int kPaddedCols = kTile + 1;       // one spare float per row: no bank conflicts
inline constexpr int kQuads = kTile / 4;            // float4s in a row of the tile: blockDim.x
inline constexpr int kBlockRows = 16;               // blockDim.y
inline constexpr int kPasses = kTile / kBlockRows;  // two passes cover the tile's 32 rows
enum : ArraySlot { kIn = 1, kOut, kTileSlot };

template <class Rec>
TS_DEVICE void transpose_vectorized(Rec& rec, const KernelArgs& args) {
  const int rows = args.m, cols = args.n;
  GlobalArray<const float, Rec> in(rec, args, kIn);  // (rows, cols), 16-byte aligned
  GlobalArray<float, Rec> out(rec, args, kOut);      // (cols, rows), 16-byte aligned

  __shared__ float tile_mem[kTile][kPaddedCols];  // tile[r][c] is in bank (r + c) % 32
  SharedTile<float, kTile, kPaddedCols, Rec> tile(rec, tile_mem, kTileSlot);

  const int tx = threadIdx.x, ty = threadIdx.y;
  // Read: thread (tx, ty) takes columns 4tx .. 4tx + 3 of tile rows ty and ty + 16.
  int col = blockIdx.x * kTile + 4 * tx;
  if (cols % 4 == 0) {  // every row of in starts on a 16-byte boundary
    float4 v[kPasses] = {};
#pragma unroll
    for (int p = 0; p < kPasses; ++p) {  // both loads before any store: in flight together
      const int row = blockIdx.y * kTile + ty + p * kBlockRows;
      if (row < rows && col < cols) v[p] = in.vec4(row * cols + col);  // one 16-byte load
    }
#pragma unroll
    for (int p = 0; p < kPasses; ++p) {
      const int r = ty + p * kBlockRows, row = blockIdx.y * kTile + r;
      if (row >= rows || col >= cols) continue;
#pragma unroll
      for (int e = 0; e < 4; ++e)            // 4-byte stores (a padded row is not 16-byte aligned),
        tile[r][4 * tx + e] = (&v[p].x)[e];  // one statement: every STS carries its line
    }
  } else {  // the rows are not aligned: four 4-byte loads instead
    for (int p = 0; p < kPasses; ++p)
      for (int e = 0; e < 4; ++e) {
        const int r = ty + p * kBlockRows, row = blockIdx.y * kTile + r;
        if (row < rows && col + e < cols) tile[r][4 * tx + e] = in[row * cols + col + e];
      }
  }
  SYNCTHREADS(1);  // the tile is read by columns: most of what a thread reads, other warps stored

  // Write: four neighbours in a row of out are rows 4tx .. 4tx + 3 of one
  // column of the tile (columns ty and ty + 16).
  col = blockIdx.y * kTile + 4 * tx;  // a column of out is a row of in
  for (int p = 0; p < kPasses; ++p) {
    const int c = ty + p * kBlockRows;       // a column of the tile
    const int row = blockIdx.x * kTile + c;  // a row of out is a column of in
    if (row >= cols) continue;
    if (rows % 4 == 0 && col < rows) {  // every row of out starts on a 16-byte boundary
      const float v0 = tile[4 * tx][c], v1 = tile[4 * tx + 1][c];  // in this order
      const float v2 = tile[4 * tx + 2][c], v3 = tile[4 * tx + 3][c];
      out.vec4(row * rows + col) = make_float4(v0, v1, v2, v3);  // one 16-byte store
    } else if (rows % 4 != 0) {  // the rows are not aligned: four 4-byte stores instead
      for (int e = 0; e < 4; ++e)
        if (col + e < rows) out[row * rows + col + e] = tile[4 * tx + e][c];
    }
  }
}

// ---- The lesson's description for TileScope (not part of the kernel) ----

TS_KERNEL_BODY(Body, transpose_vectorized(rec, args));

struct Lesson {
  static LessonSpec descriptor() {
    return transpose_kit::walking_lesson<kQuads, kBlockRows>(
        "Transpose with float4 loads and stores",
        "A block of 8 x 16 threads moves the padded tile with 16-byte loads and stores: a "
        "quarter of the instructions for the same sectors, eight elements per thread.",
        kGuardsRaw | kGuardsRawInWarp);
  }
};

}  // namespace ts::lessons::transpose_vectorized
