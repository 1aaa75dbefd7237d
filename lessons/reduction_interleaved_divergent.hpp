// Reduction, step 1 (interleaved addressing with a divergent branch): each
// block copies its elements into shared memory, then adds them in a tree.
// At step s, thread tid adds sdata[tid + s] onto sdata[tid] when tid is a
// multiple of 2s. Correct, but the working threads are scattered over every
// warp: each warp runs the branch for a few of its lanes, and the remainder
// idles. out[blockIdx.x] gets the block's sum (one partial sum per block).
#pragma once

#include "lessons/access.hpp"
#include "lessons/reduction_kit.hpp"

namespace ts::lessons::reduction_interleaved_divergent {

enum : ArraySlot { kIn = 1, kOut, kSdata };

template <class Rec>
TS_DEVICE void reduce_interleaved_divergent(Rec& rec, const KernelArgs& args) {
  const int length = args.length;
  GlobalArray<const float, Rec> in(rec, args, kIn);  // (length)
  GlobalArray<float, Rec> out(rec, args, kOut);      // (one partial sum per block)

  const int block = blockDim.x, tid = threadIdx.x;
  TS_EXTERN_SHARED(float, sdata_mem);  // block * sizeof(float) bytes at launch
  SharedArray<float, Rec> sdata(rec, sdata_mem, block, kSdata);

  const int i = blockIdx.x * block + tid;
  float x = 0.0f;     // threads past the end add nothing
  DELAY_POINT(true);  // race lab: the chosen warps start loading late
  if (i < length) x = in[i];
  sdata[tid] = x;
  SYNCTHREADS(1);  // every element in place before anyone adds it

  for (int s = 1; s < block; s *= 2) {
    // Only every (2s)-th thread adds: divergent branches in every warp.
    if (tid % (2 * s) == 0) sdata[tid] += sdata[tid + s];
    SYNCTHREADS(2);  // this step's sums complete before the next step reads them
  }
  if (tid == 0) out[blockIdx.x] = sdata[0];
}

// ---- The lesson's description for TileScope (not part of the kernel) ----

TS_KERNEL_BODY(Body, reduce_interleaved_divergent(rec, args));

struct Lesson {
  static LessonSpec descriptor() {
    using namespace reduction_kit;
    return step<Shape{false, LastWarp::None}>({
        .title = "Reduction 1: interleaved addressing, divergent branch",
        .summary = "A tree of additions in shared memory where only every (2s)-th thread works: "
                   "warps diverge at every step.",
        .load_guards = kGuardsRawInWarp,
        .tree_guards = kGuardsRawAnywhere,
    });
  }
};

}  // namespace ts::lessons::reduction_interleaved_divergent
