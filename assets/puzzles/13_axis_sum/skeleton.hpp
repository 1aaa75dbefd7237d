// Puzzle 13: axis sum.
// The statement and the hints: `tilescope-cli puzzles axis_sum`.
// Write the kernel's body where it says TODO, then
//   tilescope-cli check axis_sum this_file.hpp            grades it
//   tilescope-cli run --lesson-file this_file.hpp    runs it (the window: tilescope --lesson-file)
// Leave the rest as it is: the arrays, the launch and the sizes are the puzzle's.
#pragma once

#include "engine/puzzles.hpp"
#include "lessons/access.hpp"

namespace ts::lessons::puzzle_axis_sum {

enum : ArraySlot { kA = 1, kOut, kCache };

template <class Rec>
TS_DEVICE void axis_sum_kernel(Rec& rec, const KernelArgs& args) {
  const int n = args.n;                            // the row's length
  GlobalArray<const float, Rec> a(rec, args, kA);  // (m, n), row-major
  GlobalArray<float, Rec> out(rec, args, kOut);    // (m, 1)
  __shared__ float cache_mem[64];
  SharedArray<float, Rec> cache(rec, cache_mem, 64, kCache);
  const int t = threadIdx.x;   // 64 threads per block
  const int row = blockIdx.x;  // one block per row

  // TODO: your code. A barrier is SYNCTHREADS(1); (the next one SYNCTHREADS(2), ...).
}

TS_KERNEL_BODY(Body, axis_sum_kernel(rec, args));

struct Lesson {
  static LessonSpec descriptor() { return puzzles::setup("axis_sum", __FILE__); }
};

}  // namespace ts::lessons::puzzle_axis_sum
