// Puzzle 5: broadcast.
// The statement and the hints: `tilescope-cli puzzles broadcast`.
// Write the kernel's body where it says TODO, then
//   tilescope-cli check broadcast this_file.hpp            grades it
//   tilescope-cli run --lesson-file this_file.hpp    runs it (the window: tilescope --lesson-file)
// Leave the rest as it is: the arrays, the launch and the sizes are the puzzle's.
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

  // TODO: your code
}

TS_KERNEL_BODY(Body, broadcast_kernel(rec, args));

struct Lesson {
  static LessonSpec descriptor() { return puzzles::setup("broadcast", __FILE__); }
};

}  // namespace ts::lessons::puzzle_broadcast
