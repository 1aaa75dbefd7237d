// The sample kernel of tests/sass/test_sass_table.py: a global load, a
// constant read, then a loop of shared loads that nvcc vectorises. Not
// clang-formatted: the statement on lines 21-22 spans two lines on purpose.
// clang-format off
#pragma once
#include "lessons/access.hpp"
namespace ts::lessons::demo {
__constant__ float mask_c[8];
struct Body {
  static __device__ void run(PlainRec& rec, const float* in, float* out, int n) {
    __shared__ float s[64], t[64];
    const int i = threadIdx.x;
    float a = 0.0f;
    if (i < n) a = ElemRef<float, Space::Global>{rec, in, i};
    s[i] = a;
    t[i] = 2.0f * a;
    __syncthreads();
    float sum = 0.0f;
    for (int j = 0; j < 8; ++j) {
      const float w = ElemRef<float, Space::Constant>{rec, mask_c, j};
      sum += w * ElemRef<float, Space::Shared>{rec, s, j}
             * ElemRef<float, Space::Shared>{rec, t, 8 * j};
    }
    out[i] = sum;
  }
};
}  // namespace ts::lessons::demo
