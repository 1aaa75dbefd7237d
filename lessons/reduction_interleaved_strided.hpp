// Reduction, step 2 (interleaved addressing with a strided index): the same
// tree as step 1, but the working threads are the first ones, so whole warps
// are busy or idle: no divergence. Thread tid works on index = 2 * s * tid,
// so neighbouring lanes touch cells 2s words apart, and lanes 32 / 2s apart
// hit the same bank: shared memory serves the warp in several wavefronts
// (bank conflicts). out[blockIdx.x] gets the block's sum.
#pragma once

#include "lessons/access.hpp"
#include "lessons/reduction_kit.hpp"

namespace ts::lessons::reduction_interleaved_strided {

enum : ArraySlot { kIn = 1, kOut, kSdata };

template <class Rec>
TS_DEVICE void reduce_interleaved_strided(Rec& rec, const KernelArgs& args) {
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
    // Consecutive threads work, on cells 2s apart: bank conflicts.
    const int index = 2 * s * tid;
    if (index < block) sdata[index] += sdata[index + s];
    SYNCTHREADS(2);  // this step's sums complete before the next step reads them
  }
  if (tid == 0) out[blockIdx.x] = sdata[0];
}

// ---- The lesson's description for TileScope (not part of the kernel) ----

TS_KERNEL_BODY(Body, reduce_interleaved_strided(rec, args));

struct Lesson {
  static LessonSpec descriptor() {
    using namespace reduction_kit;
    return step<Shape{false, LastWarp::None}>({
        .title = "Reduction 2: interleaved addressing, strided index",
        .summary = "The same tree with consecutive threads working, on cells 2s apart: no "
                   "divergence, but bank conflicts.",
        .load_guards = kGuardsRawAnywhere | kGuardsWaw | kGuardsWawInWarp,
        .tree_guards = kGuardsRawAnywhere | kGuardsWaw | kGuardsWawInWarp,
    });
  }
};

}  // namespace ts::lessons::reduction_interleaved_strided
