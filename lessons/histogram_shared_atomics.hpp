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
  static LessonSpec descriptor() {
    return histogram_kit::lesson<histogram_kit::Shape{.copies = histogram_kit::Copies::Block}>(
        {"Histogram, private shared bins per block",
         "Each block counts into its own 64 shared counters with shared atomics, then adds them to "
         "the global bins: 64 global atomics per block instead of one per element; two barriers "
         "keep the phases apart."});
  }
};

}  // namespace ts::lessons::histogram_shared_atomics
