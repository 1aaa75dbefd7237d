// Reduction, step 6: the unrolled last warp, made correct. Each lane keeps
// its sum in a register, and a __syncwarp separates every read of a
// neighbour's cell from the write that overwrites it (barrier 3) and every
// write from the next step's read (barrier 4). Switch either off to bring
// the race of step 5 back. out[blockIdx.x] gets the block's sum.
#pragma once

#include "lessons/access.hpp"
#include "lessons/reduction_kit.hpp"

namespace ts::lessons::reduction_warp_syncwarp {

enum : ArraySlot { kIn = 1, kOut, kSdata };

template <class Rec>
TS_DEVICE void reduce_warp_syncwarp(Rec& rec, const KernelArgs& args) {
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
  // ... then warp 0 adds the last 64, a __syncwarp between reads and writes.
  if (tid < 32) {
    float v = sdata[tid];
    for (int s = 32; s > 0; s >>= 1) {
      v += sdata[tid + s];
      SYNCWARP(3);  // every lane has read before any lane overwrites its cell
      sdata[tid] = v;
      SYNCWARP(4);  // every lane has stored before the next step reads
    }
    if (tid == 0) out[blockIdx.x] = v;
  }
}

// ---- The lesson's description for TileScope (not part of the kernel) ----

TS_KERNEL_BODY(Body, reduce_warp_syncwarp(rec, args));

struct Lesson {
  static LessonSpec descriptor() {
    using namespace reduction_kit;
    return step<Shape{true, LastWarp::Syncwarp}>({
        .title = "Reduction 6: last warp unrolled, with __syncwarp",
        .summary = "The unrolled last warp made correct: a __syncwarp between every read and write "
                   "of a neighbour's cell.",
        .load_guards = kGuardsRaw,
        .tree_guards = kGuardsRaw,
        .warp_barriers =
            {{"every lane has read its partner's cell before any lane overwrites its own",
              kGuardsWarInWarp},
             {"every lane's new sum is stored before the next step reads it", kGuardsRawInWarp}},
    });
  }
};

}  // namespace ts::lessons::reduction_warp_syncwarp
