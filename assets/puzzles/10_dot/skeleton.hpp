// Puzzle 10: dot product.
// The statement and the hints: `tilescope-cli puzzles dot`.
// Write the kernel's body where it says TODO, then
//   tilescope-cli check dot this_file.hpp            grades it
//   tilescope-cli run --lesson-file this_file.hpp    runs it (the window: tilescope --lesson-file)
// Leave the rest as it is: the arrays, the launch and the sizes are the puzzle's.
#pragma once

#include "engine/puzzles.hpp"
#include "lessons/access.hpp"

namespace ts::lessons::puzzle_dot {

enum : ArraySlot { kA = 1, kB, kOut, kCache };

template <class Rec>
TS_DEVICE void dot_kernel(Rec& rec, const KernelArgs& args) {
  GlobalArray<const float, Rec> a(rec, args, kA);  // (length)
  GlobalArray<const float, Rec> b(rec, args, kB);  // (length)
  GlobalArray<float, Rec> out(rec, args, kOut);    // (1)
  __shared__ float cache_mem[64];
  SharedArray<float, Rec> cache(rec, cache_mem, 64, kCache);
  const int length = args.length;  // any length: more elements than threads
  const int t = threadIdx.x;       // one block of 64 threads

  // TODO: your code. A barrier is SYNCTHREADS(1); (the next one SYNCTHREADS(2), ...).
}

TS_KERNEL_BODY(Body, dot_kernel(rec, args));

struct Lesson {
  static LessonSpec descriptor() { return puzzles::setup("dot", __FILE__); }
};

}  // namespace ts::lessons::puzzle_dot
