// Decoding a trace: per-block, per-thread streams in program order, the
// barrier instances of each block, and the intervals between them (tile
// phases). Everything is an index into Trace::events; the trace is not copied.
//
//   DecodedTrace d = decode(trace);
//   for (const BlockStreams& b : d.blocks)
//     for (uint32_t i : b.thread_events[t]) trace.events[i] ...   // thread t, in program order
//   d.event_interval[i]   // which barrier interval event i lies in, within its block
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "model/trace.hpp"

namespace ts {

// The n-th barrier a block's threads passed (instance n of the block, 0-based).
struct BarrierInstance {
  uint8_t barrier = 0;  // barrier number (1-based, as in the catalogue) of the first arrival
  uint16_t line = 0;    // its source line
  uint32_t arrivals = 0, leaves = 0;  // threads that arrived at / left it
  // False when threads disagree on which barrier their n-th one was (barriers
  // in divergent code): the instance is then only "the n-th of each thread".
  bool consistent = true;
  uint64_t first_arrive = UINT64_MAX, last_arrive = 0;  // time (see event_time)
  uint64_t first_leave = UINT64_MAX, last_leave = 0;
};

// The events of one block between two of its barrier instances: a tile phase.
// Phase i lies after barrier instance i - 1 and before instance i. A thread's
// arrival at a barrier belongs to the phase the barrier closes, its leaving to
// the phase the barrier opens.
struct Phase {
  uint32_t index = 0;
  uint8_t opened_by = 0;  // barrier number that starts it (0: the kernel's start)
  uint8_t closed_by = 0;  // barrier number that ends it (0: the kernel's end)
  uint64_t events = 0;
  std::array<uint64_t, kEventKindCount> per_kind{};
  uint64_t begin = UINT64_MAX, end = 0;  // time of its first and last event
};

struct BlockStreams {
  uint32_t block = 0;    // linear block index
  uint32_t threads = 0;  // threads per block
  // [thread]: indices into Trace::events of that thread's events, in program order.
  std::vector<std::vector<uint32_t>> thread_events;
  std::vector<BarrierInstance> barriers;  // [n]: the n-th barrier of the block
  std::vector<Phase> phases;              // barriers.size() + 1 of them
  // True when every thread that recorded anything passed the same number of
  // barriers (false for a truncated trace or barriers in divergent code).
  bool balanced = true;
  uint64_t events = 0;
};

struct DecodedTrace {
  std::vector<BlockStreams> blocks;      // blocks with at least one event, by block index
  std::vector<uint32_t> event_interval;  // [event]: its phase index within its block
  uint32_t max_phases = 0;               // most phases of any block
  // Block's streams, or nullptr when the block recorded nothing.
  const BlockStreams* find_block(uint32_t block) const;
};

// Time of an event for ordering and display: %globaltimer in ns on the GPU,
// the step counter on the simulator (both stored in Event::globaltimer).
inline uint64_t event_time(const Event& e) {
  return e.globaltimer;
}

DecodedTrace decode(const Trace& t);

}  // namespace ts
