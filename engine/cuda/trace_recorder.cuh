// The trace recorder of the CUDA backend (engine/cuda/recorders.cuh lists the
// others): every access, barrier and shuffle of a traced run as an Event.
#pragma once

#include <cooperative_groups.h>

#include <cstddef>
#include <cstdint>

#include "engine/cuda/recorders.cuh"
#include "lessons/warp_mask.hpp"
#include "model/event.hpp"

namespace ts {

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
//
// Every step is inlined at each access, as the H200 verified it. Not
// inlining record() made nvcc 13x faster on conv2d's unrolled windows, but
// on the H200 the traced outputs of the three grid-stride reductions went
// wrong at length 4097 (a warp whose lanes loop a different number of
// times), so it waits for a diagnosis on a GPU (docs/measurements.md).
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
  // A plain CUDA file's shuffle (lessons/plain_cuda.hpp): the intrinsic with
  // the file's mask and width; the element is the source lane as the
  // simulator records it (lessons/warp_mask.hpp), the caller's own where the
  // width is not CUDA's (undefined there; the simulator stops the run).
  template <class T>
  __device__ __forceinline__ T shfl_sync(ShflMode mode, unsigned mask, T value, int b, int width,
                                         int line) {
    T got;
    if (mode == ShflMode::Up)
      got = __shfl_up_sync(mask, value, unsigned(b), width);
    else if (mode == ShflMode::Down)
      got = __shfl_down_sync(mask, value, unsigned(b), width);
    else if (mode == ShflMode::Xor)
      got = __shfl_xor_sync(mask, value, b, width);
    else
      got = __shfl_sync(mask, value, b, width);
    const int lane = int(detail::linear_thread() % 32u);
    const int src = shfl_width_ok(width) ? shfl_source(mode, lane, b, width) : lane;
    record(EventKind::WarpShuffle, kNoArray, src, float(got), uint16_t(line), 0, 0);
    return got;
  }
  // __syncwarp(mask): syncwarp's events.
  __device__ __forceinline__ void syncwarp_mask(int id, int line, unsigned mask) {
    if (!barrier_mask.keeps(id)) return;
    record(EventKind::BarrierArrive, kNoArray, 0, 0.0f, uint16_t(line), kFlagWarpScope,
           uint8_t(id));
    __syncwarp(mask);
    record(EventKind::BarrierLeave, kNoArray, 0, 0.0f, uint16_t(line), kFlagWarpScope, uint8_t(id));
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
