// Puzzle 1: map.
// The statement and the hints: `tilescope-cli puzzles map`.
// Write the kernel's body where it says TODO, then
//   tilescope-cli check map this_file.hpp            grades it
//   tilescope-cli run --lesson-file this_file.hpp    runs it (the window: tilescope --lesson-file)
// Leave the rest as it is: the arrays, the launch and the sizes are the puzzle's.
#pragma once

#include "engine/puzzles.hpp"
#include "lessons/access.hpp"

namespace ts::lessons::puzzle_map {

enum : ArraySlot { kA = 1, kOut };

template <class Rec>
TS_DEVICE void map_kernel(Rec& rec, const KernelArgs& args) {
  GlobalArray<const float, Rec> a(rec, args, kA);  // (length)
  GlobalArray<float, Rec> out(rec, args, kOut);    // (length)
  const int i = threadIdx.x;                       // one block of `length` threads

  // TODO: your code (one line)
}

TS_KERNEL_BODY(Body, map_kernel(rec, args));

struct Lesson {
  static LessonSpec descriptor() { return puzzles::setup("map", __FILE__); }
};

}  // namespace ts::lessons::puzzle_map
