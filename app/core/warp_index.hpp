// The trace's warp accesses (analysis/warp_access.hpp) as the window uses
// them, built once per run by the background job (app/core/jobs.cpp): which access
// each event belongs to, the access the replay is at, and per element what the
// accesses that touched it cost (bank conflicts, sectors per request) for the
// grid's memory colours. The Banks view, the grid and the transport's access
// step share one copy through CurrentResult::warp.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "analysis/atomic_contention.hpp"
#include "analysis/compiled_access.hpp"
#include "analysis/replay.hpp"
#include "analysis/warp_access.hpp"

namespace ts::app {

struct WarpIndex {
  WarpAccesses accesses;           // the source level: what the lesson's source asks for
  std::vector<int32_t> access_of;  // trace event -> its warp access, -1: none
  // The compiled level (analysis/compiled_access.hpp): the same accesses as
  // the GPU executes them, Nsight Compute's counts; `code` null where the
  // compiled-code table has no current entry (then it equals the source
  // level, and `why_source` says why, e.g. the lesson's table is stale).
  WarpAccesses compiled;
  const CompiledKernel* code = nullptr;
  std::string why_source;

  // Per array slot (index = slot), per element; a shared array's element e of
  // block b at b * count + e. Empty where the run is too big to keep them.
  struct Cost {
    // Shared: the extra wavefronts (bank conflicts) of the warp accesses that
    // touched the element, summed over the run.
    std::vector<uint32_t> extra_wavefronts;
    // Global: the sectors of the warp accesses that touched the element, summed
    // (over requests: sectors per request).
    std::vector<uint32_t> sectors;
    std::vector<uint32_t> requests;  // both: the warp accesses that touched it
  };
  std::vector<Cost> cost;
  uint32_t max_extra_wavefronts = 0;  // over every shared element of the run

  // The access of the last applied event, else (earlier = true) the nearest one
  // before it; -1 when no access has run yet.
  int32_t current(const Replay& r, bool* earlier = nullptr) const;

  // Atomics per element of the arrays that received them (the grid's
  // "atomic contention" colours); empty when the run made none.
  AtomicContention contention;
  std::vector<uint64_t> most_atomics;  // per contention.arrays entry: its hottest element's
  const ArrayContention* contention_of(ArraySlot array) const;
  uint64_t most_atomics_of(ArraySlot array) const;

  // Warp shuffles (no memory touched, so not accesses), grouped into warp
  // instructions as accesses are: (block, warp, line, k-th on that line).
  struct Shuffle {
    uint32_t block = 0;
    uint16_t warp = 0, line = 0;
    uint32_t lanes_begin = 0;  // into shuffle_lanes
    uint8_t lane_count = 0;
  };
  std::vector<Shuffle> shuffles;
  std::vector<uint32_t> shuffle_lanes;                    // trace events, each shuffle's by lane
  std::vector<std::pair<uint32_t, uint32_t>> shuffle_of;  // (trace event, shuffle), by event
  std::span<const uint32_t> lanes_of(const Shuffle& s) const {
    return {shuffle_lanes.data() + s.lanes_begin, s.lane_count};
  }
  // The shuffle the replay is at: when the last applied event that is an
  // access or a shuffle is a shuffle (earlier: not the last applied event);
  // -1 otherwise.
  int32_t current_shuffle(const Replay& r, bool* earlier = nullptr) const;
};

std::shared_ptr<const WarpIndex> build_warp_index(const Trace& t);

// The transport's warp step (buttons, Left/Right): the positions, in the replay's current order,
// where a warp access has all its lanes applied (its last lane's event), so
// that one step is exactly one warp instruction whatever the interleaving.
class AccessStops {
 public:
  // The next (previous) such position after (before) `from`; the end (start) when none.
  uint64_t step(const std::shared_ptr<const WarpIndex>& w, const Replay& r, uint64_t from,
                bool forward);
  // The n-th stop from the start (n >= 1), the end when there are fewer.
  uint64_t nth(const std::shared_ptr<const WarpIndex>& w, const Replay& r, uint64_t n);

 private:
  void refresh(const std::shared_ptr<const WarpIndex>& w, const Replay& r);
  // Held, so that a new run's index cannot take its address unnoticed.
  std::shared_ptr<const WarpIndex> built_for_;
  const Replay* replay_ = nullptr;
  ReplayOrder order_ = ReplayOrder::AsRecorded;
  std::vector<uint64_t> at_;  // ascending
};

}  // namespace ts::app
