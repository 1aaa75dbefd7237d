// Histogram, many elements per thread: step 2's private copy per block, but
// a grid of at most 1024 blocks (kit: kMaxBlocks) that walks the input a
// grid apart, a float4 (four elements, one 16-byte load) at a time, two
// float4s in flight per thread. Steps 2 to 4 ran one block per 256 elements,
// and each block ended with 64 global atomics on the same 64 addresses: 16.8
// million at 2^26 elements, queued at 64 L2 addresses. Here 1024 blocks make
// 65,536. The counting is a plain atomicAdd(&bin, 1): nvcc emits
// ATOMS.POPC.INC, which the hardware combines across the lanes of a warp
// that hit one counter: step 4's aggregation without its vote.
#pragma once

#include "lessons/access.hpp"
#include "lessons/histogram_kit.hpp"

namespace ts::lessons::histogram_grid_stride {

using histogram_kit::bin_of;
using histogram_kit::kBinCount;
enum : ArraySlot { kIn = 1, kBins, kLocalBins };
inline constexpr int kInFlight = 2;  // float4s a thread loads before it counts them

template <class Rec>
TS_DEVICE void histogram_grid_stride(Rec& rec, const KernelArgs& args) {
  const int length = args.length;
  GlobalArray<const float, Rec> in(rec, args, kIn);   // (length), 16-byte aligned
  GlobalArray<unsigned, Rec> bins(rec, args, kBins);  // (kBinCount), zero at launch

  __shared__ unsigned local_mem[kBinCount];  // this block's own histogram
  SharedArray<unsigned, Rec> local_bins(rec, local_mem, kBinCount, kLocalBins);

  const int tx = threadIdx.x, block = blockDim.x;
  DELAY_POINT(true);  // race lab: the chosen warps zero their bins late
  for (int b = tx; b < kBinCount; b += block) {
    local_bins[b] = 0u;
  }
  SYNCTHREADS(1);  // every counter is zero before anyone counts into it

  // float4 q holds elements 4q .. 4q + 3. Thread `first` counts float4s
  // first, first + stride, ..., kInFlight at a time: all their loads are
  // issued before the first count waits for one.
  const int quads = length / 4, stride = gridDim.x * block;
  const int first = blockIdx.x * block + tx;
  DELAY_POINT(true);  // race lab: the chosen warps count late
  for (int q = first; q < quads; q += kInFlight * stride) {
    float4 v[kInFlight];
#pragma unroll
    for (int u = 0; u < kInFlight; ++u)
      v[u] = q + u * stride < quads ? in.vec4(4 * (q + u * stride)) : float4{0, 0, 0, 0};
#pragma unroll
    for (int u = 0; u < kInFlight; ++u) {
      if (q + u * stride >= quads) break;
      atomic_add(local_bins[bin_of(v[u].x)], 1u);  // ATOMS.POPC.INC: the lanes of a warp
      atomic_add(local_bins[bin_of(v[u].y)], 1u);  // on one counter are combined by
      atomic_add(local_bins[bin_of(v[u].z)], 1u);  // the hardware
      atomic_add(local_bins[bin_of(v[u].w)], 1u);
    }
  }
  if (4 * quads + first < length)  // the tail: 0 to 3 elements, one per thread
    atomic_add(local_bins[bin_of(in[4 * quads + first])], 1u);
  SYNCTHREADS(2);  // every count of the block is in before the totals are read

  for (int b = tx; b < kBinCount; b += block) {
    const unsigned count = local_bins[b];
    atomic_add(bins[b], count);  // one global atomic per bin and block
  }
}

// ---- The lesson's description for TileScope (not part of the kernel) ----

TS_KERNEL_BODY(Body, histogram_grid_stride(rec, args));

struct Lesson {
  static LessonSpec descriptor() {
    using namespace histogram_kit;
    return lesson<Shape{.copies = Copies::Block, .grid_stride = true}>({
        .title = "Histogram, many elements per thread (float4, grid stride)",
        .summary = "At most 1024 blocks walk the input a grid apart, two float4s in flight per "
                   "thread: far fewer blocks, so far fewer global atomics; plain increments, "
                   "which the hardware combines per warp.",
        .defaults = {.length = 1024, .block = 64},
        .tests = {.larger = Params{.length = 2048, .block = 64},
                  .padded = Params{.length = 1003, .block = 64}},
    });
  }
};

}  // namespace ts::lessons::histogram_grid_stride
