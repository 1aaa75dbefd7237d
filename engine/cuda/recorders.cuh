// The device recorders: what an access costs on the GPU (see lessons/access.hpp).
//   PlainRec        a plain load, store, atomicAdd, shuffle, match and EVERY barrier,
//                   known at compile time: the instantiation that is timed, and
//                   the untraced run that keeps all of the lesson's barriers.
//   MaskRec         the same accesses and the barriers the run's mask keeps:
//                   untraced runs without some barrier and without skew (what
//                   compute-sanitizer racecheck examines).
//   SkewRec         MaskRec and the race lab's stall (chosen warps sleep at
//                   DELAY_POINT): untraced runs with skew.
//   DeviceTraceRec  also records every access, barrier and shuffle as an Event.
#pragma once

#include <cooperative_groups.h>

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

// Records every access into `events`. Slots are reserved in chunks, not one
// global atomic per event: the threads that run out of slots together
// (usually a whole warp) reserve `chunk` slots each (about one thread's
// events, at most 32) with ONE atomicAdd by their leader, interleaved so that
// lane r's j-th event goes to base + j * group_size + r: the events of one
// access by a warp are neighbours, and each thread's later events get later
// slots, so slot order is each thread's program order. Slots a thread
// reserved but did not use stay Empty (the buffer is cleared to 0xFF); the
// host drops them. Slots at or past `capacity` are not written: those events
// are counted in `dropped`, so that the host can say how many a complete
// trace needs.
//
// Layout: the buffer is blocks of kSlotBlock slots, each stored field-major
// (word f of the block's 32 events, then word f + 1, ...), so that a warp's
// stores of one word are 32 consecutive 8-byte words: whole sectors, fully
// coalesced. Writing the 40-byte records one after another made every store
// touch 40 partial sectors and the traced kernel 5x slower. The host turns
// blocks back into Event records (unpack_trace_blocks in engine/cuda/cuda_backend.cu).
inline constexpr unsigned kSlotBlock = 32;
inline constexpr unsigned kEventWords = sizeof(Event) / 8;  // 5
static_assert(sizeof(Event) == kEventWords * 8);

struct DeviceTraceRec {
  static constexpr unsigned kMaxChunk = 32;
  // Launched with __launch_bounds__(1024) (engine/cuda/launch.cuh): a traced
  // run must start with any block the lesson allows.
  static constexpr bool kAnyBlock = true;

  uint64_t* events = nullptr;             // capacity / kSlotBlock blocks of kSlotBlock slots
  unsigned long long* cursor = nullptr;   // slots reserved so far
  unsigned long long* dropped = nullptr;  // events that found no slot below capacity
  unsigned long long capacity = 0;        // slots in `events`, a multiple of kSlotBlock
  unsigned chunk = kMaxChunk;             // slots a thread reserves at a time
  BarrierSet barrier_mask;
  int skew_ns = 0;
  uint32_t skew_warps = 0;

