// Histogram with global atomics: every thread reads one element of `in` and
// adds 1 to its bin in the global histogram with atomicAdd. Correct without
// a single barrier: an atomic add is one read-modify-write that no other
// thread can split. But every add goes to global memory, and the lanes of a
// warp that hit the same bin are served one after another: with few busy
// bins, the atomics queue up (see the contention per bin).
#pragma once

#include "lessons/access.hpp"
#include "lessons/histogram_kit.hpp"

namespace ts::lessons::histogram_global_atomics {

using histogram_kit::bin_of;
using histogram_kit::kBinCount;
enum : ArraySlot { kIn = 1, kBins };

template <class Rec>
TS_DEVICE void histogram_global_atomics(Rec& rec, const KernelArgs& args) {
  const int length = args.length;
  GlobalArray<const float, Rec> in(rec, args, kIn);   // (length)
  GlobalArray<unsigned, Rec> bins(rec, args, kBins);  // (kBinCount), zero at launch

  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  DELAY_POINT(true);  // race lab: the chosen warps start late (nothing races here)
  if (i < length) {
    const int bin = bin_of(in[i]);
    atomic_add(bins[bin], 1u);  // atomicAdd(&bins[bin], 1): lanes on one bin take turns
  }
}

// ---- The lesson's description for TileScope (not part of the kernel) ----

TS_KERNEL_BODY(Body, histogram_global_atomics(rec, args));

struct Lesson {
  static LessonSpec descriptor() {
    return histogram_kit::lesson<histogram_kit::Shape{}>(
        {"Histogram, atomicAdd on global bins",
         "Every thread adds 1 to its element's bin in global memory with atomicAdd: right without "
         "barriers, but every add is a global atomic, and lanes on one bin wait for each other."});
  }
};

}  // namespace ts::lessons::histogram_global_atomics
