// Reduction, step 11 (the whole sum in one launch): step 10, but instead of
// writing its sum to out[blockIdx.x] for a second pass to add up, each block
// adds it into out[0] with one atomicAdd. out starts at zero; the atomics of
// different blocks cannot split each other's read-modify-write, so out[0]
// ends with the sum of every block, in whatever order they finished (float
// addition in another order rounds differently: the last bits may differ
// from run to run). One launch instead of two, and no partial sums written
// and read back: a few thousand atomics on one address, against millions of
// loads. out[0] gets the sum of the whole array.
#pragma once

#include "lessons/access.hpp"
#include "lessons/reduction_kit.hpp"

namespace ts::lessons::reduction_single_pass {

enum : ArraySlot { kIn = 1, kOut, kSdata };
inline constexpr int kUnroll = 4;  // float4 loads a thread issues before it adds

template <int kBlock, class Rec>  // kBlock == blockDim.x: 64, 128, ..., 1024
TS_DEVICE void reduce_single_pass(Rec& rec, const KernelArgs& args) {
  const int length = args.length;
  GlobalArray<const float, Rec> in(rec, args, kIn);  // (length), 16-byte aligned
  GlobalArray<float, Rec> out(rec, args, kOut);      // (1): zero at launch, then the sum

  const int tid = threadIdx.x;
  TS_EXTERN_SHARED(float, sdata_mem);  // kBlock * sizeof(float) bytes at launch
  SharedArray<float, Rec> sdata(rec, sdata_mem, kBlock, kSdata);

  // Walk the array a grid apart, a float4 at a time (step 10).
  const int quads = length / 4;
  const int stride = gridDim.x * kBlock;
  const int first = blockIdx.x * kBlock + tid;
  float sum = 0.0f;
  DELAY_POINT(true);  // race lab: the chosen warps start loading late
  for (int q = first; q < quads; q += kUnroll * stride) {
    // kUnroll float4s a grid apart, all loaded before the first one is added:
    // their loads are in flight together.
    float4 v[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u)
      v[u] = q + u * stride < quads ? in.vec4(4 * (q + u * stride)) : float4{0, 0, 0, 0};
#pragma unroll
    for (int u = 0; u < kUnroll; ++u)
      sum += (v[u].x + v[u].y) + (v[u].z + v[u].w);
  }
  if (4 * quads + first < length) sum += in[4 * quads + first];  // the tail: 0 to 3 elements
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
      v += SHFL_DOWN(v, s);               // lane tid gets lane tid + s's v
    if (tid == 0) atomic_add(out[0], v);  // atomicAdd(&out[0], v): one per block
  }
}

// ---- The lesson's description for TileScope (not part of the kernel) ----

template <int kBlock>
TS_KERNEL_BODY(Body, (reduce_single_pass<kBlock>(rec, args)));

struct Lesson {
  static LessonSpec descriptor() {
    using namespace reduction_kit;
    return step<Shape{false, LastWarp::Shuffle, 4, true}>({
        .title = "Reduction 11: the whole sum in one launch",
        .summary = "Step 10 with an atomicAdd of each block's sum into out[0]: one launch gives "
                   "the whole sum, with no partial sums written and read back.",
        .load_guards = kGuardsRaw,
        .tree_guards = kGuardsRaw,
    });
  }
  template <class F>
  static bool visit(const Params& p, F&& f) {
    return reduction_kit::visit_block<Body>(p, f);
  }
};

}  // namespace ts::lessons::reduction_single_pass
