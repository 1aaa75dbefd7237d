// Placing lane accesses in their threads' runs, and building warp
// instructions from groups of lanes (analysis/warp_grouping.hpp).
#include "analysis/warp_grouping.hpp"

#include <algorithm>
#include <limits>
#include <tuple>

namespace ts::grouping {
namespace {

bool is_access(EventKind k) {
  return is_load(k) || is_store(k) || is_atomic(k);
}

// The site an event counts as, for anchors: an access (its leading event),
// a barrier arrival (by barrier number) or a shuffle; kNone for the rest.
uint32_t anchor_site(const Event& e) {
  if (is_access(e.kind)) return leads_access(e) ? site_code(e.line, e.kind, e.array) : kNone;
  if (e.kind == EventKind::BarrierArrive) return site_code(e.line, e.kind, e.barrier);
  if (e.kind == EventKind::WarpShuffle) return site_code(e.line, e.kind, 0);
  return kNone;
}

uint64_t thread_key(const Event& e) {
  return uint64_t(e.block) << 16 | e.thread;
}
uint64_t warp_key(const Event& e) {
  return uint64_t(e.block) << 16 | warp_of(e);
}

// How a site's runs spread over the lanes of one warp.
struct Spread {
  uint32_t lanes = 0, least = std::numeric_limits<uint32_t>::max(), most = 0;
};

}  // namespace

LaneAccess lane_access(const Trace& t, const Event& e, const WarpAccess& a) {
  LaneAccess l;
  l.lane = int(e.thread % kWarpLanes);
  const ArrayInfo* info = t.array(e.array);
  l.bytes = lane_bytes(e, info);
  if (info) l.address = byte_address(*info, e.element);
  if (a.merged > 1) {
    l.bytes = a.bytes;
    l.address -= l.address % uint64_t(a.bytes);
  }
  return l;
}

Placer::Placer(const Trace& t) : t_(t) {
  const std::vector<Event>& ev = t.events;
  std::unordered_map<uint32_t, uint32_t> index_of;  // site code -> site index (< 65536 used)
  // Per event: its site's index (kNoSite: none), 2 bytes an event.
  constexpr uint16_t kNoSite = 0xFFFFu;
  std::vector<uint16_t> site_of(ev.size(), kNoSite);
  for (size_t i = 0; i < ev.size(); ++i)
    if (const uint32_t code = anchor_site(ev[i]); code != kNone) {
      const uint32_t index = index_of.try_emplace(code, uint32_t(index_of.size())).first->second;
      if (index < kNoSite) site_of[i] = uint16_t(index);
    }
  const auto key = [](const Event& e, uint32_t site) { return thread_key(e) << 16 | site; };

  // Pass 1: how often each thread runs each site; its last phase.
  struct SiteRun {
    uint32_t total = 0, count = 0, epoch = kNone, since = 0;
  };
  std::unordered_map<uint64_t, SiteRun> runs;  // (thread, site index)
  struct Thread {
    uint32_t phase = 0, anchor = kNone, anchor_count = 0, epoch = 0;
  };
  std::unordered_map<uint64_t, Thread> threads;
  for (size_t i = 0; i < ev.size(); ++i) {
    Thread& th = threads[thread_key(ev[i])];
    if (ev[i].kind == EventKind::BarrierArrive && !(ev[i].flags & kFlagWarpScope)) ++th.phase;
    if (site_of[i] != kNoSite) ++runs[key(ev[i], site_of[i])].total;
  }
  std::unordered_map<uint64_t, uint32_t> active;  // warp -> lanes with an event
  for (auto& [k, th] : threads) {
    const uint64_t warp = (k >> 16) << 16 | (k & 0xFFFFu) / kWarpLanes;
    active[warp] |= 1u << ((k & 0xFFFFu) % kWarpLanes);
    uint32_t& last = last_phase_[warp];
    last = std::max(last, th.phase);
    th.phase = 0;
  }
  for (const auto& [w, lanes] : active)
    warps_.push_back({uint32_t(w >> 16), uint16_t(w & 0xFFFFu)});
  std::sort(warps_.begin(), warps_.end());
  // A site is uniform in a warp when every lane with an event runs it equally often.
  std::unordered_map<uint64_t, Spread> spread;  // (warp, site index)
  for (const auto& [k, r] : runs) {
    const uint64_t thread = k >> 16;
    Spread& sp =
        spread[(thread >> 16) << 32 | (thread & 0xFFFFu) / kWarpLanes << 16 | (k & 0xFFFFu)];
    ++sp.lanes;
    sp.least = std::min(sp.least, r.total);
    sp.most = std::max(sp.most, r.total);
  }
  std::unordered_map<uint64_t, bool> uniform;
  for (const auto& [k, sp] : spread)
    uniform[k] = sp.least == sp.most && sp.lanes == uint32_t(__builtin_popcount(active[k >> 16]));
  std::vector<uint32_t> codes(index_of.size());
  for (const auto& [code, i] : index_of)
    codes[i] = code;

  // Pass 2: each access placed after its thread's latest uniform event; the
  // instance (anchor, its count, since) numbered.
  struct Instance {
    uint32_t anchor, count, since;
    bool operator==(const Instance&) const = default;
  };
  struct InstanceHash {
    size_t operator()(const Instance& x) const {
      return size_t((uint64_t(x.anchor) * 0x9E3779B97F4A7C15ull) ^ (uint64_t(x.count) << 20) ^
                    x.since);
    }
  };
  std::unordered_map<Instance, uint32_t, InstanceHash> slots;
  for (size_t i = 0; i < ev.size(); ++i) {
    const Event& e = ev[i];
    Thread& th = threads[thread_key(e)];
    if (e.kind == EventKind::BarrierArrive && !(e.flags & kFlagWarpScope)) ++th.phase;
    if (site_of[i] == kNoSite) {
      // Past 65535 sites (no kernel has so many): one instance per access.
      if (anchor_site(e) != kNone && is_access(e.kind))
        places_.push_back({th.phase, kNone - uint32_t(places_.size() % 1024), 0});
      continue;
    }
    SiteRun& r = runs[key(e, site_of[i])];
    const uint32_t k = r.count++;
    if (uniform[uint64_t(e.block) << 32 | uint64_t(warp_of(e)) << 16 | site_of[i]]) {
      th.anchor = codes[site_of[i]], th.anchor_count = r.count;
      ++th.epoch;
    }
    if (!is_access(e.kind)) continue;
    r.since = r.epoch == th.epoch ? r.since + 1 : 0;
    r.epoch = th.epoch;
    const Instance in{th.anchor, th.anchor_count, r.since};
    const uint32_t slot = slots.try_emplace(in, uint32_t(slots.size())).first->second;
    places_.push_back({th.phase, slot, k});
  }
}

int64_t Placer::last_phase(uint32_t block, uint16_t warp) const {
  const auto it = last_phase_.find(uint64_t(block) << 16 | warp);
  return it == last_phase_.end() ? -1 : int64_t(it->second);
}

GroupBuilder::GroupBuilder(const Trace& t, AccessLevel level)
    : t_(t), event_access_(t.events.size(), kNone) {
  w_.level = level;
  w_.partial = t.truncated();
}

uint32_t GroupBuilder::add(const GroupKey& key, uint32_t event, const WarpAccess& header) {
  const auto [it, fresh] = group_of_.try_emplace(key, uint32_t(w_.accesses.size()));
  if (fresh) {
    WarpAccess a = header;
    a.lane_mask = 0, a.lane_count = 0;
    w_.accesses.push_back(a);
  }
  WarpAccess& a = w_.accesses[it->second];
  const Event& e = t_.events[event];
  a.lane_mask |= 1u << (e.thread % kWarpLanes);
  if (a.lane_count < 255) ++a.lane_count;
  a.bytes = uint8_t(std::max<int>(a.bytes, access_bytes(e.flags)));
  event_access_[event] = it->second;
  return it->second;
}

WarpAccesses GroupBuilder::finish() {
  const std::vector<Event>& ev = t_.events;
  // Each access's lanes, contiguous and in lane order.
  uint32_t begin = 0;
  for (WarpAccess& a : w_.accesses)
    a.lanes_begin = begin, begin += a.lane_count;
  w_.lane_events.resize(begin);
  std::vector<uint32_t> fill(w_.accesses.size(), 0);
  for (size_t i = 0; i < ev.size(); ++i)
    if (const uint32_t a = event_access_[i]; a != kNone)
      w_.lane_events[w_.accesses[a].lanes_begin + fill[a]++] = uint32_t(i);
  std::vector<LaneAccess> lanes;
  std::unordered_map<uint32_t, uint32_t> site_index;
  std::vector<SiteTotals> sites;
  const auto count = [&](const WarpAccess& a) {
    (a.constant ? w_.constant_loads : w_.per_kind[size_t(a.kind)]).add(a);
    const uint32_t code = site_code(a.line, a.kind, a.array);
    const auto [s, fresh] = site_index.try_emplace(code, uint32_t(sites.size()));
    if (fresh) sites.push_back({a.line, a.kind, a.array, {}});
    sites[s->second].totals.add(a);
  };
  for (WarpAccess& a : w_.accesses) {
    uint32_t* first = w_.lane_events.data() + a.lanes_begin;
    std::sort(first, first + a.lane_count,
              [&](uint32_t x, uint32_t y) { return ev[x].thread < ev[y].thread; });
    lanes.clear();
    for (uint32_t i = 0; i < a.lane_count; ++i)
      lanes.push_back(lane_access(t_, ev[first[i]], a));
    if (a.constant)
      a.constant_addresses = distinct_addresses(lanes);
    else if (shared_access(a.kind))
      a.bank = serve_shared(lanes, a.kind);
    else
      a.sector = serve_global(lanes, a.kind);
    count(a);
  }
  std::sort(sites.begin(), sites.end(), [](const SiteTotals& x, const SiteTotals& y) {
    return std::tie(x.line, x.kind, x.array) < std::tie(y.line, y.kind, y.array);
  });
  w_.per_site = std::move(sites);
  return std::move(w_);
}

}  // namespace ts::grouping
