// The reference solution of puzzle blocks (tests/test_puzzles.cpp); `// @NAME`
// marks the lines the tests' wrong solutions replace.
#pragma once

#include "engine/puzzles.hpp"
#include "lessons/access.hpp"

namespace ts::lessons::puzzle_blocks {

enum : ArraySlot { kA = 1, kOut };

template <class Rec>
TS_DEVICE void blocks_kernel(Rec& rec, const KernelArgs& args) {
  GlobalArray<const float, Rec> a(rec, args, kA);  // (length)
  GlobalArray<float, Rec> out(rec, args, kOut);    // (length)
  const int length = args.length;
  // Blocks of 8 threads (blockDim.x), as many blocks as the length needs.

  const int i = blockIdx.x * blockDim.x + threadIdx.x;  // @INDEX
  if (i < length)                                       // @GUARD
    out[i] = a[i] + 10.0f;
}

TS_KERNEL_BODY(Body, blocks_kernel(rec, args));

struct Lesson {
  static LessonSpec descriptor() { return puzzles::setup("blocks", __FILE__); }
};

}  // namespace ts::lessons::puzzle_blocks
