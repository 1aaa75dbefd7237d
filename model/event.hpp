// The one event record, written by the device recorder, by the CPU simulator
// and by the trace file loader. Plain data: no constructors, no pointers, so
// that a device buffer of events can be copied to the host and to a file as is.
// An event names no lesson: `array` is a slot of the trace's array table
// (model/array.hpp), which says what the array is called and how it is shaped.
#pragma once

#include <cstdint>
#include <type_traits>

namespace ts {

enum class EventKind : uint8_t {
  GlobalLoad = 0,
  GlobalStore = 1,
  SharedStore = 2,
  SharedLoad = 3,
  BarrierArrive = 4,
  BarrierLeave = 5,
  // An atomic read-modify-write (atomicAdd) on a shared array's element;
  // `value` is what the element holds after it. Atomics do not race with
  // each other (racecheck's model); they do with plain loads and stores.
  SharedAtomic = 6,
  // A warp shuffle (__shfl_down_sync, __shfl_xor_sync): no memory is touched;
  // `element` is the lane the value came from, `value` the value received.
  WarpShuffle = 7,
  // An atomic read-modify-write on a global array's element (as SharedAtomic).
  GlobalAtomic = 8,
  Empty = 0xFF,  // an unused slot of the device buffer (buffers are cleared to 0xFF)
};
inline constexpr int kEventKindCount = 9;

// Which array of the run an access touched: 1-based slot of the trace's array
// table; 0 for barrier events.
using ArraySlot = uint8_t;
inline constexpr ArraySlot kNoArray = 0;

enum EventFlags : uint8_t {
  kFlagOutOfRange = 1u << 0,  // the element index was outside the array's extent
  // Bits 1-2: the width of the instruction, 4 << code bytes (0 = 4 bytes, 1 = 8,
  // 2 = 16); code 3 is reserved. Code 0 on a byte array (ElemType::U8) is a
  // 1-byte access (model/array.hpp: lane_bytes). A 16-byte access (float4) of 4-byte elements
  // is recorded as four events, elements i .. i + 3 with i % 4 == 0, in one
  // thread's consecutive instr numbers, each flagged 16: so the replay knows
  // every element's value, and the warp analysis counts one access from the
  // first (leads_access).
  kFlagWidthMask = 3u << 1,
  // Barrier events: the barrier is a __syncwarp (SYNCWARP(id)), which orders
  // the threads of one warp only, not a block-wide __syncthreads.
  kFlagWarpScope = 1u << 3,
};
constexpr int access_bytes(uint8_t flags) {
  return 4 << ((flags & kFlagWidthMask) >> 1);
}
constexpr uint8_t width_flags(int bytes) {
  return uint8_t((bytes == 16 ? 2 : bytes == 8 ? 1 : 0) << 1);
}

#pragma pack(push, 1)
struct Event {
  uint64_t clock;        // clock64() on the GPU; the simulator's global step counter
  uint64_t globaltimer;  // %globaltimer in ns on the GPU (ticks every 32 ns); simulator: step
  uint32_t block;        // linear block index: blockIdx.x + blockIdx.y * gridDim.x
  uint32_t element;      // linear element index into `array` (row-major)
  float value;           // the value loaded or stored
  uint16_t thread;  // linear thread index in the block: x + y * blockDim.x (warp = thread / 32)
  uint16_t line;    // source line of the access or barrier in its lesson header
  uint16_t instr;   // this thread's event number, counting from 0 (wraps at 65536)
  uint16_t sm;      // %smid on the GPU; 0 on the simulator
  EventKind kind;
  ArraySlot array;  // slot in the trace's array table; kNoArray for barriers
  uint8_t flags;    // EventFlags
  uint8_t barrier;  // barrier number (1-based) for barrier events, else 0
};
#pragma pack(pop)

static_assert(sizeof(Event) == 40, "the event record is part of the file format");
static_assert(std::is_standard_layout_v<Event> && std::is_trivially_copyable_v<Event>);

constexpr bool is_load(EventKind k) {
  return k == EventKind::GlobalLoad || k == EventKind::SharedLoad;
}
constexpr bool is_store(EventKind k) {
  return k == EventKind::GlobalStore || k == EventKind::SharedStore;
}
constexpr bool is_shared(EventKind k) {
  return k == EventKind::SharedLoad || k == EventKind::SharedStore;
}
constexpr bool is_atomic(EventKind k) {
  return k == EventKind::SharedAtomic || k == EventKind::GlobalAtomic;
}
constexpr bool is_barrier(EventKind k) {
  return k == EventKind::BarrierArrive || k == EventKind::BarrierLeave;
}
constexpr uint32_t warp_of(const Event& e) {
  return e.thread / 32u;
}
// One element of a 16-byte access (see kFlagWidthMask).
constexpr bool is_vector_element(const Event& e) {
  return access_bytes(e.flags) == 16;
}
// The event an access is counted from: every event but the last three
// elements of a 16-byte access.
constexpr bool leads_access(const Event& e) {
  return !is_vector_element(e) || e.element % 4 == 0;
}
// Bytes this event's element moved: 4 for each element of a 16-byte access.
constexpr int event_bytes(const Event& e) {
  return is_vector_element(e) ? 4 : access_bytes(e.flags);
}

const char* to_string(EventKind k);

}  // namespace ts
