// A recorded run: what ran, where, with which inputs, what every thread did
// (events), and what came out. Produced by the CUDA backend and by the
// simulator alike; saved and loaded by io/trace_file.hpp. The trace carries
// its own array table, so that nothing that reads it needs the lesson.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/array.hpp"
#include "model/barrier_set.hpp"
#include "model/event.hpp"
#include "model/params.hpp"

namespace ts {

enum class BackendKind : uint8_t { Cuda = 0, Simulator = 1 };
const char* to_string(BackendKind b);

// The simulator's schedule of warps (engine/sim/schedule.hpp explains each).
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

// One global array of the run with its contents: inputs as given, outputs as computed.
struct BufferData {
  ArraySlot slot = kNoArray;  // in the trace's array table
  int rows = 0, cols = 0;
  bool is_output = false;
  std::vector<float> values;  // rows * cols, row-major
};

struct RunConfig {
  std::string lesson_id;  // the lesson's id, to run it again
  Params params;
  BarrierSet barrier_mask = BarrierSet::all();  // the barriers the run kept
  LaunchGeometry geometry;
  BackendKind backend = BackendKind::Simulator;
  std::string device_name;  // "NVIDIA H100 80GB HBM3" or "CPU simulator"
  Schedule schedule;        // simulator runs only
  int skew_ns = 0;          // GPU race lab: __nanosleep of the skewed warps at DELAY_POINT
  uint32_t skew_warps = 0;  // GPU race lab: bit w set = warp w sleeps
  uint64_t input_seed = 1;
  ArrayTable arrays;  // every array the events name, global and shared, by slot
  BarrierSet barriers() const { return barrier_mask; }
};

// Largest trace file the loader reads (256 x 256 multiply: about 21 M events,
// 0.8 GiB); also what the semantic checks allow arrays to hold.
inline constexpr uint64_t kMaxTraceFileBytes = 4ull << 30;

struct Trace {
  RunConfig config;
  std::vector<Event> events;  // each thread's events in its program order
  std::vector<BufferData> buffers;
  uint64_t capacity = 0;        // events the recording buffer could hold
  uint64_t events_dropped = 0;  // events that did not fit; > 0 means truncated
  bool truncated() const { return events_dropped > 0; }
  uint64_t events_needed() const { return events.size() + events_dropped; }
  const BufferData* buffer(ArraySlot slot) const {
    for (const auto& b : buffers)
      if (b.slot == slot) return &b;
    return nullptr;
  }
  const ArrayInfo* array(ArraySlot slot) const { return array_at(config.arrays, slot); }
  // The first output array's contents (every lesson so far has one output).
  const BufferData* output() const {
    for (const auto& b : buffers)
      if (b.is_output) return &b;
    return nullptr;
  }
};

}  // namespace ts
