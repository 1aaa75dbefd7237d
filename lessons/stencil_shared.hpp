// 1D stencil with a static shared array: out[i] is the average of in[i - R]
// .. in[i + R], indices clamped at the ends. Neighbouring outputs share most
// of their inputs, so each block reads its elements once into shared memory,
// plus R "halo" cells on each side that belong to the neighbouring blocks,
// and then reads the neighbours from there.
#pragma once

#include "lessons/access.hpp"
#include "lessons/stencil_kit.hpp"

namespace ts::lessons::stencil_shared {

using stencil_kit::clamp_index;
enum : ArraySlot { kIn = 1, kOut, kCache };

// The static shared array is sized at compile time for the largest block and
// radius the lesson allows.
inline constexpr int kMaxBlock = 1024;
inline constexpr int kMaxRadius = 64;

template <class Rec>
TS_DEVICE void stencil_shared(Rec& rec, const KernelArgs& args) {
  const int length = args.length, radius = args.radius;
  GlobalArray<const float, Rec> in(rec, args, kIn);  // (length)
  GlobalArray<float, Rec> out(rec, args, kOut);      // (length)

  const int block = blockDim.x, tx = threadIdx.x;
  // A launch uses the first block + 2 * radius elements:
  // [ R halo cells | the block's `block` elements | R halo cells ]
  __shared__ float cache_mem[kMaxBlock + 2 * kMaxRadius];
  SharedArray<float, Rec> cache(rec, cache_mem, block + 2 * radius, kCache);

  const int g = blockIdx.x * block + tx;  // this thread's element of in and out
  const int s = tx + radius;              // its place in the shared array

  DELAY_POINT(true);  // race lab: the chosen warps start loading late
  // Every thread loads its own element; past the end of the array (the last
  // block may be partial) it loads the clamped value, which is what its
  // neighbours need there.
  cache[s] = in[clamp_index(g, length)];
  if (tx < radius) {
    // The first R threads also load the halos: R cells before the block and
    // R after it. This is why the radius may not exceed the block size.
    cache[s - radius] = in[clamp_index(g - radius, length)];
    cache[s + block] = in[clamp_index(g + block, length)];
  }
  SYNCTHREADS(1);  // neighbours were loaded by other threads, other warps: wait for all

  if (g < length) {
    float sum = 0.0f;
    for (int j = -radius; j <= radius; ++j) {
      sum += cache[s + j];  // 2R + 1 shared loads, no global ones
    }
    out[g] = sum / float(2 * radius + 1);
  }
}

// ---- The lesson's description for TileScope (not part of the kernel) ----

TS_KERNEL_BODY(Body, stencil_shared(rec, args));

// The static array's compile-time sizes, beyond the kit's checks.
inline std::optional<std::string> check_static(const Params& p, const DeviceLimits& lim) {
  if (auto e = stencil_kit::check(p, lim, true)) return e;
  if (p.block > kMaxBlock)
    return "block " + std::to_string(p.block) + ": the static shared array is sized for at most " +
           std::to_string(kMaxBlock) + " threads per block";
  if (p.radius > kMaxRadius)
    return "radius " + std::to_string(p.radius) +
           ": the static shared array is sized at compile time for a radius of at most " +
           std::to_string(kMaxRadius) + "; use stencil.shared_dynamic (sized at launch) for more";
  return std::nullopt;
}

struct Lesson {
  static LessonSpec descriptor() {
    using namespace stencil_kit;
    LessonSpec s = lesson<Cache::Static>("1D stencil, shared memory with halo",
                                         "Each block loads its elements plus R halo cells on each "
                                         "side into a static shared array, clamping at the ends.");
    s.geometry = [](const Params& p) {
      LaunchGeometry g = geometry(p);
      g.static_shared_bytes = 4 * (kMaxBlock + 2 * kMaxRadius);
      return g;
    };
    s.check = lesson_kit::check_params<check_static>;
    return s;
  }
};

}  // namespace ts::lessons::stencil_shared