  template <class T>
  __device__ __forceinline__ T load(Space s, const T* base, int index, int count, ArraySlot buf,
                                    uint16_t line) {
    // Out-of-range reads happen by design only in matmul.tiled_exact, whose
    // arrays are allocated large enough to hold them; here they are flagged.
    const T v = base[index];
    // A constant-memory read is a GlobalLoad; the array table says Space::Constant.
    record(s == Space::Shared ? EventKind::SharedLoad : EventKind::GlobalLoad, buf, index, float(v),
           line, flags(index, count), 0);
    return v;
  }
  template <class T>
  __device__ __forceinline__ void store(Space s, T* base, int index, int count, ArraySlot buf,
                                        T value, uint16_t line) {
    base[index] = value;
    record(s == Space::Global ? EventKind::GlobalStore : EventKind::SharedStore, buf, index,
           float(value), line, flags(index, count), 0);
  }
  // The event's value is what the element holds after this thread's add: the
  // old value atomicAdd returns, plus the addend.
  template <class T>
  __device__ __forceinline__ T atomic_add(Space s, T* base, int index, int count, ArraySlot buf,
                                          T value, uint16_t line) {
    const T old = atomicAdd(base + index, value);
    record(s == Space::Global ? EventKind::GlobalAtomic : EventKind::SharedAtomic, buf, index,
           float(T(old + value)), line, flags(index, count), 0);
    return old;
  }
  // A 16-byte access: one vector instruction, four events (one per element,
  // each flagged 16 bytes wide), so that the replay knows every value.
  __device__ __forceinline__ float4 load4(Space s, const float* base, int index, int count,
                                          ArraySlot buf, uint16_t line) {
    const float4 v = *reinterpret_cast<const float4*>(base + index);
    const EventKind k = s == Space::Shared ? EventKind::SharedLoad : EventKind::GlobalLoad;
    record4(k, buf, index, count, v, line);
    return v;
  }
  __device__ __forceinline__ void store4(Space s, float* base, int index, int count, ArraySlot buf,
                                         float4 v, uint16_t line) {
    *reinterpret_cast<float4*>(base + index) = v;
    record4(s == Space::Global ? EventKind::GlobalStore : EventKind::SharedStore, buf, index, count,
            v, line);
  }
  // A removed barrier leaves no events: the trace shows what ran.
  __device__ __forceinline__ void syncthreads(int id, int line) {
    if (!barrier_mask.keeps(id)) return;
    record(EventKind::BarrierArrive, kNoArray, 0, 0.0f, uint16_t(line), 0, uint8_t(id));
    __syncthreads();
    record(EventKind::BarrierLeave, kNoArray, 0, 0.0f, uint16_t(line), 0, uint8_t(id));
  }
  // A __syncwarp: the same events, flagged warp-scope.
  __device__ __forceinline__ void syncwarp(int id, int line) {
    if (!barrier_mask.keeps(id)) return;
    record(EventKind::BarrierArrive, kNoArray, 0, 0.0f, uint16_t(line), kFlagWarpScope,
           uint8_t(id));
    __syncwarp();
    record(EventKind::BarrierLeave, kNoArray, 0, 0.0f, uint16_t(line), kFlagWarpScope, uint8_t(id));
  }
  // The element of a WarpShuffle is the lane the value came from (the
  // caller's own lane where lane + delta is past the warp).
  template <class T>
  __device__ __forceinline__ T shfl_down(T value, int delta, int line) {
    const T got = __shfl_down_sync(0xffffffffu, value, unsigned(delta));
    const uint32_t lane = detail::linear_thread() % 32u;
    const uint32_t src = lane + uint32_t(delta) < 32u ? lane + uint32_t(delta) : lane;
    record(EventKind::WarpShuffle, kNoArray, int(src), float(got), uint16_t(line), 0, 0);
    return got;
  }
  template <class T>
  __device__ __forceinline__ T shfl_up(T value, int delta, int line) {
    const T got = __shfl_up_sync(0xffffffffu, value, unsigned(delta));
    const uint32_t lane = detail::linear_thread() % 32u;
    const uint32_t src = lane >= uint32_t(delta) ? lane - uint32_t(delta) : lane;
    record(EventKind::WarpShuffle, kNoArray, int(src), float(got), uint16_t(line), 0, 0);
    return got;
  }
  template <class T>
  __device__ __forceinline__ T shfl_idx(T value, int lane, int line) {
    const T got = __shfl_sync(0xffffffffu, value, lane);
    record(EventKind::WarpShuffle, kNoArray, lane & 31, float(got), uint16_t(line), 0, 0);
    return got;
  }
  // A vote touches no memory: not recorded, as the simulator does not record it.
  template <class T>
  __device__ __forceinline__ unsigned match_any(T value, int) {
    return __match_any_sync(detail::warp_lanes(), value);
  }
  // One event for the whole wait: the poll that saw the flag set (how many
  // polls failed before it is timing; the simulator's blocks never need one).
  template <class T>
  __device__ __forceinline__ T wait_at_least(Space, const T* base, int index, int count,
                                             ArraySlot buf, T need, uint16_t line) {
    const T v = detail::spin_until_at_least(base + index, need);
    record(EventKind::GlobalLoad, buf, index, float(v), line, flags(index, count), 0);
    return v;
  }
  template <class T>
  __device__ __forceinline__ T load_cg(Space, const T* base, int index, int count, ArraySlot buf,
                                       uint16_t line) {
    const T v = __ldcg(base + index);
    record(EventKind::GlobalLoad, buf, index, float(v), line, flags(index, count), 0);
    return v;
  }
  __device__ __forceinline__ void threadfence(int) { __threadfence(); }
  __device__ __forceinline__ void delay_point(bool here) {
    detail::skew(here, skew_ns, skew_warps);
  }

