// Puzzle 16: warp-shuffle reduction.
// The statement and the hints: `tilescope-cli puzzles warp_sum`.
// Write the kernel's body where it says TODO, then
//   tilescope-cli check warp_sum this_file.hpp            grades it
//   tilescope-cli run --lesson-file this_file.hpp    runs it (the window: tilescope --lesson-file)
// Leave the rest as it is: the arrays, the launch and the sizes are the puzzle's.
#pragma once

#include "engine/puzzles.hpp"
#include "lessons/access.hpp"

namespace ts::lessons::puzzle_warp_sum {

enum : ArraySlot { kIn = 1, kOut, kWarpSums };

template <class Rec>
TS_DEVICE void warp_sum_kernel(Rec& rec, const KernelArgs& args) {
  GlobalArray<const float, Rec> in(rec, args, kIn);  // (length)
  GlobalArray<float, Rec> out(rec, args, kOut);      // (one sum per block)
  __shared__ float warp_sums_mem[4];
  SharedArray<float, Rec> warp_sums(rec, warp_sums_mem, 4, kWarpSums);  // one per warp
  const int length = args.length;
  const int t = threadIdx.x, i = blockIdx.x * 128 + t;  // blocks of 128 threads: 4 warps
  const int lane = t % 32, warp = t / 32;
  // v + SHFL_DOWN(v, s): lane l adds lane l + s's v (__shfl_down_sync). Every lane
  // of the warp must reach it.

  // TODO: your code. A barrier is SYNCTHREADS(1);
}

TS_KERNEL_BODY(Body, warp_sum_kernel(rec, args));

struct Lesson {
  static LessonSpec descriptor() { return puzzles::setup("warp_sum", __FILE__); }
};

}  // namespace ts::lessons::puzzle_warp_sum
