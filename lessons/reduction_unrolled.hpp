// Reduction, step 8 (completely unrolled): step 7 with the block size as a
// template parameter. Every loop bound is now a constant, so the compiler
// unrolls the tree completely: no loop counter, no shift, no compare and
// branch per step, and `tid < s` compares against a constant. Harris wrote
// the levels out by hand (`if (blockSize >= 512) ...`); a loop over constant
// bounds gives the same code. out[blockIdx.x] gets the block's sum.
#pragma once

#include "lessons/access.hpp"
#include "lessons/reduction_kit.hpp"

namespace ts::lessons::reduction_unrolled {

enum : ArraySlot { kIn = 1, kOut, kSdata };

template <int kBlock, class Rec>  // kBlock == blockDim.x: 64, 128, ..., 1024
TS_DEVICE void reduce_unrolled(Rec& rec, const KernelArgs& args) {
  const int length = args.length;
  GlobalArray<const float, Rec> in(rec, args, kIn);  // (length)
  GlobalArray<float, Rec> out(rec, args, kOut);      // (one partial sum per block)

  const int tid = threadIdx.x;
  TS_EXTERN_SHARED(float, sdata_mem);  // kBlock * sizeof(float) bytes at launch
  SharedArray<float, Rec> sdata(rec, sdata_mem, kBlock, kSdata);

  // Two elements per thread, a block apart, added on the way in (step 4).
  const int i = blockIdx.x * (2 * kBlock) + tid;
  float x = 0.0f;     // threads past the end add nothing
  DELAY_POINT(true);  // race lab: the chosen warps start loading late
  if (i < length) x = in[i];
  if (i + kBlock < length) x += in[i + kBlock];
  sdata[tid] = x;
  SYNCTHREADS(1);  // every element in place before anyone adds it

  // The same tree as step 7, but s runs over constants: the compiler writes
  // out one add and one barrier per level, for this block size only.
#pragma unroll
  for (int s = kBlock / 2; s > 32; s >>= 1) {
    if (tid < s) sdata[tid] += sdata[tid + s];
    SYNCTHREADS(2);  // this level's sums complete before the next level reads them
  }
  // Warp 0 adds the last 64 in registers.
  if (tid < 32) {
    float v = sdata[tid] + sdata[tid + 32];
#pragma unroll
    for (int s = 16; s > 0; s >>= 1)
      v += SHFL_DOWN(v, s);  // lane tid gets lane tid + s's v
    if (tid == 0) out[blockIdx.x] = v;
  }
}

// ---- The lesson's description for TileScope (not part of the kernel) ----

template <int kBlock>
TS_KERNEL_BODY(Body, (reduce_unrolled<kBlock>(rec, args)));

struct Lesson {
  static LessonSpec descriptor() {
    using namespace reduction_kit;
    return step<Shape{true, LastWarp::Shuffle}>({
        .title = "Reduction 8: completely unrolled (template block size)",
        .summary = "Step 7 with the block size a compile-time constant: the compiler unrolls the "
                   "tree, and no loop counter or branch is left.",
        .load_guards = kGuardsRaw,
        .tree_guards = kGuardsRaw,
    });
  }
  template <class F>
  static bool visit(const Params& p, F&& f) {
    return reduction_kit::visit_block<Body>(p, f);
  }
};

}  // namespace ts::lessons::reduction_unrolled
