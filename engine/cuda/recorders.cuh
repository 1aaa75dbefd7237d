// The device recorders: what an access costs on the GPU (see lessons/access.hpp).
//   PlainRec        a plain load, store, atomicAdd, shuffle, match and EVERY barrier,
//                   known at compile time: the instantiation that is timed, and
//                   the untraced run that keeps all of the lesson's barriers.
//   MaskRec         the same accesses and the barriers the run's mask keeps:
//                   untraced runs without some barrier and without skew (what
//                   compute-sanitizer racecheck examines).
//   SkewRec         MaskRec and the race lab's stall (chosen warps sleep at
//                   DELAY_POINT): untraced runs with skew.
//   DeviceTraceRec  also records every access, barrier and shuffle as an Event
//                   (engine/cuda/trace_recorder.cuh: apart, because the timed
//                   kernels, which the compiled-code table describes, never use it).
#pragma once

#include <cstdint>

#include "lessons/access.hpp"
#include "model/barrier_set.hpp"
#include "model/event.hpp"

namespace ts {

namespace detail {
// Linear ids, as the Event record stores them.
__device__ __forceinline__ uint32_t linear_block() {
  return blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
}
__device__ __forceinline__ uint32_t linear_thread() {
  return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
}
__device__ __forceinline__ uint32_t smid() {
  uint32_t id;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(id));
  return id;
}
__device__ __forceinline__ uint64_t globaltimer() {
  uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}
// The lanes this thread's warp has: all 32, or the first ones of a block's
// partial last warp. A warp vote names them, so that it waits for every one
// (as the simulator's does) and never names a lane that does not exist.
__device__ __forceinline__ unsigned warp_lanes() {
  const unsigned threads = blockDim.x * blockDim.y * blockDim.z;
  const unsigned first = linear_thread() / 32u * 32u;
  return threads - first >= 32u ? 0xffffffffu : (1u << (threads - first)) - 1u;
}
// The race lab's stall: warps whose bit is set sleep here.
__device__ __forceinline__ void skew(bool here, int skew_ns, uint32_t skew_warps) {
  if (here && skew_ns > 0 && ((skew_warps >> ((linear_thread() / 32u) & 31u)) & 1u))
    __nanosleep(unsigned(skew_ns));
}
// Polls *p (volatile: each poll a load from memory) until it is >= need.
template <class T>
__device__ __forceinline__ T spin_until_at_least(const T* p, T need) {
  const volatile T* v = p;
  T got;
  while ((got = *v) < need) {
  }
  return got;
}
}  // namespace detail

// The accesses of both untraced recorders: plain loads, stores, atomics, shuffles, matches.
struct PlainAccess {
  template <class T>
  __device__ __forceinline__ T load(Space, const T* base, int index, int, ArraySlot, uint16_t) {
    return base[index];
  }
  template <class T>
  __device__ __forceinline__ void store(Space, T* base, int index, int, ArraySlot, T value,
                                        uint16_t) {
    base[index] = value;
  }
  template <class T>
  __device__ __forceinline__ T atomic_add(Space, T* base, int index, int, ArraySlot, T value,
                                          uint16_t) {
    return atomicAdd(base + index, value);
  }
  // One LDG.128 / LDS.128 / STS.128. A const global array (an input) is read
  // through the read-only path, as `const float* __restrict__` compiles
  // (LDG.E.128.CONSTANT); a writable one must not be.
  __device__ __forceinline__ float4 load4(Space s, const float* base, int index, int, ArraySlot,
                                          uint16_t) {
    const float4* p = reinterpret_cast<const float4*>(base + index);
    return s == Space::Global ? __ldg(p) : *p;
  }
  __device__ __forceinline__ float4 load4(Space, float* base, int index, int, ArraySlot, uint16_t) {
    return *reinterpret_cast<const float4*>(base + index);
  }
  __device__ __forceinline__ void store4(Space, float* base, int index, int, ArraySlot, float4 v,
                                         uint16_t) {
    *reinterpret_cast<float4*>(base + index) = v;
  }
  template <class T>
  __device__ __forceinline__ T shfl_down(T value, int delta, int) {
    return __shfl_down_sync(0xffffffffu, value, unsigned(delta));
  }
  template <class T>
  __device__ __forceinline__ T shfl_up(T value, int delta, int) {
    return __shfl_up_sync(0xffffffffu, value, unsigned(delta));
  }
  template <class T>
  __device__ __forceinline__ T shfl_idx(T value, int lane, int) {
    return __shfl_sync(0xffffffffu, value, lane);
  }
  template <class T>
  __device__ __forceinline__ unsigned match_any(T value, int) {
    return __match_any_sync(detail::warp_lanes(), value);
  }
  // Volatile loads, so that every poll goes to memory (a plain load would
  // be hoisted out of the loop and spin forever on a register).
  template <class T>
  __device__ __forceinline__ T wait_at_least(Space, const T* base, int index, int, ArraySlot,
                                             T need, uint16_t) {
    return detail::spin_until_at_least(base + index, need);
  }
  template <class T>
  __device__ __forceinline__ T load_cg(Space, const T* base, int index, int, ArraySlot, uint16_t) {
    return __ldcg(base + index);
  }
  __device__ __forceinline__ void threadfence(int) { __threadfence(); }
  __device__ __forceinline__ void delay_point(bool) {}
};

// Every barrier, unconditionally, as the textbook writes it. A barrier mask
// read at run time (`if (mask.keeps(id)) __syncthreads()`), even one that
// keeps everything, together with the arguments in one KernelArgs struct,
// made nvcc re-read threadIdx and recompute shared addresses inside
// matmul.tiled_square's tile loop (S2R + LEA per tile, on the path to the next
// global load): 67 SASS instructions in the loop against the textbook's 61 at
// tile 16, where an H200 timed it 1.09x the textbook's (issue 23). The
// textbook kernel given (mask, KernelArgs) does the same (66); given either
// alone it does not. scripts/sass_compare.sh checks every timed lesson.
struct PlainRec : PlainAccess {
  __device__ __forceinline__ void syncthreads(int, int) { __syncthreads(); }
  __device__ __forceinline__ void syncwarp(int, int) { __syncwarp(); }
};

// The barriers the run's mask keeps (the mask is the same for every thread,
// so the branch is uniform and a kept barrier is reached by the whole block),
// and nothing at DELAY_POINT: the lesson's code without the removed barriers,
// as racecheck should see it. The stall is a branch on the warp's bit, which
// nvcc must treat as divergent: in SkewRec every kept barrier then gets a
// WARPSYNC.ALL, which ptxas may place above the accesses before the barrier,
// and racecheck orders a warp's lanes at it (analysis/hazards.hpp, "Warp
// syncs"): SkewRec hid hazards within a warp that the lesson has.
struct MaskRec : PlainAccess {
  BarrierSet barrier_mask;
  __device__ __forceinline__ void syncthreads(int id, int) {
    if (barrier_mask.keeps(id)) __syncthreads();
  }
  __device__ __forceinline__ void syncwarp(int id, int) {
    if (barrier_mask.keeps(id)) __syncwarp();
  }
};

// MaskRec and the race lab's stall.
struct SkewRec : MaskRec {
  int skew_ns = 0;
  uint32_t skew_warps = 0;
  __device__ __forceinline__ void delay_point(bool here) {
    detail::skew(here, skew_ns, skew_warps);
  }
};

}  // namespace ts
