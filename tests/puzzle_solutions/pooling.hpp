// The reference solution of puzzle pooling (tests/test_puzzles.cpp); `// @NAME`
// marks the lines the tests' wrong solutions replace.
#pragma once

#include "engine/puzzles.hpp"
#include "lessons/access.hpp"

namespace ts::lessons::puzzle_pooling {

enum : ArraySlot { kA = 1, kOut, kCache };

template <class Rec>
TS_DEVICE void pooling_kernel(Rec& rec, const KernelArgs& args) {
  GlobalArray<const float, Rec> a(rec, args, kA);  // (length)
  GlobalArray<float, Rec> out(rec, args, kOut);    // (length)
  __shared__ float cache_mem[64 + 2];
  SharedArray<float, Rec> cache(rec, cache_mem, 64 + 2, kCache);  // the block's 64, and 2 before
  const int length = args.length;
  const int t = threadIdx.x, i = blockIdx.x * 64 + t;  // blocks of 64 threads

  cache[t + 2] = i < length ? float(a[i]) : 0.0f;                   // @LOAD
  if (t < 2) cache[t] = i - 2 >= 0 ? float(a[i - 2]) : 0.0f;        // @HALO
  SYNCTHREADS(1);                                                   // @BARRIER
  if (i < length) out[i] = cache[t] + cache[t + 1] + cache[t + 2];  // @STORE
}

TS_KERNEL_BODY(Body, pooling_kernel(rec, args));

struct Lesson {
  static LessonSpec descriptor() { return puzzles::setup("pooling", __FILE__); }
};

}  // namespace ts::lessons::puzzle_pooling
