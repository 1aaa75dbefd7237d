// The arguments every catalogue kernel receives, on the GPU and in the
// simulator. Plain data, passed by value to the __global__ wrappers.
#pragma once

#include <cstdint>

namespace ts {

struct KernelArgs {
  // Matrix multiply C (m x n) = A (m x k) x B (k x n), row-major. The square
  // kernels use n for all three.
  const float* a = nullptr;
  const float* b = nullptr;
  float* c = nullptr;
  int m = 0, k = 0, n = 0;
  // 1D stencil: out[i] = average of in[i - radius .. i + radius], clamped at the edges.
  const float* in = nullptr;
  float* out = nullptr;
  int length = 0;
  int radius = 0;
  // Extents the accessors check indices against (elements actually allocated
  // for the lesson's arrays: an index beyond is an out-of-range access).
  int a_count = 0, b_count = 0, c_count = 0, in_count = 0, out_count = 0;
};

}  // namespace ts
