// Matrix transpose through 64 x 64 tiles: the float4 transpose with a tile
// twice as wide and twice as tall, moved by a block of 16 x 16 threads. Each
// thread loads four float4s (rows ty, ty + 16, ty + 32, ty + 48), all in
// flight together, and later stores four float4s: sixteen elements per
// thread. What changes in DRAM: a block now writes 64 floats (256 bytes) of
// each row of out it touches, where a 32 x 32 tile wrote 128. The blocks that
// run at the same time read neighbouring pieces of the same rows of in, but
// write pieces of different rows of out; longer pieces mean fewer DRAM rows
// opened per byte written, and the write side catches up with the read side.
// The price: lanes tx and tx + 8 meet in one bank (64-float rows, stride 65):
// two-way conflicts in shared memory, cheaper than what the DRAM saves.
#pragma once

#include "lessons/access.hpp"
#include "lessons/transpose_kit.hpp"

namespace ts::lessons::transpose_large_tile {

inline constexpr int kTile = 64;                    // the tile's side (32 in the earlier steps)
inline constexpr int kPaddedCols = kTile + 1;       // one spare float per row
inline constexpr int kQuads = kTile / 4;            // float4s in a row of the tile: blockDim.x
inline constexpr int kBlockRows = 16;               // blockDim.y
inline constexpr int kPasses = kTile / kBlockRows;  // four passes cover the tile's 64 rows
enum : ArraySlot { kIn = 1, kOut, kTileSlot };

template <class Rec>
TS_DEVICE void transpose_large_tile(Rec& rec, const KernelArgs& args) {
  const int rows = args.m, cols = args.n;
  GlobalArray<const float, Rec> in(rec, args, kIn);  // (rows, cols), 16-byte aligned
  GlobalArray<float, Rec> out(rec, args, kOut);      // (cols, rows), 16-byte aligned

  __shared__ float tile_mem[kTile][kPaddedCols];  // tile[r][c] is in bank (r + c) % 32
  SharedTile<float, kTile, kPaddedCols, Rec> tile(rec, tile_mem, kTileSlot);

  const int tx = threadIdx.x, ty = threadIdx.y;
  // Read: thread (tx, ty) takes columns 4tx .. 4tx + 3 of tile rows ty, ty + 16, ty + 32, ty + 48.
  int col = blockIdx.x * kTile + 4 * tx;
  if (cols % 4 == 0) {  // every row of in starts on a 16-byte boundary
    float4 v[kPasses] = {};
#pragma unroll
    for (int p = 0; p < kPasses; ++p) {  // four loads before any store: in flight together
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
  // column of the tile (columns ty, ty + 16, ty + 32, ty + 48).
  col = blockIdx.y * kTile + 4 * tx;  // a column of out is a row of in
#pragma unroll
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

TS_KERNEL_BODY(Body, transpose_large_tile(rec, args));

struct Lesson {
  static LessonSpec descriptor() {
    return transpose_kit::walking_lesson<kQuads, kBlockRows, kTile>(
        "Transpose through 64 x 64 tiles",
        "A block of 16 x 16 threads moves a padded 64 x 64 tile with float4s: each block writes "
        "256 contiguous bytes of every row of out it touches, where 32 x 32 tiles wrote 128.",
        kGuardsRaw | kGuardsRawInWarp, Params{.m = 72, .n = 80});
  }
};

}  // namespace ts::lessons::transpose_large_tile
