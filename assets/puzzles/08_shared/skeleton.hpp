// Puzzle 8: shared memory.
// The statement and the hints: `tilescope-cli puzzles shared`.
// Write the kernel's body where it says TODO, then
//   tilescope-cli check shared this_file.hpp            grades it
//   tilescope-cli run --lesson-file this_file.hpp    runs it (the window: tilescope --lesson-file)
// Leave the rest as it is: the arrays, the launch and the sizes are the puzzle's.
#pragma once

#include "engine/puzzles.hpp"
#include "lessons/access.hpp"

namespace ts::lessons::puzzle_shared {

enum : ArraySlot { kA = 1, kOut, kCache };

template <class Rec>
TS_DEVICE void shared_kernel(Rec& rec, const KernelArgs& args) {
  GlobalArray<const float, Rec> a(rec, args, kA);  // (length)
  GlobalArray<float, Rec> out(rec, args, kOut);    // (length)
  __shared__ float cache_mem[64];
  SharedArray<float, Rec> cache(rec, cache_mem, 64, kCache);  // one per block
  const int length = args.length;
  // Blocks of 64 threads (two warps): block b owns elements start .. start + count - 1.
  const int t = threadIdx.x, start = blockIdx.x * 64;
  const int count = length - start < 64 ? length - start : 64;

  // TODO: your code. A barrier is SYNCTHREADS(1); (the next one SYNCTHREADS(2), ...).
}

TS_KERNEL_BODY(Body, shared_kernel(rec, args));

struct Lesson {
  static LessonSpec descriptor() { return puzzles::setup("shared", __FILE__); }
};

}  // namespace ts::lessons::puzzle_shared
