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
  static LessonSpec descriptor() {
    using namespace reduction_kit;
    return step<Shape{true, LastWarp::Shuffle}>({
        .title = "Reduction 7: last warp with warp shuffles",
        .summary = "The last warp adds in registers with __shfl_down_sync: no shared memory, no "
                   "barrier, no race.",
        .load_guards = kGuardsRaw,
        .tree_guards = kGuardsRaw,
    });
  }
};

}  // namespace ts::lessons::reduction_warp_shuffle
