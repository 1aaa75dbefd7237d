// The reference solution of puzzle zip (tests/test_puzzles.cpp); `// @NAME`
// marks the lines the tests' wrong solutions replace.
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

  out[i] = a[i] + b[i];  // @STORE
}

TS_KERNEL_BODY(Body, zip_kernel(rec, args));

struct Lesson {
  static LessonSpec descriptor() { return puzzles::setup("zip", __FILE__); }
};

}  // namespace ts::lessons::puzzle_zip
