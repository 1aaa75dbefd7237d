#include "app/core/warp_index.hpp"

#include <algorithm>
#include <map>
#include <tuple>

namespace ts::app {

namespace {

// Per-element costs are kept up to this many elements in all (shared arrays
// count once per block): 64 Mi x 4 bytes, a few hundred MB at most.
constexpr uint64_t kMaxCostElements = uint64_t(1) << 26;

}  // namespace

int32_t WarpIndex::current(const Replay& r, bool* earlier) const {
  if (earlier) *earlier = false;
  for (uint64_t p = r.position(); p > 0; --p) {
    const uint32_t e = r.event_at(p);
    if (e < access_of.size() && access_of[e] >= 0) {
      if (earlier) *earlier = p != r.position();
      return access_of[e];
    }
  }
  return -1;
}

const ArrayContention* WarpIndex::contention_of(ArraySlot array) const {
  for (const ArrayContention& a : contention.arrays)
    if (a.array == array) return &a;
  return nullptr;
}

uint64_t WarpIndex::most_atomics_of(ArraySlot array) const {
  for (size_t i = 0; i < contention.arrays.size() && i < most_atomics.size(); ++i)
    if (contention.arrays[i].array == array) return most_atomics[i];
  return 0;
}

int32_t WarpIndex::current_shuffle(const Replay& r, bool* earlier) const {
  if (earlier) *earlier = false;
  if (shuffles.empty()) return -1;
  for (uint64_t p = r.position(); p > 0; --p) {
    const uint32_t e = r.event_at(p);
    if (e < access_of.size() && access_of[e] >= 0) return -1;
    const auto it = std::lower_bound(shuffle_of.begin(), shuffle_of.end(), std::pair(e, 0u));
    if (it != shuffle_of.end() && it->first == e) {
      if (earlier) *earlier = p != r.position();
      return int32_t(it->second);
    }
  }
  return -1;
}

namespace {

// Shuffles as warp instructions: the k-th shuffle of each lane on a line
// belongs with the k-th of the other lanes of its warp.
void group_shuffles(const Trace& t, WarpIndex& w) {
  std::map<std::tuple<uint32_t, uint32_t, uint16_t>, uint32_t> next_k;  // (block, thread, line)
  std::map<std::tuple<uint32_t, uint32_t, uint16_t, uint32_t>, uint32_t> group;
  std::vector<std::vector<uint32_t>> lanes;
  for (size_t i = 0; i < t.events.size(); ++i) {
    const Event& e = t.events[i];
    if (e.kind != EventKind::WarpShuffle) continue;
    const uint32_t k = next_k[{e.block, e.thread, e.line}]++;
    const auto [g, fresh] =
        group.try_emplace({e.block, warp_of(e), e.line, k}, uint32_t(w.shuffles.size()));
    if (fresh) {
      w.shuffles.push_back({e.block, uint16_t(warp_of(e)), e.line, 0, 0});
      lanes.emplace_back();
    }
    lanes[g->second].push_back(uint32_t(i));
    w.shuffle_of.push_back({uint32_t(i), g->second});
  }
  for (size_t s = 0; s < w.shuffles.size(); ++s) {
    std::sort(lanes[s].begin(), lanes[s].end(),
              [&](uint32_t x, uint32_t y) { return t.events[x].thread < t.events[y].thread; });
    w.shuffles[s].lanes_begin = uint32_t(w.shuffle_lanes.size());
    w.shuffles[s].lane_count = uint8_t(std::min<size_t>(lanes[s].size(), kWarpLanes));
    w.shuffle_lanes.insert(w.shuffle_lanes.end(), lanes[s].begin(),
                           lanes[s].begin() + w.shuffles[s].lane_count);
  }
  std::sort(w.shuffle_of.begin(), w.shuffle_of.end());
}

}  // namespace

std::shared_ptr<const WarpIndex> build_warp_index(const Trace& t) {
  auto w = std::make_shared<WarpIndex>();
  AccessLevels levels = access_levels(t);
  w->accesses = std::move(levels.source);
  w->compiled = std::move(levels.compiled);
  w->code = levels.code;
  w->why_source = std::move(levels.why_source);
  w->access_of.assign(t.events.size(), -1);
  for (size_t i = 0; i < w->accesses.accesses.size(); ++i)
    for (uint32_t e : w->accesses.lanes_of(w->accesses.accesses[i]))
      w->access_of[e] = int32_t(i);
  group_shuffles(t, *w);
  if (std::any_of(t.events.begin(), t.events.end(),
                  [](const Event& e) { return is_atomic(e.kind); })) {
    w->contention = atomic_contention(t);
    for (const ArrayContention& a : w->contention.arrays) {
      uint64_t most = 0;
      for (const ElementContention& e : a.elements)
        most = std::max(most, e.atomics);
      w->most_atomics.push_back(most);
    }
  }

  const ArrayTable& table = t.config.arrays;
  const Dim3 g = t.config.geometry.grid;
  const uint64_t blocks = uint64_t(std::max(1u, g.x)) * std::max(1u, g.y) * std::max(1u, g.z);
  uint64_t total = 0;
  for (const ArrayInfo& a : table)
    total += a.shared() ? a.count() * blocks : a.count();
  if (total > kMaxCostElements) return w;
  w->cost.resize(table.size() + 1);
  for (size_t i = 0; i < table.size(); ++i) {
    WarpIndex::Cost& c = w->cost[i + 1];
    const size_t n = size_t(table[i].shared() ? table[i].count() * blocks : table[i].count());
    c.requests.assign(n, 0);
    (table[i].shared() ? c.extra_wavefronts : c.sectors).assign(n, 0);
  }
  std::vector<uint64_t> elements;  // of one access, each once
  for (const WarpAccess& a : w->accesses.accesses) {
    const ArrayInfo* info = t.array(a.array);
    if (!info || a.array >= w->cost.size()) continue;
    elements.clear();
    for (uint32_t e : w->accesses.lanes_of(a))
      if (t.events[e].element < info->count())
        elements.push_back(info->shared() ? uint64_t(a.block) * info->count() + t.events[e].element
                                          : t.events[e].element);
    std::sort(elements.begin(), elements.end());
    elements.erase(std::unique(elements.begin(), elements.end()), elements.end());
    WarpIndex::Cost& c = w->cost[a.array];
    for (uint64_t el : elements) {
      if (el >= c.requests.size()) continue;
      ++c.requests[el];
      if (info->shared()) {
        c.extra_wavefronts[el] += uint32_t(std::max(0, a.bank.conflicts()));
        w->max_extra_wavefronts = std::max(w->max_extra_wavefronts, c.extra_wavefronts[el]);
      } else {
        c.sectors[el] += uint32_t(a.sector.sectors);
      }
    }
  }
  return w;
}

void AccessStops::refresh(const std::shared_ptr<const WarpIndex>& index, const Replay& r) {
  if (built_for_ == index && replay_ == &r && order_ == r.order()) return;
  built_for_ = index;
  const WarpIndex& w = *index;
  replay_ = &r;
  order_ = r.order();
  at_.clear();
  at_.reserve(w.accesses.accesses.size());
  for (const WarpAccess& a : w.accesses.accesses) {
    uint64_t last = 0;
    for (uint32_t e : w.accesses.lanes_of(a))
      last = std::max(last, r.position_after(e));
    at_.push_back(last);
  }
  std::sort(at_.begin(), at_.end());
  at_.erase(std::unique(at_.begin(), at_.end()), at_.end());
}

uint64_t AccessStops::step(const std::shared_ptr<const WarpIndex>& w, const Replay& r,
                           uint64_t from, bool forward) {
  refresh(w, r);
  if (forward) {
    const auto it = std::upper_bound(at_.begin(), at_.end(), from);
    return it == at_.end() ? r.size() : *it;
  }
  const auto it = std::lower_bound(at_.begin(), at_.end(), from);
  return it == at_.begin() ? 0 : *std::prev(it);
}

uint64_t AccessStops::nth(const std::shared_ptr<const WarpIndex>& w, const Replay& r, uint64_t n) {
  refresh(w, r);
  return n >= 1 && n <= at_.size() ? at_[size_t(n - 1)] : r.size();
}

}  // namespace ts::app
