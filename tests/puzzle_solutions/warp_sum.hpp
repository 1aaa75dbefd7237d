// The reference solution of puzzle warp_sum (tests/test_puzzles.cpp); `// @NAME`
// marks the lines the tests' wrong solutions replace.
#pragma once

#include "engine/puzzles.hpp"
#include "lessons/access.hpp"

namespace ts::lessons::puzzle_warp_sum {

enum : ArraySlot { kIn = 1, kOut, kWarpSums };

template <class Rec>
TS_DEVICE void warp_sum_kernel(Rec& rec, const KernelArgs& args) {
  GlobalArray<const float, Rec> in(rec, args, kIn);  // (length)
  GlobalArray<float, Rec> out(rec, args, kOut);      // (one sum per block)
  __shared__ float warp_sums_mem[4];
  SharedArray<float, Rec> warp_sums(rec, warp_sums_mem, 4, kWarpSums);  // one per warp
  const int length = args.length;
  const int t = threadIdx.x, i = blockIdx.x * 128 + t;  // blocks of 128 threads: 4 warps
  const int lane = t % 32, warp = t / 32;
  // v + SHFL_DOWN(v, s): lane l adds lane l + s's v (__shfl_down_sync). Every lane
  // of the warp must reach it.

  float v = i < length ? float(in[i]) : 0.0f;
  for (int s = 16; s > 0; s /= 2)      // @SHUFFLES
    v += SHFL_DOWN(v, s);              // @SHUFFLE
  if (lane == 0) warp_sums[warp] = v;  // @PARTIAL
  SYNCTHREADS(1);                      // @BARRIER
  if (t == 0)
    out[blockIdx.x] = warp_sums[0] + warp_sums[1] + warp_sums[2] + warp_sums[3];  // @STORE
}

TS_KERNEL_BODY(Body, warp_sum_kernel(rec, args));

struct Lesson {
  static LessonSpec descriptor() { return puzzles::setup("warp_sum", __FILE__); }
};

}  // namespace ts::lessons::puzzle_warp_sum
