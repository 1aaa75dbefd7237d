// Internal to analysis/: how warp_accesses() (the source level) and
// compiled_warp_accesses() (the compiled level) put lanes into warp
// instructions. Both place every lane access in its thread's run first
// (Placer), then group lanes by a key (GroupKey); GroupBuilder turns
// the groups into a WarpAccesses with its services and totals.
#pragma once

#include <cstdint>
#include <functional>
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
  uint32_t event = 0;         // its index in trace.events
  uint32_t site = 0;          // site_code
  uint32_t phase = 0;         // block barriers (__syncthreads) its thread had arrived at
  uint32_t anchor = kNone;    // the site of its thread's latest uniform event at or before it
  uint32_t anchor_count = 0;  // how many times the thread had run that site by then
  uint32_t since = 0;         // accesses of its site since that event (0: the first)
  uint32_t k = 0;             // accesses of its site by its thread before it
};

// Places every lane access of a trace. Construction finds each warp's
// uniform sites (one pass over the events); each for_each() walks the events
// again and calls `f` with every access's place, in trace order. Nothing per
// event is kept between passes.
class Placer {
 public:
  explicit Placer(const Trace& t);
  void for_each(const std::function<void(const Place&)>& f) const;
  // The highest phase any thread of warp `warp` of block `block` reached; -1: no event.
  int64_t last_phase(uint32_t block, uint16_t warp) const;
  // Every (block, warp) with an event.
  std::vector<std::pair<uint32_t, uint16_t>> warps() const;

 private:
  bool uniform(const Event& e, uint32_t site_index) const;
  const Trace& t_;
  std::unordered_map<uint32_t, uint32_t> index_of_;  // site code -> site index
  std::vector<uint32_t> codes_;                      // site index -> site code
  std::unordered_map<uint64_t, uint32_t> active_;    // warp -> lanes with an event
  std::unordered_map<uint64_t, uint32_t> uniform_;   // (warp, site index) -> 1
  std::unordered_map<uint64_t, uint32_t> last_phase_;
};

// What lanes of one warp instruction share.
struct GroupKey {
  uint32_t block = 0;
  uint32_t site = 0;
  uint16_t warp = 0;
  uint32_t a = 0, b = 0, c = 0;  // the instance: (anchor, anchor_count, since) or (phase, j)
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
  // Another event the access `access` serves (a merged access's other loads).
  void attach(uint32_t event, uint32_t access);
  WarpAccess& access(uint32_t i) { return w_.accesses[i]; }
  // Lanes in lane order, services, totals, sites.
  WarpAccesses finish();

 private:
  const Trace& t_;
  WarpAccesses w_;
  std::unordered_map<GroupKey, uint32_t, GroupKeyHash> group_of_;
  std::vector<uint32_t> event_access_;                // per trace event: its access, kNone
  std::vector<std::pair<uint32_t, uint32_t>> extra_;  // (event, access) from attach()
};

// One lane of access `a`: event `e`'s address and width; of a merged access,
// the whole aligned chunk (a.bytes) its element lies in.
LaneAccess lane_access(const Trace& t, const Event& e, const WarpAccess& a);

}  // namespace ts::grouping
