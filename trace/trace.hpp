// A recorded run: what ran, where, with which inputs, what every thread did
// (events), and what came out. Produced by the CUDA backend and by the
// simulator alike; saved and loaded by trace/trace_file.hpp.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "kernels/catalogue.hpp"
#include "trace/event.hpp"

namespace ts {

enum class BackendKind : uint8_t { Cuda = 0, Simulator = 1 };
const char* to_string(BackendKind b);

// The simulator's schedule of warps (sim/schedule.hpp explains each).
enum class ScheduleKind : uint8_t { Lockstep = 0, WarpSkew = 1, Random = 2 };
const char* to_string(ScheduleKind k);

struct Schedule {
  ScheduleKind kind = ScheduleKind::Lockstep;
  // WarpSkew: bit w set = warp w is delayed (default: odd warps).
  uint32_t skew_warps = 0xAAAAAAAAu;
  int skew_steps = 64;  // WarpSkew: how many steps the chosen warps fall behind
  uint64_t seed = 1;    // Random: the seed
  bool operator==(const Schedule&) const = default;
};

// One array of the lesson with its contents: inputs as given, outputs as computed.
struct BufferData {
  Buffer id = Buffer::None;
  int rows = 0, cols = 0;
  bool is_output = false;
  std::vector<float> values;  // rows * cols, row-major
};

struct RunConfig {
  std::string variant;  // catalogue id
  Params params;
  uint32_t barrier_mask = ~0u;  // bit (id - 1) set = barrier id is kept
  LaunchGeometry geometry;
  BackendKind backend = BackendKind::Simulator;
  std::string device_name;  // "NVIDIA H100 80GB HBM3" or "CPU simulator"
  Schedule schedule;        // simulator runs only
  int skew_ns = 0;          // GPU race lab: __nanosleep of the skewed warps at DELAY_POINT
  uint32_t skew_warps = 0;  // GPU race lab: bit w set = warp w sleeps
  uint64_t input_seed = 1;
};

struct Trace {
  RunConfig config;
  std::vector<Event> events;  // each thread's events in its program order
  std::vector<BufferData> buffers;
  uint64_t capacity = 0;        // events the recording buffer could hold
  uint64_t events_dropped = 0;  // events that did not fit; > 0 means truncated
  bool truncated() const { return events_dropped > 0; }
  uint64_t events_needed() const { return events.size() + events_dropped; }
  const BufferData* buffer(Buffer id) const {
    for (const auto& b : buffers)
      if (b.id == id) return &b;
    return nullptr;
  }
};

}  // namespace ts
