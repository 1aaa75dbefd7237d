// The reference solution of puzzle map (tests/test_puzzles.cpp); `// @NAME`
// marks the lines the tests' wrong solutions replace.
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

  out[i] = a[i] + 10.0f;  // @STORE
}

TS_KERNEL_BODY(Body, map_kernel(rec, args));

struct Lesson {
  static LessonSpec descriptor() { return puzzles::setup("map", __FILE__); }
};

}  // namespace ts::lessons::puzzle_map
