// The reference solution of puzzle broadcast (tests/test_puzzles.cpp); `// @NAME`
// marks the lines the tests' wrong solutions replace.
#pragma once

#include "engine/puzzles.hpp"
#include "lessons/access.hpp"

namespace ts::lessons::puzzle_broadcast {

enum : ArraySlot { kA = 1, kB, kOut };

template <class Rec>
TS_DEVICE void broadcast_kernel(Rec& rec, const KernelArgs& args) {
  const int m = args.m, n = args.n;                // 1 to 8 each
  GlobalArray<const float, Rec> a(rec, args, kA);  // (m, 1): a column
  GlobalArray<const float, Rec> b(rec, args, kB);  // (1, n): a row
  GlobalArray<float, Rec> out(rec, args, kOut);    // (m, n), row-major
  // One block of 8 x 8 threads.
  const int tx = threadIdx.x, ty = threadIdx.y;

  const int row = ty, col = tx;
  if (row < m && col < n)                  // @GUARD
    out[row * n + col] = a[row] + b[col];  // @STORE
}

TS_KERNEL_BODY(Body, broadcast_kernel(rec, args));

struct Lesson {
  static LessonSpec descriptor() { return puzzles::setup("broadcast", __FILE__); }
};

}  // namespace ts::lessons::puzzle_broadcast
