// 1D stencil, four outputs per thread: out[i] is the average of in[i - R] ..
// in[i + R], indices clamped at the ends. The halo stencil spent its time
// waiting: each thread issued one 4-byte load, then the barrier, then a
// handful of adds, so a whole SM had a few kilobytes of loads in flight
// while the memory needs tens of kilobytes in flight to stay busy. Here a
// block covers 4 x block elements and each thread loads four of them, a block
// apart, before it waits: four independent loads in flight per thread, each
// still one coalesced warp load. The halo (R cells on each side) is now
// shared by four times as many outputs.
#pragma once

#include "lessons/access.hpp"
#include "lessons/stencil_kit.hpp"

namespace ts::lessons::stencil_several_outputs {

using stencil_kit::clamp_index;
enum : ArraySlot { kIn = 1, kOut, kCache };

inline constexpr int kPerThread = 4;  // outputs (and loads) per thread

template <class Rec>
TS_DEVICE void stencil_several_outputs(Rec& rec, const KernelArgs& args) {
  const int length = args.length, radius = args.radius;
  GlobalArray<const float, Rec> in(rec, args, kIn);  // (length)
  GlobalArray<float, Rec> out(rec, args, kOut);      // (length)

  const int block = blockDim.x, tx = threadIdx.x;
  const int span = kPerThread * block;  // the block's elements
  TS_EXTERN_SHARED(float, cache_mem);   // (span + 2 * radius) * sizeof(float) bytes at launch
  SharedArray<float, Rec> cache(rec, cache_mem, span + 2 * radius, kCache);
  const int first = blockIdx.x * span;  // the block's first element

  DELAY_POINT(true);  // race lab: the chosen warps start loading late
  // Four loads a block apart: consecutive threads read consecutive elements
  // (coalesced), and no load waits for another, so all four are in flight.
#pragma unroll
  for (int k = 0; k < kPerThread; ++k) {
    const int s = tx + k * block;  // the element's place in the span
    cache[s + radius] = in[clamp_index(first + s, length)];
  }
  if (tx < radius) {  // the halos: R cells before the span and R after it
    cache[tx] = in[clamp_index(first - radius + tx, length)];
    cache[span + radius + tx] = in[clamp_index(first + span + tx, length)];
  }
  SYNCTHREADS(1);  // neighbours were loaded by other threads, other warps: wait for all

#pragma unroll
  for (int k = 0; k < kPerThread; ++k) {
    const int s = tx + k * block, g = first + s;
    if (g < length) {
      float sum = 0.0f;
      for (int j = -radius; j <= radius; ++j) {
        sum += cache[s + radius + j];  // 2R + 1 shared loads per output
      }
      out[g] = sum / float(2 * radius + 1);
    }
  }
}

// ---- The lesson's description for TileScope (not part of the kernel) ----

TS_KERNEL_BODY(Body, stencil_several_outputs(rec, args));

struct Lesson {
  static LessonSpec descriptor() {
    using namespace stencil_kit;
    LessonSpec s = lesson<Cache::Dynamic>(
        "1D stencil, four outputs per thread",
        "Each thread loads four elements a block apart before the barrier: four loads in "
        "flight per thread, and a halo shared by four times the outputs.");
    s.arrays = [](const Params& p) {
      return arrays(p.length, {shared_array("cache", 1, kPerThread * p.block + 2 * p.radius)});
    };
    s.geometry = [](const Params& p) {
      LaunchGeometry g = span_geometry(p, kPerThread);
      g.dynamic_shared_bytes = uint32_t(4 * (int64_t(kPerThread) * (p.block < 1 ? 1 : p.block) +
                                             2 * (p.radius < 0 ? 0 : p.radius)));
      return g;
    };
    s.counts = [](const Params& p) { return halo_counts(p, kPerThread); };
    s.loads_per_output = [](const Params& p, std::string* formula) {
      return span_loads(p, kPerThread, p.radius, formula);
    };
    // Two or more blocks of two warps; the padded run ends in a partial block.
    s.tests.larger = Params{.length = 600, .radius = 3, .block = 64};
    s.tests.padded = Params{.length = 300, .radius = 3, .block = 64};
    return s;
  }
};

}  // namespace ts::lessons::stencil_several_outputs
