// Puzzle 2: zip.
// The statement and the hints: `tilescope-cli puzzles zip`.
// Write the kernel's body where it says TODO, then
//   tilescope-cli check zip this_file.hpp            grades it
//   tilescope-cli run --lesson-file this_file.hpp    runs it (the window: tilescope --lesson-file)
// Leave the rest as it is: the arrays, the launch and the sizes are the puzzle's.
#pragma once

#include "engine/puzzles.hpp"
#include "lessons/access.hpp"

namespace ts::lessons::puzzle_zip {

enum : ArraySlot { kA = 1, kB, kOut };

template <class Rec>
TS_DEVICE void zip_kernel(Rec& rec, const KernelArgs& args) {
  GlobalArray<const float, Rec> a(rec, args, kA);  // (length)
  GlobalArray<const float, Rec> b(rec, args, kB);  // (length)
  GlobalArray<float, Rec> out(rec, args, kOut);    // (length)
  const int i = threadIdx.x;                       // one block of `length` threads

  // TODO: your code (one line)
}

TS_KERNEL_BODY(Body, zip_kernel(rec, args));

struct Lesson {
  static LessonSpec descriptor() { return puzzles::setup("zip", __FILE__); }
};

}  // namespace ts::lessons::puzzle_zip
