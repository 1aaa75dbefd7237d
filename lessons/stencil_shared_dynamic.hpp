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
  template <class F>
  static bool visit(const Params&, F&& f) {
    f(Body{});
    return true;
  }

  static const Variant& descriptor() {
    using namespace stencil_kit;
    static const Variant v = {
        .id = "stencil.shared_dynamic",
        .title = "1D stencil, extern __shared__ sized at launch",
        .summary =
            "The halo stencil with its shared array sized at launch, for any block size "
            "and radius that fit.",
        .family = "stencil",
        .family_title = "1D stencil",
        .source_file = "lessons/stencil_shared_dynamic.hpp",
        .function = "stencil_shared_dynamic",
        .narration_key = "stencil_shared_dynamic",
        .uses = kUsesLength | kUsesRadius | kUsesBlock,
        .defaults = Params{.length = 150, .radius = 3, .block = 64},
        .param_text = {{"length", "length", "elements of in and out"},
                       {"radius", "radius R", "neighbours on each side: 2R + 1 inputs per output"},
                       {"block", "block size", "threads per block"}},
        .barriers = {{1, 0,
                      "neighbours were loaded by other threads and warps: all in place before "
                      "anyone reads"}},
        .arrays =
            [](const Params& p) {
              return arrays(p.length, {shared_array("cache", 1, p.block + 2 * p.radius)});
            },
        .geometry =
            [](const Params& p) {
              LaunchGeometry g = geometry(p);
              g.dynamic_shared_bytes =
                  uint32_t(4 * (int64_t(std::max(p.block, 1)) + 2 * std::max(p.radius, 0)));
              return g;
            },
        .check = [](const Params& p, const DeviceLimits& lim) { return check(p, lim, true); },
        .shared_advice = smaller_block,
        .counts = halo_counts,
        .reference = reference,
        .sum_length = sum_length,
        .with_warps = [](const Params& p,
                         int warps) { return halo_with_warps(p, descriptor().defaults, warps); },
        .loads_per_output = halo_loads,
        .metric = PerfMetric::Bytes,
        .flops = flops,
    };
    return v;
  }
};

}  // namespace ts::lessons::stencil_shared_dynamic
