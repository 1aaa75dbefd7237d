// Reduction, step 4 (first add during load): sequential addressing, but
// each block covers 2 * block elements and every thread adds its two (a
// block apart) while loading them. Half as many blocks, and the first step
// of the tree is done in registers. out[blockIdx.x] gets the block's sum.
#pragma once

#include "lessons/access.hpp"
#include "lessons/reduction_kit.hpp"

namespace ts::lessons::reduction_first_add {

enum : ArraySlot { kIn = 1, kOut, kSdata };

template <class Rec>
TS_DEVICE void reduce_first_add(Rec& rec, const KernelArgs& args) {
  const int length = args.length;
  GlobalArray<const float, Rec> in(rec, args, kIn);  // (length)
  GlobalArray<float, Rec> out(rec, args, kOut);      // (one partial sum per block)

  const int block = blockDim.x, tid = threadIdx.x;
  TS_EXTERN_SHARED(float, sdata_mem);  // block * sizeof(float) bytes at launch
  SharedArray<float, Rec> sdata(rec, sdata_mem, block, kSdata);

  // Each thread adds two elements, a block apart, on the way in: half the
  // blocks, and no thread idles during the first step.
  const int i = blockIdx.x * (2 * block) + tid;
  float x = 0.0f;     // threads past the end add nothing
  DELAY_POINT(true);  // race lab: the chosen warps start loading late
  if (i < length) x = in[i];
  if (i + block < length) x += in[i + block];
  sdata[tid] = x;
  SYNCTHREADS(1);  // every element in place before anyone adds it

  for (int s = block / 2; s > 0; s >>= 1) {
    if (tid < s) sdata[tid] += sdata[tid + s];
    SYNCTHREADS(2);  // this step's sums complete before the next step reads them
  }
  if (tid == 0) out[blockIdx.x] = sdata[0];
}

// ---- The lesson's description for TileScope (not part of the kernel) ----

TS_KERNEL_BODY(Body, reduce_first_add(rec, args));

struct Lesson {
  template <class F>
  static bool visit(const Params&, F&& f) {
    f(Body{});
    return true;
  }

  static const Variant& descriptor() {
    using namespace reduction_kit;
    static constexpr Shape kShape = {true, LastWarp::None};
    static const Variant v = {
        .id = "reduction.first_add",
        .title = "Reduction 4: first add during load",
        .summary =
            "Each thread adds two elements while loading: half the blocks, no idle half in the "
            "first step.",
        .family = "reduction",
        .family_title = "Reduction",
        .source_file = "lessons/reduction_first_add.hpp",
        .function = "reduce_first_add",
        .narration_key = "reduction_first_add",
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

}  // namespace ts::lessons::reduction_first_add
