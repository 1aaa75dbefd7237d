// Puzzle 9: pooling.
// The statement and the hints: `tilescope-cli puzzles pooling`.
// Write the kernel's body where it says TODO, then
//   tilescope-cli check pooling this_file.hpp            grades it
//   tilescope-cli run --lesson-file this_file.hpp    runs it (the window: tilescope --lesson-file)
// Leave the rest as it is: the arrays, the launch and the sizes are the puzzle's.
#pragma once

#include "engine/puzzles.hpp"
#include "lessons/access.hpp"

namespace ts::lessons::puzzle_pooling {

enum : ArraySlot { kA = 1, kOut, kCache };

template <class Rec>
TS_DEVICE void pooling_kernel(Rec& rec, const KernelArgs& args) {
  GlobalArray<const float, Rec> a(rec, args, kA);  // (length)
  GlobalArray<float, Rec> out(rec, args, kOut);    // (length)
  __shared__ float cache_mem[64 + 2];
  SharedArray<float, Rec> cache(rec, cache_mem, 64 + 2, kCache);  // the block's 64, and 2 before
  const int length = args.length;
  const int t = threadIdx.x, i = blockIdx.x * 64 + t;  // blocks of 64 threads

  // TODO: your code. A barrier is SYNCTHREADS(1);
}

TS_KERNEL_BODY(Body, pooling_kernel(rec, args));

struct Lesson {
  static LessonSpec descriptor() { return puzzles::setup("pooling", __FILE__); }
};

}  // namespace ts::lessons::puzzle_pooling
