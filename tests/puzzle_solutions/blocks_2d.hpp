// The reference solution of puzzle blocks_2d (tests/test_puzzles.cpp); `// @NAME`
// marks the lines the tests' wrong solutions replace.
#pragma once

#include "engine/puzzles.hpp"
#include "lessons/access.hpp"

namespace ts::lessons::puzzle_blocks_2d {

enum : ArraySlot { kA = 1, kOut };

template <class Rec>
TS_DEVICE void blocks_2d_kernel(Rec& rec, const KernelArgs& args) {
  const int n = args.n;
  GlobalArray<const float, Rec> a(rec, args, kA);  // (n, n), row-major
  GlobalArray<float, Rec> out(rec, args, kOut);    // (n, n)
  // Blocks of 8 x 8 threads; a grid of ceil(n / 8) x ceil(n / 8) blocks.

  const int row = blockIdx.y * blockDim.y + threadIdx.y;  // @ROW
  const int col = blockIdx.x * blockDim.x + threadIdx.x;  // @COL
  if (row < n && col < n)                                 // @GUARD
    out[row * n + col] = a[row * n + col] + 10.0f;
}

TS_KERNEL_BODY(Body, blocks_2d_kernel(rec, args));

struct Lesson {
  static LessonSpec descriptor() { return puzzles::setup("blocks_2d", __FILE__); }
};

}  // namespace ts::lessons::puzzle_blocks_2d
