// Reduction, step 9 (many elements per thread, grid stride): each thread
// first adds elements a whole grid apart in a register, `for (i = first; i <
// length; i += gridDim.x * blockDim.x)`, and only then does the block run its
// tree once. The grid is sized for at least 8 elements per thread and stops
// at 8192 blocks; beyond that each thread simply adds more (32 each for 2^26
// floats in blocks of 256). The tree, its barriers and the store of the block's
// sum are paid once per block, not once per 2 * blockDim.x elements, and the
// loads of the loop are independent of each other: the compiler issues
// several before the first add needs one. out[blockIdx.x] gets the block's sum.
#pragma once

#include "lessons/access.hpp"
#include "lessons/reduction_kit.hpp"

namespace ts::lessons::reduction_grid_stride {

enum : ArraySlot { kIn = 1, kOut, kSdata };

template <int kBlock, class Rec>  // kBlock == blockDim.x: 64, 128, ..., 1024
TS_DEVICE void reduce_grid_stride(Rec& rec, const KernelArgs& args) {
  const int length = args.length;
  GlobalArray<const float, Rec> in(rec, args, kIn);  // (length)
  GlobalArray<float, Rec> out(rec, args, kOut);      // (one partial sum per block)

  const int tid = threadIdx.x;
  TS_EXTERN_SHARED(float, sdata_mem);  // kBlock * sizeof(float) bytes at launch
  SharedArray<float, Rec> sdata(rec, sdata_mem, kBlock, kSdata);

  // Walk the array a grid apart: consecutive threads read consecutive
  // elements (coalesced), and the sum stays in a register.
  const int stride = gridDim.x * kBlock;
  float sum = 0.0f;
  DELAY_POINT(true);  // race lab: the chosen warps start loading late
  for (int i = blockIdx.x * kBlock + tid; i < length; i += stride)
    sum += in[i];
  sdata[tid] = sum;
  SYNCTHREADS(1);  // every thread's sum in place before anyone adds it

#pragma unroll
  for (int s = kBlock / 2; s > 32; s >>= 1) {
    if (tid < s) sdata[tid] += sdata[tid + s];
    SYNCTHREADS(2);  // this level's sums complete before the next level reads them
  }
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
TS_KERNEL_BODY(Body, (reduce_grid_stride<kBlock>(rec, args)));

struct Lesson {
  static LessonSpec descriptor() {
    using namespace reduction_kit;
    return step<Shape{false, LastWarp::Shuffle, 1}>({
        .title = "Reduction 9: many elements per thread, grid stride",
        .summary = "Each thread adds elements a grid apart in a register before the block's "
                   "tree runs once: fewer blocks, the tree's cost spread over many loads.",
        .load_guards = kGuardsRaw,
        .tree_guards = kGuardsRaw,
    });
  }
  template <class F>
  static bool visit(const Params& p, F&& f) {
    return reduction_kit::visit_block<Body>(p, f);
  }
};

}  // namespace ts::lessons::reduction_grid_stride
