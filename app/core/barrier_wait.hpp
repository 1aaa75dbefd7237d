// Who waits at a barrier in the replay (GUI-free): the grid's header and its
// triangles, the scripted mode's cells map and the cell model read it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/replay.hpp"

namespace ts::app {

// Who waits at a barrier: the threads of `block` whose last applied event is an
// arrival at a barrier (they wait there), the others still on their way.
struct BarrierWait {
  bool active = false;  // at least one thread of the block waits
  int barrier = 0;      // the lesson's barrier id (1, 2, ...), 0 when unknown
  uint32_t line = 0;    // the barrier's source line
  int phase = 0;        // the phase that barrier ends
  uint32_t threads = 0, arrived = 0;
  std::vector<uint8_t> at_barrier;  // per thread of the block
  std::string text;                 // "12 of 64 threads at barrier 1 (line 76)"
};
BarrierWait barrier_wait(const Replay& r, uint32_t block);

}  // namespace ts::app
