// Puzzle 15: transpose without bank conflicts.
// The statement and the hints: `tilescope-cli puzzles transpose`.
// Write the kernel's body where it says TODO, then
//   tilescope-cli check transpose this_file.hpp            grades it
//   tilescope-cli run --lesson-file this_file.hpp    runs it (the window: tilescope --lesson-file)
// Leave the rest as it is: the arrays, the launch and the sizes are the puzzle's.
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
  __shared__ float tile_mem[TILE][TILE];
  SharedTile<float, TILE, TILE, Rec> tile(rec, tile_mem, kTile);
  // Blocks of 32 x 32 threads, one per 32 x 32 tile of `in`.
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int bx = blockIdx.x * TILE, by = blockIdx.y * TILE;

  // TODO: your code. A barrier is SYNCTHREADS(1);
}

TS_KERNEL_BODY(Body, transpose_kernel(rec, args));

struct Lesson {
  static LessonSpec descriptor() { return puzzles::setup("transpose", __FILE__); }
};

}  // namespace ts::lessons::puzzle_transpose
