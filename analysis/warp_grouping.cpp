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
  l.bytes = access_bytes(e.flags);
  if (const ArrayInfo* info = t.array(e.array)) l.address = byte_address(*info, e.element);
  if (a.merged > 1) {
    l.bytes = a.bytes;
    l.address -= l.address % uint64_t(a.bytes);
  }
  return l;
}

Placer::Placer(const Trace& t) : t_(t) {
  const std::vector<Event>& ev = t.events;
  const auto index = [&](uint32_t code) {
    const auto [it, fresh] = index_of_.try_emplace(code, uint32_t(codes_.size()));
    if (fresh) codes_.push_back(code);
    return it->second;
  };
  // How often each thread runs each site; which lanes of a warp have events;
  // the phase each warp reaches.
  std::unordered_map<uint64_t, uint32_t> runs;   // (thread, site index) -> runs
  std::unordered_map<uint64_t, uint32_t> phase;  // thread -> block barriers so far
  for (const Event& e : ev) {
    active_[warp_key(e)] |= 1u << (e.thread % kWarpLanes);
    uint32_t& p = phase[thread_key(e)];
    if (e.kind == EventKind::BarrierArrive && !(e.flags & kFlagWarpScope)) ++p;
    uint32_t& last = last_phase_[warp_key(e)];
    last = std::max(last, p);
    if (const uint32_t code = anchor_site(e); code != kNone)
      ++runs[thread_key(e) << 16 | (index(code) & 0xFFFFu)];
  }
  // A site is uniform in a warp when every lane with an event runs it equally often.
  std::unordered_map<uint64_t, Spread> spread;  // (warp, site index) -> spread
  for (const auto& [k, n] : runs) {
    const uint64_t thread = k >> 16;
    Spread& s =
        spread[(thread >> 16) << 32 | (thread & 0xFFFFu) / kWarpLanes << 16 | (k & 0xFFFFu)];
    ++s.lanes;
    s.least = std::min(s.least, n);
    s.most = std::max(s.most, n);
  }
  for (const auto& [k, s] : spread) {
    const auto lanes = active_.find(k >> 16);
    if (s.least == s.most && lanes != active_.end() &&
        s.lanes == uint32_t(__builtin_popcount(lanes->second)))
      uniform_[k] = 1;
  }
}

bool Placer::uniform(const Event& e, uint32_t site_index) const {
  return uniform_.count(uint64_t(e.block) << 32 | uint64_t(warp_of(e)) << 16 |
                        (site_index & 0xFFFFu)) != 0;
}

int64_t Placer::last_phase(uint32_t block, uint16_t warp) const {
  const auto it = last_phase_.find(uint64_t(block) << 16 | warp);
  return it == last_phase_.end() ? -1 : int64_t(it->second);
}

std::vector<std::pair<uint32_t, uint16_t>> Placer::warps() const {
  std::vector<std::pair<uint32_t, uint16_t>> out;
  for (const auto& [k, lanes] : active_)
    out.push_back({uint32_t(k >> 16), uint16_t(k & 0xFFFFu)});
  std::sort(out.begin(), out.end());
  return out;
}

void Placer::for_each(const std::function<void(const Place&)>& f) const {
  struct Thread {
    uint32_t phase = 0, anchor = kNone, anchor_count = 0, epoch = 0;
  };
  struct SiteRun {
    uint32_t count = 0, epoch = kNone, since = 0;
  };
  std::unordered_map<uint64_t, Thread> threads;
  std::unordered_map<uint64_t, SiteRun> site_runs;  // (thread, site index) -> its run so far
  const std::vector<Event>& ev = t_.events;
  for (size_t i = 0; i < ev.size(); ++i) {
    const Event& e = ev[i];
    Thread& th = threads[thread_key(e)];
    if (e.kind == EventKind::BarrierArrive && !(e.flags & kFlagWarpScope)) ++th.phase;
    const uint32_t code = anchor_site(e);
    if (code == kNone) continue;
    const uint32_t index = index_of_.at(code);
    SiteRun& r = site_runs[thread_key(e) << 16 | (index & 0xFFFFu)];
    const uint32_t k = r.count++;
    if (uniform(e, index)) {
      th.anchor = code, th.anchor_count = r.count;
      ++th.epoch;
    }
    if (!is_access(e.kind)) continue;
    r.since = r.epoch == th.epoch ? r.since + 1 : 0;
    r.epoch = th.epoch;
    Place p;
    p.event = uint32_t(i);
    p.site = code;
    p.phase = th.phase;
    p.anchor = th.anchor;
    p.anchor_count = th.anchor_count;
    p.since = r.since;
    p.k = k;
    f(p);
  }
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

void GroupBuilder::attach(uint32_t event, uint32_t access) {
  extra_.push_back({event, access});
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
  // The other elements of wide accesses map to their access too.
  w_.access_of_event = std::move(event_access_);
  for (const auto& [event, access] : extra_)
    w_.access_of_event[event] = access;
  std::unordered_map<uint64_t, uint32_t> last_of_thread;
  for (size_t i = 0; i < ev.size(); ++i) {
    const Event& e = ev[i];
    if (!is_access(e.kind)) continue;
    if (leads_access(e)) {
      last_of_thread[thread_key(e)] = w_.access_of_event[i];
    } else if (w_.access_of_event[i] == kNone) {
      const auto it = last_of_thread.find(thread_key(e));
      if (it != last_of_thread.end()) w_.access_of_event[i] = it->second;
    }
  }

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
