// Reduction, step 3 (sequential addressing): at step s the first s threads
// add the upper half of the live cells onto the lower half, sdata[tid] +=
// sdata[tid + s], with s going B/2, B/4, .. 1. Lanes touch consecutive
// words: every bank once, no conflicts, and whole warps drop out together.
// Half of the threads idle from the first step on. out[blockIdx.x] gets the
// block's sum.
#pragma once

#include "lessons/access.hpp"
#include "lessons/reduction_kit.hpp"

namespace ts::lessons::reduction_sequential {

enum : ArraySlot { kIn = 1, kOut, kSdata };

template <class Rec>
TS_DEVICE void reduce_sequential(Rec& rec, const KernelArgs& args) {
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

  for (int s = block / 2; s > 0; s >>= 1) {
    // The first s threads fold the upper half onto the lower: consecutive cells.
    if (tid < s) sdata[tid] += sdata[tid + s];
    SYNCTHREADS(2);  // this step's sums complete before the next step reads them
  }
  if (tid == 0) out[blockIdx.x] = sdata[0];
}

// ---- The lesson's description for TileScope (not part of the kernel) ----

TS_KERNEL_BODY(Body, reduce_sequential(rec, args));

struct Lesson {
  static LessonSpec descriptor() {
    using namespace reduction_kit;
    return step<Shape{false, LastWarp::None}>({
        .title = "Reduction 3: sequential addressing",
        .summary = "The first s threads add the upper half of the cells onto the lower half: "
                   "consecutive cells, no bank conflicts.",
        .load_guards = kGuardsRaw,
        .tree_guards = kGuardsRawAnywhere,
    });
  }
};

}  // namespace ts::lessons::reduction_sequential
