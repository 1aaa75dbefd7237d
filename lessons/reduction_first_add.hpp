// Reduction, step 4 (first add during load): sequential addressing, but
// each block covers 2 * block elements and every thread adds its two (a
// block apart) while loading them. Half as many blocks, and the first step
// of the tree is done in registers. out[blockIdx.x] gets the block's sum.
#pragma once

#include "lessons/access.hpp"
#include "lessons/reduction_kit.hpp"

namespace ts::lessons::reduction_first_add {

enum : ArraySlot { kIn = 1, kOut, kSdata };

template <class Rec>
TS_DEVICE void reduce_first_add(Rec& rec, const KernelArgs& args) {
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

  for (int s = block / 2; s > 0; s >>= 1) {
    if (tid < s) sdata[tid] += sdata[tid + s];
    SYNCTHREADS(2);  // this step's sums complete before the next step reads them
  }
  if (tid == 0) out[blockIdx.x] = sdata[0];
}

// ---- The lesson's description for TileScope (not part of the kernel) ----

TS_KERNEL_BODY(Body, reduce_first_add(rec, args));

struct Lesson {
  static LessonSpec descriptor() {
    using namespace reduction_kit;
    return step<Shape{true, LastWarp::None}>({
        .title = "Reduction 4: first add during load",
        .summary = "Each thread adds two elements while loading: half the blocks, no idle half in "
                   "the first step.",
        .load_guards = kGuardsRaw,
        .tree_guards = kGuardsRawAnywhere,
    });
  }
};

}  // namespace ts::lessons::reduction_first_add
