// Histogram with a private shared histogram per block: the block zeroes 64
// shared counters, counts its elements into them with shared atomics (fast,
// on-chip, and only the block's own threads compete), then adds its 64
// counts to the global histogram: 64 global atomics per block instead of one
// per element. Two barriers: the counters are zero before anyone counts, and
// every count is in before the block's total is read.
#pragma once

#include "lessons/access.hpp"
#include "lessons/histogram_kit.hpp"

namespace ts::lessons::histogram_shared_atomics {

using histogram_kit::bin_of;
using histogram_kit::kBinCount;
enum : ArraySlot { kIn = 1, kBins, kLocalBins };

template <class Rec>
TS_DEVICE void histogram_shared_atomics(Rec& rec, const KernelArgs& args) {
  const int length = args.length;
  GlobalArray<const float, Rec> in(rec, args, kIn);   // (length)
  GlobalArray<unsigned, Rec> bins(rec, args, kBins);  // (kBinCount), zero at launch

  __shared__ unsigned local_mem[kBinCount];  // this block's own histogram
  SharedArray<unsigned, Rec> local_bins(rec, local_mem, kBinCount, kLocalBins);

  const int tx = threadIdx.x, block = blockDim.x;
  const int i = blockIdx.x * block + tx;

  DELAY_POINT(true);  // race lab: the chosen warps zero their bins late
  for (int b = tx; b < kBinCount; b += block) {
    local_bins[b] = 0u;
  }
  SYNCTHREADS(1);  // every counter is zero before anyone counts into it

  DELAY_POINT(true);  // race lab: the chosen warps count late
  if (i < length) {
    const int bin = bin_of(in[i]);
    atomic_add(local_bins[bin], 1u);  // atomicAdd(&local_bins[bin], 1): on-chip
  }
  SYNCTHREADS(2);  // every count of the block is in before the totals are read

  for (int b = tx; b < kBinCount; b += block) {
    const unsigned count = local_bins[b];
    atomic_add(bins[b], count);  // one global atomic per bin and block
  }
}

// ---- The lesson's description for TileScope (not part of the kernel) ----

TS_KERNEL_BODY(Body, histogram_shared_atomics(rec, args));

struct Lesson {
  template <class F>
  static bool visit(const Params&, F&& f) {
    f(Body{});
    return true;
  }

  static const Variant& descriptor() {
    using namespace histogram_kit;
    static const Variant v = {
        .id = "histogram.shared_atomics",
        .title = "Histogram, private shared bins per block",
        .summary =
            "Each block counts into its own 64 shared counters with shared atomics, then "
            "adds them to the global bins: 64 global atomics per block instead of one per "
            "element; two barriers keep the phases apart.",
        .family = "histogram",
        .family_title = "Histogram",
        .source_file = "lessons/histogram_shared_atomics.hpp",
        .function = "histogram_shared_atomics",
        .narration_key = "histogram_shared_atomics",
        .uses = kUsesLength | kUsesBlock,
        .defaults = Params{.length = 200, .block = 64},
        .param_text = {{"length", "length", "elements of in, counted into 64 bins over [-4, 4]"},
                       {"block", "block size", "threads per block"}},
        .barriers = {{1, 0,
                      "the counters are zeroed by a few threads: all zero before any thread "
                      "counts into them"},
                     {2, 0,
                      "the totals are read by other threads: every count in before they are "
                      "read and added to the global bins"}},
        .arrays = [](const Params& p) { return arrays(p.length, {local_bins_array()}); },
        .geometry =
            [](const Params& p) {
              LaunchGeometry g = geometry(p);
              g.static_shared_bytes = uint32_t(4 * kBinCount);
              return g;
            },
        .check = check,
        .shared_advice = no_fix,
        // Per block: 64 zero stores, 64 total reads, 64 global atomics; per
        // element: one load and one shared atomic; every thread at both barriers.
        .counts =
            [](const Params& p) {
              const LaunchGeometry g = geometry(p);
              const uint64_t blocks = g.grid.x, bins = kBinCount;
              ExpectedCounts c;
              c.global_loads = c.shared_atomics = uint64_t(std::max(p.length, 0));
              c.shared_stores = c.shared_loads = c.global_atomics = blocks * bins;
              c.barrier_arrivals = 2 * blocks * g.block.x;
              return c;
            },
        .reference = reference,
        .sum_length = sum_length,
        .loads_per_output = loads,
        .metric = PerfMetric::Bytes,
    };
    return v;
  }
};

}  // namespace ts::lessons::histogram_shared_atomics
