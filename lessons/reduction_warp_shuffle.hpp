// Reduction, step 7 (warp shuffle): once 64 partial sums are left, warp 0
// adds them in registers. __shfl_down_sync(0xffffffff, v, s) hands each lane
// the v of the lane s above it, all 32 lanes at once and synchronised by the
// instruction itself: no shared memory, no __syncwarp, no race.
// out[blockIdx.x] gets the block's sum.
#pragma once

#include "lessons/access.hpp"
#include "lessons/reduction_kit.hpp"

namespace ts::lessons::reduction_warp_shuffle {

enum : ArraySlot { kIn = 1, kOut, kSdata };

template <class Rec>
TS_DEVICE void reduce_warp_shuffle(Rec& rec, const KernelArgs& args) {
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

  // Halve the block until 64 partial sums are left ...
  for (int s = block / 2; s > 32; s >>= 1) {
    if (tid < s) sdata[tid] += sdata[tid + s];
    SYNCTHREADS(2);  // this step's sums complete before the next step reads them
  }
  // ... then warp 0 adds the last 64 in registers.
  if (tid < 32) {
    float v = sdata[tid] + sdata[tid + 32];
    for (int s = 16; s > 0; s >>= 1)
      v += SHFL_DOWN(v, s);  // lane tid gets lane tid + s's v
    if (tid == 0) out[blockIdx.x] = v;
  }
}

// ---- The lesson's description for TileScope (not part of the kernel) ----

TS_KERNEL_BODY(Body, reduce_warp_shuffle(rec, args));

struct Lesson {
  template <class F>
  static bool visit(const Params&, F&& f) {
    f(Body{});
    return true;
  }

  static const Variant& descriptor() {
    using namespace reduction_kit;
    static constexpr Shape kShape = {true, LastWarp::Shuffle};
    static const Variant v = {
        .id = "reduction.warp_shuffle",
        .title = "Reduction 7: last warp with warp shuffles",
        .summary =
            "The last warp adds in registers with __shfl_down_sync: no shared memory, no barrier, "
            "no race.",
        .family = "reduction",
        .family_title = "Reduction",
        .source_file = "lessons/reduction_warp_shuffle.hpp",
        .function = "reduce_warp_shuffle",
        .narration_key = "reduction_warp_shuffle",
        .uses = kUsesLength | kUsesBlock,
        .defaults = Params{.length = 512, .block = 128},
        .param_text = {{"length", "length", "elements of in; out gets one sum per block"},
                       {"block", "block size", "threads per block: a power of two, 64 to 1024"}},
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
        .loads_per_output = [](const Params& p,
                               std::string* f) { return loads_per_output(p, f, kShape); },
        .metric = PerfMetric::Bytes,
        .flops = flops,
    };
    return v;
  }
};

}  // namespace ts::lessons::reduction_warp_shuffle
