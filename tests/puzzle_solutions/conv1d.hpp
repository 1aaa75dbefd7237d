// The reference solution of puzzle conv1d (tests/test_puzzles.cpp); `// @NAME`
// marks the lines the tests' wrong solutions replace.
#pragma once

#include "engine/puzzles.hpp"
#include "lessons/access.hpp"

namespace ts::lessons::puzzle_conv1d {

enum : ArraySlot { kA = 1, kW, kOut, kTile };

template <class Rec>
TS_DEVICE void conv1d_kernel(Rec& rec, const KernelArgs& args) {
  const int length = args.length, radius = args.radius;  // radius 1 to 4
  GlobalArray<const float, Rec> a(rec, args, kA);        // (length)
  GlobalArray<const float, Rec> w(rec, args, kW);        // (2 radius + 1): the weights
  GlobalArray<float, Rec> out(rec, args, kOut);          // (length)
  __shared__ float tile_mem[64 + 2 * 4];
  SharedArray<float, Rec> tile(rec, tile_mem, 64 + 2 * 4, kTile);  // room for 4 halo cells a side
  const int t = threadIdx.x, i = blockIdx.x * 64 + t;              // blocks of 64 threads

  tile[t + radius] = i < length ? float(a[i]) : 0.0f;  // @LOAD
  if (t < radius) {
    const int left = i - radius, right = i + 64;  // @HALO
    tile[t] = left >= 0 && left < length ? float(a[left]) : 0.0f;
    tile[t + 64 + radius] = right < length ? float(a[right]) : 0.0f;
  }
  SYNCTHREADS(1);  // @BARRIER
  if (i < length) {
    float sum = 0.0f;
    for (int j = 0; j <= 2 * radius; ++j)
      sum += tile[t + j] * w[j];  // @SUM
    out[i] = sum;
  }
}

TS_KERNEL_BODY(Body, conv1d_kernel(rec, args));

struct Lesson {
  static LessonSpec descriptor() { return puzzles::setup("conv1d", __FILE__); }
};

}  // namespace ts::lessons::puzzle_conv1d
