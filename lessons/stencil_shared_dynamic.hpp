// 1D stencil with `extern __shared__`: out[i] is the average of in[i - R] ..
// in[i + R], indices clamped at the ends. As in the static version, each
// block reads its elements plus R halo cells on each side into shared memory
// once; here the array's size, (block + 2R) floats, is given at launch, so
// any block size and radius work as long as they fit.
#pragma once

#include "lessons/access.hpp"
#include "lessons/stencil_kit.hpp"

namespace ts::lessons::stencil_shared_dynamic {

using stencil_kit::clamp_index;
enum : ArraySlot { kIn = 1, kOut, kCache };

template <class Rec>
TS_DEVICE void stencil_shared_dynamic(Rec& rec, const KernelArgs& args) {
  const int length = args.length, radius = args.radius;
  GlobalArray<const float, Rec> in(rec, args, kIn);  // (length)
  GlobalArray<float, Rec> out(rec, args, kOut);      // (length)

  const int block = blockDim.x, tx = threadIdx.x;
  TS_EXTERN_SHARED(float, cache_mem);  // (block + 2 * radius) * sizeof(float) bytes at launch
  SharedArray<float, Rec> cache(rec, cache_mem, block + 2 * radius, kCache);

  const int g = blockIdx.x * block + tx;
  const int s = tx + radius;

  DELAY_POINT(true);  // race lab: the chosen warps start loading late
  cache[s] = in[clamp_index(g, length)];
  if (tx < radius) {
    cache[s - radius] = in[clamp_index(g - radius, length)];
    cache[s + block] = in[clamp_index(g + block, length)];
  }
  SYNCTHREADS(1);  // neighbours were loaded by other threads, other warps: wait for all

  if (g < length) {
    float sum = 0.0f;
    for (int j = -radius; j <= radius; ++j) {
      sum += cache[s + j];
    }
    out[g] = sum / float(2 * radius + 1);
  }
}

// ---- The lesson's description for TileScope (not part of the kernel) ----

TS_KERNEL_BODY(Body, stencil_shared_dynamic(rec, args));

struct Lesson {
  static LessonSpec descriptor() {
    LessonSpec s = stencil_kit::lesson<stencil_kit::Cache::Dynamic>(
        "1D stencil, extern __shared__ sized at launch",
        "The halo stencil with its shared array sized at launch, for any block size and radius "
        "that fit.");
    s.tests.padded = Params{.length = 100, .radius = 5, .block = 96};
    return s;
  }
};

}  // namespace ts::lessons::stencil_shared_dynamic
