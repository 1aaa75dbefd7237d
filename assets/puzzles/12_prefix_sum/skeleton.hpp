// Puzzle 12: prefix sum.
// The statement and the hints: `tilescope-cli puzzles prefix_sum`.
// Write the kernel's body where it says TODO, then
//   tilescope-cli check prefix_sum this_file.hpp            grades it
//   tilescope-cli run --lesson-file this_file.hpp    runs it (the window: tilescope --lesson-file)
// Leave the rest as it is: the arrays, the launch and the sizes are the puzzle's.
#pragma once

#include "engine/puzzles.hpp"
#include "lessons/access.hpp"

namespace ts::lessons::puzzle_prefix_sum {

enum : ArraySlot { kA = 1, kOut, kBuf };

template <class Rec>
TS_DEVICE void prefix_sum_kernel(Rec& rec, const KernelArgs& args) {
  GlobalArray<const float, Rec> a(rec, args, kA);  // (length)
  GlobalArray<float, Rec> out(rec, args, kOut);    // (length)
  __shared__ float buf_mem[2][64];
  SharedTile<float, 2, 64, Rec> buf(rec, buf_mem, kBuf);  // two rows: buf[0][t], buf[1][t]
  const int length = args.length;
  const int t = threadIdx.x, i = blockIdx.x * 64 + t;  // blocks of 64 threads

  // TODO: your code. A barrier is SYNCTHREADS(1); (the next one SYNCTHREADS(2), ...).
}

TS_KERNEL_BODY(Body, prefix_sum_kernel(rec, args));

struct Lesson {
  static LessonSpec descriptor() { return puzzles::setup("prefix_sum", __FILE__); }
};

}  // namespace ts::lessons::puzzle_prefix_sum
