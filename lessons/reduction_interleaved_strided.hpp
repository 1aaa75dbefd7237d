// Reduction, step 2 (interleaved addressing with a strided index): the same
// tree as step 1, but the working threads are the first ones, so whole warps
// are busy or idle: no divergence. Thread tid works on index = 2 * s * tid,
// so neighbouring lanes touch cells 2s words apart, and lanes 32 / 2s apart
// hit the same bank: shared memory serves the warp in several wavefronts
// (bank conflicts). out[blockIdx.x] gets the block's sum.
#pragma once

#include "lessons/access.hpp"
#include "lessons/reduction_kit.hpp"

namespace ts::lessons::reduction_interleaved_strided {

enum : ArraySlot { kIn = 1, kOut, kSdata };

template <class Rec>
TS_DEVICE void reduce_interleaved_strided(Rec& rec, const KernelArgs& args) {
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

  for (int s = 1; s < block; s *= 2) {
    // Consecutive threads work, on cells 2s apart: bank conflicts.
    const int index = 2 * s * tid;
    if (index < block) sdata[index] += sdata[index + s];
    SYNCTHREADS(2);  // this step's sums complete before the next step reads them
  }
  if (tid == 0) out[blockIdx.x] = sdata[0];
}

// ---- The lesson's description for TileScope (not part of the kernel) ----

TS_KERNEL_BODY(Body, reduce_interleaved_strided(rec, args));

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
        .id = "reduction.interleaved_strided",
        .title = "Reduction 2: interleaved addressing, strided index",
        .summary =
            "The same tree with consecutive threads working, on cells 2s apart: no divergence, but "
            "bank conflicts.",
        .family = "reduction",
        .family_title = "Reduction",
        .source_file = "lessons/reduction_interleaved_strided.hpp",
        .function = "reduce_interleaved_strided",
        .narration_key = "reduction_interleaved_strided",
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

}  // namespace ts::lessons::reduction_interleaved_strided
