// Puzzle 4: 2D map.
// The statement and the hints: `tilescope-cli puzzles map_2d`.
// Write the kernel's body where it says TODO, then
//   tilescope-cli check map_2d this_file.hpp            grades it
//   tilescope-cli run --lesson-file this_file.hpp    runs it (the window: tilescope --lesson-file)
// Leave the rest as it is: the arrays, the launch and the sizes are the puzzle's.
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

  // TODO: your code
}

TS_KERNEL_BODY(Body, map_2d_kernel(rec, args));

struct Lesson {
  static LessonSpec descriptor() { return puzzles::setup("map_2d", __FILE__); }
};

}  // namespace ts::lessons::puzzle_map_2d
