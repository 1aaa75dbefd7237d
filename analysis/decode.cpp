// Decoding a trace into per-thread streams, barrier instances and phases.
#include "analysis/decode.hpp"

#include <algorithm>

namespace ts {

const BlockStreams* DecodedTrace::find_block(uint32_t block) const {
  auto it = std::lower_bound(blocks.begin(), blocks.end(), block,
                             [](const BlockStreams& b, uint32_t id) { return b.block < id; });
  return it != blocks.end() && it->block == block ? &*it : nullptr;
}

DecodedTrace decode(const Trace& t) {
  DecodedTrace d;
  const auto& ev = t.events;
  d.event_interval.assign(ev.size(), 0);

  // Blocks present, ascending. An event's block slot comes from a dense table
  // when the grid is of a sane size, else from a binary search.
  std::vector<uint32_t> ids;
  for (const Event& e : ev)
    if (ids.empty() || ids.back() != e.block) ids.push_back(e.block);
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  const uint32_t max_block = ids.empty() ? 0 : ids.back();
  std::vector<uint32_t> dense;
  if (max_block < (1u << 22)) {
    dense.assign(size_t(max_block) + 1, 0);
    for (size_t s = 0; s < ids.size(); ++s)
      dense[ids[s]] = uint32_t(s);
  }
  auto slot_of = [&](uint32_t block) -> size_t {
    if (!dense.empty()) return dense[block];
    return size_t(std::lower_bound(ids.begin(), ids.end(), block) - ids.begin());
  };

  // Events per (block, thread), to size every stream once. Threads per block:
  // the launch's, or more if the events say so (a hand-built trace need not
  // carry its geometry).
  std::vector<std::vector<uint32_t>> per_thread(ids.size());
  std::vector<uint32_t> slot(ev.size());
  for (size_t i = 0; i < ev.size(); ++i) {
    const Event& e = ev[i];
    const size_t s = slot_of(e.block);
    slot[i] = uint32_t(s);
    auto& counts = per_thread[s];
    if (counts.size() <= e.thread) counts.resize(size_t(e.thread) + 1, 0);
    ++counts[e.thread];
  }
  const uint32_t launch_threads =
      uint32_t(std::min<uint64_t>(t.config.geometry.block.count(), 65536));
  d.blocks.resize(ids.size());
  for (size_t s = 0; s < ids.size(); ++s) {
    BlockStreams& b = d.blocks[s];
    b.block = ids[s];
    b.threads = std::max<uint32_t>(launch_threads, uint32_t(per_thread[s].size()));
    b.thread_events.resize(b.threads);
    for (size_t th = 0; th < per_thread[s].size(); ++th)
      b.thread_events[th].reserve(per_thread[s][th]);
  }

  // Streams. Trace::events holds each thread's events in its program order,
  // so a stable split by (block, thread) keeps it.
  for (uint32_t i = 0; i < ev.size(); ++i)
    d.blocks[slot[i]].thread_events[ev[i].thread].push_back(i);

  // Barrier instances and intervals, one thread at a time.
  for (BlockStreams& b : d.blocks) {
    size_t most = 0, fewest = SIZE_MAX;
    for (const auto& stream : b.thread_events) {
      if (stream.empty()) continue;
      uint32_t arrived = 0, left = 0;
      for (uint32_t i : stream) {
        const Event& e = ev[i];
        ++b.events;
        // A __syncwarp (warp-scope) is not an instance of the block's barrier.
        const bool warp_scope = e.flags & kFlagWarpScope;
        if (e.kind == EventKind::BarrierArrive && !warp_scope) {
          if (b.barriers.size() <= arrived) b.barriers.resize(arrived + 1);
          BarrierInstance& inst = b.barriers[arrived];
          if (inst.arrivals == 0) {
            inst.barrier = e.barrier;
            inst.line = e.line;
          } else if (inst.barrier != e.barrier) {
            inst.consistent = false;
          }
          ++inst.arrivals;
          inst.first_arrive = std::min(inst.first_arrive, event_time(e));
          inst.last_arrive = std::max(inst.last_arrive, event_time(e));
          d.event_interval[i] = left;  // the arrival closes the current interval
          ++arrived;
        } else if (e.kind == EventKind::BarrierLeave && !warp_scope) {
          if (b.barriers.size() <= left) b.barriers.resize(left + 1);
          BarrierInstance& inst = b.barriers[left];
          if (inst.arrivals == 0 && inst.leaves == 0) {
            inst.barrier = e.barrier;
            inst.line = e.line;
          }
          ++inst.leaves;
          inst.first_leave = std::min(inst.first_leave, event_time(e));
          inst.last_leave = std::max(inst.last_leave, event_time(e));
          ++left;
          d.event_interval[i] = left;  // the leaving opens the next one
        } else {
          d.event_interval[i] = left;
        }
      }
      most = std::max<size_t>(most, std::max(arrived, left));
      fewest = std::min<size_t>(fewest, std::min(arrived, left));
    }
    b.balanced = fewest == SIZE_MAX || fewest == most;

    b.phases.resize(b.barriers.size() + 1);
    for (size_t p = 0; p < b.phases.size(); ++p) {
      Phase& ph = b.phases[p];
      ph.index = uint32_t(p);
      ph.opened_by = p == 0 ? 0 : b.barriers[p - 1].barrier;
      ph.closed_by = p < b.barriers.size() ? b.barriers[p].barrier : 0;
    }
    for (const auto& stream : b.thread_events)
      for (uint32_t i : stream) {
        Phase& ph = b.phases[d.event_interval[i]];
        const Event& e = ev[i];
        ++ph.events;
        if (uint8_t(e.kind) < kEventKindCount) ++ph.per_kind[uint8_t(e.kind)];
        ph.begin = std::min(ph.begin, event_time(e));
        ph.end = std::max(ph.end, event_time(e));
      }
    d.max_phases = std::max<uint32_t>(d.max_phases, uint32_t(b.phases.size()));
  }
  return d;
}

}  // namespace ts
