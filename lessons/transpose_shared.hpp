// Matrix transpose through a 32 x 32 tile in shared memory. A block reads its
// tile of `in` row by row (coalesced), and writes it to `out` row by row as
// well (coalesced), reading the tile by columns: the transpose happens inside
// shared memory, where a column is as cheap to reach as a row -- almost.
//
// The tile has no padding: its column tile[0..31][c] lies in one memory bank
// (32 floats apart), so the 32 reads of a warp wait for each other, a 32-way
// bank conflict. The padded tile of the next lesson removes it.
#pragma once

#include "lessons/access.hpp"
#include "lessons/transpose_kit.hpp"

namespace ts::lessons::transpose_shared {

using transpose_kit::kTile;
enum : ArraySlot { kIn = 1, kOut, kTileSlot };

template <class Rec>
TS_DEVICE void transpose_shared(Rec& rec, const KernelArgs& args) {
  const int rows = args.m, cols = args.n;
  GlobalArray<const float, Rec> in(rec, args, kIn);  // (rows, cols)
  GlobalArray<float, Rec> out(rec, args, kOut);      // (cols, rows)

  __shared__ float tile_mem[kTile][kTile];
  SharedTile<float, kTile, kTile, Rec> tile(rec, tile_mem, kTileSlot);

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
    out[row * rows + col] = tile[tx][ty];  // a column of the tile: 32-way bank conflict
  }
}

// ---- The lesson's description for TileScope (not part of the kernel) ----

TS_KERNEL_BODY(Body, transpose_shared(rec, args));

struct Lesson {
  static LessonSpec descriptor() {
    using namespace transpose_kit;
    return lesson<kTile>("Transpose through a shared tile",
                         "A 32 x 32 tile in shared memory makes both the reads and the writes "
                         "coalesced; reading its columns is a 32-way bank conflict.",
                         "plain [32][32]");
  }
};

}  // namespace ts::lessons::transpose_shared
