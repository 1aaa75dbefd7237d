// Puzzle 6: blocks.
// The statement and the hints: `tilescope-cli puzzles blocks`.
// Write the kernel's body where it says TODO, then
//   tilescope-cli check blocks this_file.hpp            grades it
//   tilescope-cli run --lesson-file this_file.hpp    runs it (the window: tilescope --lesson-file)
// Leave the rest as it is: the arrays, the launch and the sizes are the puzzle's.
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

  // TODO: your code
}

TS_KERNEL_BODY(Body, blocks_kernel(rec, args));

struct Lesson {
  static LessonSpec descriptor() { return puzzles::setup("blocks", __FILE__); }
};

}  // namespace ts::lessons::puzzle_blocks
