// Reduction, step 6: the unrolled last warp, made correct. Each lane keeps
// its sum in a register, and a __syncwarp separates every read of a
// neighbour's cell from the write that overwrites it (barrier 3) and every
// write from the next step's read (barrier 4). Switch either off to bring
// the race of step 5 back. out[blockIdx.x] gets the block's sum.
#pragma once

#include "lessons/access.hpp"
#include "lessons/reduction_kit.hpp"

namespace ts::lessons::reduction_warp_syncwarp {

enum : ArraySlot { kIn = 1, kOut, kSdata };

template <class Rec>
TS_DEVICE void reduce_warp_syncwarp(Rec& rec, const KernelArgs& args) {
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
  // ... then warp 0 adds the last 64, a __syncwarp between reads and writes.
  if (tid < 32) {
    float v = sdata[tid];
    for (int s = 32; s > 0; s >>= 1) {
      v += sdata[tid + s];
      SYNCWARP(3);  // every lane has read before any lane overwrites its cell
      sdata[tid] = v;
      SYNCWARP(4);  // every lane has stored before the next step reads
    }
    if (tid == 0) out[blockIdx.x] = v;
  }
}

// ---- The lesson's description for TileScope (not part of the kernel) ----

TS_KERNEL_BODY(Body, reduce_warp_syncwarp(rec, args));

struct Lesson {
  template <class F>
  static bool visit(const Params&, F&& f) {
    f(Body{});
    return true;
  }

  static const Variant& descriptor() {
    using namespace reduction_kit;
    static constexpr Shape kShape = {true, LastWarp::Syncwarp};
    static const Variant v = {
        .id = "reduction.warp_syncwarp",
        .title = "Reduction 6: last warp unrolled, with __syncwarp",
        .summary =
            "The unrolled last warp made correct: a __syncwarp between every read and write of a "
            "neighbour's cell.",
        .family = "reduction",
        .family_title = "Reduction",
        .source_file = "lessons/reduction_warp_syncwarp.hpp",
        .function = "reduce_warp_syncwarp",
        .narration_key = "reduction_warp_syncwarp",
        .uses = kUsesLength | kUsesBlock,
        .defaults = Params{.length = 512, .block = 128},
        .param_text = {{"length", "length", "elements of in; out gets one sum per block"},
                       {"block", "block size", "threads per block: a power of two, 64 to 1024"}},
        .barriers = {{1, 0,
                      "every element in place before anyone adds it: the tree reads cells that "
                      "other threads, in other warps, stored"},
                     {2, 0,
                      "this step's sums complete before the next step reads them (and before a "
                      "cell is overwritten while another thread still reads it)"},
                     {3, 0,
                      "every lane has read its partner's cell before any lane overwrites its own"},
                     {4, 0, "every lane's new sum is stored before the next step reads it"}},
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

}  // namespace ts::lessons::reduction_warp_syncwarp
