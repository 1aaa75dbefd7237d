// The one event record, written by the device recorder, by the CPU simulator
// and by the trace file loader. Plain data: no constructors, no pointers, so
// that a device buffer of events can be copied to the host and to a file as is.
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
  Empty = 0xFF,  // an unused slot of the device buffer (buffers are cleared to 0xFF)
};
inline constexpr int kEventKindCount = 6;

// Which array an access touched. Matrix kernels use A, B, C and the shared
// tiles; stencil kernels use In, Out and StencilShared.
enum class Buffer : uint8_t {
  None = 0,
  A = 1,
  B = 2,
  C = 3,
  In = 4,
  Out = 5,
  TileA = 6,          // shared: tile (or row) of A
  TileB = 7,          // shared: tile (or column) of B
  StencilShared = 8,  // shared: the stencil's block of input plus halo cells
};
inline constexpr int kBufferCount = 9;

enum EventFlags : uint8_t {
  kFlagOutOfRange = 1u << 0,  // the element index was outside the array's extent
};

#pragma pack(push, 1)
struct Event {
  uint64_t clock;        // clock64() on the GPU; the simulator's global step counter
  uint64_t globaltimer;  // %globaltimer in ns on the GPU (ticks every 32 ns); simulator: step
  uint32_t block;        // linear block index: blockIdx.x + blockIdx.y * gridDim.x
  uint32_t element;      // linear element index into `buffer` (row-major)
  float value;           // the value loaded or stored
  uint16_t thread;       // linear thread index in the block: x + y * blockDim.x
  uint16_t line;         // source line of the access or barrier in its kernel header
  uint16_t warp;         // thread / 32
  uint16_t sm;           // %smid on the GPU; 0 on the simulator
  EventKind kind;
  Buffer buffer;
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
constexpr bool is_barrier(EventKind k) {
  return k == EventKind::BarrierArrive || k == EventKind::BarrierLeave;
}
constexpr bool is_shared_buffer(Buffer b) {
  return b == Buffer::TileA || b == Buffer::TileB || b == Buffer::StencilShared;
}

const char* to_string(EventKind k);
const char* to_string(Buffer b);

}  // namespace ts
