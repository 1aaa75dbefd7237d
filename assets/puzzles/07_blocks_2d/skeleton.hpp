// Puzzle 7: 2D blocks.
// The statement and the hints: `tilescope-cli puzzles blocks_2d`.
// Write the kernel's body where it says TODO, then
//   tilescope-cli check blocks_2d this_file.hpp            grades it
//   tilescope-cli run --lesson-file this_file.hpp    runs it (the window: tilescope --lesson-file)
// Leave the rest as it is: the arrays, the launch and the sizes are the puzzle's.
#pragma once

#include "engine/puzzles.hpp"
#include "lessons/access.hpp"

namespace ts::lessons::puzzle_blocks_2d {

enum : ArraySlot { kA = 1, kOut };

template <class Rec>
TS_DEVICE void blocks_2d_kernel(Rec& rec, const KernelArgs& args) {
  const int n = args.n;
  GlobalArray<const float, Rec> a(rec, args, kA);  // (n, n), row-major
  GlobalArray<float, Rec> out(rec, args, kOut);    // (n, n)
  // Blocks of 8 x 8 threads; a grid of ceil(n / 8) x ceil(n / 8) blocks.

  // TODO: your code
}

TS_KERNEL_BODY(Body, blocks_2d_kernel(rec, args));

struct Lesson {
  static LessonSpec descriptor() { return puzzles::setup("blocks_2d", __FILE__); }
};

}  // namespace ts::lessons::puzzle_blocks_2d