 private:
  // This thread's current chunk: its next slot, the distance between its
  // slots, and how many slots of the chunk are left.
  unsigned long long next_ = 0;
  unsigned stride_ = 0, left_ = 0;
  uint16_t instr_ = 0;  // this thread's events so far, dropped ones included (Event::instr)

  static __device__ __forceinline__ uint8_t flags(int index, int count) {
    return (index < 0 || index >= count) ? uint8_t(kFlagOutOfRange) : uint8_t(0);
  }
  __device__ __forceinline__ void record4(EventKind kind, ArraySlot buf, int index, int count,
                                          float4 v, uint16_t line) {
    const uint8_t wide = width_flags(16);
    record(kind, buf, index, v.x, line, flags(index, count) | wide, 0);
    record(kind, buf, index + 1, v.y, line, flags(index + 1, count) | wide, 0);
    record(kind, buf, index + 2, v.z, line, flags(index + 2, count) | wide, 0);
    record(kind, buf, index + 3, v.w, line, flags(index + 3, count) | wide, 0);
  }

  __device__ __forceinline__ void record(EventKind kind, ArraySlot buf, int element, float value,
                                         uint16_t line, uint8_t fl, uint8_t barrier) {
    namespace cg = cooperative_groups;
    if (left_ == 0) {
      const cg::coalesced_group group = cg::coalesced_threads();
      unsigned long long base = 0;
      // Rounded up to whole blocks, so that every reservation starts a block.
      const unsigned long long want =
          ((unsigned long long)group.size() * chunk + kSlotBlock - 1) / kSlotBlock * kSlotBlock;
      if (group.thread_rank() == 0) base = atomicAdd(cursor, want);
      base = group.shfl(base, 0);
      next_ = base + group.thread_rank();
      stride_ = group.size();
      left_ = chunk;
    }
    const uint16_t instr = instr_++;
    const unsigned long long slot = next_;
    next_ += stride_;
    --left_;
    if (slot >= capacity) {
      const cg::coalesced_group group = cg::coalesced_threads();
      if (group.thread_rank() == 0) atomicAdd(dropped, (unsigned long long)group.size());
      return;
    }

    const uint32_t thread = detail::linear_thread();
    // The record's five 8-byte words (little-endian, in the field order of
    // model/event.hpp), each into its row of the slot's block.
    uint64_t* w = events + (slot / kSlotBlock) * (kSlotBlock * kEventWords) + slot % kSlotBlock;
    w[0 * kSlotBlock] = uint64_t(clock64());
    w[1 * kSlotBlock] = detail::globaltimer();
    w[2 * kSlotBlock] = uint64_t(detail::linear_block()) | (uint64_t(uint32_t(element)) << 32);
    w[3 * kSlotBlock] = uint64_t(__float_as_uint(value)) | (uint64_t(thread & 0xFFFFu) << 32) |
                        (uint64_t(line) << 48);
    w[4 * kSlotBlock] = uint64_t(instr) | (uint64_t(detail::smid() & 0xFFFFu) << 16) |
                        (uint64_t(uint8_t(kind)) << 32) | (uint64_t(uint8_t(buf)) << 40) |
                        (uint64_t(fl) << 48) | (uint64_t(barrier) << 56);
  }
};

// The word layout above depends on these offsets.
static_assert(offsetof(Event, clock) == 0 && offsetof(Event, globaltimer) == 8 &&
              offsetof(Event, block) == 16 && offsetof(Event, element) == 20 &&
              offsetof(Event, value) == 24 && offsetof(Event, thread) == 28 &&
              offsetof(Event, line) == 30 && offsetof(Event, instr) == 32 &&
              offsetof(Event, sm) == 34 && offsetof(Event, kind) == 36 &&
              offsetof(Event, array) == 37 && offsetof(Event, flags) == 38 &&
              offsetof(Event, barrier) == 39);

}  // namespace ts
