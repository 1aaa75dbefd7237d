// The reference solution of puzzle guards (tests/test_puzzles.cpp); `// @NAME`
// marks the lines the tests' wrong solutions replace.
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

  if (i < length)           // @GUARD
    out[i] = a[i] + 10.0f;  // @STORE
}

TS_KERNEL_BODY(Body, guards_kernel(rec, args));

struct Lesson {
  static LessonSpec descriptor() { return puzzles::setup("guards", __FILE__); }
};

}  // namespace ts::lessons::puzzle_guards
