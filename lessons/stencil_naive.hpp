// 1D stencil, global memory only: out[i] is the average of in[i - R] ..
// in[i + R], 2R + 1 values. At the ends of the array an index outside it is
// clamped to the first or the last element ("edge clamping"), so every
// output averages 2R + 1 values. Neighbouring outputs share most of their
// inputs (with R = 3, in[i] is read by the 7 threads i - 3 .. i + 3), and
// here every one of those reads goes to global memory.
#pragma once

#include "lessons/access.hpp"
#include "lessons/stencil_kit.hpp"

namespace ts::lessons::stencil_naive {

using stencil_kit::clamp_index;
enum : ArraySlot { kIn = 1, kOut };

// Every thread reads its 2R + 1 neighbours from global memory.
template <class Rec>
TS_DEVICE void stencil_naive(Rec& rec, const KernelArgs& args) {
  const int length = args.length, radius = args.radius;
  GlobalArray<const float, Rec> in(rec, args, kIn);  // (length)
  GlobalArray<float, Rec> out(rec, args, kOut);      // (length)

  const int i = blockIdx.x * blockDim.x + threadIdx.x;  // the element this thread computes
  if (i < length) {
    float sum = 0.0f;
    for (int j = -radius; j <= radius; ++j) {
      sum += in[clamp_index(i + j, length)];  // 2R + 1 global loads per output
    }
    out[i] = sum / float(2 * radius + 1);
  }
}

// ---- The lesson's description for TileScope (not part of the kernel) ----

TS_KERNEL_BODY(Body, stencil_naive(rec, args));

struct Lesson {
  static LessonSpec descriptor() {
    return stencil_kit::lesson<stencil_kit::Cache::None>(
        "1D stencil, global memory only",
        "Each output averages its 2R + 1 neighbours, all read from global memory.");
  }
};

}  // namespace ts::lessons::stencil_naive
