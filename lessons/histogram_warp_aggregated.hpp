// Histogram with warp-aggregated atomics: step 3 (a private copy per warp),
// but the lanes of a warp that hold the same bin first agree on it:
// __match_any_sync(mask, bin) gives each lane the set of lanes with its bin,
// the lowest of them (the leader, __ffs(peers) - 1) adds __popc(peers) for
// all of them, and the others add nothing. One shared atomic per distinct bin
// in a warp instead of one per lane: 32 lanes on one bin make one atomic.
#pragma once

#include "lessons/access.hpp"
#include "lessons/histogram_kit.hpp"

namespace ts::lessons::histogram_warp_aggregated {

using histogram_kit::bin_of;
using histogram_kit::kBinCount;
enum : ArraySlot { kIn = 1, kBins, kWarpBins };

template <class Rec>
TS_DEVICE void histogram_warp_aggregated(Rec& rec, const KernelArgs& args) {
  const int length = args.length;
  GlobalArray<const float, Rec> in(rec, args, kIn);   // (length)
  GlobalArray<unsigned, Rec> bins(rec, args, kBins);  // (kBinCount), zero at launch

  const int tx = threadIdx.x, block = blockDim.x;
  const int lane = tx % 32, warp = tx / 32, warps = (block + 31) / 32;
  TS_EXTERN_SHARED(unsigned, warp_bins_mem);  // warps * kBinCount counters, sized at launch
  SharedArray<unsigned, Rec> warp_bins(rec, warp_bins_mem, warps * kBinCount, kWarpBins);
  // warp_bins[w * kBinCount + b]: warp w's count of bin b

  DELAY_POINT(true);  // race lab: the chosen warps zero their bins late
  for (int b = tx; b < kBinCount; b += block)
    for (int w = 0; w < warps; ++w)
      warp_bins[w * kBinCount + b] = 0u;
  SYNCTHREADS(1);  // every counter is zero before anyone counts into it

  const int i = blockIdx.x * block + tx;
  DELAY_POINT(true);  // race lab: the chosen warps count late
  // Every lane of the warp votes, also past the end (bin -1: nothing to count).
  const int bin = i < length ? bin_of(in[i]) : -1;
  const unsigned peers = MATCH_ANY(bin);     // __match_any_sync: the lanes whose bin is mine
  const int leader = __ffs(int(peers)) - 1;  // the lowest of them adds for all
  if (bin >= 0 && lane == leader)
    atomic_add(warp_bins[warp * kBinCount + bin], unsigned(__popc(peers)));
  SYNCTHREADS(2);  // every count of the block is in before the totals are read

  for (int b = tx; b < kBinCount; b += block) {
    unsigned total = 0;
    for (int w = 0; w < warps; ++w)
      total += warp_bins[w * kBinCount + b];
    atomic_add(bins[b], total);  // one global atomic per bin and block
  }
}

// ---- The lesson's description for TileScope (not part of the kernel) ----

TS_KERNEL_BODY(Body, histogram_warp_aggregated(rec, args));

struct Lesson {
  static LessonSpec descriptor() {
    using namespace histogram_kit;
    return lesson<Shape{.copies = Copies::Warp, .aggregated = true}>({
        "Histogram, warp-aggregated atomics",
        "The lanes of a warp with the same bin find each other with __match_any_sync; the lowest "
        "adds their count once: one shared atomic per distinct bin in a warp, not one per lane.",
    });
  }
};

}  // namespace ts::lessons::histogram_warp_aggregated
