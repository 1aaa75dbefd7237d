// The reference solution of puzzle axis_sum (tests/test_puzzles.cpp); `// @NAME`
// marks the lines the tests' wrong solutions replace.
#pragma once

#include "engine/puzzles.hpp"
#include "lessons/access.hpp"

namespace ts::lessons::puzzle_axis_sum {

enum : ArraySlot { kA = 1, kOut, kCache };

template <class Rec>
TS_DEVICE void axis_sum_kernel(Rec& rec, const KernelArgs& args) {
  const int n = args.n;                            // the row's length
  GlobalArray<const float, Rec> a(rec, args, kA);  // (m, n), row-major
  GlobalArray<float, Rec> out(rec, args, kOut);    // (m, 1)
  __shared__ float cache_mem[64];
  SharedArray<float, Rec> cache(rec, cache_mem, 64, kCache);
  const int t = threadIdx.x;   // 64 threads per block
  const int row = blockIdx.x;  // one block per row

  float sum = 0.0f;
  for (int j = t; j < n; j += 64)  // @LOOP
    sum += a[row * n + j];         // @LOAD
  cache[t] = sum;
  SYNCTHREADS(1);  // @BARRIER1
  for (int s = 32; s > 0; s /= 2) {
    if (t < s) cache[t] += cache[t + s];  // @ADD
    SYNCTHREADS(2);                       // @BARRIER2
  }
  if (t == 0) out[row] = cache[0];
}

TS_KERNEL_BODY(Body, axis_sum_kernel(rec, args));

struct Lesson {
  static LessonSpec descriptor() { return puzzles::setup("axis_sum", __FILE__); }
};

}  // namespace ts::lessons::puzzle_axis_sum
