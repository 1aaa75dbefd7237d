// Puzzle 3: guards.
// The statement and the hints: `tilescope-cli puzzles guards`.
// Write the kernel's body where it says TODO, then
//   tilescope-cli check guards this_file.hpp            grades it
//   tilescope-cli run --lesson-file this_file.hpp    runs it (the window: tilescope --lesson-file)
// Leave the rest as it is: the arrays, the launch and the sizes are the puzzle's.
#pragma once

#include "engine/puzzles.hpp"
#include "lessons/access.hpp"

namespace ts::lessons::puzzle_guards {

enum : ArraySlot { kA = 1, kOut };

template <class Rec>
TS_DEVICE void guards_kernel(Rec& rec, const KernelArgs& args) {
  GlobalArray<const float, Rec> a(rec, args, kA);  // (length)
  GlobalArray<float, Rec> out(rec, args, kOut);    // (length)
  const int length = args.length;                  // 1 to 32
  const int i = threadIdx.x;                       // one block of 32 threads, whatever the length

  // TODO: your code
}

TS_KERNEL_BODY(Body, guards_kernel(rec, args));

struct Lesson {
  static LessonSpec descriptor() { return puzzles::setup("guards", __FILE__); }
};

}  // namespace ts::lessons::puzzle_guards
