// Reduction, step 5 (last warp unrolled), written the old way: once 64
// partial sums are left, warp 0 alone finishes through a volatile pointer,
// with no barrier, trusting its 32 lanes to run in step. Since Volta
// (independent thread scheduling) nothing promises that: lane i may read
// sdata[i + 16] before or after lane i + 16 has overwritten it. A real race,
// within one warp: compute-sanitizer racecheck reports it (as warnings).
// out[blockIdx.x] gets the block's sum.
#pragma once

#include "lessons/access.hpp"
#include "lessons/reduction_kit.hpp"

namespace ts::lessons::reduction_warp_volatile {

enum : ArraySlot { kIn = 1, kOut, kSdata };

// The last warp, the pre-Volta way: volatile keeps every access in memory,
// and the code assumes the 32 lanes move together. No __syncwarp.
template <class Rec>
TS_DEVICE void warp_reduce(Rec& rec, volatile float* mem, int block, int tid) {
  SharedArray<volatile float, Rec> vsdata(rec, mem, block, kSdata);
  vsdata[tid] += vsdata[tid + 32];
  vsdata[tid] += vsdata[tid + 16];
  vsdata[tid] += vsdata[tid + 8];
  vsdata[tid] += vsdata[tid + 4];
  vsdata[tid] += vsdata[tid + 2];
  vsdata[tid] += vsdata[tid + 1];
}

template <class Rec>
TS_DEVICE void reduce_warp_volatile(Rec& rec, const KernelArgs& args) {
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
  // ... then warp 0 adds the last 64 without a barrier.
  if (tid < 32) warp_reduce(rec, sdata_mem, block, tid);
  if (tid == 0) out[blockIdx.x] = sdata[0];
}

// ---- The lesson's description for TileScope (not part of the kernel) ----

TS_KERNEL_BODY(Body, reduce_warp_volatile(rec, args));

struct Lesson {
  static LessonSpec descriptor() {
    using namespace reduction_kit;
    return step<Shape{true, LastWarp::Volatile}>({
        .title = "Reduction 5: last warp unrolled, volatile (a race)",
        .summary = "The last six steps run in one warp with no barrier, through a volatile "
                   "pointer: a race since Volta.",
        .load_guards = kGuardsRaw,
        .tree_guards = kGuardsRaw,
        .tests = {.racy_by_design = kGuardsRawInWarp | kGuardsWarInWarp},
    });
  }
};

}  // namespace ts::lessons::reduction_warp_volatile
