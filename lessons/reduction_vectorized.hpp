// Reduction, step 10 (float4 loads): step 9 reading four neighbouring floats
// per load, `float4 v = in.vec4(4 * q)` (the textbook's
// reinterpret_cast<const float4*>(in)[q]): one 16-byte load instruction
// (LDG.E.128) where step 9 issues four 4-byte ones. A warp's load still
// covers whole 32-byte sectors, now 512 bytes at once, so a quarter of the
// load instructions and address computations move the same bytes, and each
// thread has four times the bytes in flight per load. The length % 4
// elements after the last whole float4 are added one at a time by threads
// 0, 1, 2. out[blockIdx.x] gets the block's sum.
#pragma once

#include "lessons/access.hpp"
#include "lessons/reduction_kit.hpp"

namespace ts::lessons::reduction_vectorized {

enum : ArraySlot { kIn = 1, kOut, kSdata };
inline constexpr int kUnroll = 4;  // float4 loads a thread issues before it adds

template <int kBlock, class Rec>  // kBlock == blockDim.x: 64, 128, ..., 1024
TS_DEVICE void reduce_vectorized(Rec& rec, const KernelArgs& args) {
  const int length = args.length;
  GlobalArray<const float, Rec> in(rec, args, kIn);  // (length), 16-byte aligned
  GlobalArray<float, Rec> out(rec, args, kOut);      // (one partial sum per block)

  const int tid = threadIdx.x;
  TS_EXTERN_SHARED(float, sdata_mem);  // kBlock * sizeof(float) bytes at launch
  SharedArray<float, Rec> sdata(rec, sdata_mem, kBlock, kSdata);

  // Walk the array a grid apart, a float4 at a time: float4 q holds
  // elements 4q .. 4q + 3.
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
      v += SHFL_DOWN(v, s);  // lane tid gets lane tid + s's v
    if (tid == 0) out[blockIdx.x] = v;
  }
}

// ---- The lesson's description for TileScope (not part of the kernel) ----

template <int kBlock>
TS_KERNEL_BODY(Body, (reduce_vectorized<kBlock>(rec, args)));

struct Lesson {
  static LessonSpec descriptor() {
    using namespace reduction_kit;
    return step<Shape{false, LastWarp::Shuffle, 4}>({
        .title = "Reduction 10: float4 loads",
        .summary = "Step 9 reading a float4 per load: one 16-byte instruction where step 9 "
                   "issued four, the same sectors with a quarter of the instructions.",
        .load_guards = kGuardsRaw,
        .tree_guards = kGuardsRaw,
    });
  }
  template <class F>
  static bool visit(const Params& p, F&& f) {
    return reduction_kit::visit_block<Body>(p, f);
  }
};

}  // namespace ts::lessons::reduction_vectorized
