// Reduction, step 3 (sequential addressing): at step s the first s threads
// add the upper half of the live cells onto the lower half, sdata[tid] +=
// sdata[tid + s], with s going B/2, B/4, .. 1. Lanes touch consecutive
// words: every bank once, no conflicts, and whole warps drop out together.
// Half of the threads idle from the first step on. out[blockIdx.x] gets the
// block's sum.
#pragma once

#include "lessons/access.hpp"
#include "lessons/reduction_kit.hpp"

namespace ts::lessons::reduction_sequential {

enum : ArraySlot { kIn = 1, kOut, kSdata };

template <class Rec>
TS_DEVICE void reduce_sequential(Rec& rec, const KernelArgs& args) {
  const int length = args.length;
  GlobalArray<const float, Rec> in(rec, args, kIn);  // (length)
  GlobalArray<float, Rec> out(rec, args, kOut);      // (one partial sum per block)

  const int block = blockDim.x, tid = threadIdx.x;
  TS_EXTERN_SHARED(float, sdata_mem);  // block * sizeof(float) bytes at launch
  SharedArray<float, Rec> sdata(rec, sdata_mem, block, kSdata);

  const int i = blockIdx.x * block + tid;
  float x = 0.0f;     // threads past the end add nothing
  DELAY_POINT(true);  // race lab: the chosen warps start loading late
  if (i < length) x = in[i];
  sdata[tid] = x;
  SYNCTHREADS(1);  // every element in place before anyone adds it

  for (int s = block / 2; s > 0; s >>= 1) {
    // The first s threads fold the upper half onto the lower: consecutive cells.
    if (tid < s) sdata[tid] += sdata[tid + s];
    SYNCTHREADS(2);  // this step's sums complete before the next step reads them
  }
  if (tid == 0) out[blockIdx.x] = sdata[0];
}

// ---- The lesson's description for TileScope (not part of the kernel) ----

TS_KERNEL_BODY(Body, reduce_sequential(rec, args));

struct Lesson {
  template <class F>
  static bool visit(const Params&, F&& f) {
    f(Body{});
    return true;
  }

  static const Variant& descriptor() {
    using namespace reduction_kit;
    static constexpr Shape kShape = {false, LastWarp::None};
    static const Variant v = {
        .id = "reduction.sequential",
        .title = "Reduction 3: sequential addressing",
        .summary =
            "The first s threads add the upper half of the cells onto the lower half: consecutive "
            "cells, no bank conflicts.",
        .family = "reduction",
        .family_title = "Reduction",
        .source_file = "lessons/reduction_sequential.hpp",
        .function = "reduce_sequential",
        .narration_key = "reduction_sequential",
        .uses = kUsesLength | kUsesBlock,
        .defaults = Params{.length = 512, .block = 128},
        .param_text = {{"length", "length", "elements of in; out gets one sum per block"},
                       {"block", "block size", "threads per block: a power of two, 32 to 1024"}},
        .barriers = {{1, 0,
                      "every element in place before anyone adds it: the tree reads cells that "
                      "other threads, in other warps, stored"},
                     {2, 0,
                      "this step's sums complete before the next step reads them (and before a "
                      "cell is overwritten while another thread still reads it)"}},
        .arrays = [](const Params& p) { return arrays(p, kShape); },
        .geometry = [](const Params& p) { return geometry(p, kShape); },
        .check = [](const Params& p, const DeviceLimits& lim) { return check(p, lim, kShape); },
        .shared_advice = smaller_block,
        .counts = [](const Params& p) { return counts(p, kShape); },
        .reference = [](const Params& p,
                        const LessonInputs& in) { return reference(p, in, kShape); },
        .sum_length = [](const Params& p) { return sum_length(p, kShape); },
        .with_warps = [](const Params& p,
                         int warps) { return with_warps(p, descriptor().defaults, warps); },
        .loads_per_output = [](const Params& p,
                               std::string* f) { return loads_per_output(p, f, kShape); },
        .metric = PerfMetric::Bytes,
        .flops = flops,
    };
    return v;
  }
};

}  // namespace ts::lessons::reduction_sequential
