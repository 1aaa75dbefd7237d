// Histogram with a private shared histogram per warp: step 2's private copy,
// one per warp instead of one per block. A warp's lanes count into their
// own 64 counters (warp_bins[warp][bin]), so atomics of different warps never
// meet on one counter; at the end thread tx adds bin tx of every warp's copy
// and adds that total to the global bins. Still one element per thread: one
// block per 256 elements, and each block's 64 global atomics.
#pragma once

#include "lessons/access.hpp"
#include "lessons/histogram_kit.hpp"

namespace ts::lessons::histogram_per_warp {

using histogram_kit::bin_of;
using histogram_kit::kBinCount;
enum : ArraySlot { kIn = 1, kBins, kWarpBins };

template <class Rec>
TS_DEVICE void histogram_per_warp(Rec& rec, const KernelArgs& args) {
  const int length = args.length;
  GlobalArray<const float, Rec> in(rec, args, kIn);   // (length)
  GlobalArray<unsigned, Rec> bins(rec, args, kBins);  // (kBinCount), zero at launch

  const int tx = threadIdx.x, block = blockDim.x;
  const int warp = tx / 32, warps = (block + 31) / 32;
  TS_EXTERN_SHARED(unsigned, warp_bins_mem);  // warps * kBinCount counters, sized at launch
  SharedArray<unsigned, Rec> warp_bins(rec, warp_bins_mem, warps * kBinCount, kWarpBins);
  // warp_bins[w * kBinCount + b]: warp w's count of bin b

  // Thread tx zeroes bin tx (tx + block, ...) of every warp's copy; it adds
  // the same counters up at the end.
  DELAY_POINT(true);  // race lab: the chosen warps zero their bins late
  for (int b = tx; b < kBinCount; b += block)
    for (int w = 0; w < warps; ++w)
      warp_bins[w * kBinCount + b] = 0u;
  SYNCTHREADS(1);  // every counter is zero before anyone counts into it

  const int i = blockIdx.x * block + tx;
  DELAY_POINT(true);  // race lab: the chosen warps count late
  if (i < length) {
    const int bin = bin_of(in[i]);
    atomic_add(warp_bins[warp * kBinCount + bin], 1u);  // only this warp's lanes compete here
  }
  SYNCTHREADS(2);  // every count of the block is in before the totals are read

  for (int b = tx; b < kBinCount; b += block) {
    unsigned total = 0;
    for (int w = 0; w < warps; ++w)
      total += warp_bins[w * kBinCount + b];
    atomic_add(bins[b], total);  // one global atomic per bin and block
  }
}

// ---- The lesson's description for TileScope (not part of the kernel) ----

TS_KERNEL_BODY(Body, histogram_per_warp(rec, args));

struct Lesson {
  static LessonSpec descriptor() {
    using namespace histogram_kit;
    return lesson<Shape{.copies = Copies::Warp}>({
        "Histogram, private shared bins per warp",
        "Each warp counts into its own 64 shared counters, so atomics of different warps never "
        "meet on one counter; the block adds its warps' copies before the global atomics.",
    });
  }
};

}  // namespace ts::lessons::histogram_per_warp
