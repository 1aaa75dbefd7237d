// The arguments every catalogue kernel receives, on the GPU and in the
// simulator. Plain data, passed by value to the __global__ wrappers.
#pragma once

#include <cstdint>

#include "trace/event.hpp"

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

  // Points the kernel at a backend's allocation of one lesson array.
  void point_at(Buffer id, float* data) {
    switch (id) {
      case Buffer::A:
        a = data;
        break;
      case Buffer::B:
        b = data;
        break;
      case Buffer::C:
        c = data;
        break;
      case Buffer::In:
        in = data;
        break;
      case Buffer::Out:
        out = data;
        break;
      default:
        break;
    }
  }
};

}  // namespace ts
