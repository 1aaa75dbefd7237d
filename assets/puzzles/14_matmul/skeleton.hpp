// Puzzle 14: matrix multiply.
// The statement and the hints: `tilescope-cli puzzles matmul`.
// Write the kernel's body where it says TODO, then
//   tilescope-cli check matmul this_file.hpp            grades it
//   tilescope-cli run --lesson-file this_file.hpp    runs it (the window: tilescope --lesson-file)
// Leave the rest as it is: the arrays, the launch and the sizes are the puzzle's.
#pragma once

#include "engine/puzzles.hpp"
#include "lessons/access.hpp"

namespace ts::lessons::puzzle_matmul {

enum : ArraySlot { kA = 1, kB, kC, kTileA, kTileB };

constexpr int TILE = 8;

template <class Rec>
TS_DEVICE void matmul_kernel(Rec& rec, const KernelArgs& args) {
  const int n = args.n;
  GlobalArray<const float, Rec> A(rec, args, kA);  // (n, n), row-major
  GlobalArray<const float, Rec> B(rec, args, kB);  // (n, n)
  GlobalArray<float, Rec> C(rec, args, kC);        // (n, n)
  __shared__ float tileA_mem[TILE][TILE];
  __shared__ float tileB_mem[TILE][TILE];
  SharedTile<float, TILE, TILE, Rec> tileA(rec, tileA_mem, kTileA);  // tileA[row][col]
  SharedTile<float, TILE, TILE, Rec> tileB(rec, tileB_mem, kTileB);
  // Blocks of TILE x TILE threads; block (bx, by) computes that tile of C.
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;

  // TODO: your code. A barrier is SYNCTHREADS(1); (the next one SYNCTHREADS(2), ...).
}

TS_KERNEL_BODY(Body, matmul_kernel(rec, args));

struct Lesson {
  static LessonSpec descriptor() { return puzzles::setup("matmul", __FILE__); }
};

}  // namespace ts::lessons::puzzle_matmul
