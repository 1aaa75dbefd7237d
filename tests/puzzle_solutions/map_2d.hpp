// The reference solution of puzzle map_2d (tests/test_puzzles.cpp); `// @NAME`
// marks the lines the tests' wrong solutions replace.
#pragma once

#include "engine/puzzles.hpp"
#include "lessons/access.hpp"

namespace ts::lessons::puzzle_map_2d {

enum : ArraySlot { kA = 1, kOut };

template <class Rec>
TS_DEVICE void map_2d_kernel(Rec& rec, const KernelArgs& args) {
  const int n = args.n;                            // 1 to 8
  GlobalArray<const float, Rec> a(rec, args, kA);  // (n, n), row-major: a[row * n + col]
  GlobalArray<float, Rec> out(rec, args, kOut);    // (n, n)
  // One block of 8 x 8 threads, whatever n is.
  const int tx = threadIdx.x, ty = threadIdx.y;

  const int row = ty, col = tx;                     // @INDEX
  if (row < n && col < n)                           // @GUARD
    out[row * n + col] = a[row * n + col] + 10.0f;  // @STORE
}

TS_KERNEL_BODY(Body, map_2d_kernel(rec, args));

struct Lesson {
  static LessonSpec descriptor() { return puzzles::setup("map_2d", __FILE__); }
};

}  // namespace ts::lessons::puzzle_map_2d
