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
  template <class F>
  static bool visit(const Params&, F&& f) {
    f(Body{});
    return true;
  }

  static const Variant& descriptor() {
    using namespace stencil_kit;
    static const Variant v = {
        .id = "stencil.naive",
        .title = "1D stencil, global memory only",
        .summary = "Each output averages its 2R + 1 neighbours, all read from global memory.",
        .family = "stencil",
        .family_title = "1D stencil",
        .source_file = "lessons/stencil_naive.hpp",
        .function = "stencil_naive",
        .narration_key = "stencil_naive",
        .uses = kUsesLength | kUsesRadius | kUsesBlock,
        .defaults = Params{.length = 150, .radius = 3, .block = 64},
        .param_text = {{"length", "length", "elements of in and out"},
                       {"radius", "radius R", "neighbours on each side: 2R + 1 inputs per output"},
                       {"block", "block size", "threads per block"}},
        .barriers = {},
        .arrays = [](const Params& p) { return arrays(p.length); },
        .geometry = geometry,
        .check = [](const Params& p, const DeviceLimits& lim) { return check(p, lim, false); },
        .shared_advice = smaller_block,
        .counts =
            [](const Params& p) {
              ExpectedCounts c;
              c.global_stores = uint64_t(p.length);
              c.global_loads = uint64_t(p.length) * (2 * uint64_t(p.radius) + 1);
              return c;
            },
        .reference = reference,
        .sum_length = sum_length,
        .loads_per_output = naive_loads,
        .metric = PerfMetric::Bytes,
        .flops = flops,
    };
    return v;
  }
};

}  // namespace ts::lessons::stencil_naive
