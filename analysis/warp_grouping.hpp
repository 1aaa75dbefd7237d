// Internal to analysis/: how warp_accesses() (the source level) and
// compiled_warp_accesses() (the compiled level) put lanes into warp
// instructions. Both place every lane access in its thread's run first
// (Placer, once for both), then group lanes by a key (GroupKey); GroupBuilder turns
// the groups into a WarpAccesses with its services and totals.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <utility>
#include <vector>

#include "analysis/warp_access.hpp"
#include "model/trace.hpp"

namespace ts::grouping {

inline constexpr uint32_t kNone = 0xFFFFFFFFu;

// A site: one (line, kind, array), as a number.
constexpr uint32_t site_code(uint16_t line, EventKind kind, ArraySlot array) {
  return uint32_t(line) << 16 | uint32_t(kind) << 8 | array;
}
constexpr uint16_t site_line(uint32_t site) {
  return uint16_t(site >> 16);
}
constexpr EventKind site_kind(uint32_t site) {
  return EventKind((site >> 8) & 0xFFu);
}
constexpr ArraySlot site_array(uint32_t site) {
  return ArraySlot(site & 0xFFu);
}

// Where one lane access (an access event that leads_access) stands in its
// thread's run (the grouping rule in warp_access.hpp).
struct Place {
  uint32_t event = 0;  // its index in trace.events
  uint32_t site = 0;   // site_code
  uint32_t phase = 0;  // block barriers (__syncthreads) its thread had arrived at
  // Its instance: the site of its thread's latest uniform event at or before
  // it, how many times the thread had run that site by then, and how many
  // accesses of its own site the thread made since; numbered, so that lanes
  // of one instance share the number.
  uint32_t slot = 0;
  uint32_t k = 0;  // accesses of its site by its thread before it
};

// Places every lane access of a trace, once: two passes over the events (how
// often each thread runs each site, then each access's place), kept as 12
// bytes per access; for_each() hands them out with their events, in trace order.
class Placer {
 public:
  explicit Placer(const Trace& t);
  template <class F>
  void for_each(F&& f) const {
    const std::vector<Event>& ev = t_.events;
    size_t j = 0;
    for (size_t i = 0; i < ev.size() && j < places_.size(); ++i) {
      const Event& e = ev[i];
      if (!((is_load(e.kind) || is_store(e.kind) || is_atomic(e.kind)) && leads_access(e)))
        continue;
      const Compact& c = places_[j++];
      f(Place{uint32_t(i), site_code(e.line, e.kind, e.array), c.phase, c.slot, c.k});
    }
  }
  // The highest phase any thread of warp `warp` of block `block` reached; -1: no event.
  int64_t last_phase(uint32_t block, uint16_t warp) const;
  // Every (block, warp) with an event, in order.
  const std::vector<std::pair<uint32_t, uint16_t>>& warps() const { return warps_; }

 private:
  struct Compact {
    uint32_t phase, slot, k;
  };
  const Trace& t_;
  std::vector<Compact> places_;  // one per leading access event, in trace order
  std::vector<std::pair<uint32_t, uint16_t>> warps_;
  std::unordered_map<uint64_t, uint32_t> last_phase_;  // (block << 16 | warp) -> phase
};

// What lanes of one warp instruction share.
struct GroupKey {
  uint32_t block = 0;
  uint32_t site = 0;
  uint16_t warp = 0;
  uint32_t a = 0, b = 0, c = 0;  // the instance: (slot, 0, 0) or (kChunked, phase, chunk)
  bool operator==(const GroupKey&) const = default;
};
struct GroupKeyHash {
  size_t operator()(const GroupKey& k) const {
    uint64_t h = 0x9E3779B97F4A7C15ull;
    for (uint64_t x : {uint64_t(k.block) << 16 | k.warp, uint64_t(k.site), uint64_t(k.a),
                       uint64_t(k.b) << 32 | k.c}) {
      h ^= x + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
    }
    return size_t(h);
  }
};

// Builds a WarpAccesses from lanes added in trace order.
class GroupBuilder {
 public:
  explicit GroupBuilder(const Trace& t, AccessLevel level);
  // Adds the lane access of event `event` to the group of `key`; a new group
  // takes its header from `header` (block, warp, line, kind, array, instance).
  // Returns the access's index.
  uint32_t add(const GroupKey& key, uint32_t event, const WarpAccess& header);
  WarpAccess& access(uint32_t i) { return w_.accesses[i]; }
  // Lanes in lane order, services, totals, sites.
  WarpAccesses finish();

 private:
  const Trace& t_;
  WarpAccesses w_;
  std::unordered_map<GroupKey, uint32_t, GroupKeyHash> group_of_;
  std::vector<uint32_t> event_access_;  // per trace event: its access, kNone
};

// The source level from a placer (warp_accesses(t) makes its own).
WarpAccesses source_level(const Trace& t, const Placer& placer);

// One lane of access `a`: event `e`'s address and width; of a merged access,
// the whole aligned chunk (a.bytes) its element lies in.
LaneAccess lane_access(const Trace& t, const Event& e, const WarpAccess& a);

}  // namespace ts::grouping
