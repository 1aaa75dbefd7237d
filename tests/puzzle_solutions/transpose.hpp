// The reference solution of puzzle transpose (tests/test_puzzles.cpp); `// @NAME`
// marks the lines the tests' wrong solutions replace.
#pragma once

#include "engine/puzzles.hpp"
#include "lessons/access.hpp"

namespace ts::lessons::puzzle_transpose {

enum : ArraySlot { kIn = 1, kOut, kTile };

constexpr int TILE = 32;

template <class Rec>
TS_DEVICE void transpose_kernel(Rec& rec, const KernelArgs& args) {
  const int n = args.n;
  GlobalArray<const float, Rec> in(rec, args, kIn);  // (n, n), row-major
  GlobalArray<float, Rec> out(rec, args, kOut);      // (n, n): out[c][r] = in[r][c]
  // The tile's layout is yours: [TILE][TILE] or [TILE][TILE + 1] (both fit its room).
  __shared__ float tile_mem[TILE][TILE + 1];                          // @TILE_MEM
  SharedTile<float, TILE, TILE + 1, Rec> tile(rec, tile_mem, kTile);  // @TILE
  // Blocks of 32 x 32 threads, one per 32 x 32 tile of `in`.
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int bx = blockIdx.x * TILE, by = blockIdx.y * TILE;

  if (by + ty < n && bx + tx < n) tile[ty][tx] = in[(by + ty) * n + bx + tx];   // @LOAD
  SYNCTHREADS(1);                                                               // @BARRIER
  if (bx + ty < n && by + tx < n) out[(bx + ty) * n + by + tx] = tile[tx][ty];  // @STORE
}

TS_KERNEL_BODY(Body, transpose_kernel(rec, args));

struct Lesson {
  static LessonSpec descriptor() { return puzzles::setup("transpose", __FILE__); }
};

}  // namespace ts::lessons::puzzle_transpose
