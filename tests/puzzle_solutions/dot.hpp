// The reference solution of puzzle dot (tests/test_puzzles.cpp); `// @NAME`
// marks the lines the tests' wrong solutions replace.
#pragma once

#include "engine/puzzles.hpp"
#include "lessons/access.hpp"

namespace ts::lessons::puzzle_dot {

enum : ArraySlot { kA = 1, kB, kOut, kCache };

template <class Rec>
TS_DEVICE void dot_kernel(Rec& rec, const KernelArgs& args) {
  GlobalArray<const float, Rec> a(rec, args, kA);  // (length)
  GlobalArray<const float, Rec> b(rec, args, kB);  // (length)
  GlobalArray<float, Rec> out(rec, args, kOut);    // (1)
  __shared__ float cache_mem[64];
  SharedArray<float, Rec> cache(rec, cache_mem, 64, kCache);
  const int length = args.length;  // any length: more elements than threads
  const int t = threadIdx.x;       // one block of 64 threads

  float sum = 0.0f;
  for (int j = t; j < length; j += 64)  // @LOOP
    sum += a[j] * b[j];
  cache[t] = sum;
  SYNCTHREADS(1);                         // @BARRIER1
  for (int s = 32; s > 0; s /= 2) {       // @TREE
    if (t < s) cache[t] += cache[t + s];  // @ADD
    SYNCTHREADS(2);                       // @BARRIER2
  }
  if (t == 0) out[0] = cache[0];
}

TS_KERNEL_BODY(Body, dot_kernel(rec, args));

struct Lesson {
  static LessonSpec descriptor() { return puzzles::setup("dot", __FILE__); }
};

}  // namespace ts::lessons::puzzle_dot
